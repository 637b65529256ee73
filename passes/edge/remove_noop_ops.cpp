#include "passes/edge/remove_noop_ops.h"

#include "compiler/dialect/edge_ops.h"

namespace torchir::passes {
namespace {

// Makes `node` read past a producer of the same op when its row collapses chains; true
// when it changed.
bool ShortenChain(ir::Node& node, const dialect::EdgeOpDef& def) {
  if (def.collapse_chain == nullptr) return false;
  const ir::Node* inner = node.input(0)->producer();
  if (inner == nullptr || inner->op() != node.op()) return false;
  def.collapse_chain(node, *inner);
  return true;
}

bool IsNoop(const ir::Node& node, const dialect::EdgeOpDef& def) {
  if (def.is_noop == nullptr || node.num_inputs() == 0 || node.num_outputs() != 1) return false;
  return def.is_noop(node);
}

}  // namespace

absl::Status RemoveNoopOps::Run(ir::Graph& graph, PassContext& context) {
  int64_t removed = 0, shortened = 0;
  for (ir::Node* node : graph.NodeSnapshot()) {
    const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node->op());
    if (def == nullptr) continue;
    if (ShortenChain(*node, *def)) ++shortened;
    if (IsNoop(*node, *def)) {
      graph.ReplaceAllUsesWith(node->output(), node->input(0));
      graph.EraseNode(node);
      ++removed;
    }
  }
  if (removed + shortened > 0) context.MarkChanged();
  if (removed > 0) context.AddToCounter("noops_removed", removed);
  if (shortened > 0) context.AddToCounter("chains_shortened", shortened);
  return absl::OkStatus();
}

}  // namespace torchir::passes
