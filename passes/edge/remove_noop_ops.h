// Removes Edge ops that do nothing and canonicalises chains of data-movement ops.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// Rewrites, each local and each given by the node's Edge table row
// (compiler/dialect/edge_ops.cpp; the rules are in compiler/dialect/noop_rules.h):
//   1. a node whose row has a `collapse_chain` rule and whose input is produced by the same
//      op reads past it (reshape of a reshape reads the inner reshape's input; permute of a
//      permute becomes one permute of the composed order);
//   2. a node whose row's `is_noop` rule holds is removed, readers read its input instead
//      (reshapes and expands to the input's own shape, identity permutes, casts to the
//      input's dtype, slices covering the whole dim with step 1, concatenations of one
//      tensor).
// Nodes left without readers are for dead_code_elimination. Counter: noops_removed,
// chains_shortened.
class RemoveNoopOps : public Pass {
 public:
  static constexpr std::string_view kName = "remove_noop_ops";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
