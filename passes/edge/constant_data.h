// Reading and writing float32 constants in the Edge passes that compute at
// compile time (batch-norm folding).
#pragma once

#include <optional>
#include <vector>

#include "compiler/ir/graph.h"

namespace torchir::passes {

// The values of a float32 weight or constant that has data; nullopt otherwise.
std::optional<std::vector<float>> ReadFloat32(const ir::Value* value);

// Adds a float32 constant named after `base` holding `values`.
ir::Value* AddFloat32Constant(ir::Graph& graph, const std::string& base,
                              const std::vector<int64_t>& sizes, const std::vector<float>& values);

}  // namespace torchir::passes
