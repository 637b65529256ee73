#include "memory_planner/planner.h"

#include <utility>

#include "memory_planner/gap_fit.h"
#include "memory_planner/greedy_by_breadth.h"
#include "memory_planner/greedy_by_conflict.h"
#include "memory_planner/greedy_by_size.h"
#include "memory_planner/linear_scan_slots.h"
#include "memory_planner/naive.h"
#include "memory_planner/storage_groups.h"
#include "memory_planner/validation.h"

namespace torchir::memory_planner {
namespace {

// Buffer placements from the chosen block offsets of every arena.
std::vector<Placement> PlaceBuffers(const Problem& problem, const StorageGroups& groups,
                                    const std::vector<std::vector<uint64_t>>& block_offsets) {
  std::vector<Placement> placements(problem.buffers.size());
  for (size_t id = 0; id < problem.buffers.size(); ++id) {
    const ArenaId arena = problem.buffers[id].arena;
    placements[id].arena = arena;
    placements[id].offset =
        block_offsets[arena][groups.block_index[id]] + groups.offset_in_root[id];
  }
  return placements;
}

}  // namespace

std::vector<std::unique_ptr<PlacementAlgorithm>> DefaultAlgorithms() {
  std::vector<std::unique_ptr<PlacementAlgorithm>> algorithms;
  for (FitPolicy policy : {FitPolicy::kBestFit, FitPolicy::kFirstFit}) {
    algorithms.push_back(std::make_unique<GreedyBySize>(policy));
  }
  for (FitPolicy policy : {FitPolicy::kBestFit, FitPolicy::kFirstFit}) {
    algorithms.push_back(std::make_unique<GreedyByConflict>(policy));
  }
  for (FitPolicy policy : {FitPolicy::kBestFit, FitPolicy::kFirstFit}) {
    algorithms.push_back(std::make_unique<GreedyByBreadth>(policy));
  }
  algorithms.push_back(std::make_unique<LinearScanSlots>());
  algorithms.push_back(std::make_unique<NaivePlacement>());
  return algorithms;
}

Expected<Plan> PlanWithAlgorithm(const Problem& problem, const PlacementAlgorithm& algorithm) {
  Expected<SuiteResult> result = PlanMemory(problem, {&algorithm});
  if (!result.ok()) return result.error();
  return std::move(result.value().plan);
}

Expected<SuiteResult> PlanMemory(const Problem& problem,
                                 const std::vector<const PlacementAlgorithm*>& algorithms) {
  if (algorithms.empty()) return Error{"no placement algorithm to plan with"};
  if (auto error = ValidateProblem(problem)) return *error;
  const StorageGroups groups = GroupStorage(problem);
  const size_t arena_count = problem.arenas.size();

  SuiteResult result;
  result.plan.arenas.resize(arena_count);
  std::vector<std::vector<uint64_t>> best_offsets(arena_count);
  for (const PlacementAlgorithm* algorithm : algorithms) {
    CandidateResult candidate{algorithm->Name(), std::vector<uint64_t>(arena_count, 0)};
    for (size_t arena = 0; arena < arena_count; ++arena) {
      const std::vector<Block>& blocks = groups.blocks[arena];
      std::vector<uint64_t> offsets = algorithm->Place(blocks);
      const uint64_t size = ArenaExtent(blocks, offsets);
      candidate.arena_sizes[arena] = size;
      ArenaPlan& kept = result.plan.arenas[arena];
      if (kept.algorithm.empty() || size < kept.size) {
        kept = ArenaPlan{size, candidate.algorithm};
        best_offsets[arena] = std::move(offsets);
      }
    }
    result.candidates.push_back(std::move(candidate));
  }
  result.plan.placements = PlaceBuffers(problem, groups, best_offsets);
  return result;
}

Expected<SuiteResult> PlanMemory(const Problem& problem) {
  const std::vector<std::unique_ptr<PlacementAlgorithm>> owned = DefaultAlgorithms();
  std::vector<const PlacementAlgorithm*> algorithms;
  for (const auto& algorithm : owned) algorithms.push_back(algorithm.get());
  return PlanMemory(problem, algorithms);
}

}  // namespace torchir::memory_planner
