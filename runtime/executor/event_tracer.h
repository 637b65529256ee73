// A hook for tools that time or log each instruction (torchir-run --profile,
// torchir-bench). Method::Execute calls it around every instruction when one
// is installed; with none, the cost is one null check per instruction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace torchir::runtime {

class EventTracer {
 public:
  virtual ~EventTracer() = default;
  // `name` is the graph node the instruction came from ("" when unnamed);
  // `is_delegate` tells a delegate call from a kernel call.
  virtual void BeginInstruction(size_t index, const char* name, bool is_delegate) = 0;
  virtual void EndInstruction(size_t index, Error status) = 0;
  // For backends that can time the nodes inside a delegate call: node `node` (a
  // position in the instruction's debug handle, Method::instruction_debug_node)
  // of delegate instruction `index` ran from `begin_ns` to `end_ns`
  // (NowNanoseconds). Called between that instruction's Begin and End, from
  // the thread that runs the Method, once per node or once per piece of work
  // a node does (a matrix product's softmax, one batch at a time). The native
  // delegate reports its nodes (Backend::ExecuteTraced); the XNNPACK delegate
  // cannot and never calls it.
  virtual void DelegateNodeEvent(size_t index, size_t node, uint64_t begin_ns, uint64_t end_ns) {
    (void)index;
    (void)node;
    (void)begin_ns;
    (void)end_ns;
  }
};

}  // namespace torchir::runtime
