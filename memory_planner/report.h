// What planning achieved, as data and as the text `torchir-compile --memory-report` prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory_planner/buffer.h"
#include "memory_planner/expected.h"
#include "memory_planner/planner.h"

namespace torchir::memory_planner {

// One arena's numbers. Sizes are in bytes and count extra_bytes and alignment padding.
struct ArenaReport {
  std::string name;
  size_t buffer_count = 0;            // buffers in the arena, views included
  uint64_t planned_bytes = 0;         // the kept plan's arena size
  uint64_t lower_bound_bytes = 0;     // peak live bytes at any instruction: no plan can do better
  uint64_t naive_bytes = 0;           // every storage group in bytes of its own
  std::string algorithm;              // the algorithm whose layout was kept
  double ratio_to_lower_bound = 1.0;  // planned / lower bound; 1.0 when both are 0
};

// The whole plan's numbers; the totals sum the arenas.
struct MemoryReport {
  std::vector<ArenaReport> arenas;
  uint64_t planned_bytes = 0;
  uint64_t lower_bound_bytes = 0;
  uint64_t naive_bytes = 0;
  double ratio_to_lower_bound = 1.0;
  std::vector<CandidateResult> candidates;  // every algorithm tried, in the order tried
};

// Computes the report for `result`, a PlanMemory result for `problem`:
//   1. validate and group the problem as the planner does;
//   2. per arena, the lower bound is the peak of the blocks' LiveBytesProfile and the naive size
//      comes from NaivePlacement, both computed here rather than taken from the candidates;
//   3. the planned size and algorithm come from result.plan.
// Fails when the problem is invalid or the result does not have one entry per arena.
Expected<MemoryReport> BuildReport(const Problem& problem, const SuiteResult& result);

// Renders the report as text: a summary line with the totals, an aligned table with one row per
// arena, then every candidate's total, for example:
//   memory plan: 2 arenas, planned 172 bytes, lower bound 172, naive 284, planned/lower 1.000
//   arena        buffers      planned  lower bound        naive  planned/lower  algorithm
//   activations        5           22           22           34          1.000  greedy_by_...
//   scratch            3          150          150          250          1.000  greedy_by_...
//   candidates (total bytes over all arenas):
//     greedy_by_size/best_fit               176
//     ...
std::string RenderReport(const MemoryReport& report);

}  // namespace torchir::memory_planner
