// The planner's data model: the buffers to place, the arenas they go in, and the resulting plan.
// Plain data only; the compiler translates its graph into a Problem and the Plan back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchir::memory_planner {

// Index of a buffer in Problem::buffers.
using BufferId = int32_t;
// Index of an arena in Problem::arenas.
using ArenaId = int32_t;

inline constexpr BufferId kNoBuffer = -1;

// A region the runtime allocates once at init and the plan carves up, e.g. "activations".
struct Arena {
  std::string name;
};

// One storage request. Lifetimes are inclusive instruction indices: the bytes are needed from the
// start of instruction first_use to the end of instruction last_use, so an instruction's inputs and
// outputs never share bytes unless one is declared to share the other's storage through `base`.
struct Buffer {
  uint64_t size = 0;       // bytes
  uint64_t alignment = 1;  // the offset must be a multiple of it; a power of two
  int64_t first_use = 0;   // graph inputs: 0
  int64_t last_use = 0;    // graph outputs: the last instruction
  ArenaId arena = 0;
  // Bytes after the end that a consumer may read (never write), e.g. a vectorised kernel reading
  // whole SIMD registers. They are reserved like the buffer's own bytes.
  uint64_t extra_bytes = 0;
  // "Shares storage with": a view or in-place output lives inside `base` at `offset_in_base`
  // instead of getting bytes of its own. The base's storage then stays reserved for as long as any
  // of its views is live. Must lie inside the base and be in the same arena.
  BufferId base = kNoBuffer;
  uint64_t offset_in_base = 0;
  std::string name;  // optional; used in error messages only
};

// The input to planning. Constants are not planned; the caller leaves them out.
struct Problem {
  std::vector<Arena> arenas;
  std::vector<Buffer> buffers;
};

// Where one buffer lives.
struct Placement {
  ArenaId arena = 0;
  uint64_t offset = 0;  // bytes from the start of the arena
};

// The size of one planned arena and the algorithm that produced its layout.
struct ArenaPlan {
  uint64_t size = 0;
  std::string algorithm;
};

// The answer: one placement per buffer (same indices as Problem::buffers) and one entry per arena.
struct Plan {
  std::vector<Placement> placements;
  std::vector<ArenaPlan> arenas;

  // Sum of the arena sizes.
  uint64_t TotalSize() const {
    uint64_t total = 0;
    for (const ArenaPlan& arena : arenas) total += arena.size;
    return total;
  }
};

// "buffer 3 (conv1.out)", or "buffer 3" without a name: how messages refer to a buffer.
inline std::string BufferLabel(const Problem& problem, BufferId id) {
  std::string label = "buffer " + std::to_string(id);
  if (id >= 0 && static_cast<size_t>(id) < problem.buffers.size() &&
      !problem.buffers[id].name.empty()) {
    label += " (" + problem.buffers[id].name + ")";
  }
  return label;
}

}  // namespace torchir::memory_planner
