#include "backends/native/softmax.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;

class SoftmaxTest : public PerTargetTest {};
TORCHIR_INSTANTIATE_PER_TARGET(SoftmaxTest);

struct Case {
  size_t rows, cols;
  float scale;
  float range;       // inputs uniform(-range, range)
  size_t mask_rows;  // 0: no mask; else each row r reads mask row r % mask_rows
  bool in_place;
  size_t threads;
};

// Compares with the softmax computed in double from the same float inputs. The bound, per
// element: v = scale * x rounds once (relative u, so e^v is off by u |v|), v - max once more
// (u |v - max|), the exponential by at most 1.5e-7 (activation-inl.h), so
//   eps_i = 1.5e-7 + u (|v_i| + |v_i - max|);
// the sum of e is off by max eps + k u relative (k = cols / 8 + 32 sequential additions per
// lane and accumulator, then the lanes), the reciprocal and the product by 2 u; so
//   |p_i - exact| <= (eps_i + max eps + k u + 2 u) exact_i, allowed twice.
void ExpectSoftmaxMatches(const Case& c, uint32_t seed) {
  SCOPED_TRACE("rows=" + std::to_string(c.rows) + " cols=" + std::to_string(c.cols) +
               " scale=" + std::to_string(c.scale) + " mask_rows=" + std::to_string(c.mask_rows) +
               " threads=" + std::to_string(c.threads) + (c.in_place ? " in place" : ""));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-c.range, c.range);
  std::vector<float> input(c.rows * c.cols);
  for (float& v : input) v = uniform(rng);
  // A causal mask's pattern (column above the row masked) XOR a few random bits, with the first
  // column of every row left unmasked so no row is masked whole.
  std::vector<uint8_t> mask(c.mask_rows * c.cols);
  for (size_t r = 0; r < c.mask_rows; ++r) {
    for (size_t i = 1; i < c.cols; ++i) mask[r * c.cols + i] = (i > r) ^ (rng() % 7 == 0);
  }
  const float fill = -std::numeric_limits<float>::infinity();
  std::vector<float> output(input.size(), 12345.0f);
  if (c.in_place) output = input;
  pthreadpool_t pool = c.threads > 1 ? pthreadpool_create(c.threads) : nullptr;
  ASSERT_EQ(
      Softmax(c.rows, c.cols, c.in_place ? output.data() : input.data(), c.scale,
              c.mask_rows != 0 ? mask.data() : nullptr, c.mask_rows, fill, output.data(), pool),
      Error::kOk);
  if (pool != nullptr) pthreadpool_destroy(pool);
  const double u = std::numeric_limits<float>::epsilon() / 2;
  const double k = static_cast<double>(c.cols) / 8 + 32;
  std::vector<double> v(c.cols), eps(c.cols);
  for (size_t r = 0; r < c.rows; ++r) {
    const uint8_t* row_mask = c.mask_rows != 0 ? mask.data() + (r % c.mask_rows) * c.cols : nullptr;
    double max = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < c.cols; ++i) {
      const bool masked = row_mask != nullptr && row_mask[i] != 0;
      v[i] = masked ? -std::numeric_limits<double>::infinity()
                    : static_cast<double>(c.scale) * input[r * c.cols + i];
      max = std::max(max, v[i]);
    }
    double sum = 0.0, max_eps = 0.0;
    for (size_t i = 0; i < c.cols; ++i) {
      sum += std::exp(v[i] - max);
      eps[i] = std::isinf(v[i]) ? 0.0 : 1.5e-7 + u * (std::fabs(v[i]) + std::fabs(v[i] - max));
      max_eps = std::max(max_eps, eps[i]);
    }
    for (size_t i = 0; i < c.cols; ++i) {
      const double expected = std::exp(v[i] - max) / sum;
      const double bound = 2 * (eps[i] + max_eps + k * u + 2 * u) * expected;
      const float got = output[r * c.cols + i];
      if (std::isinf(v[i])) {
        ASSERT_EQ(got, 0.0f) << "masked: row " << r << " col " << i;
      } else {
        ASSERT_NEAR(got, expected, bound) << "row " << r << " col " << i;
      }
    }
  }
}

