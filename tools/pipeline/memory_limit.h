// The limit on the memory a compiled program needs: its planned arenas plus the
// constants it carries. A model whose numbers ask for terabytes is refused here
// with one clear line instead of producing a program no device can load.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "tools/pipeline/graph_memory_plan.h"

namespace torchir::pipeline {

// Parses a byte count for --max-memory: a plain number of bytes, or a number
// with a binary suffix K, M, G or T (optionally followed by "iB" or "B":
// "4G", "512MiB", "1.5T"). nullopt for anything else, zero, or more than 2^62.
std::optional<uint64_t> ParseByteSize(const std::string& text);

// Fails when the arenas of `plan` plus the constants `graph`'s nodes read plus
// `delegate_bytes` (the backends' blobs) exceed `limit` bytes, or when their
// sum overflows. The message gives the total, the limit and the largest tensor.
absl::Status CheckProgramMemory(const ir::Graph& graph, const GraphMemoryPlan& plan,
                                uint64_t delegate_bytes, uint64_t limit);

}  // namespace torchir::pipeline
