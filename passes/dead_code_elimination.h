// Dead code elimination: deletes pure nodes nobody reads, and unused weights and constants.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// Removes what cannot affect the graph's outputs:
//   1. walk the nodes from last to first; erase a node when OpProperties::IsPure says so and
//      none of its outputs has a use or is a graph output. Walking backwards, a node's users
//      are gone before the node is visited, so a whole dead chain disappears in one run;
//   2. erase the weights and constants that have no use and are not graph outputs.
// Impure nodes, graph outputs and graph inputs (the calling convention fixes them) are kept.
// Counters: nodes_erased, leaves_erased.
class DeadCodeElimination : public Pass {
 public:
  static constexpr std::string_view kName = "dead_code_elimination";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
