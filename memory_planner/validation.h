// Input checks run before planning. The planner only ever plans problems that pass them.
#pragma once

#include <optional>

#include "memory_planner/buffer.h"
#include "memory_planner/expected.h"

namespace torchir::memory_planner {

// Returns the first problem found, or nothing when `problem` can be planned. Checks, per buffer:
//   1. alignment is a power of two;
//   2. first_use <= last_use;
//   3. the arena exists;
//   4. a base exists, is in the same arena, and the view lies inside it
//      (offset_in_base + size <= base size);
//   5. following base links never loops (no view cycles);
//   6. the offset inside the storage root (the sum of offsets along the base chain) is a multiple
//      of the buffer's alignment, so aligning the root aligns every view;
// and for the whole problem:
//   7. the bytes of all buffers, padding and alignment slack included, fit in 64 bits.
std::optional<Error> ValidateProblem(const Problem& problem);

}  // namespace torchir::memory_planner
