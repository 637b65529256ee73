#include "backends/native/pooling.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

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

class PoolingTest : public PerTargetTest {};
TORCHIR_INSTANTIATE_PER_TARGET(PoolingTest);

// PyTorch's output length of a max pooling, with ceil_mode's rule that the last window starts
// inside the input or the left padding.
size_t PooledLength(size_t length, size_t kernel, size_t stride, size_t padding, size_t dilation,
                    bool ceil_mode) {
  const int64_t span = static_cast<int64_t>(dilation * (kernel - 1) + 1);
  const int64_t room = static_cast<int64_t>(length + 2 * padding) - span;
  int64_t out = (ceil_mode ? (room + static_cast<int64_t>(stride) - 1) : room) /
                    static_cast<int64_t>(stride) +
                1;
  if (ceil_mode &&
      (out - 1) * static_cast<int64_t>(stride) >= static_cast<int64_t>(length + padding)) {
    --out;
  }
  return static_cast<size_t>(out);
}

// The reference: every tap inside, in order, with PyTorch's NaN rule.
std::vector<float> ReferenceMaxPool(const Pool2dShape& s, const std::vector<float>& input) {
  std::vector<float> out(s.batch * s.output_height * s.output_width * s.channels);
  for (size_t n = 0; n < s.batch; ++n) {
    for (size_t oy = 0; oy < s.output_height; ++oy) {
      for (size_t ox = 0; ox < s.output_width; ++ox) {
        for (size_t c = 0; c < s.channels; ++c) {
          float best = -std::numeric_limits<float>::infinity();
          for (size_t ky = 0; ky < s.kernel_height; ++ky) {
            const int64_t iy = static_cast<int64_t>(oy * s.stride_height + ky * s.dilation_height) -
                               static_cast<int64_t>(s.padding_top);
            if (iy < 0 || iy >= static_cast<int64_t>(s.input_height)) continue;
            for (size_t kx = 0; kx < s.kernel_width; ++kx) {
              const int64_t ix = static_cast<int64_t>(ox * s.stride_width + kx * s.dilation_width) -
                                 static_cast<int64_t>(s.padding_left);
              if (ix < 0 || ix >= static_cast<int64_t>(s.input_width)) continue;
              const float v =
                  input[((n * s.input_height + static_cast<size_t>(iy)) * s.input_width +
                         static_cast<size_t>(ix)) *
                            s.channels +
                        c];
              if (v > best || std::isnan(v)) best = v;
            }
          }
          out[((n * s.output_height + oy) * s.output_width + ox) * s.channels + c] = best;
        }
      }
    }
  }
  return out;
}

struct MaxCase {
  size_t batch, height, width, channels, kernel, stride, padding, dilation;
  bool ceil_mode;
  size_t threads;
};

