// Greedy by breadth: the blocks live at the busiest instructions first.
#pragma once

#include "memory_planner/gap_fit.h"
#include "memory_planner/placement_algorithm.h"

namespace torchir::memory_planner {

// Packs the peak tightly, since the peak is what sets the arena size:
//   1. build the LiveBytesProfile of the blocks;
//   2. give every block the peak live bytes inside its own lifetime (the breadth of the busiest
//      instruction it is live at);
//   3. order the blocks by that breadth, largest first (ties: larger size, earlier first_use,
//      lower index), so the blocks of the busiest instruction are placed first, biggest first,
//      then those of the next busiest, and so on;
//   4. place them in that order with PlaceInOrder and `policy`.
class GreedyByBreadth : public PlacementAlgorithm {
 public:
  explicit GreedyByBreadth(FitPolicy policy = FitPolicy::kBestFit) : policy_(policy) {}
  std::string Name() const override;
  std::vector<uint64_t> Place(const std::vector<Block>& blocks) const override;

 private:
  FitPolicy policy_;
};

}  // namespace torchir::memory_planner
