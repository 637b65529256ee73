// First and last use of every buffer of a Program, in the form Buffer wants them.
#pragma once

#include <cstdint>
#include <vector>

#include "memory_planner/expected.h"
#include "memory_planner/program.h"

namespace torchir::memory_planner {

// The instructions a buffer's bytes are needed for, inclusive. Buffers no instruction touches and
// that are neither graph inputs nor outputs stay unused and need no placement.
struct Lifetime {
  int64_t first_use = -1;
  int64_t last_use = -1;
  bool used() const { return first_use >= 0; }
};

// Computes a lifetime per buffer:
//   1. every read or write at instruction i widens the buffer's lifetime to include i;
//   2. graph inputs widen theirs to include 0, graph outputs to include the last instruction
//      (0 in an empty program): the caller owns them before and after the run;
//   3. every view widens the lifetime of each buffer up its view_of chain, deepest views first,
//      so a base stays live for as long as anything sharing its storage.
// Fails on an invalid program (see ValidateProgram).
Expected<std::vector<Lifetime>> ComputeLifetimes(const Program& program);

}  // namespace torchir::memory_planner
