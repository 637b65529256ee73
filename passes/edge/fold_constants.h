// Evaluates Edge ops on constants at compile time.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// Replaces each edge.permute, edge.reshape, edge.slice, edge.expand and
// edge.concatenate whose inputs are all constants with data by a new constant
// holding its result (e.g. core ATen's t(weight)), so weights reach the
// backends in the layout their consumer reads. Works on raw bytes, so any dtype.
// A result larger than ir::kDefaultMaxProgramBytes is not folded (the program's
// memory limit then refuses it with a clear message).
// Counter: nodes_folded.
class FoldConstants : public Pass {
 public:
  static constexpr std::string_view kName = "fold_constants";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
