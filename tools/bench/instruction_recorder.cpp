#include "tools/bench/instruction_recorder.h"

#include "runtime/platform/platform.h"

namespace torchir::bench {

InstructionRecorder::InstructionRecorder(size_t num_instructions, size_t traced_iterations,
                                         size_t node_event_capacity)
    : totals_(num_instructions, 0) {
  events_.reserve(num_instructions * traced_iterations + node_event_capacity);
}

void InstructionRecorder::SizeNodeTotals(const std::vector<size_t>& nodes) {
  node_totals_.assign(nodes.size(), {});
  for (size_t i = 0; i < nodes.size(); ++i) node_totals_[i].assign(nodes[i], 0);
}

void InstructionRecorder::BeginIteration(uint32_t iteration, bool record_events) {
  iteration_ = iteration;
  record_ = record_events;
}

void InstructionRecorder::BeginInstruction(size_t, const char*, bool) {
  begin_ns_ = runtime::NowNanoseconds();
}

void InstructionRecorder::EndInstruction(size_t index, runtime::Error status) {
  const uint64_t end_ns = runtime::NowNanoseconds();
  if (index < totals_.size()) totals_[index] += end_ns - begin_ns_;
  if (!record_) return;
  InstructionEvent event;
  event.iteration = iteration_;
  event.instruction = static_cast<uint32_t>(index);
  event.begin_ns = begin_ns_;
  event.end_ns = end_ns;
  event.failed = status != runtime::Error::kOk;
  Keep(event);
}

void InstructionRecorder::DelegateNodeEvent(size_t index, size_t node, uint64_t begin_ns,
                                            uint64_t end_ns) {
  if (index < node_totals_.size() && node < node_totals_[index].size() && end_ns > begin_ns) {
    node_totals_[index][node] += end_ns - begin_ns;
  }
  if (!record_) return;
  InstructionEvent event;
  event.iteration = iteration_;
  event.instruction = static_cast<uint32_t>(index);
  event.delegate_node = static_cast<int32_t>(node);
  event.begin_ns = begin_ns;
  event.end_ns = end_ns < begin_ns ? begin_ns : end_ns;
  Keep(event);
}

void InstructionRecorder::Keep(const InstructionEvent& event) {
  // Never grow during Execute: what the reservation cannot hold is dropped.
  if (events_.size() == events_.capacity()) {
    ++dropped_;
    return;
  }
  events_.push_back(event);
}

}  // namespace torchir::bench
