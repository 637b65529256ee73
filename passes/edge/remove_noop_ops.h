// Removes Edge ops that do nothing and canonicalises chains of data-movement ops.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// Rewrites, each local:
//   1. reshape of a reshape reads the inner reshape's input (chains collapse);
//      permute of a permute becomes one permute of the composed order;
//   2. removes (readers read the input instead) reshapes and expands to the
//      input's own shape, identity permutes, casts to the input's dtype, slices
//      covering the whole dim with step 1, and concatenations of one tensor.
// Nodes left without readers are for dead_code_elimination. Counter: noops_removed,
// chains_shortened.
class RemoveNoopOps : public Pass {
 public:
  static constexpr std::string_view kName = "remove_noop_ops";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
