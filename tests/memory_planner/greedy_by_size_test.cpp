#include "memory_planner/greedy_by_size.h"

#include <gtest/gtest.h>

#include "memory_planner/live_bytes.h"
#include "tests/memory_planner/suboptimal_cases.h"

namespace torchir::memory_planner {
namespace {

TEST(GreedyBySizeTest, Names) {
  EXPECT_EQ(GreedyBySize().Name(), "greedy_by_size/best_fit");
  EXPECT_EQ(GreedyBySize(FitPolicy::kFirstFit).Name(), "greedy_by_size/first_fit");
}

TEST(GreedyBySizeTest, AChainReusesTwoSlots) {
  // Each instruction reads the previous buffer and writes the next one.
  std::vector<Block> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({100, 1, i, i + 1});
  const std::vector<uint64_t> offsets = GreedyBySize().Place(chain);
  EXPECT_EQ(ArenaExtent(chain, offsets), 200u);
  EXPECT_EQ(PeakLiveBytes(chain), 200u);
}

TEST(GreedyBySizeTest, PlacesTheLargestBlockFirstAtOffsetZero) {
  const std::vector<Block> blocks = {{10, 1, 0, 3}, {50, 1, 1, 2}, {20, 1, 2, 4}};
  const std::vector<uint64_t> offsets = GreedyBySize().Place(blocks);
  EXPECT_EQ(offsets[1], 0u);
  EXPECT_EQ(offsets[2], 50u);
  EXPECT_EQ(offsets[0], 70u);
}

TEST(GreedyBySizeTest, EqualSizesGoInOrderOfFirstUse) {
  const std::vector<Block> blocks = {{8, 1, 3, 4}, {8, 1, 0, 4}};
  const std::vector<uint64_t> offsets = GreedyBySize().Place(blocks);
  EXPECT_EQ(offsets[1], 0u);
  EXPECT_EQ(offsets[0], 8u);
}

TEST(GreedyBySizeTest, LosesWhenASmallBlockOutlivesTheBigOnes) {
  const std::vector<Block> blocks = test_util::LongLivedSmallBlockCase();
  EXPECT_EQ(ArenaExtent(blocks, GreedyBySize().Place(blocks)),
            test_util::kLongLivedSmallBlockGreedyBySize);
  EXPECT_EQ(PeakLiveBytes(blocks), test_util::kLongLivedSmallBlockOptimum);
}

TEST(GreedyBySizeTest, RespectsAlignment) {
  const std::vector<Block> blocks = {{10, 1, 0, 1}, {8, 64, 0, 1}};
  const std::vector<uint64_t> offsets = GreedyBySize().Place(blocks);
  EXPECT_EQ(offsets[0], 0u);
  EXPECT_EQ(offsets[1], 64u);
}

}  // namespace
}  // namespace torchir::memory_planner
