#include "memory_planner/greedy_by_breadth.h"

#include <gtest/gtest.h>

#include "tests/memory_planner/suboptimal_cases.h"

namespace torchir::memory_planner {
namespace {

TEST(GreedyByBreadthTest, Names) {
  EXPECT_EQ(GreedyByBreadth().Name(), "greedy_by_breadth/best_fit");
  EXPECT_EQ(GreedyByBreadth(FitPolicy::kFirstFit).Name(), "greedy_by_breadth/first_fit");
}

TEST(GreedyByBreadthTest, PlacesTheBlocksOfTheBusiestInstructionFirst) {
  // Instruction 4 is the busiest (B + C + D = 22 bytes): B, C and D go first, biggest and then
  // earliest first, and A (breadth 20) fills in above C afterwards.
  const std::vector<Block> blocks = test_util::LongLivedSmallBlockCase();
  const std::vector<uint64_t> offsets = GreedyByBreadth().Place(blocks);
  EXPECT_EQ(offsets[2], 0u);   // C: 8 bytes, first_use 1
  EXPECT_EQ(offsets[1], 8u);   // B: 8 bytes, first_use 4
  EXPECT_EQ(offsets[3], 16u);  // D
  EXPECT_EQ(offsets[0], 8u);   // A
  EXPECT_EQ(ArenaExtent(blocks, offsets), test_util::kLongLivedSmallBlockOptimum);
}

}  // namespace
}  // namespace torchir::memory_planner
