#include "tools/pipeline/memory_limit.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "compiler/ir/checked_math.h"
#include "compiler/ir/graph_printer.h"
#include "compiler/ir/tensor_limits.h"

namespace torchir::pipeline {
namespace {

// "input 'x' float32[1048576, 1048576] (4 TiB)"
std::string Describe(const ir::Value& value) {
  return absl::StrCat(std::string(ir::ValueKindName(value.kind())), " '", value.name(), "' ",
                      value.type().ToString(), " (", ir::FormatBytes(value.type().nbytes()), ")");
}

}  // namespace

std::optional<uint64_t> ParseByteSize(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) {
    return std::nullopt;
  }
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  std::string suffix(end);
  double scale = 1;
  if (!suffix.empty()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "B" && rest != "iB" && rest != "IB" && rest != "b") {
      return std::nullopt;
    }
    switch (unit) {
      case 'B':
        scale = rest.empty() ? 1 : 0;
        break;
      case 'K':
        scale = 1024.0;
        break;
      case 'M':
        scale = 1024.0 * 1024;
        break;
      case 'G':
        scale = 1024.0 * 1024 * 1024;
        break;
      case 'T':
        scale = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        return std::nullopt;
    }
  }
  const double bytes = std::floor(number * scale);
  if (!std::isfinite(bytes) || bytes < 1 || bytes > static_cast<double>(ir::kMaxTensorBytes)) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(bytes);
}

absl::Status CheckProgramMemory(const ir::Graph& graph, const GraphMemoryPlan& plan,
                                uint64_t delegate_bytes, uint64_t limit) {
  bool overflow = false;
  uint64_t arenas = 0;
  for (const memory_planner::ArenaPlan& arena : plan.result.plan.arenas) {
    overflow |= !ir::CheckedAdd(arenas, arena.size, &arenas);
  }
  const ir::Value* largest = nullptr;
  for (const ir::Value* value : plan.buffer_values) {
    if (largest == nullptr || value->type().nbytes() > largest->type().nbytes()) largest = value;
  }
  uint64_t constants = 0;
  for (const auto* values : {&graph.weights(), &graph.constants()}) {
    for (const ir::Value* value : *values) {
      if (!value->has_uses() && !value->is_graph_output()) continue;
      overflow |= !ir::CheckedAdd(constants, uint64_t{value->type().nbytes()}, &constants);
      if (largest == nullptr || value->type().nbytes() > largest->type().nbytes()) largest = value;
    }
  }
  uint64_t total = 0;
  overflow |= !ir::CheckedAdd(arenas, constants, &total);
  overflow |= !ir::CheckedAdd(total, delegate_bytes, &total);
  if (!overflow && total <= limit) return absl::OkStatus();
  std::string needs =
      overflow
          ? std::string("more than 2^64 bytes")
          : absl::StrCat(ir::FormatBytes(total), " (arena ", ir::FormatBytes(arenas),
                         ", constants ", ir::FormatBytes(constants),
                         delegate_bytes > 0
                             ? absl::StrCat(", delegate blobs ", ir::FormatBytes(delegate_bytes))
                             : std::string(),
                         ")");
  return absl::ResourceExhaustedError(absl::StrCat(
      "the program needs ", needs, ", more than the limit of ", ir::FormatBytes(limit),
      " (--max-memory)", largest != nullptr ? "; largest: " + Describe(*largest) : std::string()));
}

}  // namespace torchir::pipeline
