// A topological order of a program's instructions that keeps fewer bytes live at once.
#pragma once

#include <cstdint>
#include <vector>

#include "memory_planner/expected.h"
#include "memory_planner/program.h"

namespace torchir::memory_planner {

// A schedule and what it costs.
struct ScheduleResult {
  std::vector<int32_t> order;  // order[k] = index of the instruction to run k-th
  uint64_t original_peak = 0;  // peak live bytes in program order
  uint64_t peak = 0;           // peak live bytes in `order`
  bool reordered = false;      // false: `order` is the identity, the greedy order did not help
};

// The peak live bytes of running the program's instructions in `order` (a permutation): the
// largest sum over storage roots live at one instruction of their sizes (the storage root of a
// view is the end of its view_of chain; views take no bytes of their own).
Expected<uint64_t> PeakLiveBytesInOrder(const Program& program,
                                        const std::vector<uint64_t>& buffer_sizes,
                                        const std::vector<int32_t>& order);

// Reorders the instructions to lower peak live bytes, keeping every dependency:
//   1. derive the DAG from the program order: two instructions touching the same storage root,
//      at least one of them writing it, keep their relative order (read-after-write,
//      write-after-read, write-after-write);
//   2. list-schedule it: among the ready instructions, run the one with the largest
//      (bytes it frees) - (bytes it allocates); it allocates the storage roots it is first to
//      touch (graph inputs are allocated from the start) and frees those it is the last to touch
//      (never graph outputs); ties go to the lower original index, so a chain keeps its order;
//   3. keep that order only if its peak is strictly lower than the original's, else return the
//      identity.
// `buffer_sizes` has one entry per buffer. Costs O(n * ready) for n instructions; the ready set
// stays small on real networks.
Expected<ScheduleResult> MemoryAwareOrder(const Program& program,
                                          const std::vector<uint64_t>& buffer_sizes);

}  // namespace torchir::memory_planner
