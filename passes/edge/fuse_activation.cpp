#include "passes/edge/fuse_activation.h"

#include <algorithm>

namespace torchir::passes {

absl::Status FuseActivation::Run(ir::Graph& graph, PassContext& context) {
  int64_t fused = 0;
  for (ir::Node* clamp : graph.NodeSnapshot()) {
    if (clamp->op() != "edge.clamp") continue;
    ir::Value* x = clamp->input(0);
    ir::Node* producer = x->producer();
    if (producer == nullptr || x->uses().size() != 1 || x->is_graph_output()) continue;
    if (producer->op() != "edge.convolution" && producer->op() != "edge.linear") continue;
    const double low = std::max(producer->FindAttr("output_min")->as_double(),
                                clamp->FindAttr("min")->as_double());
    const double high = std::min(producer->FindAttr("output_max")->as_double(),
                                 clamp->FindAttr("max")->as_double());
    if (!(low <= high)) continue;  // an empty range (or NaN bounds) stays explicit
    producer->SetAttr("output_min", ir::AttrValue::Double(low));
    producer->SetAttr("output_max", ir::AttrValue::Double(high));
    graph.ReplaceAllUsesWith(clamp->output(), x);
    graph.EraseNode(clamp);
    ++fused;
  }
  if (fused > 0) {
    context.MarkChanged();
    context.AddToCounter("activations_fused", fused);
  }
  return absl::OkStatus();
}

}  // namespace torchir::passes
