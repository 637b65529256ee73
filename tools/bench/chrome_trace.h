// The Chrome trace-event format (what chrome://tracing and ui.perfetto.dev
// open) for recorded instruction events: one JSON object
//   {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}
// holding metadata events ("ph": "M") that name the process and thread, one
// complete event ("ph": "X") per traced iteration (cat "iteration"), one per
// instruction (cat "kernel" or "delegate") and one per delegate node a backend
// reported (cat "delegate_node"). ts and dur are microseconds from the first
// event; events are written in ts order, enclosing events first. Instruction
// events are named after their graph node and carry args {"instruction",
// "iteration", "op", "nodes": [the debug handle's node names]}.
#pragma once

#include <string>
#include <vector>

#include "runtime/executor/method.h"
#include "tools/bench/instruction_recorder.h"

namespace torchir::bench {

// The trace text for `events` of `method`; `program` names the process.
std::string ChromeTraceJson(const runtime::Method& method,
                            const std::vector<InstructionEvent>& events,
                            const std::string& program);

}  // namespace torchir::bench
