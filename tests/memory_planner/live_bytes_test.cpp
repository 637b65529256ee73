#include "memory_planner/live_bytes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace torchir::memory_planner {
namespace {

uint64_t BruteForceAt(const std::vector<Block>& blocks, int64_t time) {
  uint64_t live = 0;
  for (const Block& block : blocks) {
    if (block.first_use <= time && time <= block.last_use) live += block.size;
  }
  return live;
}

TEST(LiveBytesTest, EmptySetHasNoPeak) {
  LiveBytesProfile profile({});
  EXPECT_EQ(profile.Peak(), 0u);
  EXPECT_EQ(profile.At(3), 0u);
  EXPECT_EQ(profile.PeakWithin(0, 10), 0u);
}

TEST(LiveBytesTest, CountsBlocksLiveAtTheInstructionInclusive) {
  const std::vector<Block> blocks = {{10, 1, 0, 2}, {20, 1, 2, 3}, {40, 1, 4, 4}};
  LiveBytesProfile profile(blocks);
  EXPECT_EQ(profile.At(-1), 0u);
  EXPECT_EQ(profile.At(0), 10u);
  EXPECT_EQ(profile.At(2), 30u);
  EXPECT_EQ(profile.At(3), 20u);
  EXPECT_EQ(profile.At(4), 40u);
  EXPECT_EQ(profile.Peak(), 40u);
  EXPECT_EQ(profile.PeakWithin(0, 3), 30u);
  EXPECT_EQ(profile.PeakWithin(3, 3), 20u);  // a window starting between two starts
  EXPECT_EQ(PeakLiveBytes(blocks), 40u);
}

TEST(LiveBytesTest, MatchesBruteForceOnRandomBlocks) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<Block> blocks;
    const int count = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < count; ++i) {
      const int64_t first = rng() % 30;
      blocks.push_back({rng() % 100, 1, first, first + static_cast<int64_t>(rng() % 8)});
    }
    LiveBytesProfile profile(blocks);
    uint64_t peak = 0;
    for (int64_t t = -2; t < 42; ++t) {
      ASSERT_EQ(profile.At(t), BruteForceAt(blocks, t));
      peak = std::max(peak, BruteForceAt(blocks, t));
    }
    EXPECT_EQ(profile.Peak(), peak);
    for (int query = 0; query < 10; ++query) {
      const int64_t first = rng() % 40;
      const int64_t last = first + static_cast<int64_t>(rng() % 10);
      uint64_t expected = 0;
      for (int64_t t = first; t <= last; ++t)
        expected = std::max(expected, BruteForceAt(blocks, t));
      ASSERT_EQ(profile.PeakWithin(first, last), expected);
    }
  }
}

}  // namespace
}  // namespace torchir::memory_planner
