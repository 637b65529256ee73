#include "memory_planner/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/memory_planner/problem_builder.h"
#include "tests/memory_planner/suboptimal_cases.h"

namespace torchir::memory_planner {
namespace {

using test_util::ProblemBuilder;
using ::testing::HasSubstr;

Problem TwoArenaProblem() {
  ProblemBuilder builder;
  builder.Arena("activations");
  for (const Block& block : test_util::LongLivedSmallBlockCase()) {
    builder.Buffer(block.size, block.first_use, block.last_use);
  }
  builder.Buffer(4, 4, 5).ViewOf(3, 0);  // a view: counted as a buffer, adds no bytes
  builder.Arena("scratch").Buffer(100, 0, 1).Buffer(100, 2, 3).Buffer(50, 3, 3);
  return builder.Build();
}

MemoryReport ReportFor(const Problem& problem) {
  Expected<SuiteResult> result = PlanMemory(problem);
  EXPECT_TRUE(result.ok());
  Expected<MemoryReport> report = BuildReport(problem, result.value());
  EXPECT_TRUE(report.ok()) << report.error().message;
  return report.value();
}

TEST(ReportTest, ListsEveryArenaWithPlannedLowerBoundAndNaiveBytes) {
  const MemoryReport report = ReportFor(TwoArenaProblem());
  ASSERT_EQ(report.arenas.size(), 2u);
  const ArenaReport& activations = report.arenas[0];
  EXPECT_EQ(activations.name, "activations");
  EXPECT_EQ(activations.buffer_count, 5u);
  EXPECT_EQ(activations.planned_bytes, 22u);
  EXPECT_EQ(activations.lower_bound_bytes, 22u);
  EXPECT_EQ(activations.naive_bytes, 34u);
  EXPECT_EQ(activations.algorithm, "greedy_by_conflict/best_fit");
  EXPECT_DOUBLE_EQ(activations.ratio_to_lower_bound, 1.0);

  const ArenaReport& scratch = report.arenas[1];
  EXPECT_EQ(scratch.buffer_count, 3u);
  EXPECT_EQ(scratch.planned_bytes, 150u);
  EXPECT_EQ(scratch.lower_bound_bytes, 150u);
  EXPECT_EQ(scratch.naive_bytes, 250u);

  EXPECT_EQ(report.planned_bytes, 172u);
  EXPECT_EQ(report.lower_bound_bytes, 172u);
  EXPECT_EQ(report.naive_bytes, 284u);
  EXPECT_DOUBLE_EQ(report.ratio_to_lower_bound, 1.0);
  ASSERT_EQ(report.candidates.size(), 8u);
  EXPECT_EQ(report.candidates[0].algorithm, "greedy_by_size/best_fit");
  EXPECT_EQ(report.candidates[0].TotalSize(), 26u + 150u);
}

TEST(ReportTest, RatioShowsTheGapToTheLowerBound) {
  // Alignment padding the lower bound does not count: 1 + 63 padding + 1.
  const Problem problem = ProblemBuilder().Buffer(1, 0, 0).Buffer(1, 0, 0).Aligned(64).Build();
  const MemoryReport report = ReportFor(problem);
  EXPECT_EQ(report.lower_bound_bytes, 2u);
  EXPECT_EQ(report.planned_bytes, 65u);
  EXPECT_DOUBLE_EQ(report.ratio_to_lower_bound, 32.5);
}

TEST(ReportTest, EmptyArenasReportARatioOfOne) {
  const MemoryReport report = ReportFor(ProblemBuilder().Arena("unused").Build());
  ASSERT_EQ(report.arenas.size(), 1u);
  EXPECT_EQ(report.arenas[0].planned_bytes, 0u);
  EXPECT_DOUBLE_EQ(report.arenas[0].ratio_to_lower_bound, 1.0);
}

TEST(ReportTest, RendersATable) {
  const std::string text = RenderReport(ReportFor(TwoArenaProblem()));
  EXPECT_EQ(text,
            "memory plan: 2 arenas, planned 172 bytes, lower bound 172, naive 284, "
            "planned/lower 1.000\n"
            "arena        buffers      planned  lower bound        naive  planned/lower  "
            "algorithm\n"
            "activations        5           22           22           34          1.000  "
            "greedy_by_conflict/best_fit\n"
            "scratch            3          150          150          250          1.000  "
            "greedy_by_size/best_fit\n"
            "candidates (total bytes over all arenas):\n"
            "  greedy_by_size/best_fit               176\n"
            "  greedy_by_size/first_fit              176\n"
            "  greedy_by_conflict/best_fit           172\n"
            "  greedy_by_conflict/first_fit          172\n"
            "  greedy_by_breadth/best_fit            172\n"
            "  greedy_by_breadth/first_fit           172\n"
            "  linear_scan_slots                     176\n"
            "  naive                                 284\n");
}

TEST(ReportTest, RefusesAResultForAnotherProblem) {
  const Problem problem = ProblemBuilder().Arena("a").Arena("b").Build();
  Expected<MemoryReport> report = BuildReport(problem, SuiteResult{});
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.error().message, HasSubstr("0 arenas, the problem 2"));
  Expected<MemoryReport> invalid =
      BuildReport(ProblemBuilder().Buffer(8, 2, 1).Build(), SuiteResult{});
  ASSERT_FALSE(invalid.ok());
}

}  // namespace
}  // namespace torchir::memory_planner
