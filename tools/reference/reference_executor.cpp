#include "tools/reference/reference_executor.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <exception>
#include <optional>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/reference/argument_binding.h"
#include "tools/reference/decompositions.h"
#include "tools/reference/dtype_conversion.h"

namespace torchir::reference {
namespace {

// How one op is run: through the dispatcher, or through a decomposition.
struct ResolvedOp {
  const c10::FunctionSchema* schema = nullptr;
  std::optional<c10::OperatorHandle> handle;
  const Decomposition* decomposition = nullptr;
};

constexpr char kGetitem[] = "getitem";

absl::StatusOr<ResolvedOp> ResolveOp(const std::string& op) {
  if (const Decomposition* decomposition = FindDecomposition(op)) {
    return ResolvedOp{&SchemaOf(*decomposition), std::nullopt, decomposition};
  }
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
        absl::StrCat("unknown op: LibTorch has no schema ", qualified, overload.empty() ? "" : ".",
                     overload, " and the reference executor has no decomposition for it"));
  }
  return ResolvedOp{&handle->schema(), handle, nullptr};
}

std::string NodeContext(const ir::Node& node) {
  return absl::StrCat("node '", node.name(), "' (", node.op(), ")");
}

absl::Status NodeError(const ir::Node& node, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(NodeContext(node), ": ", std::string(status.message())));
}

absl::Status NodeError(const ir::Node& node, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(NodeContext(node), ": ", message));
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

// A fresh, aligned CPU tensor holding a copy of `data`.
absl::StatusOr<at::Tensor> ToTorch(const ir::TensorType& type, const ir::TensorData& data) {
  absl::StatusOr<c10::ScalarType> scalar_type = ToScalarType(type.dtype);
  if (!scalar_type.ok()) return scalar_type.status();
  if (data.size() != type.nbytes()) {
    return absl::InvalidArgumentError(absl::StrCat("holds ", data.size(), " bytes, but ",
                                                   type.ToString(), " needs ", type.nbytes()));
  }
  at::Tensor tensor = at::empty(type.sizes, at::TensorOptions().dtype(*scalar_type));
  if (data.size() > 0) std::memcpy(tensor.data_ptr(), data.data(), data.size());
  return tensor;
}

absl::StatusOr<HostTensor> ToHost(const at::Tensor& tensor) {
  absl::StatusOr<ir::DType> dtype = FromScalarType(tensor.scalar_type());
  if (!dtype.ok()) return dtype.status();
  at::Tensor dense = tensor.contiguous();
  HostTensor host;
  host.type.dtype = *dtype;
  host.type.sizes.assign(dense.sizes().begin(), dense.sizes().end());
  host.data = ir::TensorData::Copy(dense.data_ptr(), dense.nbytes());
  return host;
}

// The type of a computed tensor, for messages; fails for types torchir lacks.
absl::StatusOr<ir::TensorType> TypeOf(const at::Tensor& tensor) {
  absl::StatusOr<ir::DType> dtype = FromScalarType(tensor.scalar_type());
  if (!dtype.ok()) return dtype.status();
  ir::TensorType type;
  type.dtype = *dtype;
  type.sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
  return type;
}

// Runs one op node, returning its tensor results.
absl::StatusOr<std::vector<at::Tensor>> RunOp(const ir::Node& node, const ResolvedOp& op,
                                              const std::vector<at::Tensor>& inputs) {
  absl::StatusOr<torch::jit::Stack> stack = BindArguments(node, *op.schema, inputs);
  if (!stack.ok()) return stack.status();
  if (op.decomposition != nullptr) {
    std::vector<c10::IValue> results = op.decomposition->run(*stack);
    return FlattenReturns(results);
  }
  op.handle->callBoxed(*stack);
  return FlattenReturns(*stack);
}

