// Storage groups: a buffer with no base plus every view that (transitively) lives inside it. The
// placement algorithms place whole groups as blocks; views then follow their root.
#pragma once

#include <cstdint>
#include <vector>

#include "memory_planner/buffer.h"

namespace torchir::memory_planner {

// The placement unit: the bytes a storage group reserves and when it reserves them.
struct Block {
  uint64_t size = 0;       // the root's bytes, grown to cover every member's extra_bytes
  uint64_t alignment = 1;  // the largest alignment of any member
  int64_t first_use = 0;   // earliest first_use of any member
  int64_t last_use = 0;    // latest last_use of any member
};

// Blocks per arena and the way back from blocks to buffers.
struct StorageGroups {
  std::vector<BufferId> root;              // per buffer: the group's root (itself if no base)
  std::vector<uint64_t> offset_in_root;    // per buffer: where it starts inside the root
  std::vector<int32_t> block_index;        // per buffer: its group's index in blocks[arena]
  std::vector<std::vector<Block>> blocks;  // per arena, in the order roots appear in the problem
};

// Groups the buffers of a problem that passed ValidateProblem:
//   1. follow base links to each buffer's root, summing offsets on the way;
//   2. give each root a block in its arena;
//   3. grow the block over every member: its alignment to the largest member alignment, its
//      lifetime to the hull of the members' lifetimes, its size to cover
//      offset_in_root + size + extra_bytes of every member.
StorageGroups GroupStorage(const Problem& valid_problem);

}  // namespace torchir::memory_planner
