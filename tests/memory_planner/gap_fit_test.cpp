#include "memory_planner/gap_fit.h"

#include <gtest/gtest.h>

namespace torchir::memory_planner {
namespace {

// Places the blocks in index order.
std::vector<uint64_t> Place(const std::vector<Block>& blocks, FitPolicy policy) {
  std::vector<int32_t> order(blocks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  return PlaceInOrder(blocks, order, policy);
}

TEST(GapFitTest, AlignUpRoundsToTheAlignment) {
  EXPECT_EQ(AlignUp(0, 16), 0u);
  EXPECT_EQ(AlignUp(1, 16), 16u);
  EXPECT_EQ(AlignUp(16, 16), 16u);
  EXPECT_EQ(AlignUp(17, 1), 17u);
}

TEST(GapFitTest, BlocksWithDisjointLifetimesReuseTheSameBytes) {
  const std::vector<Block> blocks = {{64, 1, 0, 1}, {64, 1, 2, 3}, {64, 1, 4, 5}};
  EXPECT_EQ(Place(blocks, FitPolicy::kBestFit), (std::vector<uint64_t>{0, 0, 0}));
}

TEST(GapFitTest, BlocksLiveTogetherStack) {
  const std::vector<Block> blocks = {{64, 1, 0, 1}, {32, 1, 1, 2}, {16, 1, 0, 2}};
  EXPECT_EQ(Place(blocks, FitPolicy::kBestFit), (std::vector<uint64_t>{0, 64, 96}));
}

// Blocks 0-2 (live 0-1) lay out a 48-byte hole at [0, 48), a block at [48, 64), a 16-byte hole
// at [64, 80), and a block at [80, 96); block 3 is only there to carve the holes and dies at 0.
std::vector<Block> TwoHoles(uint64_t wanted) {
  return {
      {48, 1, 0, 0},      // the future low hole, dead before the newcomer lives
      {16, 1, 0, 1},      // [48, 64)
      {16, 1, 0, 0},      // [64, 80): the future small hole
      {16, 1, 0, 1},      // [80, 96)
      {wanted, 1, 1, 1},  // the newcomer
  };
}

TEST(GapFitTest, BestFitTakesTheSmallestGapThatFits) {
  EXPECT_EQ(Place(TwoHoles(16), FitPolicy::kBestFit)[4], 64u);
}

TEST(GapFitTest, FirstFitTakesTheLowestGapThatFits) {
  EXPECT_EQ(Place(TwoHoles(16), FitPolicy::kFirstFit)[4], 0u);
}

TEST(GapFitTest, GapsTooSmallAreSkipped) {
  EXPECT_EQ(Place(TwoHoles(40), FitPolicy::kBestFit)[4], 0u);
  EXPECT_EQ(Place(TwoHoles(64), FitPolicy::kBestFit)[4], 96u);  // no gap: on top
}

TEST(GapFitTest, GapStartsAreAligned) {
  // A 16-byte hole at [4, 20) cannot take a 16-byte block aligned to 8: its start rounds to 8.
  const std::vector<Block> blocks = {
      {4, 1, 0, 1},
      {16, 1, 0, 0},
      {4, 1, 0, 1},
      {16, 8, 1, 1},
  };
  const std::vector<uint64_t> offsets = Place(blocks, FitPolicy::kBestFit);
  EXPECT_EQ(offsets[2], 20u);
  EXPECT_EQ(offsets[3], 24u);
  EXPECT_EQ(ArenaExtent(blocks, offsets), 40u);
}

TEST(GapFitTest, ZeroSizeBlocksReserveNothing) {
  const std::vector<Block> blocks = {{0, 64, 0, 5}, {32, 1, 0, 5}, {0, 1, 2, 2}};
  const std::vector<uint64_t> offsets = Place(blocks, FitPolicy::kBestFit);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(ArenaExtent(blocks, offsets), 32u);
}

TEST(GapFitTest, OverlappingNeighboursThatNeverMeetStillBoundTheGap) {
  // Blocks 0 and 1 share bytes but not time; the newcomer lives with both.
  const std::vector<Block> blocks = {{32, 1, 0, 0}, {32, 1, 2, 2}, {16, 1, 0, 2}};
  std::vector<int32_t> order = {0, 1, 2};
  const std::vector<uint64_t> offsets = PlaceInOrder(blocks, order, FitPolicy::kBestFit);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 0, 32}));
}

TEST(GapFitTest, ArenaExtentIsTheHighestEnd) {
  EXPECT_EQ(ArenaExtent({}, {}), 0u);
  EXPECT_EQ(ArenaExtent({{8, 1, 0, 0}, {8, 1, 0, 0}}, {16, 0}), 24u);
}

TEST(GapFitTest, PolicyNames) {
  EXPECT_EQ(FitPolicyName(FitPolicy::kBestFit), "best_fit");
  EXPECT_EQ(FitPolicyName(FitPolicy::kFirstFit), "first_fit");
}

}  // namespace
}  // namespace torchir::memory_planner
