// Greedy by size: the biggest blocks first, each into a gap among the blocks live with it.
#pragma once

#include "memory_planner/gap_fit.h"
#include "memory_planner/placement_algorithm.h"

namespace torchir::memory_planner {

// The strategy of TFLite's arena planner:
//   1. order the blocks by size, largest first (ties: earlier first_use, then lower index);
//   2. place them in that order with PlaceInOrder: each goes into the gap `policy` picks among
//      the already-placed blocks whose lifetimes overlap its own.
// Big blocks placed early pin the layout; it is near-optimal on chains but can lose when a small
// block that conflicts with everything ends up on top of the stack (see greedy_by_conflict.h).
class GreedyBySize : public PlacementAlgorithm {
 public:
  explicit GreedyBySize(FitPolicy policy = FitPolicy::kBestFit) : policy_(policy) {}
  std::string Name() const override;
  std::vector<uint64_t> Place(const std::vector<Block>& blocks) const override;

 private:
  FitPolicy policy_;
};

}  // namespace torchir::memory_planner
