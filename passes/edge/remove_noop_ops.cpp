#include "passes/edge/remove_noop_ops.h"

namespace torchir::passes {
namespace {

bool IsIdentity(const ir::Node& node) {
  const std::string& op = node.op();
  const ir::Value* input = node.num_inputs() > 0 ? node.input(0) : nullptr;
  if (input == nullptr || node.num_outputs() != 1) return false;
  const ir::TensorType& in = input->type();
  const ir::TensorType& out = node.output()->type();
  if (op == "edge.reshape" || op == "edge.expand" || op == "edge.cast") return in == out;
  if (op == "edge.concatenate") return node.num_inputs() == 1;
  if (op == "edge.permute") {
    const auto& dims = node.FindAttr("dims")->as_int_list();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != static_cast<int64_t>(i)) return false;
    }
    return true;
  }
  if (op == "edge.slice") {
    const int64_t dim = node.FindAttr("dim")->as_int();
    return node.FindAttr("start")->as_int() == 0 && node.FindAttr("step")->as_int() == 1 &&
           node.FindAttr("end")->as_int() == in.sizes[static_cast<size_t>(dim)];
  }
  return false;
}

// Makes `node` read past a producer of the same kind; true when it changed.
bool ShortenChain(ir::Node& node) {
  ir::Node* inner = node.input(0)->producer();
  if (inner == nullptr || inner->op() != node.op()) return false;
  if (node.op() == "edge.reshape") {
    node.ReplaceInput(0, inner->input(0));
    return true;
  }
  if (node.op() == "edge.permute") {
    // out[i] = mid[outer[i]] = in[inner[outer[i]]]
    const auto& outer = node.FindAttr("dims")->as_int_list();
    const auto& first = inner->FindAttr("dims")->as_int_list();
    std::vector<int64_t> composed(outer.size());
    for (size_t i = 0; i < outer.size(); ++i) composed[i] = first[static_cast<size_t>(outer[i])];
    node.SetAttr("dims", ir::AttrValue::IntList(composed));
    node.ReplaceInput(0, inner->input(0));
    return true;
  }
  return false;
}

}  // namespace

absl::Status RemoveNoopOps::Run(ir::Graph& graph, PassContext& context) {
  int64_t removed = 0, shortened = 0;
  for (ir::Node* node : graph.NodeSnapshot()) {
    if ((node->op() == "edge.reshape" || node->op() == "edge.permute") && ShortenChain(*node)) {
      ++shortened;
    }
    if (IsIdentity(*node)) {
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
