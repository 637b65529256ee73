// Greedy by lifetime conflict: the blocks that share their lifetime with the most bytes first.
#pragma once

#include <cstdint>
#include <vector>

#include "memory_planner/gap_fit.h"
#include "memory_planner/placement_algorithm.h"

namespace torchir::memory_planner {

// For every block, the total size of the other blocks whose lifetimes overlap its own, in
// O(n log n): (sizes of blocks starting by its last_use) - (sizes of blocks ending before its
// first_use) - its own size.
std::vector<uint64_t> ConflictingBytes(const std::vector<Block>& blocks);

// Places the most constrained blocks while the arena is still empty:
//   1. compute ConflictingBytes for every block;
//   2. order the blocks by conflicting bytes + own size, largest first (ties: larger size, earlier
//      first_use, lower index), so a small block live across the whole program goes before the
//      short-lived big ones it would otherwise sit on top of;
//   3. place them in that order with PlaceInOrder and `policy`.
class GreedyByConflict : public PlacementAlgorithm {
 public:
  explicit GreedyByConflict(FitPolicy policy = FitPolicy::kBestFit) : policy_(policy) {}
  std::string Name() const override;
  std::vector<uint64_t> Place(const std::vector<Block>& blocks) const override;

 private:
  FitPolicy policy_;
};

}  // namespace torchir::memory_planner
