// The load-time checks that make a .pte safe to run. In order:
//   1. the buffer is 16-byte aligned and holds at least the file header;
//   2. header magic and version; the FlatBuffer and segment ranges lie inside
//      the file without overflow and in order (header, FlatBuffer, segments);
//   3. the FlatBuffers verifier (offsets, vectors, strings, nesting, the "TIR1"
//      identifier) over the FlatBuffer range only;
//   4. Program.version within what this runtime supports;
//   5. every segment inside the segment data;
//   6. per method: every value's union set; tensors have a known dtype, rank
//      <= kMaxTensorRank, non-negative sizes whose byte size does not overflow,
//      a dim order that is a permutation, exactly one of constant data and
//      allocation, and lie inside their segment or arena, aligned for their
//      element type; tensor lists name tensors; inputs and outputs name
//      tensors and inputs are planned (writable); every instruction's
//      operator, delegate and argument indices are in range; delegates name a
//      backend and an existing segment; arena sizes sum without overflow.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "schema/file_header.h"

namespace torchir::pte {
struct Program;
}

namespace torchir::runtime {

// Runs all checks; on success fills `header` and `program`.
Error ValidateProgram(Span<const uint8_t> file, pte::FileHeader* header,
                      const pte::Program** program);

}  // namespace torchir::runtime
