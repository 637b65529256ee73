#include "backends/native/layer_norm.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;

class LayerNormTest : public PerTargetTest {};
TORCHIR_INSTANTIATE_PER_TARGET(LayerNormTest);

struct Case {
  size_t rows, cols;
  float offset, scale;  // inputs offset + scale * uniform(-1, 1)
  bool weight, bias, in_place;
  size_t threads;
};

// Compares with the statistics and the normalisation in double. The bound, per element of row r:
// the mean is a sum of cols floats in at most k = cols / 4 + 64 sequential additions per
// accumulator and lane (4 accumulators, then the lanes and the scalar tail), so its error is
// below dm = k u mean|x|; the variance, summed the same way from centred values, is off by a
// relative k u plus what dm does to the centring, 2 dm / std; so
//   |y - exact| <= dm rstd |w| + (k u + 2 dm rstd) |y - b| + 4 u (|y| + |b|),
// allowed twice.
void ExpectLayerNormMatches(const Case& c, uint32_t seed) {
  SCOPED_TRACE("rows=" + std::to_string(c.rows) + " cols=" + std::to_string(c.cols) +
               " offset=" + std::to_string(c.offset) + " threads=" + std::to_string(c.threads) +
               (c.in_place ? " in place" : ""));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> input(c.rows * c.cols), weight(c.cols), bias(c.cols);
  for (float& v : input) v = c.offset + c.scale * uniform(rng);
  for (float& v : weight) v = 1.0f + uniform(rng);
  for (float& v : bias) v = uniform(rng);
  const float epsilon = 1e-5f;
  std::vector<float> output(input.size(), 12345.0f);
  if (c.in_place) output = input;
  pthreadpool_t pool = c.threads > 1 ? pthreadpool_create(c.threads) : nullptr;
  ASSERT_EQ(LayerNorm(c.rows, c.cols, c.in_place ? output.data() : input.data(),
                      c.weight ? weight.data() : nullptr, c.bias ? bias.data() : nullptr, epsilon,
                      output.data(), pool),
            Error::kOk);
  if (pool != nullptr) pthreadpool_destroy(pool);
  const double u = std::numeric_limits<float>::epsilon() / 2;
  const double k = static_cast<double>(c.cols) / 4 + 64;
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = input.data() + r * c.cols;
    double sum = 0.0, sum_abs = 0.0;
    for (size_t i = 0; i < c.cols; ++i) {
      sum += x[i];
      sum_abs += std::fabs(x[i]);
    }
    const double mean = sum / c.cols;
    double squares = 0.0;
    for (size_t i = 0; i < c.cols; ++i) squares += (x[i] - mean) * (x[i] - mean);
    const double rstd = 1.0 / std::sqrt(squares / c.cols + epsilon);
    const double dm = k * u * sum_abs / c.cols;
    for (size_t i = 0; i < c.cols; ++i) {
      const double w = c.weight ? weight[i] : 1.0;
      const double b = c.bias ? bias[i] : 0.0;
      const double normalized = (x[i] - mean) * rstd * w;
      const double expected = normalized + b;
      const double bound =
          2 * (dm * rstd * std::fabs(w) + (k * u + 2 * dm * rstd) * std::fabs(normalized) +
               4 * u * (std::fabs(expected) + std::fabs(b)));
      ASSERT_NEAR(output[r * c.cols + i], expected, bound) << "row " << r << " col " << i;
    }
  }
}

// Row lengths around every target's vector and 4-vector blocks (tails of 1..lanes-1 floats),
// gpt_small's 256 and a long 1000; with and without weight and bias; inputs far from zero
// (offset 1000: the centring must come before the squares); in place; rows shared among threads.
TEST_P(LayerNormTest, MatchesDoubleReference) {
  uint32_t seed = 1;
  for (size_t cols : {1, 3, 4, 15, 16, 17, 63, 64, 65, 256, 1000}) {
    ExpectLayerNormMatches({5, cols, 0.0f, 1.0f, true, true, false, 1}, seed++);
    ExpectLayerNormMatches({3, cols, 1000.0f, 1.0f, true, false, false, 1}, seed++);
    ExpectLayerNormMatches({2, cols, -0.5f, 1e-3f, false, true, false, 1}, seed++);
    ExpectLayerNormMatches({4, cols, 2.0f, 3.0f, false, false, true, 1}, seed++);
    if (HasFailure()) return;
  }
  for (size_t threads : {2, 3}) {
    ExpectLayerNormMatches({128, 256, 0.5f, 2.0f, true, true, false, threads}, seed++);
    ExpectLayerNormMatches({7, 33, 0.0f, 1.0f, true, true, true, threads}, seed++);
  }
}

// A constant row has variance 0: the output is the bias (epsilon keeps rstd finite).
TEST_P(LayerNormTest, ConstantRowGivesTheBias) {
  std::vector<float> input(40, 3.5f), weight(40, 2.0f), bias(40), output(40);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i);
  ASSERT_EQ(LayerNorm(1, 40, input.data(), weight.data(), bias.data(), 1e-5f, output.data()),
            Error::kOk);
  for (size_t i = 0; i < output.size(); ++i) EXPECT_EQ(output[i], bias[i]) << i;
}

TEST_P(LayerNormTest, RefusesBadArguments) {
  std::vector<float> input(8, 1.0f), output(8, 7.0f);
  EXPECT_EQ(LayerNorm(0, 8, input.data(), nullptr, nullptr, 1e-5f, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(LayerNorm(1, 0, input.data(), nullptr, nullptr, 1e-5f, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(LayerNorm(1, 8, nullptr, nullptr, nullptr, 1e-5f, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(LayerNorm(1, 8, input.data(), nullptr, nullptr, 1e-5f, nullptr),
            Error::kInvalidArgument);
  EXPECT_EQ(LayerNorm(1, 8, input.data(), nullptr, nullptr, -1.0f, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(LayerNorm(1, 8, input.data(), nullptr, nullptr, std::nanf(""), output.data()),
            Error::kInvalidArgument);
  for (float v : output) EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace torchir::native
