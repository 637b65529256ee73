#include "tools/reference/reference_executor.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <cstring>
#include <exception>
#include <optional>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/reference/argument_binding.h"
#include "tools/reference/dtype_conversion.h"
#include "tools/reference/graph_runner.h"

namespace torchir::reference {
namespace {

// How one op is run: its schema and dispatcher handle.
struct ResolvedOp {
  const c10::FunctionSchema* schema = nullptr;
  std::optional<c10::OperatorHandle> handle;
};

constexpr char kGetitem[] = "getitem";

absl::StatusOr<ResolvedOp> ResolveOp(const std::string& op) {
  std::vector<std::string> parts = absl::StrSplit(op, '.');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
    return absl::InvalidArgumentError(
        "unknown op: not of the form <namespace>.<name>.<overload> (aten.conv2d.default)");
  }
  const std::string qualified = absl::StrCat(parts[0], "::", parts[1]);
  const std::string overload = parts[2] == "default" ? "" : parts[2];
  std::optional<c10::OperatorHandle> handle;
  try {
    c10::optional<c10::OperatorHandle> found =
        c10::Dispatcher::singleton().findSchema({qualified, overload});
    if (found) handle = *found;
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("looking up the schema failed: ", e.what()));
  }
  if (!handle) {
    return absl::NotFoundError(
        absl::StrCat("unknown op: LibTorch ", TORCH_VERSION, " has no schema ", qualified,
                     overload.empty() ? "" : ".", overload));
  }
  return ResolvedOp{&handle->schema(), handle};
}

absl::Status NodeError(const ir::Node& node, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(NodeContext(node), ": ", std::string(status.message())));
}

// Resolves every node's op, reporting all unknown ones together.
absl::StatusOr<std::unordered_map<const ir::Node*, ResolvedOp>> ResolveAll(const ir::Graph& graph) {
  std::unordered_map<const ir::Node*, ResolvedOp> resolved;
  std::unordered_map<std::string, absl::StatusOr<ResolvedOp>> by_op;
  std::vector<std::string> problems;
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() == kGetitem) continue;
    auto it = by_op.find(node->op());
    if (it == by_op.end()) it = by_op.emplace(node->op(), ResolveOp(node->op())).first;
    if (it->second.ok()) {
      resolved.emplace(node, *it->second);
    } else {
      problems.push_back(std::string(NodeError(*node, it->second.status()).message()));
    }
  }
  if (!problems.empty()) return absl::NotFoundError(absl::StrJoin(problems, "\n"));
  return resolved;
}

// Runs one op node, returning its tensor results.
absl::StatusOr<std::vector<at::Tensor>> RunOp(const ir::Node& node, const ResolvedOp& op,
                                              const std::vector<at::Tensor>& inputs) {
  absl::StatusOr<torch::jit::Stack> stack = BindArguments(node, *op.schema, inputs);
  if (!stack.ok()) return stack.status();
  op.handle->callBoxed(*stack);
  return FlattenReturns(*stack);
}

absl::StatusOr<std::vector<at::Tensor>> RunNode(const ir::Node& node, const ResolvedOp* op,
                                                const std::vector<at::Tensor>& inputs) {
  if (op == nullptr) {  // getitem: inputs are all outputs of the producer
    const ir::AttrValue* index = node.FindAttr("index");
    std::optional<int64_t> i = index != nullptr ? index->ToInt() : std::nullopt;
    if (!i || *i < 0 || *i >= static_cast<int64_t>(inputs.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("index ", index != nullptr ? index->ToString() : "(missing)",
                       " does not pick one of its ", inputs.size(), " input(s)"));
    }
    return std::vector<at::Tensor>{inputs[static_cast<size_t>(*i)]};
  }
  return RunOp(node, *op, inputs);
}

absl::StatusOr<std::vector<HostTensor>> Run(const ir::Graph& graph,
                                            const std::vector<HostTensor>& inputs) {
  absl::StatusOr<std::unordered_map<const ir::Node*, ResolvedOp>> ops = ResolveAll(graph);
  if (!ops.ok()) return ops.status();
  // Results nothing reads may differ: PyTorch versions disagree on the shape of
  // unused statistics such as batch norm's saved mean in inference.
  return RunGraph(
      graph, inputs,
      [&ops](const ir::Node& node, const std::vector<at::Tensor>& node_inputs) {
        auto op = ops->find(&node);
        return RunNode(node, op == ops->end() ? nullptr : &op->second, node_inputs);
      },
      RunOptions{/*check_unread_results=*/false});
}

}  // namespace

absl::StatusOr<std::vector<HostTensor>> RunReference(const ir::Graph& graph,
                                                     const std::vector<HostTensor>& inputs) {
  // Nothing here needs autograd; inference mode also skips version counting.
  c10::InferenceMode inference_mode;
  try {
    return Run(graph, inputs);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("reference executor: ", e.what()));
  }
}

absl::Status CheckOpsKnown(const ir::Graph& graph) { return ResolveAll(graph).status(); }


}  // namespace torchir::reference
