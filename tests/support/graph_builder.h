// A fluent builder for small hand-made graphs in tests:
//
//   GraphBuilder b;
//   ir::Value* x = b.Input("x", F32({1, 3, 8, 8}));
//   ir::Value* w = b.Weight("w", F32({8, 3, 3, 3}), std::vector<float>(216, 0.5f));
//   ir::Value* y = b.Op("edge.conv2d", {x, w}).Attr("stride", {1, 1}).Out(F32({1, 8, 6, 6}));
//   b.Output(y);
//   std::unique_ptr<ir::Graph> g = b.Build();
//
// Values and nodes are named automatically (node "conv2d", "conv2d_1", ...; outputs after
// their node) unless Name() says otherwise. Pointers stay valid after Build(), which hands the
// graph over; the builder must not be used after that.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/attribute.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor_data.h"

namespace torchir::testing {

// Tensor types by dtype: F32({1, 3}) is float32[1, 3]; F32({}) is a 0-d float.
inline ir::TensorType F32(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kFloat32, std::move(sizes)};
}
inline ir::TensorType I64(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kInt64, std::move(sizes)};
}
inline ir::TensorType Bool(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kBool, std::move(sizes)};
}

// Bytes holding `values`, for Weight() and Constant().
template <typename T>
ir::TensorData DataOf(const std::vector<T>& values) {
  return ir::TensorData::Copy(values.data(), values.size() * sizeof(T));
}

// One node being described; the node is created by Out(), Outs() or Emit().
class NodeBuilder {
 public:
  // `next_suffix` remembers, per default name, the suffix to try next, so naming many nodes
  // alike stays linear.
  NodeBuilder(ir::Graph* graph, std::unordered_map<std::string, int>* next_suffix, std::string op,
              std::vector<ir::Value*> inputs)
      : graph_(graph), next_suffix_(next_suffix), op_(std::move(op)), inputs_(std::move(inputs)) {}

  // The node's name; its outputs are named after it.
  NodeBuilder& Name(std::string name) {
    name_ = std::move(name);
    return *this;
  }

