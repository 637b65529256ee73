// A hook for tools that time or log each instruction (torchir-run --profile,
// torchir-bench). Method::Execute calls it around every instruction when one
// is installed; with none, the cost is one null check per instruction.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

namespace torchir::runtime {

class EventTracer {
 public:
  virtual ~EventTracer() = default;
  // `name` is the graph node the instruction came from ("" when unnamed);
  // `is_delegate` tells a delegate call from a kernel call.
  virtual void BeginInstruction(size_t index, const char* name, bool is_delegate) = 0;
  virtual void EndInstruction(size_t index, Error status) = 0;
};

}  // namespace torchir::runtime
