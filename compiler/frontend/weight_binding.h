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
// otherwise. Fails, listing every problem, when a weight is missing or its shape
// or dtype differs from the graph's; tensors of the file that no placeholder
// uses are reported as warnings.
absl::Status BindWeights(const WeightFile& weights, ir::Graph* graph, ReadReport* report);

// Fails, naming each, when a weight or constant of `graph` has no data yet.
absl::Status CheckAllConstantsBound(const ir::Graph& graph, const std::string& source);

}  // namespace torchir::frontend
