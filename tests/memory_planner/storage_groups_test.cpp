#include "memory_planner/storage_groups.h"

#include <gtest/gtest.h>

#include "tests/memory_planner/problem_builder.h"

namespace torchir::memory_planner {
namespace {

using test_util::ProblemBuilder;

TEST(StorageGroupsTest, EveryBufferWithoutBaseIsItsOwnBlock) {
  Problem problem = ProblemBuilder().Buffer(64, 0, 1).Aligned(16).Buffer(32, 1, 2).Build();
  StorageGroups groups = GroupStorage(problem);
  ASSERT_EQ(groups.blocks.size(), 1u);
  ASSERT_EQ(groups.blocks[0].size(), 2u);
  EXPECT_EQ(groups.blocks[0][0].size, 64u);
  EXPECT_EQ(groups.blocks[0][0].alignment, 16u);
  EXPECT_EQ(groups.blocks[0][1].first_use, 1);
  EXPECT_EQ(groups.blocks[0][1].last_use, 2);
  EXPECT_EQ(groups.root, (std::vector<BufferId>{0, 1}));
  EXPECT_EQ(groups.block_index, (std::vector<int32_t>{0, 1}));
}

TEST(StorageGroupsTest, ViewChainsFoldIntoTheirRootWithSummedOffsets) {
  // 0 <- 1 (at 16) <- 2 (at 8): buffer 2 starts 24 bytes into buffer 0.
  Problem problem = ProblemBuilder()
                        .Buffer(100, 0, 1)
                        .Buffer(50, 2, 3)
                        .ViewOf(0, 16)
                        .Buffer(10, 4, 6)
                        .ViewOf(1, 8)
                        .Build();
  StorageGroups groups = GroupStorage(problem);
  EXPECT_EQ(groups.root, (std::vector<BufferId>{0, 0, 0}));
  EXPECT_EQ(groups.offset_in_root, (std::vector<uint64_t>{0, 16, 24}));
  EXPECT_EQ(groups.block_index, (std::vector<int32_t>{0, 0, 0}));
  ASSERT_EQ(groups.blocks[0].size(), 1u);
  // The base stays live until its last view's last use.
  EXPECT_EQ(groups.blocks[0][0].first_use, 0);
  EXPECT_EQ(groups.blocks[0][0].last_use, 6);
  EXPECT_EQ(groups.blocks[0][0].size, 100u);
}

TEST(StorageGroupsTest, ViewsListedBeforeTheirBaseResolveToo) {
  Problem problem = ProblemBuilder().Buffer(8, 1, 1).ViewOf(1, 8).Buffer(16, 0, 0).Build();
  StorageGroups groups = GroupStorage(problem);
  EXPECT_EQ(groups.root, (std::vector<BufferId>{1, 1}));
  EXPECT_EQ(groups.offset_in_root, (std::vector<uint64_t>{8, 0}));
  ASSERT_EQ(groups.blocks[0].size(), 1u);
  EXPECT_EQ(groups.blocks[0][0].last_use, 1);
}

TEST(StorageGroupsTest, BlockCoversEveryMembersExtraBytesAndAlignment) {
  Problem problem = ProblemBuilder()
                        .Buffer(64, 0, 1)
                        .Extra(4)
                        .Buffer(32, 1, 1)
                        .ViewOf(0, 32)
                        .Extra(16)
                        .Aligned(32)
                        .Build();
  StorageGroups groups = GroupStorage(problem);
  EXPECT_EQ(groups.blocks[0][0].size, 32u + 32u + 16u);
  EXPECT_EQ(groups.blocks[0][0].alignment, 32u);
}

TEST(StorageGroupsTest, ArenasGetSeparateBlockLists) {
  Problem problem = ProblemBuilder()
                        .Arena("a")
                        .Buffer(8, 0, 0)
                        .Arena("b")
                        .Buffer(16, 0, 0)
                        .Buffer(24, 0, 0)
                        .Build();
  StorageGroups groups = GroupStorage(problem);
  ASSERT_EQ(groups.blocks.size(), 2u);
  EXPECT_EQ(groups.blocks[0].size(), 1u);
  EXPECT_EQ(groups.blocks[1].size(), 2u);
  EXPECT_EQ(groups.block_index, (std::vector<int32_t>{0, 0, 1}));
}

}  // namespace
}  // namespace torchir::memory_planner
