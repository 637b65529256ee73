// Binding weight values from a weights file to a graph's placeholders.
#pragma once

#include "absl/status/status.h"
#include "compiler/frontend/ir_reader.h"
#include "compiler/frontend/weight_file.h"
#include "compiler/ir/graph.h"

namespace torchir::frontend {

// Gives every weight placeholder of `graph` the bytes of the tensor that its
// state_dict key names in `weights`; lifted constants take the file's tensor
// when present (it overrides the IR's inline data) and keep their inline data
// otherwise. Fails when a weight is missing or its shape or dtype differs from
// the graph's: one line per family of problems (a single problem is its own
// line; several missing weights are one summary line naming the first few, and
// so are several mismatches), with every problem listed in the
// ir::kErrorDetailsPayload payload. Tensors of the file that no placeholder uses
// are reported as one warning.
absl::Status BindWeights(const WeightFile& weights, ir::Graph* graph, ReadReport* report);

// Fails when a weight or constant of `graph` has no data yet: one line naming
// it, or for several one summary line with each in the kErrorDetailsPayload
// payload.
absl::Status CheckAllConstantsBound(const ir::Graph& graph, const std::string& source);

}  // namespace torchir::frontend
