// Common subexpression elimination: merges pure nodes that compute the same thing.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// Two nodes compute the same thing when both are pure (OpProperties::IsPure) and they have the
// same op, the same input Values in the same order (the first two in either order when
// OpProperties::IsCommutative), equal attributes by name (their order does not matter), equal
// tensor-list sizes and None masks, and equal output types. The pass:
//   1. walks the nodes in topological order, keeping a hash set of the pure nodes seen so far,
//      hashed on everything the comparison above looks at;
//   2. when a node equals one in the set, points every use of its outputs (node inputs and graph
//      outputs) at the earlier node's outputs and erases it;
//   3. otherwise adds it to the set.
// Because users come after producers, a merge has already rewired a node's inputs by the time
// the node is visited, so two identical chains collapse in one run. Linear in the graph size
// (each lookup compares only nodes with the same hash). Counter: nodes_merged.
class CommonSubexpressionElimination : public Pass {
 public:
  static constexpr std::string_view kName = "common_subexpression_elimination";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
