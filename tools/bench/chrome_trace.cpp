#include "tools/bench/chrome_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "tools/bench/json_text.h"

namespace torchir::bench {
namespace {

// One complete event before it becomes text.
struct TimedEvent {
  uint64_t begin_ns;
  uint64_t end_ns;
  std::string json;  // everything but ts and dur
};

std::string Microseconds(uint64_t ns) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", static_cast<double>(ns) / 1e3);
  return buffer;
}

std::string NodeList(const runtime::Method& method, size_t instruction) {
  std::string list = "[";
  for (size_t k = 0; k < method.instruction_num_debug_nodes(instruction); ++k) {
    if (k > 0) list += ", ";
    list += JsonString(method.instruction_debug_node(instruction, k));
  }
  return list + "]";
}

std::string InstructionJson(const runtime::Method& method, const InstructionEvent& event) {
  const size_t i = event.instruction;
  const std::string common = ", \"ph\": \"X\", \"pid\": 1, \"tid\": 1";
  const std::string iteration = std::to_string(event.iteration);
  if (event.delegate_node >= 0) {
    const auto node = static_cast<size_t>(event.delegate_node);
    return "{\"name\": " + JsonString(method.instruction_debug_node(i, node)) +
           ", \"cat\": \"delegate_node\"" + common +
           ", \"args\": {\"instruction\": " + std::to_string(i) + ", \"iteration\": " + iteration +
           ", \"node_index\": " + std::to_string(node) +
           ", \"delegate\": " + JsonString(method.instruction_name(i)) + "}";
  }
  const bool delegate = method.instruction_is_delegate(i);
  return "{\"name\": " + JsonString(method.instruction_name(i)) + ", \"cat\": \"" +
         (delegate ? "delegate" : "kernel") + "\"" + common +
         ", \"args\": {\"instruction\": " + std::to_string(i) + ", \"iteration\": " + iteration +
         ", \"op\": " + JsonString(method.instruction_op(i)) +
         ", \"nodes\": " + NodeList(method, i) + (event.failed ? ", \"failed\": true" : "") + "}";
}

}  // namespace

std::string ChromeTraceJson(const runtime::Method& method,
                            const std::vector<InstructionEvent>& events,
                            const std::string& program) {
  std::vector<TimedEvent> spans;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> iterations;  // first begin, last end
  for (const InstructionEvent& event : events) {
    spans.push_back({event.begin_ns, event.end_ns, InstructionJson(method, event)});
    auto [it, added] =
        iterations.emplace(event.iteration, std::make_pair(event.begin_ns, event.end_ns));
    if (!added) {
      it->second.first = std::min(it->second.first, event.begin_ns);
      it->second.second = std::max(it->second.second, event.end_ns);
    }
  }
  for (const auto& [iteration, range] : iterations) {
    spans.push_back({range.first, range.second,
                     "{\"name\": \"iteration " + std::to_string(iteration) +
                         "\", \"cat\": \"iteration\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, "
                         "\"args\": {\"iteration\": " +
                         std::to_string(iteration) + "}"});
  }
  // Time order; of two events starting together the longer (enclosing) one first.
  std::stable_sort(spans.begin(), spans.end(), [](const TimedEvent& a, const TimedEvent& b) {
    if (a.begin_ns != b.begin_ns) return a.begin_ns < b.begin_ns;
    return a.end_ns - a.begin_ns > b.end_ns - b.begin_ns;
  });
  const uint64_t origin = spans.empty() ? 0 : spans.front().begin_ns;

  std::string text =
      "{\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"program\": " + JsonString(program) +
      ", \"instructions\": " + std::to_string(method.num_instructions()) +
      "},\n\"traceEvents\": [\n";
  text +=
      "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": "
      "{\"name\": " +
      JsonString("torchir " + program) + "}},\n";
  text +=
      "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": "
      "{\"name\": \"Method::Execute\"}}";
  for (const TimedEvent& span : spans) {
    text += ",\n";
    text += span.json;
    text += ", \"ts\": " + Microseconds(span.begin_ns - origin) +
            ", \"dur\": " + Microseconds(span.end_ns - span.begin_ns) + "}";
  }
  text += "\n]}\n";
  return text;
}

}  // namespace torchir::bench
