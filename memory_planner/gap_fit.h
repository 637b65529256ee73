// Offset assignment shared by the greedy algorithms: place blocks one at a time, in a given order,
// into a gap between already-placed blocks that are live at the same time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "memory_planner/storage_groups.h"

namespace torchir::memory_planner {

// Which fitting gap a block takes.
enum class FitPolicy {
  kBestFit,   // the smallest gap that fits (TFLite's arena planner); ties to the lowest offset
  kFirstFit,  // the lowest gap that fits (TFLite Micro's greedy planner)
};

// "best_fit" / "first_fit".
std::string_view FitPolicyName(FitPolicy policy);

// Block indices in the order the greedy orderings place them: by `priority`
// descending (one value per block; empty: no priority), then size descending,
// then earlier first use, then lower index. The orderings differ only in their
// priority.
std::vector<int32_t> OrderByPriority(const std::vector<Block>& blocks,
                                     const std::vector<uint64_t>& priority);

// Returns an offset per block. For each block of `order` in turn:
//   1. get the bytes taken by already-placed blocks whose lifetimes overlap it, in offset order,
//      from an OccupancyIndex (time-bucketed and offset-sorted: no scan over all placed blocks);
//   2. walk the gaps between them from offset 0, aligning each gap's start to the block's
//      alignment; the bytes above the highest taken byte form a last, unbounded gap;
//   3. take the gap `policy` prefers among those at least as large as the block, else the
//      unbounded one.
// A block of zero bytes reserves nothing and goes to offset 0. `order` must be a permutation of
// the block indices.
std::vector<uint64_t> PlaceInOrder(const std::vector<Block>& blocks,
                                   const std::vector<int32_t>& order, FitPolicy policy);

// The arena size a layout needs: the highest offset + size over the blocks (0 when empty).
uint64_t ArenaExtent(const std::vector<Block>& blocks, const std::vector<uint64_t>& offsets);

// Rounds `value` up to a multiple of the power of two `alignment`.
inline uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace torchir::memory_planner
