// The interface every placement algorithm implements, so the planner can try them side by side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory_planner/storage_groups.h"

namespace torchir::memory_planner {

// Assigns offsets to the blocks of one arena. Blocks whose lifetimes overlap must get disjoint
// byte ranges [offset, offset + size), and every offset must be a multiple of its block's
// alignment; the planner verifies neither, the checker does.
class PlacementAlgorithm {
 public:
  virtual ~PlacementAlgorithm() = default;

  // A stable identifier shown in reports, e.g. "greedy_by_size/best_fit".
  virtual std::string Name() const = 0;

  // One offset per block, same indices. Must be deterministic.
  virtual std::vector<uint64_t> Place(const std::vector<Block>& blocks) const = 0;
};

}  // namespace torchir::memory_planner
