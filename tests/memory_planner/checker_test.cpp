#include "memory_planner/checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "memory_planner/planner.h"
#include "tests/memory_planner/problem_builder.h"

namespace torchir::memory_planner {
namespace {

using test_util::ProblemBuilder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A plan with the given offsets in arena 0 of `arena_size` bytes.
Plan PlanAt(const std::vector<uint64_t>& offsets, uint64_t arena_size) {
  Plan plan;
  for (uint64_t offset : offsets) plan.placements.push_back(Placement{0, offset});
  plan.arenas.push_back(ArenaPlan{arena_size, "by hand"});
  return plan;
}

TEST(CheckerTest, AcceptsAValidPlan) {
  const Problem problem =
      ProblemBuilder().Buffer(64, 0, 1).Buffer(64, 1, 2).Buffer(64, 2, 3).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 64, 0}, 128)), IsEmpty());
}

TEST(CheckerTest, RejectsAWrongNumberOfPlacementsOrArenas) {
  const Problem problem = ProblemBuilder().Buffer(64, 0, 1).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({}, 64)),
              ElementsAre(HasSubstr("0 placements for 1 buffers")));
  Plan plan = PlanAt({0}, 64);
  plan.arenas.push_back(ArenaPlan{0, "extra"});
  EXPECT_THAT(CheckPlan(problem, plan), ElementsAre(HasSubstr("2 arenas, the problem 1")));
}

TEST(CheckerTest, RejectsBuffersLiveTogetherThatShareBytes) {
  const Problem problem = ProblemBuilder().Buffer(64, 0, 1).Named("a").Buffer(64, 1, 2).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 32}, 96)),
              ElementsAre("overlap: buffer 0 (a) at [0, 64) live [0, 1] and buffer 1 at "
                          "[32, 96) live [1, 2]"));
}

TEST(CheckerTest, AcceptsBuffersThatShareBytesAtDifferentTimes) {
  const Problem problem = ProblemBuilder().Buffer(64, 0, 1).Buffer(64, 2, 3).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 0}, 64)), IsEmpty());
}

TEST(CheckerTest, CountsExtraBytesAsOccupied) {
  const Problem problem = ProblemBuilder().Buffer(60, 0, 1).Extra(8).Buffer(64, 1, 2).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 64}, 128)), ElementsAre(HasSubstr("overlap")));
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 68}, 132)), IsEmpty());
}

TEST(CheckerTest, RejectsMisalignedOffsets) {
  const Problem problem = ProblemBuilder().Buffer(8, 0, 1).Aligned(16).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({8}, 16)),
              ElementsAre("buffer 0: offset 8 is not a multiple of its alignment 16"));
}

TEST(CheckerTest, RejectsBytesPastTheArenaEndPaddingIncluded) {
  const Problem problem = ProblemBuilder().Buffer(8, 0, 1).Extra(8).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0}, 8)),
              ElementsAre(HasSubstr("bytes [0, 16) (extra_bytes included) exceed arena 0 of 8")));
}

TEST(CheckerTest, RejectsAPlacementInTheWrongArena) {
  const Problem problem = ProblemBuilder().Arena("a").Arena("b").Buffer(8, 0, 1).Build();
  Plan plan;
  plan.placements = {Placement{0, 0}};
  plan.arenas = {ArenaPlan{8, ""}, ArenaPlan{8, ""}};
  EXPECT_THAT(CheckPlan(problem, plan),
              ElementsAre(HasSubstr("placed in arena 0 but belongs to arena 1")));
  plan.placements = {Placement{7, 0}};
  EXPECT_THAT(CheckPlan(problem, plan), ::testing::Contains(HasSubstr("unknown arena 7")));
}

TEST(CheckerTest, RejectsViewsAwayFromTheirDeclaredOffset) {
  const Problem problem = ProblemBuilder().Buffer(64, 0, 1).Buffer(16, 1, 1).ViewOf(0, 16).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 16}, 64)), IsEmpty());
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 32}, 64)),
              ElementsAre(HasSubstr("a view at offset 32 but its base buffer 0 + offset_in_base "
                                    "is 16")));
}

TEST(CheckerTest, RejectsViewsOutsideTheirBase) {
  // An invalid problem the planner would refuse; the checker still reports it.
  const Problem problem = ProblemBuilder().Buffer(16, 0, 1).Buffer(32, 1, 1).ViewOf(0, 0).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 0}, 32)),
              ElementsAre(HasSubstr("a view at [0, 32) outside its base buffer 0 at [0, 16)")));
}

TEST(CheckerTest, ViewsOfOneBaseMayShareBytes) {
  const Problem problem = ProblemBuilder()
                              .Buffer(64, 0, 2)
                              .Buffer(64, 1, 3)
                              .ViewOf(0)
                              .Buffer(32, 2, 3)
                              .ViewOf(0, 32)
                              .Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 0, 32}, 64)), IsEmpty());
}