  // Attributes, in call order. Attr("stride", {2, 2}) is an IntList; Attr("dim", 1) an Int;
  // a one-element IntList needs std::vector<int64_t>{1} (a braced {1} picks the Int).
  NodeBuilder& Attr(std::string name, ir::AttrValue value) {
    attrs_.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  NodeBuilder& Attr(std::string name, std::initializer_list<int64_t> values) {
    return Attr(std::move(name), ir::AttrValue::IntList(values));
  }
  NodeBuilder& Attr(std::string name, std::vector<int64_t> values) {
    return Attr(std::move(name), ir::AttrValue::IntList(std::move(values)));
  }
  NodeBuilder& Attr(std::string name, int value) { return Attr(std::move(name), int64_t{value}); }
  NodeBuilder& Attr(std::string name, int64_t value) {
    return Attr(std::move(name), ir::AttrValue::Int(value));
  }
  NodeBuilder& Attr(std::string name, double value) {
    return Attr(std::move(name), ir::AttrValue::Double(value));
  }
  NodeBuilder& Attr(std::string name, bool value) {
    return Attr(std::move(name), ir::AttrValue::Bool(value));
  }
  NodeBuilder& Attr(std::string name, const char* value) {
    return Attr(std::move(name), ir::AttrValue::String(value));
  }
  NodeBuilder& Attr(std::string name, std::string value) {
    return Attr(std::move(name), ir::AttrValue::String(std::move(value)));
  }

  // How the inputs regroup into Tensor[] arguments (Node::tensor_list_sizes and none masks).
  NodeBuilder& TensorListSizes(std::vector<int64_t> sizes) {
    tensor_list_sizes_ = std::move(sizes);
    return *this;
  }
  NodeBuilder& TensorListNoneMasks(std::vector<std::vector<bool>> masks) {
    none_masks_ = std::move(masks);
    return *this;
  }

  // Creates the node with one output of `type` and returns that output.
  ir::Value* Out(ir::TensorType type) { return Emit({std::move(type)})->output(0); }
  // Creates the node with one output per type and returns the outputs.
  std::vector<ir::Value*> Outs(std::vector<ir::TensorType> types) {
    return Emit(std::move(types))->outputs();
  }
  // Creates the node with one output per type (none by default) and returns the node.
  ir::Node* Emit(std::vector<ir::TensorType> types = {}) {
    std::string name = name_.empty() ? FreshDefaultName() : graph_->UniqueNodeName(name_);
    std::vector<std::string> output_names;
    for (size_t i = 0; i < types.size(); ++i) {
      output_names.push_back(
          graph_->UniqueValueName(i == 0 ? name : name + "_out" + std::to_string(i)));
    }
    ir::Node* node = graph_->AppendNode(name, op_, inputs_, output_names, types);
    for (auto& [attr, value] : attrs_) node->SetAttr(attr, value);
    node->set_tensor_list_sizes(tensor_list_sizes_);
    node->set_tensor_list_none_masks(none_masks_);
    return node;
  }

 private:
  // "aten.relu.default" -> "relu", then "relu_1", ...; "edge.conv2d" -> "conv2d".
  std::string FreshDefaultName() const {
    size_t first = op_.find('.');
    size_t second = first == std::string::npos ? first : op_.find('.', first + 1);
    std::string base =
        first == std::string::npos
            ? op_
            : op_.substr(first + 1,
                         second == std::string::npos ? std::string::npos : second - first - 1);
    int& suffix = (*next_suffix_)[base];
    std::string name = suffix == 0 ? base : base + "_" + std::to_string(suffix);
    while (graph_->FindNode(name) != nullptr || graph_->IsNameTaken(name)) {
      name = base + "_" + std::to_string(++suffix);
    }
    ++suffix;
    return name;
  }

  ir::Graph* graph_;
  std::unordered_map<std::string, int>* next_suffix_;
  std::string op_;
  std::vector<ir::Value*> inputs_;
  std::string name_;
  std::vector<std::pair<std::string, ir::AttrValue>> attrs_;
  std::vector<int64_t> tensor_list_sizes_;
  std::vector<std::vector<bool>> none_masks_;
};

// Builds an ir::Graph step by step; see the example at the top of this file.
class GraphBuilder {
 public:
  GraphBuilder() : graph_(std::make_unique<ir::Graph>()) {}

  // A graph input.
  ir::Value* Input(std::string name, ir::TensorType type) {
    return graph_->AddInput(std::move(name), std::move(type));
  }
  // A weight whose state_dict key is its name, bound to `data` unless that is empty.
  ir::Value* Weight(std::string name, ir::TensorType type, ir::TensorData data = {}) {
    ir::Value* weight = graph_->AddWeight(name, name, std::move(type));
    if (!data.empty()) weight->set_data(std::move(data));
    return weight;
  }
  ir::Value* Weight(std::string name, ir::TensorType type, const std::vector<float>& values) {
    return Weight(std::move(name), std::move(type), DataOf(values));
  }
  // A lifted constant holding `data`.
  ir::Value* Constant(std::string name, ir::TensorType type, ir::TensorData data = {}) {
    return graph_->AddConstant(std::move(name), std::move(type), std::move(data));
  }
  ir::Value* Constant(std::string name, ir::TensorType type, const std::vector<float>& values) {
    return Constant(std::move(name), std::move(type), DataOf(values));
  }

  // Starts a node applying `op` to `inputs`; finish it with Out(), Outs() or Emit().
  NodeBuilder Op(std::string op, std::vector<ir::Value*> inputs = {}) {
    return NodeBuilder(graph_.get(), &next_suffix_, std::move(op), std::move(inputs));
  }

  // Appends `value` to the graph's outputs.
  void Output(ir::Value* value) { graph_->AddOutput(value); }

  // The graph being built, for edits the builder does not offer.
  ir::Graph& graph() { return *graph_; }

  // Hands the graph over.
  std::unique_ptr<ir::Graph> Build() { return std::move(graph_); }

 private:
  std::unique_ptr<ir::Graph> graph_;
  std::unordered_map<std::string, int> next_suffix_;
};

}  // namespace torchir::testing
