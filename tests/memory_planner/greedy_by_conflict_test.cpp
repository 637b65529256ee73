#include "memory_planner/greedy_by_conflict.h"

#include <gtest/gtest.h>

#include "memory_planner/greedy_by_size.h"
#include "tests/memory_planner/suboptimal_cases.h"

namespace torchir::memory_planner {
namespace {

TEST(GreedyByConflictTest, Names) {
  EXPECT_EQ(GreedyByConflict().Name(), "greedy_by_conflict/best_fit");
  EXPECT_EQ(GreedyByConflict(FitPolicy::kFirstFit).Name(), "greedy_by_conflict/first_fit");
}

TEST(GreedyByConflictTest, ConflictingBytesSumsTheOthersLiveAtTheSameTime) {
  const std::vector<Block> blocks = test_util::LongLivedSmallBlockCase();
  // A meets C; B meets C, D; C meets A, B, D; D meets B, C.
  EXPECT_EQ(ConflictingBytes(blocks), (std::vector<uint64_t>{8, 14, 26, 16}));
}

TEST(GreedyByConflictTest, ConflictingBytesCountsTouchingEndsAsOverlap) {
  const std::vector<Block> blocks = {{1, 1, 0, 2}, {10, 1, 2, 3}, {100, 1, 4, 4}};
  EXPECT_EQ(ConflictingBytes(blocks), (std::vector<uint64_t>{10, 1, 0}));
}

TEST(GreedyByConflictTest, PlacesTheMostConflictedBlockFirst) {
  const std::vector<Block> blocks = test_util::LongLivedSmallBlockCase();
  const std::vector<uint64_t> offsets = GreedyByConflict().Place(blocks);
  EXPECT_EQ(offsets[2], 0u);  // C, live with everything
}

TEST(GreedyByConflictTest, BeatsGreedyBySizeWhenASmallBlockOutlivesTheBigOnes) {
  const std::vector<Block> blocks = test_util::LongLivedSmallBlockCase();
  EXPECT_EQ(ArenaExtent(blocks, GreedyByConflict().Place(blocks)),
            test_util::kLongLivedSmallBlockOptimum);
  EXPECT_GT(ArenaExtent(blocks, GreedyBySize().Place(blocks)),
            test_util::kLongLivedSmallBlockOptimum);
}

}  // namespace
}  // namespace torchir::memory_planner