// Row lengths around every target's vector and 2-vector blocks (tails of 1..lanes-1 floats),
// attention's 128 and a long 1000; positive, fractional and negative scales (a negative one
// makes the row's maximum come from its smallest input); causal-like masks shared by every row
// period (mask_rows < rows) or one per row; in place; rows shared among threads.
TEST_P(SoftmaxTest, MatchesDoubleReference) {
  uint32_t seed = 1;
  for (size_t cols : {1, 3, 4, 15, 16, 17, 31, 32, 33, 64, 128, 1000}) {
    ExpectSoftmaxMatches({5, cols, 1.0f, 4.0f, 0, false, 1}, seed++);
    ExpectSoftmaxMatches({3, cols, 0.125f, 40.0f, 0, true, 1}, seed++);
    ExpectSoftmaxMatches({4, cols, -2.0f, 3.0f, 0, false, 1}, seed++);
    ExpectSoftmaxMatches({6, cols, 0.5f, 8.0f, 3, false, 1}, seed++);
    ExpectSoftmaxMatches({4, cols, 1.0f, 2.0f, 4, true, 1}, seed++);
    if (HasFailure()) return;
  }
  for (size_t threads : {2, 3}) {
    ExpectSoftmaxMatches({512, 128, 0.125f, 20.0f, 128, true, threads}, seed++);
    ExpectSoftmaxMatches({7, 33, 1.0f, 1.0f, 0, false, threads}, seed++);
  }
}

// Large inputs: subtracting the row's maximum keeps e^v from overflowing.
TEST_P(SoftmaxTest, LargeInputsDoNotOverflow) {
  const std::vector<float> input = {1000.0f, 999.0f, 1000.0f, -1000.0f, 998.0f};
  std::vector<float> output(input.size());
  ASSERT_EQ(Softmax(1, input.size(), input.data(), 1.0f, nullptr, 0, 0.0f, output.data()),
            Error::kOk);
  const double e1 = std::exp(-1.0), e2 = std::exp(-2.0), sum = 2 + e1 + e2;
  const double expected[] = {1 / sum, e1 / sum, 1 / sum, 0.0, e2 / sum};
  for (size_t i = 0; i < input.size(); ++i) EXPECT_NEAR(output[i], expected[i], 1e-6) << i;
}

// Entries far below the row's maximum: exp(v - max) where it is a normal float (-87 and -87.3
// below), exactly 0 where it would be subnormal or underflow (-87.4, -100, -1000), as the masked
// entries are.
TEST_P(SoftmaxTest, EntriesWithSubnormalExponentialsAreZero) {
  const std::vector<float> input = {0.0f, -87.0f, -87.3f, -87.4f, -100.0f, -1000.0f, 0.0f, -1.0f};
  std::vector<float> output(input.size());
  ASSERT_EQ(Softmax(1, input.size(), input.data(), 1.0f, nullptr, 0, 0.0f, output.data()),
            Error::kOk);
  const double sum = 2 + std::exp(-1.0) + std::exp(-87.0) + std::exp(-87.3);
  for (size_t i : {0, 1, 2, 6, 7}) {
    const double expected = std::exp(static_cast<double>(input[i])) / sum;
    EXPECT_NEAR(output[i], expected, 1e-6 * expected) << i;
  }
  for (size_t i : {3, 4, 5}) EXPECT_EQ(output[i], 0.0f) << i;
}

// A row masked whole has no finite value: NaN, as PyTorch gives; the other rows are unaffected.
TEST_P(SoftmaxTest, RowMaskedWholeIsNaN) {
  const size_t cols = 20;
  std::vector<float> input(2 * cols, 1.0f), output(2 * cols);
  std::vector<uint8_t> mask(2 * cols, 0);
  std::fill(mask.begin(), mask.begin() + cols, 1);
  ASSERT_EQ(Softmax(2, cols, input.data(), 1.0f, mask.data(), 2,
                    -std::numeric_limits<float>::infinity(), output.data()),
            Error::kOk);
  for (size_t i = 0; i < cols; ++i) EXPECT_TRUE(std::isnan(output[i])) << i;
  for (size_t i = cols; i < 2 * cols; ++i) EXPECT_NEAR(output[i], 1.0 / cols, 1e-7) << i;
}

