#include "memory_planner/storage_groups.h"

#include <algorithm>

namespace torchir::memory_planner {

StorageGroups GroupStorage(const Problem& valid_problem) {
  const std::vector<Buffer>& buffers = valid_problem.buffers;
  const size_t count = buffers.size();
  StorageGroups groups;
  groups.root.assign(count, kNoBuffer);
  groups.offset_in_root.assign(count, 0);
  groups.block_index.assign(count, -1);
  groups.blocks.resize(valid_problem.arenas.size());

  // 1. Roots and offsets; `path` collects unresolved views up the chain so each link is walked
  // once.
  std::vector<BufferId> path;
  for (size_t start = 0; start < count; ++start) {
    path.clear();
    BufferId current = static_cast<BufferId>(start);
    while (groups.root[current] == kNoBuffer && buffers[current].base != kNoBuffer) {
      path.push_back(current);
      current = buffers[current].base;
    }
    if (groups.root[current] == kNoBuffer) groups.root[current] = current;  // a root
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const BufferId base = buffers[*it].base;
      groups.root[*it] = groups.root[base];
      groups.offset_in_root[*it] = groups.offset_in_root[base] + buffers[*it].offset_in_base;
    }
  }

  // 2. One block per root, in problem order.
  for (size_t id = 0; id < count; ++id) {
    if (groups.root[id] != static_cast<BufferId>(id)) continue;
    const Buffer& root = buffers[id];
    std::vector<Block>& arena_blocks = groups.blocks[root.arena];
    groups.block_index[id] = static_cast<int32_t>(arena_blocks.size());
    arena_blocks.push_back(
        Block{root.size + root.extra_bytes, root.alignment, root.first_use, root.last_use});
  }

  // 3. Grow each block over its views.
  for (size_t id = 0; id < count; ++id) {
    const BufferId root = groups.root[id];
    if (root == static_cast<BufferId>(id)) continue;
    const Buffer& view = buffers[id];
    groups.block_index[id] = groups.block_index[root];
    Block& block = groups.blocks[buffers[root].arena][groups.block_index[root]];
    block.size = std::max(block.size, groups.offset_in_root[id] + view.size + view.extra_bytes);
    block.alignment = std::max(block.alignment, view.alignment);
    block.first_use = std::min(block.first_use, view.first_use);
    block.last_use = std::max(block.last_use, view.last_use);
  }
  return groups;
}

}  // namespace torchir::memory_planner
