#include "passes/dead_code_elimination.h"

#include <vector>

namespace torchir::passes {
namespace {

bool IsUnused(const ir::Value& value) { return !value.has_uses() && !value.is_graph_output(); }

}  // namespace

absl::Status DeadCodeElimination::Run(ir::Graph& graph, PassContext& context) {
  const OpProperties& properties = context.op_properties();
  int64_t nodes_erased = 0;
  std::vector<ir::Node*> nodes = graph.NodeSnapshot();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    ir::Node* node = *it;
    bool dead = properties.IsPure(*node);
    for (const ir::Value* output : node->outputs()) dead = dead && IsUnused(*output);
    if (!dead) continue;
    graph.EraseNode(node);
    ++nodes_erased;
  }

  int64_t leaves_erased = 0;
  std::vector<ir::Value*> leaves = graph.weights();
  leaves.insert(leaves.end(), graph.constants().begin(), graph.constants().end());
  for (ir::Value* leaf : leaves) {
    if (!IsUnused(*leaf)) continue;
    graph.EraseLeaf(leaf);
    ++leaves_erased;
  }

  if (nodes_erased + leaves_erased > 0) context.MarkChanged();
  context.AddToCounter("nodes_erased", nodes_erased);
  context.AddToCounter("leaves_erased", leaves_erased);
  return absl::OkStatus();
}

}  // namespace torchir::passes
