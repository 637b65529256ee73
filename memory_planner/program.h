// A plain description of a straight-line program: which buffers each instruction reads and
// writes. Lifetimes and the memory-aware order are computed from it, without the compiler graph.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memory_planner/buffer.h"
#include "memory_planner/expected.h"

namespace torchir::memory_planner {

// One instruction (an op or a delegate call) and the buffers it touches.
struct Instruction {
  std::vector<BufferId> reads;
  std::vector<BufferId> writes;
};

// Instructions in execution order; buffer ids run from 0 to buffer_count - 1. Constants are not
// buffers here: leave them out of reads.
struct Program {
  int32_t buffer_count = 0;
  std::vector<Instruction> instructions;
  std::vector<BufferId> graph_inputs;   // filled by the caller before instruction 0
  std::vector<BufferId> graph_outputs;  // read by the caller after the last instruction
  // Empty, or one entry per buffer: the buffer whose storage it shares (a view, a reshape, an
  // in-place output), or kNoBuffer.
  std::vector<BufferId> view_of;
};

// Returns the first problem found, or nothing: every buffer id in range, view_of empty or sized
// buffer_count, no buffer a view of itself through any chain.
std::optional<Error> ValidateProgram(const Program& program);

// For a valid program, the end of each buffer's view_of chain: the buffer owning the storage.
std::vector<BufferId> StorageRoots(const Program& valid_program);

}  // namespace torchir::memory_planner