TEST_P(SoftmaxTest, RefusesBadArguments) {
  std::vector<float> input(8, 1.0f), output(8, 7.0f);
  const uint8_t mask[8] = {};
  EXPECT_EQ(Softmax(0, 8, input.data(), 1.0f, nullptr, 0, 0.0f, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(Softmax(1, 0, input.data(), 1.0f, nullptr, 0, 0.0f, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(Softmax(1, 8, nullptr, 1.0f, nullptr, 0, 0.0f, output.data()), Error::kInvalidArgument);
  EXPECT_EQ(Softmax(1, 8, input.data(), 1.0f, nullptr, 0, 0.0f, nullptr), Error::kInvalidArgument);
  EXPECT_EQ(Softmax(1, 8, input.data(), 1.0f, mask, 0, 0.0f, output.data()),
            Error::kInvalidArgument);
  for (float v : output) EXPECT_EQ(v, 7.0f);
}

// The causal form against the general one with the mask it implies (column c of row r masked
// where c > r % period + offset): the same within a few ulp (the sums run over fewer lanes),
// masked entries exactly 0, and the input's masked part never read (NaN there would spread).
TEST_P(SoftmaxTest, CausalMatchesTheExplicitMask) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-6.0f, 6.0f);
  struct CausalCase {
    size_t rows, cols, period, offset, threads;
  };
  for (const CausalCase& c : std::vector<CausalCase>{{1, 1, 1, 0, 1},
                                                     {5, 3, 5, 0, 1},
                                                     {17, 17, 17, 0, 1},
                                                     {16, 33, 8, 2, 1},
                                                     {128, 128, 128, 0, 1},
                                                     {512, 128, 128, 0, 2},
                                                     {24, 40, 12, 16, 3},
                                                     {6, 9, 6, 1000, 1}}) {
    SCOPED_TRACE("rows=" + std::to_string(c.rows) + " cols=" + std::to_string(c.cols) +
                 " period=" + std::to_string(c.period) + " offset=" + std::to_string(c.offset) +
                 " threads=" + std::to_string(c.threads));
    std::vector<float> input(c.rows * c.cols);
    std::vector<uint8_t> mask(c.rows * c.cols);
    for (size_t r = 0; r < c.rows; ++r) {
      for (size_t i = 0; i < c.cols; ++i) {
        const bool masked = i > r % c.period + c.offset;
        mask[r * c.cols + i] = masked ? 1 : 0;
        input[r * c.cols + i] = masked ? std::nanf("") : uniform(rng);
      }
    }
    const float scale = 0.125f;
    std::vector<float> expected(input.size()), output(input.size(), 7.0f);
    ASSERT_EQ(Softmax(c.rows, c.cols, input.data(), scale, mask.data(), c.rows,
                      -std::numeric_limits<float>::infinity(), expected.data()),
              Error::kOk);
    pthreadpool_t pool = c.threads > 1 ? pthreadpool_create(c.threads) : nullptr;
    ASSERT_EQ(
        CausalSoftmax(c.rows, c.cols, input.data(), scale, c.period, c.offset, output.data(), pool),
        Error::kOk);
    if (pool != nullptr) pthreadpool_destroy(pool);
    for (size_t e = 0; e < input.size(); ++e) {
      if (mask[e] != 0) {
        ASSERT_EQ(output[e], 0.0f) << "element " << e;
      } else {
        ASSERT_NEAR(output[e], expected[e], 4e-7 * expected[e]) << "element " << e;
      }
    }
  }
  std::vector<float> input(8, 1.0f), output(8, 7.0f);
  EXPECT_EQ(CausalSoftmax(1, 8, input.data(), 1.0f, 0, 0, output.data()), Error::kInvalidArgument);
  EXPECT_EQ(CausalSoftmax(0, 8, input.data(), 1.0f, 1, 0, output.data()), Error::kInvalidArgument);
  EXPECT_EQ(CausalSoftmax(1, 8, nullptr, 1.0f, 1, 0, output.data()), Error::kInvalidArgument);
  for (float v : output) EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace torchir::native