void ExpectMaxPoolMatches(const MaxCase& c, uint32_t seed) {
  SCOPED_TRACE("N=" + std::to_string(c.batch) + " H=" + std::to_string(c.height) +
               " W=" + std::to_string(c.width) + " C=" + std::to_string(c.channels) +
               " k=" + std::to_string(c.kernel) + " s=" + std::to_string(c.stride) +
               " p=" + std::to_string(c.padding) + " d=" + std::to_string(c.dilation) +
               (c.ceil_mode ? " ceil" : "") + " threads=" + std::to_string(c.threads));
  Pool2dShape s{};
  s.batch = c.batch;
  s.input_height = c.height;
  s.input_width = c.width;
  s.channels = c.channels;
  s.kernel_height = s.kernel_width = c.kernel;
  s.stride_height = s.stride_width = c.stride;
  s.dilation_height = s.dilation_width = c.dilation;
  s.padding_top = s.padding_left = c.padding;
  s.output_height = PooledLength(c.height, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
  s.output_width = PooledLength(c.width, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::vector<float> input(c.batch * c.height * c.width * c.channels);
  for (float& v : input) v = uniform(rng);
  // A few NaNs (a NaN tap makes its windows NaN, as in PyTorch) and a -inf.
  if (input.size() > 40) {
    input[input.size() / 3] = std::numeric_limits<float>::quiet_NaN();
    input[input.size() / 2 + 1] = -std::numeric_limits<float>::infinity();
  }
  const std::vector<float> expected = ReferenceMaxPool(s, input);
  std::vector<float> output(expected.size(), 12345.0f);
  pthreadpool_t pool = c.threads > 1 ? pthreadpool_create(c.threads) : nullptr;
  ASSERT_EQ(MaxPool2d(s, input.data(), output.data(), pool), Error::kOk);
  if (pool != nullptr) pthreadpool_destroy(pool);
  for (size_t i = 0; i < expected.size(); ++i) {
    // A maximum is one of the inputs: exactly equal, NaN where the reference is.
    if (std::isnan(expected[i])) {
      ASSERT_TRUE(std::isnan(output[i])) << "element " << i;
    } else {
      ASSERT_EQ(output[i], expected[i]) << "element " << i;
    }
  }
}

// Channel counts around every target's one- and two-vector blocks (tails of 1..lanes-1), ResNet's
// 3x3 / 2 window with padding 1, 2x2 / 2, a 3x3 / 1 window, dilation with padding, ceil_mode's
// last window past the input, batches, and rows shared among threads.
TEST_P(PoolingTest, MaxPoolMatchesReference) {
  uint32_t seed = 1;
  for (size_t channels : {1, 3, 8, 15, 16, 17, 33, 64, 67}) {
    ExpectMaxPoolMatches({1, 9, 11, channels, 3, 2, 1, 1, false, 1}, seed++);
    ExpectMaxPoolMatches({2, 8, 8, channels, 2, 2, 0, 1, false, 1}, seed++);
    ExpectMaxPoolMatches({1, 7, 5, channels, 3, 1, 1, 1, false, 1}, seed++);
    ExpectMaxPoolMatches({1, 10, 9, channels, 3, 1, 1, 2, false, 1}, seed++);
    ExpectMaxPoolMatches({1, 6, 7, channels, 3, 2, 1, 1, true, 1}, seed++);
    ExpectMaxPoolMatches({1, 5, 5, channels, 2, 2, 0, 1, true, 1}, seed++);
    if (HasFailure()) return;
  }
  for (size_t threads : {2, 3}) {
    ExpectMaxPoolMatches({1, 112, 112, 64, 3, 2, 1, 1, false, threads}, seed++);
    ExpectMaxPoolMatches({3, 13, 13, 19, 3, 2, 1, 1, true, threads}, seed++);
  }
}

struct AverageCase {
  size_t batch, pixels, channels, threads;
  float offset;
};

// Compared with the mean in double: `pixels` float additions per lane, so the sum is within
// pixels u sum|x| of the exact one, allowed twice, plus the rounding of the product by 1 / pixels.
void ExpectAverageMatches(const AverageCase& c, uint32_t seed) {
  SCOPED_TRACE("N=" + std::to_string(c.batch) + " pixels=" + std::to_string(c.pixels) +
               " C=" + std::to_string(c.channels) + " threads=" + std::to_string(c.threads));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> input(c.batch * c.pixels * c.channels);
  for (float& v : input) v = c.offset + uniform(rng);
  std::vector<float> output(c.batch * c.channels, 12345.0f);
  pthreadpool_t pool = c.threads > 1 ? pthreadpool_create(c.threads) : nullptr;
  ASSERT_EQ(GlobalAveragePool(c.batch, c.pixels, c.channels, input.data(), output.data(), pool),
            Error::kOk);
  if (pool != nullptr) pthreadpool_destroy(pool);
  const double u = std::numeric_limits<float>::epsilon() / 2;
  for (size_t n = 0; n < c.batch; ++n) {
    for (size_t ch = 0; ch < c.channels; ++ch) {
      double sum = 0.0, sum_abs = 0.0;
      for (size_t p = 0; p < c.pixels; ++p) {
        const double v = input[(n * c.pixels + p) * c.channels + ch];
        sum += v;
        sum_abs += std::fabs(v);
      }
      const double mean = sum / static_cast<double>(c.pixels);
      const double bound =
          2 * static_cast<double>(c.pixels) * u * sum_abs / c.pixels + 4 * u * std::fabs(mean);
      ASSERT_NEAR(output[n * c.channels + ch], mean, bound) << "image " << n << " channel " << ch;
    }
  }
}

// Channel counts around the vector and four-vector blocks and the task blocks of 128 (1280: a
// CNN's head), a single pixel, EfficientNet's 112 x 112 squeeze, batches, threads.
TEST_P(PoolingTest, GlobalAverageMatchesDoubleReference) {
  uint32_t seed = 100;
  for (size_t channels : {1, 7, 8, 17, 32, 33, 64, 129, 1280}) {
    ExpectAverageMatches({1, 49, channels, 1, 0.0f}, seed++);
    ExpectAverageMatches({2, 1, channels, 1, 3.0f}, seed++);
    ExpectAverageMatches({3, 13, channels, 2, -1.0f}, seed++);
    if (HasFailure()) return;
  }
  ExpectAverageMatches({1, 112 * 112, 32, 2, 0.5f}, seed++);
  ExpectAverageMatches({2, 7 * 7, 1280, 3, 0.0f}, seed++);
}

// On several threads the pixels are shared out, each thread's partial mean added at the end,
// while the other threads' partials fit the stack buffer: pixel counts the threads do not
// divide, 3 threads, batches; and the channel blocks otherwise (more partial floats than the
// buffer holds, fewer than two pixels a thread).
TEST_P(PoolingTest, GlobalAverageByPixelsAndByChannelBlocks) {
  uint32_t seed = 300;
  for (size_t threads : {2, 3}) {
    for (size_t pixels : {6, 7, 49, 197}) {
      ExpectAverageMatches({1, pixels, 33, threads, 1.0f}, seed++);
      ExpectAverageMatches({2, pixels, 1152, threads, 0.0f}, seed++);
      if (HasFailure()) return;
    }
    ExpectAverageMatches({4, 49, 1280, threads, 0.0f}, seed++);  // 5120+ partial floats
    ExpectAverageMatches({1, 3, 64, threads, 0.0f}, seed++);     // fewer than 2 pixels a thread
  }
}

TEST_P(PoolingTest, RefusesBadArguments) {
  std::vector<float> input(64, 1.0f), output(64, 7.0f);
  Pool2dShape s{1, 4, 4, 4, 2, 2, 2, 2, 2, 2, 1, 1, 0, 0};
  ASSERT_EQ(CheckPool2dShape(s), Error::kOk);
  for (size_t Pool2dShape::*field :
       {&Pool2dShape::batch, &Pool2dShape::channels, &Pool2dShape::output_height,
        &Pool2dShape::kernel_width, &Pool2dShape::stride_height, &Pool2dShape::dilation_width}) {
    Pool2dShape bad = s;
    bad.*field = 0;
    EXPECT_EQ(MaxPool2d(bad, input.data(), output.data()), Error::kInvalidArgument);
  }
  Pool2dShape huge = s;
  huge.input_height = huge.input_width = size_t{1} << 33;
  EXPECT_EQ(MaxPool2d(huge, input.data(), output.data()), Error::kInvalidArgument);
  EXPECT_EQ(MaxPool2d(s, nullptr, output.data()), Error::kInvalidArgument);
  EXPECT_EQ(MaxPool2d(s, input.data(), nullptr), Error::kInvalidArgument);
  EXPECT_EQ(GlobalAveragePool(0, 16, 4, input.data(), output.data()), Error::kInvalidArgument);
  EXPECT_EQ(GlobalAveragePool(1, 0, 4, input.data(), output.data()), Error::kInvalidArgument);
  EXPECT_EQ(GlobalAveragePool(1, 16, 0, input.data(), output.data()), Error::kInvalidArgument);
  EXPECT_EQ(GlobalAveragePool(1, 16, 4, nullptr, output.data()), Error::kInvalidArgument);
  EXPECT_EQ(GlobalAveragePool(1, size_t{1} << 62, 4, input.data(), output.data()),
            Error::kInvalidArgument);
  for (float v : output) EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace torchir::native