TEST(CheckerTest, ABaseStaysLiveWhileItsViewsAre) {
  // Buffer 2 reuses the base's bytes after the base's own last use, but its view is still live.
  const Problem problem =
      ProblemBuilder().Buffer(64, 0, 0).Buffer(16, 1, 3).ViewOf(0, 48).Buffer(32, 2, 2).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 48, 0}, 64)), ElementsAre(HasSubstr("overlap")));
}

TEST(CheckerTest, ZeroSizeBuffersOverlapNothing) {
  const Problem problem = ProblemBuilder().Buffer(64, 0, 1).Buffer(0, 0, 1).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 32}, 64)), IsEmpty());
}

TEST(CheckerTest, ReportsViewCyclesWithoutLooping) {
  const Problem problem =
      ProblemBuilder().Buffer(8, 0, 0).ViewOf(1).Buffer(8, 0, 0).ViewOf(0).Build();
  EXPECT_THAT(CheckPlan(problem, PlanAt({0, 0}, 8)), ::testing::Contains(HasSubstr("loop")));
}

TEST(CheckerTest, StopsListingAfterAHundredProblems) {
  ProblemBuilder builder;
  for (int i = 0; i < 300; ++i) builder.Buffer(8, 0, 0).Aligned(16);
  const std::vector<std::string> problems =
      CheckPlan(builder.Build(), PlanAt(std::vector<uint64_t>(300, 8), 16));
  ASSERT_EQ(problems.size(), 101u);
  EXPECT_EQ(problems.back(), "(stopped after 100 problems)");
}

// The slow, obvious version of the overlap rule, to cross-check the sweep.
bool BruteForceOverlapFree(const Problem& problem, const Plan& plan) {
  const size_t count = problem.buffers.size();
  struct Group {
    uint64_t begin = UINT64_MAX, end = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
  };
  std::vector<Group> groups(count);
  for (size_t id = 0; id < count; ++id) {
    BufferId root = static_cast<BufferId>(id);
    while (problem.buffers[root].base != kNoBuffer) root = problem.buffers[root].base;
    const Buffer& buffer = problem.buffers[id];
    const uint64_t begin = plan.placements[id].offset;
    const uint64_t end = begin + buffer.size + buffer.extra_bytes;
    if (end > begin) {
      groups[root].begin = std::min(groups[root].begin, begin);
      groups[root].end = std::max(groups[root].end, end);
    }
    groups[root].first = std::min(groups[root].first, buffer.first_use);
    groups[root].last = std::max(groups[root].last, buffer.last_use);
  }
  for (size_t a = 0; a < count; ++a) {
    for (size_t b = a + 1; b < count; ++b) {
      const Group& x = groups[a];
      const Group& y = groups[b];
      if (x.end <= x.begin || y.end <= y.begin) continue;
      const bool same_time = x.first <= y.last && y.first <= x.last;
      const bool same_bytes = x.begin < y.end && y.begin < x.end;
      if (same_time && same_bytes) return false;
    }
  }
  return true;
}

TEST(CheckerTest, AgreesWithBruteForceOnCorruptedPlans) {
  std::mt19937 rng(3);
  int corrupt_found = 0;
  for (int round = 0; round < 500; ++round) {
    ProblemBuilder builder;
    const int count = 2 + static_cast<int>(rng() % 20);
    for (int i = 0; i < count; ++i) {
      const int64_t first = rng() % 10;
      builder.Buffer(1 + rng() % 64, first, first + static_cast<int64_t>(rng() % 4));
      if (i > 0 && rng() % 5 == 0) {
        builder.Buffer(0, first, first + static_cast<int64_t>(rng() % 4)).ViewOf(rng() % i);
      }
      if (rng() % 4 == 0) builder.Extra(rng() % 8);
    }
    const Problem problem = builder.Build();
    Expected<SuiteResult> result = PlanMemory(problem);
    ASSERT_TRUE(result.ok()) << result.error().message;
    Plan plan = result.value().plan;
    ASSERT_THAT(CheckPlan(problem, plan), IsEmpty());
    // Move one root somewhere else (and its views with it), keeping it inside a larger arena.
    BufferId moved = static_cast<BufferId>(rng() % problem.buffers.size());
    while (problem.buffers[moved].base != kNoBuffer) moved = problem.buffers[moved].base;
    const uint64_t old_offset = plan.placements[moved].offset;
    const uint64_t new_offset = rng() % (plan.arenas[0].size + 1);
    for (size_t id = 0; id < problem.buffers.size(); ++id) {
      BufferId root = static_cast<BufferId>(id);
      while (problem.buffers[root].base != kNoBuffer) root = problem.buffers[root].base;
      if (root == moved) plan.placements[id].offset += new_offset - old_offset;
    }
    plan.arenas[0].size *= 3;
    const bool valid = BruteForceOverlapFree(problem, plan);
    corrupt_found += valid ? 0 : 1;
    EXPECT_EQ(CheckPlan(problem, plan).empty(), valid) << "round " << round;
  }
  EXPECT_GT(corrupt_found, 100);  // the corruption does break plans often enough to matter
}

}  // namespace
}  // namespace torchir::memory_planner
