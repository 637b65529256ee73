#include "backends/native/channel_scale.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;

class ChannelScaleTest : public PerTargetTest {};
TORCHIR_INSTANTIATE_PER_TARGET(ChannelScaleTest);

struct ScaleCase {
  size_t batch, pixels, channels, threads;
  bool shared;    // one scale per channel for every image (stride 0)
  bool in_place;  // the output is the input
};

// One float multiply per element, so the result equals the reference's bit for bit.
void ExpectScaleMatches(const ScaleCase& c, uint32_t seed) {
  SCOPED_TRACE("N=" + std::to_string(c.batch) + " pixels=" + std::to_string(c.pixels) +
               " C=" + std::to_string(c.channels) + " threads=" + std::to_string(c.threads) +
               (c.shared ? " shared" : "") + (c.in_place ? " in place" : ""));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::vector<float> input(c.batch * c.pixels * c.channels);
  for (float& v : input) v = uniform(rng);
  std::vector<float> scale((c.shared ? 1 : c.batch) * c.channels);
  for (float& v : scale) v = uniform(rng);
  std::vector<float> expected(input.size());
  for (size_t n = 0; n < c.batch; ++n) {
    for (size_t p = 0; p < c.pixels; ++p) {
      for (size_t ch = 0; ch < c.channels; ++ch) {
        const size_t i = (n * c.pixels + p) * c.channels + ch;
        expected[i] = input[i] * scale[(c.shared ? 0 : n) * c.channels + ch];
      }
    }
  }
  std::vector<float> output(input.size(), 12345.0f);
  float* out = c.in_place ? input.data() : output.data();
  pthreadpool_t pool = c.threads > 1 ? pthreadpool_create(c.threads) : nullptr;
  const Error error = ScaleChannels(c.batch, c.pixels, c.channels, input.data(), scale.data(),
                                    c.shared ? 0 : c.channels, out, pool);
  if (pool != nullptr) pthreadpool_destroy(pool);
  ASSERT_EQ(error, Error::kOk);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(out[i], expected[i]) << "element " << i;
  }
}

// Channel counts around one vector, the four-vector blocks and the scalar tail of every target
// (1 to 16 lanes), EfficientNet's squeezes (32 channels at 112 x 112, 1152 at 7 x 7), batches
// with a scale per image or one shared, threads, in place.
TEST_P(ChannelScaleTest, MatchesTheDefinition) {
  uint32_t seed = 1;
  for (size_t channels : {1, 3, 8, 15, 16, 17, 33, 64, 65, 100}) {
    ExpectScaleMatches({1, 5, channels, 1, false, false}, seed++);
    ExpectScaleMatches({3, 7, channels, 2, false, false}, seed++);
    ExpectScaleMatches({2, 4, channels, 3, true, false}, seed++);
    ExpectScaleMatches({2, 9, channels, 1, false, true}, seed++);
    if (HasFailure()) return;
  }
  ExpectScaleMatches({1, 112 * 112, 32, 2, false, false}, seed++);
  ExpectScaleMatches({2, 7 * 7, 1152, 2, false, true}, seed++);
}

TEST_P(ChannelScaleTest, RefusesBadArguments) {
  std::vector<float> input(64, 1.0f), scale(16, 2.0f), output(64, 7.0f);
  EXPECT_EQ(ScaleChannels(0, 4, 4, input.data(), scale.data(), 4, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(ScaleChannels(1, 0, 4, input.data(), scale.data(), 4, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(ScaleChannels(1, 4, 0, input.data(), scale.data(), 4, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(ScaleChannels(1, 4, 4, nullptr, scale.data(), 4, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(ScaleChannels(1, 4, 4, input.data(), nullptr, 4, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(ScaleChannels(1, 4, 4, input.data(), scale.data(), 4, nullptr),
            Error::kInvalidArgument);
  EXPECT_EQ(ScaleChannels(1, 4, 4, input.data(), scale.data(), 3, output.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(ScaleChannels(size_t{1} << 31, size_t{1} << 31, 4, input.data(), scale.data(), 4,
                          output.data()),
            Error::kInvalidArgument);
  for (float v : output) EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace torchir::native
