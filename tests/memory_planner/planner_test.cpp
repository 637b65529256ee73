#include "memory_planner/planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memory_planner/greedy_by_size.h"
#include "memory_planner/naive.h"
#include "tests/memory_planner/plan_expectations.h"
#include "tests/memory_planner/problem_builder.h"
#include "tests/memory_planner/suboptimal_cases.h"

namespace torchir::memory_planner {
namespace {

using test_util::PlanIsValid;
using test_util::ProblemBuilder;
using ::testing::HasSubstr;

Problem FromBlocks(const std::vector<Block>& blocks) {
  ProblemBuilder builder;
  for (const Block& block : blocks) {
    builder.Buffer(block.size, block.first_use, block.last_use).Aligned(block.alignment);
  }
  return builder.Build();
}

SuiteResult PlanOrDie(const Problem& problem) {
  Expected<SuiteResult> result = PlanMemory(problem);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? result.value() : SuiteResult{};
}

TEST(PlannerTest, EmptyProblemPlansToNothing) {
  const SuiteResult result = PlanOrDie(ProblemBuilder().Build());
  ASSERT_EQ(result.plan.arenas.size(), 1u);
  EXPECT_EQ(result.plan.arenas[0].size, 0u);
  EXPECT_TRUE(result.plan.placements.empty());
}

TEST(PlannerTest, SuiteKeepsTheBetterAlgorithmWhenGreedyBySizeLoses) {
  const Problem problem = FromBlocks(test_util::LongLivedSmallBlockCase());
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.TotalSize(), test_util::kLongLivedSmallBlockOptimum);
  EXPECT_EQ(result.plan.arenas[0].algorithm, "greedy_by_conflict/best_fit");
  ASSERT_FALSE(result.candidates.empty());
  EXPECT_EQ(result.candidates[0].algorithm, "greedy_by_size/best_fit");
  EXPECT_EQ(result.candidates[0].TotalSize(), test_util::kLongLivedSmallBlockGreedyBySize);
  EXPECT_EQ(result.candidates.back().algorithm, "naive");
  EXPECT_EQ(result.candidates.back().TotalSize(), 34u);
}

TEST(PlannerTest, DefaultSuiteTriesEveryGreedyOrderingWithBothFitsThenSlotsThenNaive) {
  std::vector<std::string> names;
  for (const auto& algorithm : DefaultAlgorithms()) names.push_back(algorithm->Name());
  EXPECT_EQ(names,
            (std::vector<std::string>{"greedy_by_size/best_fit", "greedy_by_size/first_fit",
                                      "greedy_by_conflict/best_fit", "greedy_by_conflict/first_fit",
                                      "greedy_by_breadth/best_fit", "greedy_by_breadth/first_fit",
                                      "linear_scan_slots", "naive"}));
}

TEST(PlannerTest, SuiteKeepsSlotsWhenEveryGreedyOrderingLoses) {
  const Problem problem = FromBlocks(test_util::AlternatingChainCase());
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.TotalSize(), test_util::kAlternatingChainSlots);
  EXPECT_EQ(result.plan.arenas[0].algorithm, "linear_scan_slots");
  for (const CandidateResult& candidate : result.candidates) {
    if (candidate.algorithm.rfind("greedy", 0) == 0) {
      EXPECT_EQ(candidate.TotalSize(), test_util::kAlternatingChainGreedy) << candidate.algorithm;
    }
  }
}

TEST(PlannerTest, ViewsTakeNoNewSpace) {
  // x -> reshape -> relu_ (in place) -> y: one 64-byte storage for three buffers.
  const Problem problem = ProblemBuilder()
                              .Buffer(64, 0, 1)
                              .Named("x")
                              .Buffer(64, 1, 2)
                              .ViewOf(0)
                              .Named("x.reshape")
                              .Buffer(64, 2, 3)
                              .ViewOf(1)
                              .Named("relu_")
                              .Buffer(32, 3, 4)
                              .Named("y")
                              .Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.TotalSize(), 96u);
  EXPECT_EQ(result.plan.placements[1].offset, result.plan.placements[0].offset);
  EXPECT_EQ(result.plan.placements[2].offset, result.plan.placements[0].offset);
}

TEST(PlannerTest, ViewsSitAtTheirOffsetInsideTheBase) {
  // A 100-byte base split into two slices at 0 and 48.
  const Problem problem = ProblemBuilder()
                              .Buffer(16, 0, 0)
                              .Buffer(100, 0, 1)
                              .Aligned(16)
                              .Buffer(48, 2, 3)
                              .ViewOf(1, 0)
                              .Buffer(52, 2, 4)
                              .ViewOf(1, 48)
                              .Buffer(40, 3, 3)
                              .Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  const uint64_t base = result.plan.placements[1].offset;
  EXPECT_EQ(result.plan.placements[2].offset, base);
  EXPECT_EQ(result.plan.placements[3].offset, base + 48);
}

TEST(PlannerTest, BaseStaysLiveUntilItsLastViewDies) {
  // The base itself is last used at 0, but its view lives to 3, so buffer 2 (live 2-3) cannot
  // reuse the base's bytes.
  const Problem problem =
      ProblemBuilder().Buffer(64, 0, 0).Buffer(16, 1, 3).ViewOf(0, 0).Buffer(64, 2, 3).Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.TotalSize(), 128u);
}

