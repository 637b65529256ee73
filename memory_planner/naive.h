// The no-reuse baseline every report compares against.
#pragma once

#include "memory_planner/placement_algorithm.h"

namespace torchir::memory_planner {

// Gives every block bytes of its own:
//   1. walk the blocks in index order (the order their roots appear in the problem);
//   2. place each at the end of the previous one, rounded up to its alignment.
// The arena size is the sum of the sizes plus alignment padding: an upper bound for any plan.
class NaivePlacement : public PlacementAlgorithm {
 public:
  std::string Name() const override { return "naive"; }
  std::vector<uint64_t> Place(const std::vector<Block>& blocks) const override;
};

}  // namespace torchir::memory_planner
