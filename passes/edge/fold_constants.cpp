#include "passes/edge/fold_constants.h"

#include <vector>

#include "compiler/dialect/edge_ops.h"
#include "compiler/ir/tensor_limits.h"

namespace torchir::passes {
namespace {

bool AllConstant(const ir::Node& node) {
  for (const ir::Value* input : node.inputs()) {
    if (!input->is_constant_like() || input->data().size() != input->type().nbytes()) return false;
  }
  return node.num_inputs() > 0 && node.num_outputs() == 1;
}

}  // namespace

absl::Status FoldConstants::Run(ir::Graph& graph, PassContext& context) {
  int64_t folded = 0;
  for (ir::Node* node : graph.NodeSnapshot()) {
    const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node->op());
    if (def == nullptr || def->fold == nullptr) continue;
    if (!AllConstant(*node) || node->output()->type().numel() == 0) continue;
    // An expand of a small constant can ask for more than any program may hold:
    // leave such a node to the memory limit (tools/pipeline/) instead of
    // allocating its result here.
    if (node->output()->type().nbytes() > ir::kDefaultMaxProgramBytes) continue;
    std::vector<uint8_t> bytes = def->fold(*node);
    if (bytes.empty()) continue;
    ir::Value* constant = graph.AddConstant(graph.UniqueValueName(node->output()->name() + "_folded"),
                                            node->output()->type(),
                                            ir::TensorData::Copy(bytes.data(), bytes.size()));
    graph.ReplaceAllUsesWith(node->output(), constant);
    graph.EraseNode(node);
    ++folded;
  }
  if (folded > 0) {
    context.MarkChanged();
    context.AddToCounter("nodes_folded", folded);
  }
  return absl::OkStatus();
}

}  // namespace torchir::passes
