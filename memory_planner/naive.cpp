#include "memory_planner/naive.h"

#include "memory_planner/gap_fit.h"

namespace torchir::memory_planner {

std::vector<uint64_t> NaivePlacement::Place(const std::vector<Block>& blocks) const {
  std::vector<uint64_t> offsets(blocks.size(), 0);
  uint64_t end = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].size == 0) continue;
    offsets[i] = AlignUp(end, blocks[i].alignment);
    end = offsets[i] + blocks[i].size;
  }
  return offsets;
}

}  // namespace torchir::memory_planner
