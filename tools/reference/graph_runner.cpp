#include "tools/reference/graph_runner.h"

#include <cstring>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "tools/reference/dtype_conversion.h"

namespace torchir::reference {
namespace {

absl::Status NodeError(const ir::Node& node, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(NodeContext(node), ": ", std::string(status.message())));
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

absl::StatusOr<ir::TensorType> TypeOf(const at::Tensor& tensor) {
  absl::StatusOr<ir::DType> dtype = FromScalarType(tensor.scalar_type());
  if (!dtype.ok()) return dtype.status();
  ir::TensorType type;
  type.dtype = *dtype;
  type.sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
  return type;
}

absl::StatusOr<HostTensor> ToHost(const at::Tensor& tensor) {
  absl::StatusOr<ir::TensorType> type = TypeOf(tensor);
  if (!type.ok()) return type.status();
  at::Tensor dense = tensor.contiguous();
  return HostTensor{*type, ir::TensorData::Copy(dense.data_ptr(), dense.nbytes())};
}

absl::Status CheckResults(const ir::Node& node, const std::vector<at::Tensor>& results,
                          const RunOptions& options) {
  if (!options.check_unread_results && node.num_outputs() == 0) return absl::OkStatus();
  if (results.size() != node.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "produced ", results.size(), " tensor result(s), the graph records ", node.num_outputs()));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const ir::Value& output = *node.output(i);
    if (!options.check_unread_results && !output.has_uses() && !output.is_graph_output()) {
      continue;
    }
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

absl::StatusOr<std::vector<at::Tensor>> RunGuarded(const NodeRunner& run_node,
                                                   const ir::Node& node,
                                                   const std::vector<at::Tensor>& inputs) {
  try {
    return run_node(node, inputs);
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(absl::StrCat("LibTorch: ", e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("LibTorch: ", e.what()));
  }
}

}  // namespace

std::string NodeContext(const ir::Node& node) {
  return absl::StrCat("node '", node.name(), "' (", node.op(), ")");
}

absl::StatusOr<std::vector<HostTensor>> RunGraph(const ir::Graph& graph,
                                                 const std::vector<HostTensor>& inputs,
                                                 const NodeRunner& run_node,
                                                 const RunOptions& options) {
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
      const std::string what =
          absl::StrCat(std::string(ir::ValueKindName(leaf->kind())), " '", leaf->name(), "'");
      if (leaf->data().empty() && leaf->type().nbytes() > 0) {
        return absl::FailedPreconditionError(absl::StrCat(what, " has no data"));
      }
      absl::StatusOr<at::Tensor> tensor = ToTorch(leaf->type(), leaf->data());
      if (!tensor.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": ", std::string(tensor.status().message())));
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
        return NodeError(*node, absl::InvalidArgumentError(
                                    absl::StrCat("input '", input->name(), "' has no value")));
      }
      node_inputs.push_back(it->second);
    }
    absl::StatusOr<std::vector<at::Tensor>> results = RunGuarded(run_node, *node, node_inputs);
    if (!results.ok()) return NodeError(*node, results.status());
    absl::Status checked = CheckResults(*node, *results, options);
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

}  // namespace torchir::reference
