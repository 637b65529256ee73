// The planner: validates a Problem, runs placement algorithms over it and keeps the smallest plan.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memory_planner/buffer.h"
#include "memory_planner/expected.h"
#include "memory_planner/placement_algorithm.h"

namespace torchir::memory_planner {

// What one algorithm achieved: its arena sizes, same indices as Problem::arenas.
struct CandidateResult {
  std::string algorithm;
  std::vector<uint64_t> arena_sizes;

  uint64_t TotalSize() const {
    uint64_t total = 0;
    for (uint64_t size : arena_sizes) total += size;
    return total;
  }
};

// The kept plan plus every candidate tried, in the order tried.
struct SuiteResult {
  Plan plan;
  std::vector<CandidateResult> candidates;
};

// The default suite, in tie-break order: greedy by size, by conflict and by breadth, each with
// best fit then first fit; linear-scan slots; and last the naive baseline, so the suite is never
// worse than it.
std::vector<std::unique_ptr<PlacementAlgorithm>> DefaultAlgorithms();

// Plans with one algorithm:
//   1. ValidateProblem; stop at the first error;
//   2. GroupStorage: views fold into their root's block;
//   3. per arena, place the blocks with `algorithm`; the arena size is the highest block end;
//   4. give each buffer its root's offset plus its offset inside the root.
Expected<Plan> PlanWithAlgorithm(const Problem& problem, const PlacementAlgorithm& algorithm);

// Plans with every algorithm of `algorithms` (non-empty) and keeps, per arena, the smallest
// layout; arenas are independent, so this also minimises the total. Ties go to the earlier
// algorithm. Same steps as PlanWithAlgorithm, with step 3 run once per algorithm.
Expected<SuiteResult> PlanMemory(const Problem& problem,
                                 const std::vector<const PlacementAlgorithm*>& algorithms);

// PlanMemory with DefaultAlgorithms().
Expected<SuiteResult> PlanMemory(const Problem& problem);

}  // namespace torchir::memory_planner