TEST(PlannerTest, ExtraBytesAreReservedAfterTheBuffer) {
  const Problem problem =
      ProblemBuilder().Buffer(100, 0, 1).Extra(16).Buffer(100, 1, 2).Extra(16).Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.TotalSize(), 232u);
}

TEST(PlannerTest, ExtraBytesOfTheLastBufferStayInsideTheArena) {
  const Problem problem = ProblemBuilder().Buffer(10, 0, 0).Extra(6).Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_EQ(result.plan.TotalSize(), 16u);
}

TEST(PlannerTest, ExtraBytesOfAViewGrowItsStorage) {
  // The view ends at the base's end and asks for 8 more bytes that the storage must provide.
  const Problem problem =
      ProblemBuilder().Buffer(64, 0, 1).Buffer(32, 1, 1).ViewOf(0, 32).Extra(8).Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.TotalSize(), 72u);
}

TEST(PlannerTest, OffsetsHonourAlignment) {
  const Problem problem = ProblemBuilder()
                              .Buffer(3, 0, 2)
                              .Buffer(5, 0, 2)
                              .Aligned(64)
                              .Buffer(7, 1, 2)
                              .Aligned(32)
                              .Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.placements[1].offset % 64, 0u);
  EXPECT_EQ(result.plan.placements[2].offset % 32, 0u);
}

TEST(PlannerTest, ArenasArePlannedIndependently) {
  // The same lifetimes in two arenas never share bytes across arenas, and each arena keeps its
  // own best algorithm.
  ProblemBuilder builder;
  builder.Arena("activations");
  for (const Block& block : test_util::LongLivedSmallBlockCase()) {
    builder.Buffer(block.size, block.first_use, block.last_use);
  }
  builder.Arena("scratch").Buffer(100, 0, 1).Buffer(100, 2, 3);
  const Problem problem = builder.Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  ASSERT_EQ(result.plan.arenas.size(), 2u);
  EXPECT_EQ(result.plan.arenas[0].size, test_util::kLongLivedSmallBlockOptimum);
  EXPECT_EQ(result.plan.arenas[0].algorithm, "greedy_by_conflict/best_fit");
  EXPECT_EQ(result.plan.arenas[1].size, 100u);
  EXPECT_EQ(result.plan.arenas[1].algorithm, "greedy_by_size/best_fit");
  EXPECT_EQ(result.plan.placements[4].arena, 1);
  EXPECT_EQ(result.plan.placements[5].offset, 0u);
}

TEST(PlannerTest, GraphInputsAndOutputsArePlannedLikeAnyBuffer) {
  // Inputs live from instruction 0 and outputs to the last one; otherwise they are buffers like
  // any other: here the output (3) reuses the bytes of the intermediate 1.
  const Problem problem = ProblemBuilder()
                              .Buffer(32, 0, 1)
                              .Named("input")
                              .Buffer(32, 1, 2)
                              .Buffer(32, 2, 3)
                              .Buffer(32, 3, 3)
                              .Named("output")
                              .Build();
  const SuiteResult result = PlanOrDie(problem);
  EXPECT_TRUE(PlanIsValid(problem, result.plan));
  EXPECT_EQ(result.plan.TotalSize(), 64u);
}

TEST(PlannerTest, PlanWithAlgorithmUsesOnlyThatAlgorithm) {
  const Problem problem = FromBlocks(test_util::LongLivedSmallBlockCase());
  Expected<Plan> naive = PlanWithAlgorithm(problem, NaivePlacement());
  ASSERT_TRUE(naive.ok());
  EXPECT_EQ(naive.value().TotalSize(), 34u);
  EXPECT_EQ(naive.value().arenas[0].algorithm, "naive");
  EXPECT_TRUE(PlanIsValid(problem, naive.value()));
  Expected<Plan> greedy = PlanWithAlgorithm(problem, GreedyBySize());
  ASSERT_TRUE(greedy.ok());
  EXPECT_EQ(greedy.value().TotalSize(), test_util::kLongLivedSmallBlockGreedyBySize);
}

TEST(PlannerTest, PlanningIsDeterministic) {
  const Problem problem = FromBlocks(test_util::LongLivedSmallBlockCase());
  const SuiteResult first = PlanOrDie(problem);
  const SuiteResult second = PlanOrDie(problem);
  ASSERT_EQ(first.plan.placements.size(), second.plan.placements.size());
  for (size_t i = 0; i < first.plan.placements.size(); ++i) {
    EXPECT_EQ(first.plan.placements[i].offset, second.plan.placements[i].offset);
  }
}

TEST(PlannerTest, InvalidProblemsAreRefused) {
  Expected<SuiteResult> result = PlanMemory(ProblemBuilder().Buffer(8, 3, 1).Build());
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message, HasSubstr("first_use 3 > last_use 1"));
  Expected<Plan> plan =
      PlanWithAlgorithm(ProblemBuilder().Buffer(8, 0, 1).ViewOf(0).Build(), GreedyBySize());
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.error().message, HasSubstr("view cycle"));
}

TEST(PlannerTest, AnEmptyAlgorithmListIsRefused) {
  Expected<SuiteResult> result = PlanMemory(ProblemBuilder().Buffer(8, 0, 1).Build(), {});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message, HasSubstr("no placement algorithm"));
}

}  // namespace
}  // namespace torchir::memory_planner
