// Thousands of random problems, each planned by every algorithm and checked by the checker, with
// every plan between the lower bound and (for the suite) the naive size.
#include <gtest/gtest.h>

#include <random>

#include "memory_planner/gap_fit.h"
#include "memory_planner/live_bytes.h"
#include "memory_planner/naive.h"
#include "memory_planner/planner.h"
#include "memory_planner/storage_groups.h"
#include "tests/memory_planner/plan_expectations.h"
#include "tests/memory_planner/problem_builder.h"

namespace torchir::memory_planner {
namespace {

using test_util::PlanIsValid;
using test_util::ProblemBuilder;

struct Shape {
  int max_buffers;
  int64_t time_span;
  int64_t max_lifetime;
  bool with_views;
  bool with_padding_and_alignment;
  int arenas;
};

Problem RandomProblem(std::mt19937_64& rng, const Shape& shape) {
  auto uniform = [&](uint64_t bound) { return bound == 0 ? 0 : rng() % bound; };
  ProblemBuilder builder;
  for (int arena = 0; arena < shape.arenas; ++arena) builder.Arena("arena" + std::to_string(arena));
  const int count = 1 + static_cast<int>(uniform(shape.max_buffers));
  std::vector<ArenaId> arena_of;
  std::vector<uint64_t> size_of;
  for (int id = 0; id < count; ++id) {
    const int64_t first = static_cast<int64_t>(uniform(shape.time_span));
    // Mostly short lifetimes, sometimes a long one.
    const int64_t length = uniform(8) == 0 ? static_cast<int64_t>(uniform(shape.time_span))
                                           : static_cast<int64_t>(uniform(shape.max_lifetime + 1));
    const ArenaId arena = static_cast<ArenaId>(uniform(shape.arenas));
    const bool view = shape.with_views && id > 0 && uniform(5) == 0;
    if (view) {
      const BufferId base = static_cast<BufferId>(uniform(id));
      const uint64_t base_size = size_of[base];
      const uint64_t offset = uniform(base_size / 2 + 1) & ~uint64_t{3};  // keep 4-byte steps
      const uint64_t size = uniform(base_size - offset + 1);
      builder.Buffer(size, first, first + length).ViewOf(base, offset).InArena(arena_of[base]);
      if (shape.with_padding_and_alignment && uniform(3) == 0) builder.Aligned(4);
      arena_of.push_back(arena_of[base]);
      size_of.push_back(size);
    } else {
      const uint64_t size = uniform(4) == 0 ? uint64_t{1} << uniform(12) : 1 + uniform(3000);
      builder.Buffer(size, first, first + length).InArena(arena);
      if (shape.with_padding_and_alignment) builder.Aligned(uint64_t{1} << uniform(7));
      arena_of.push_back(arena);
      size_of.push_back(size);
    }
    if (shape.with_padding_and_alignment && uniform(4) == 0) builder.Extra(uniform(32));
  }
  return builder.Build();
}

void CheckEveryAlgorithm(const Problem& problem, bool unit_alignment) {
  const StorageGroups groups = GroupStorage(problem);
  std::vector<uint64_t> lower_bound, naive;
  for (const std::vector<Block>& blocks : groups.blocks) {
    lower_bound.push_back(PeakLiveBytes(blocks));
    naive.push_back(ArenaExtent(blocks, NaivePlacement().Place(blocks)));
  }
  for (const auto& algorithm : DefaultAlgorithms()) {
    Expected<Plan> plan = PlanWithAlgorithm(problem, *algorithm);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    ASSERT_TRUE(PlanIsValid(problem, plan.value())) << algorithm->Name();
    for (size_t arena = 0; arena < problem.arenas.size(); ++arena) {
      ASSERT_GE(plan.value().arenas[arena].size, lower_bound[arena]) << algorithm->Name();
      // Without alignment slack a greedy block never ends above the sum of the sizes.
      if (unit_alignment) {
        ASSERT_LE(plan.value().arenas[arena].size, naive[arena]) << algorithm->Name();
      }
    }
  }
  Expected<SuiteResult> suite = PlanMemory(problem);
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  ASSERT_TRUE(PlanIsValid(problem, suite.value().plan));
  for (size_t arena = 0; arena < problem.arenas.size(); ++arena) {
    ASSERT_GE(suite.value().plan.arenas[arena].size, lower_bound[arena]);
    ASSERT_LE(suite.value().plan.arenas[arena].size, naive[arena]);
    for (const CandidateResult& candidate : suite.value().candidates) {
      ASSERT_LE(suite.value().plan.arenas[arena].size, candidate.arena_sizes[arena]);
    }
  }
}

void RunRandomRounds(uint64_t seed, int rounds, const Shape& shape) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < rounds; ++round) {
    const Problem problem = RandomProblem(rng, shape);
    SCOPED_TRACE("seed " + std::to_string(seed) + " round " + std::to_string(round));
    CheckEveryAlgorithm(problem, !shape.with_padding_and_alignment);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(RandomizedPlannerTest, ShortLifetimesOnAChain) {
  RunRandomRounds(1, 1000, Shape{60, 60, 2, false, false, 1});
}

TEST(RandomizedPlannerTest, WideOverlappingLifetimes) {
  RunRandomRounds(2, 1000, Shape{40, 20, 15, false, false, 1});
}

TEST(RandomizedPlannerTest, ViewsPaddingAlignmentAndSeveralArenas) {
  RunRandomRounds(3, 1500, Shape{50, 40, 6, true, true, 3});
}

TEST(RandomizedPlannerTest, LongProgramsSpanningManyTimeChunks) {
  // Thousands of instructions: lifetimes cross the occupancy index's time chunks and long-lived
  // buffers read the unions of whole chunks.
  RunRandomRounds(5, 60, Shape{600, 4000, 5, true, true, 2});
}

TEST(RandomizedPlannerTest, ThePlanIsOftenAtTheLowerBound) {
  // Not a correctness rule, a quality tripwire: on unit-aligned chains the suite should hit the
  // lower bound most of the time.
  std::mt19937_64 rng(4);
  int at_lower_bound = 0;
  const int rounds = 500;
  for (int round = 0; round < rounds; ++round) {
    const Problem problem = RandomProblem(rng, Shape{40, 40, 3, false, false, 1});
    Expected<SuiteResult> suite = PlanMemory(problem);
    ASSERT_TRUE(suite.ok());
    const uint64_t lower_bound = PeakLiveBytes(GroupStorage(problem).blocks[0]);
    at_lower_bound += suite.value().plan.TotalSize() == lower_bound ? 1 : 0;
  }
  EXPECT_GT(at_lower_bound, rounds * 8 / 10);
}

}  // namespace
}  // namespace torchir::memory_planner
