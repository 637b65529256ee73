// An EventTracer that times every instruction of a Method: totals for the
// per-instruction profile, and, for the iterations asked for, one event per
// instruction (and per delegate node a backend reports) for a trace. Event
// storage is reserved up front, so recording allocates nothing during Execute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/executor/event_tracer.h"

namespace torchir::bench {

struct InstructionEvent {
  uint32_t iteration = 0;
  uint32_t instruction = 0;
  // -1: the instruction itself; otherwise a node of its debug handle that the
  // delegate reported.
  int32_t delegate_node = -1;
  uint64_t begin_ns = 0;  // runtime::NowNanoseconds
  uint64_t end_ns = 0;
  bool failed = false;
};

class InstructionRecorder : public runtime::EventTracer {
 public:
  // Reserves events for `traced_iterations` runs of `num_instructions`
  // instructions (0: no events, totals only), plus `node_event_capacity` events
  // for delegate nodes; what does not fit is counted in dropped_events().
  InstructionRecorder(size_t num_instructions, size_t traced_iterations,
                      size_t node_event_capacity = 0);

  // Sizes the per-node totals: instruction i has nodes[i] debug nodes
  // (Method::instruction_num_debug_nodes). Without it node events only go to
  // the trace.
  void SizeNodeTotals(const std::vector<size_t>& nodes);

  // Starts timed iteration `iteration`; `record_events` keeps its events.
  void BeginIteration(uint32_t iteration, bool record_events);

  void BeginInstruction(size_t index, const char* name, bool is_delegate) override;
  void EndInstruction(size_t index, runtime::Error status) override;
  void DelegateNodeEvent(size_t index, size_t node, uint64_t begin_ns, uint64_t end_ns) override;

  // Nanoseconds each instruction took, summed over every timed iteration.
  const std::vector<uint64_t>& totals() const { return totals_; }
  // Nanoseconds the delegate reported for node k of instruction i, summed over
  // every timed iteration: node_totals()[i][k] (empty before SizeNodeTotals).
  const std::vector<std::vector<uint64_t>>& node_totals() const { return node_totals_; }
  // In the order they ended (instructions in execution order, a delegate's
  // nodes before the delegate call itself).
  const std::vector<InstructionEvent>& events() const { return events_; }
  size_t dropped_events() const { return dropped_; }

 private:
  void Keep(const InstructionEvent& event);

  std::vector<uint64_t> totals_;
  std::vector<std::vector<uint64_t>> node_totals_;
  std::vector<InstructionEvent> events_;
  uint64_t begin_ns_ = 0;
  uint32_t iteration_ = 0;
  bool record_ = false;
  size_t dropped_ = 0;
};

}  // namespace torchir::bench
