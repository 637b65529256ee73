#include "memory_planner/naive.h"

#include <gtest/gtest.h>

#include "memory_planner/gap_fit.h"

namespace torchir::memory_planner {
namespace {

TEST(NaivePlacementTest, GivesEveryBlockItsOwnBytesInIndexOrder) {
  const std::vector<Block> blocks = {{10, 1, 0, 0}, {20, 1, 1, 1}, {30, 1, 2, 2}};
  const std::vector<uint64_t> offsets = NaivePlacement().Place(blocks);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 10, 30}));
  EXPECT_EQ(ArenaExtent(blocks, offsets), 60u);
}

TEST(NaivePlacementTest, PadsForAlignment) {
  const std::vector<Block> blocks = {{10, 1, 0, 0}, {20, 16, 1, 1}, {1, 1, 2, 2}};
  EXPECT_EQ(NaivePlacement().Place(blocks), (std::vector<uint64_t>{0, 16, 36}));
}

TEST(NaivePlacementTest, ZeroSizeBlocksTakeNoBytes) {
  const std::vector<Block> blocks = {{0, 64, 0, 0}, {8, 1, 0, 0}};
  const std::vector<uint64_t> offsets = NaivePlacement().Place(blocks);
  EXPECT_EQ(ArenaExtent(blocks, offsets), 8u);
}

TEST(NaivePlacementTest, Name) { EXPECT_EQ(NaivePlacement().Name(), "naive"); }

}  // namespace
}  // namespace torchir::memory_planner