// Checks the results of `node` against what the graph recorded. Results that
// nothing reads may differ (PyTorch versions disagree on the shape of unused
// statistics such as batch norm's saved mean in inference).
absl::Status CheckResults(const ir::Node& node, const std::vector<at::Tensor>& results) {
  if (node.num_outputs() == 0) return absl::OkStatus();
  if (results.size() != node.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "produced ", results.size(), " tensor result(s), the graph records ", node.num_outputs()));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const ir::Value& output = *node.output(i);
    if (!output.has_uses() && !output.is_graph_output()) continue;
    absl::StatusOr<ir::TensorType> type = TypeOf(results[i]);
    if (!type.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", output.name(), "': ", std::string(type.status().message())));
    }
    if (*type != output.type()) {
      return absl::InvalidArgumentError(absl::StrCat("output '", output.name(), "': computed ",
                                                     type->ToString(), " but the graph records ",
                                                     output.type().ToString()));
    }
  }
  return absl::OkStatus();
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
  try {
    return RunOp(node, *op, inputs);
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(absl::StrCat("LibTorch: ", e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("LibTorch: ", e.what()));
  }
}

absl::StatusOr<std::vector<HostTensor>> Run(const ir::Graph& graph,
                                            const std::vector<HostTensor>& inputs) {
  absl::StatusOr<std::unordered_map<const ir::Node*, ResolvedOp>> ops = ResolveAll(graph);
  if (!ops.ok()) return ops.status();

  if (inputs.size() != graph.inputs().size()) {
    return absl::InvalidArgumentError(absl::StrCat("the graph takes ", graph.inputs().size(),
                                                   " input(s), ", inputs.size(), " given"));
  }
  std::unordered_map<const ir::Value*, at::Tensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& input = *graph.inputs()[i];
    if (inputs[i].type != input.type()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input.name(), "' is ", inputs[i].type.ToString(),
                       ", the graph expects ", input.type().ToString()));
    }
    absl::StatusOr<at::Tensor> tensor = ToTorch(input.type(), inputs[i].data);
    if (!tensor.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input.name(), "': ", std::string(tensor.status().message())));
    }
    values[&input] = std::move(*tensor);
  }
  for (const auto* leaves : {&graph.weights(), &graph.constants()}) {
    for (const ir::Value* leaf : *leaves) {
      if (leaf->data().empty() && leaf->type().nbytes() > 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            std::string(ir::ValueKindName(leaf->kind())), " '", leaf->name(), "' has no data"));
      }
      // A copy: in-place ops may write to weights and buffers.
      absl::StatusOr<at::Tensor> tensor = ToTorch(leaf->type(), leaf->data());
      if (!tensor.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(std::string(ir::ValueKindName(leaf->kind())), " '", leaf->name(),
                         "': ", std::string(tensor.status().message())));
      }
      values[leaf] = std::move(*tensor);
    }
  }

  for (const ir::Node* node : graph.nodes()) {
    std::vector<at::Tensor> node_inputs;
    node_inputs.reserve(node->num_inputs());
    for (const ir::Value* input : node->inputs()) {
      auto it = values.find(input);
      if (it == values.end()) {
        return NodeError(*node, absl::StrCat("input '", input->name(), "' has no value"));
      }
      node_inputs.push_back(it->second);
    }
    auto op = ops->find(node);
    absl::StatusOr<std::vector<at::Tensor>> results =
        RunNode(*node, op == ops->end() ? nullptr : &op->second, node_inputs);
    if (!results.ok()) return NodeError(*node, results.status());
    absl::Status checked = CheckResults(*node, *results);
    if (!checked.ok()) return NodeError(*node, checked);
    for (size_t i = 0; i < node->num_outputs(); ++i) values[node->output(i)] = (*results)[i];
  }

  std::vector<HostTensor> outputs;
  for (const ir::Value* output : graph.outputs()) {
    auto it = values.find(output);
    if (it == values.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph output '", output->name(), "' has no value"));
    }
    absl::StatusOr<HostTensor> host = ToHost(it->second);
    if (!host.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("graph output '", output->name(),
                                                     "': ", std::string(host.status().message())));
    }
    outputs.push_back(std::move(*host));
  }
  return outputs;
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

std::vector<std::string> DecomposedOps() {
  std::vector<std::string> ops;
  for (const Decomposition& decomposition : Decompositions()) ops.push_back(decomposition.op);
  return ops;
}

}  // namespace torchir::reference
