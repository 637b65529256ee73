#include "memory_planner/gap_fit.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "memory_planner/occupancy_index.h"

namespace torchir::memory_planner {

std::string_view FitPolicyName(FitPolicy policy) {
  switch (policy) {
    case FitPolicy::kBestFit:
      return "best_fit";
    case FitPolicy::kFirstFit:
      return "first_fit";
  }
  return "unknown";
}

std::vector<uint64_t> PlaceInOrder(const std::vector<Block>& blocks,
                                   const std::vector<int32_t>& order, FitPolicy policy) {
  // Work on the blocks in placement order, so that step k reads memory sequentially.
  std::vector<Block> ordered(order.size());
  for (size_t k = 0; k < order.size(); ++k) ordered[k] = blocks[order[k]];
  OccupancyIndex occupied(ordered);

  std::vector<uint64_t> offsets(blocks.size(), 0);
  for (size_t k = 0; k < ordered.size(); ++k) {
    const Block& block = ordered[k];
    if (block.size == 0) continue;  // offset 0, and invisible to everyone else

    // `reached` is the end of the highest taken byte seen so far: the next gap starts there.
    uint64_t reached = 0;
    uint64_t best_offset = 0;
    uint64_t best_gap = std::numeric_limits<uint64_t>::max();
    bool found = false;
    occupied.ForEachOccupied(static_cast<int32_t>(k), [&](const ByteRange& taken) {
      const uint64_t gap_start = AlignUp(reached, block.alignment);
      if (taken.begin >= gap_start && taken.begin - gap_start >= block.size) {
        const uint64_t gap = taken.begin - gap_start;
        if (gap < best_gap) {
          best_gap = gap;
          best_offset = gap_start;
          found = true;
          // Nothing fits better than an exact fit; first fit takes the first.
          if (policy == FitPolicy::kFirstFit || gap == block.size) return false;
        }
      }
      reached = std::max(reached, taken.end);
      return true;
    });
    const uint64_t offset = found ? best_offset : AlignUp(reached, block.alignment);
    occupied.Place(static_cast<int32_t>(k), ByteRange{offset, offset + block.size});
    offsets[order[k]] = offset;
  }
  return offsets;
}

uint64_t ArenaExtent(const std::vector<Block>& blocks, const std::vector<uint64_t>& offsets) {
  uint64_t extent = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].size == 0) continue;
    extent = std::max(extent, offsets[i] + blocks[i].size);
  }
  return extent;
}

std::vector<int32_t> OrderByPriority(const std::vector<Block>& blocks,
                                     const std::vector<uint64_t>& priority) {
  std::vector<int32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (!priority.empty() && priority[a] != priority[b]) return priority[a] > priority[b];
    if (blocks[a].size != blocks[b].size) return blocks[a].size > blocks[b].size;
    if (blocks[a].first_use != blocks[b].first_use) {
      return blocks[a].first_use < blocks[b].first_use;
    }
    return a < b;
  });
  return order;
}

}  // namespace torchir::memory_planner
