// The compiler's graph: Values (tensors) produced and consumed by Nodes (ops).
//
// Nodes live in a list kept in topological order: every transformation inserts
// a node after the producers of its inputs. Each Value knows its producer and
// all its uses, so use-def walks, replacing all uses and erasing dead nodes
// cost time proportional to the uses touched, not to the graph.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/attribute.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/tensor_data.h"

namespace torchir::ir {

class Graph;
class Node;

// Element type and static shape of a tensor. A 0-d tensor has empty sizes.
struct TensorType {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> sizes;

  int64_t numel() const;  // 1 for 0-d; saturates at INT64_MAX on overflow
  size_t nbytes() const;  // numel() * element size, saturating
  int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
  // "float32[1, 3, 224, 224]"
  std::string ToString() const;
  bool operator==(const TensorType& other) const {
    return dtype == other.dtype && sizes == other.sizes;
  }
  bool operator!=(const TensorType& other) const { return !(*this == other); }
};

// Where a Value comes from.
enum class ValueKind : uint8_t {
  kGraphInput,  // supplied by the caller at run time
  kWeight,      // a parameter or buffer from the state_dict
  kConstant,    // a lifted constant (inline in the IR, or from the weights file)
  kNodeOutput,  // produced by a node
};

std::string_view ValueKindName(ValueKind kind);

// One use of a Value: input slot `index` of node `user`.
struct Use {
  Node* user;
  int index;
  bool operator==(const Use& other) const { return user == other.user && index == other.index; }
};

// A tensor in the graph.
class Value {
 public:
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  const std::string& name() const { return name_; }
  const TensorType& type() const { return type_; }
  void set_type(TensorType type) { type_ = std::move(type); }
  DType dtype() const { return type_.dtype; }
  const std::vector<int64_t>& sizes() const { return type_.sizes; }
  ValueKind kind() const { return kind_; }

  // The producing node and which of its outputs this is; nullptr / 0 unless kNodeOutput.
  Node* producer() const { return producer_; }
  int producer_index() const { return producer_index_; }

  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }
  // True when the graph returns this value.
  bool is_graph_output() const { return graph_output_count_ > 0; }

  // For kWeight (and kConstant read from the weights file): the state_dict key.
  const std::string& state_dict_key() const { return state_dict_key_; }
  void set_state_dict_key(std::string key) { state_dict_key_ = std::move(key); }
  // For kWeight and kConstant once bound: the bytes (dense, row-major).
  const TensorData& data() const { return data_; }
  void set_data(TensorData data) { data_ = std::move(data); }
  bool is_constant_like() const { return kind_ == ValueKind::kWeight || kind_ == ValueKind::kConstant; }

 private:
  friend class Graph;
  friend class Node;
  Value(std::string name, TensorType type, ValueKind kind)
      : name_(std::move(name)), type_(std::move(type)), kind_(kind) {}
  void RemoveUse(const Use& use);

  std::string name_;
  TensorType type_;
  ValueKind kind_;
  Node* producer_ = nullptr;
  int producer_index_ = 0;
  std::vector<Use> uses_;
  int graph_output_count_ = 0;
  std::string state_dict_key_;
  TensorData data_;
  std::list<std::unique_ptr<Value>>::iterator self_;
};

// One op application. `op` is the op's qualified name ("aten.conv2d.default").
class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const std::string& name() const { return name_; }
  const std::string& op() const { return op_; }
  void set_op(std::string op) { op_ = std::move(op); }
  Graph* graph() const { return graph_; }

  const std::vector<Value*>& inputs() const { return inputs_; }
  Value* input(size_t i) const { return inputs_.at(i); }
  size_t num_inputs() const { return inputs_.size(); }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* output(size_t i = 0) const { return outputs_.at(i); }
  size_t num_outputs() const { return outputs_.size(); }

  // Input editing keeps the use lists consistent.
  void ReplaceInput(size_t index, Value* value);
  void AddInput(Value* value);
  void RemoveInput(size_t index);  // later inputs shift down by one
  void ClearInputs();

  // Attributes, in the order they were set.
  const std::vector<std::pair<std::string, AttrValue>>& attrs() const { return attrs_; }
  const AttrValue* FindAttr(std::string_view name) const;
  bool HasAttr(std::string_view name) const { return FindAttr(name) != nullptr; }
  void SetAttr(std::string name, AttrValue value);  // replaces an existing one
  bool RemoveAttr(std::string_view name);

  // How the flat `inputs` regroup into the op's Tensor[] / Tensor?[] arguments
  // (pytorch-ir's `_tensor_list_sizes` and `_tensor_list_none_masks`).
  const std::vector<int64_t>& tensor_list_sizes() const { return tensor_list_sizes_; }
  void set_tensor_list_sizes(std::vector<int64_t> sizes) { tensor_list_sizes_ = std::move(sizes); }
  const std::vector<std::vector<bool>>& tensor_list_none_masks() const { return none_masks_; }
  void set_tensor_list_none_masks(std::vector<std::vector<bool>> masks) {
    none_masks_ = std::move(masks);
  }

  // Neighbours in topological order; nullptr at the ends.
  Node* next() const;
  Node* prev() const;

 private:
  friend class Graph;
  Node(Graph* graph, std::string name, std::string op)
      : graph_(graph), name_(std::move(name)), op_(std::move(op)) {}

  Graph* graph_;
  std::string name_;
  std::string op_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<std::pair<std::string, AttrValue>> attrs_;
  std::vector<int64_t> tensor_list_sizes_;
  std::vector<std::vector<bool>> none_masks_;
  std::list<std::unique_ptr<Node>>::iterator self_;
};

// A whole model: inputs, weights, constants, nodes in topological order, outputs.
class Graph {
 public:
  using NodeList = std::list<std::unique_ptr<Node>>;

  // Iterates nodes in order, yielding Node*; safe against erasing the current node
  // only when the caller advances before erasing (use ForEachNodeSafe for that).
  class NodeIterator {
   public:
    explicit NodeIterator(NodeList::const_iterator it) : it_(it) {}
    Node* operator*() const { return it_->get(); }
    NodeIterator& operator++() { ++it_; return *this; }
    bool operator!=(const NodeIterator& other) const { return it_ != other.it_; }
    bool operator==(const NodeIterator& other) const { return it_ == other.it_; }
   private:
    NodeList::const_iterator it_;
  };
  struct NodeRange {
    NodeIterator b, e;
    NodeIterator begin() const { return b; }
    NodeIterator end() const { return e; }
  };

  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::string model_name;
  std::string pytorch_version;

  // Leaf values. Names must be unique among all values (see IsNameTaken).
  Value* AddInput(std::string name, TensorType type);
  Value* AddWeight(std::string name, std::string state_dict_key, TensorType type);
  Value* AddConstant(std::string name, TensorType type, TensorData data = {});

  // Creates a node with fresh output values named `output_names` and typed
  // `output_types`, placed at the end / before `position` / after `position`.
  Node* AppendNode(std::string name, std::string op, const std::vector<Value*>& inputs,
                   const std::vector<std::string>& output_names,
                   const std::vector<TensorType>& output_types);
  Node* InsertNodeBefore(Node* position, std::string name, std::string op,
                         const std::vector<Value*>& inputs,
                         const std::vector<std::string>& output_names,
                         const std::vector<TensorType>& output_types);
  Node* InsertNodeAfter(Node* position, std::string name, std::string op,
                        const std::vector<Value*>& inputs,
                        const std::vector<std::string>& output_names,
                        const std::vector<TensorType>& output_types);

  // Moves `node` to just before `position` (the caller keeps the order topological).
  void MoveBefore(Node* node, Node* position);

  // Removes `node` and its outputs. Its outputs must be unused and not graph
  // outputs; violating that is a programming error and aborts.
  void EraseNode(Node* node);
  // Removes a leaf value (input, weight, constant) that has no uses.
  void EraseLeaf(Value* value);

  // Points every use of `from` (node inputs and graph outputs) at `to`.
  void ReplaceAllUsesWith(Value* from, Value* to);

  void AddOutput(Value* value);
  void ReplaceOutput(size_t index, Value* value);
  const std::vector<Value*>& outputs() const { return outputs_; }
  const std::vector<Value*>& inputs() const { return inputs_; }
  // Weights and constants, in the order added.
  const std::vector<Value*>& weights() const { return weights_; }
  const std::vector<Value*>& constants() const { return constants_; }

  NodeRange nodes() const { return {NodeIterator(nodes_.begin()), NodeIterator(nodes_.end())}; }
  size_t num_nodes() const { return nodes_.size(); }
  size_t num_values() const { return values_.size(); }
  Node* first_node() const { return nodes_.empty() ? nullptr : nodes_.front().get(); }
  Node* last_node() const { return nodes_.empty() ? nullptr : nodes_.back().get(); }
  // Node pointers in order, a snapshot safe to iterate while erasing.
  std::vector<Node*> NodeSnapshot() const;

  Value* FindValue(std::string_view name) const;
  Node* FindNode(std::string_view name) const;
  bool IsNameTaken(std::string_view name) const { return FindValue(name) != nullptr; }
  // A value/node name not yet used, derived from `base` ("base", "base_1", ...).
  std::string UniqueValueName(std::string_view base) const;
  std::string UniqueNodeName(std::string_view base) const;

  // Checks the invariants: use lists match inputs, producers precede users,
  // names unique. Returns the problems found; empty means consistent.
  std::vector<std::string> CheckInvariants() const;

 private:
  friend class Node;
  Value* NewValue(std::string name, TensorType type, ValueKind kind);
  Node* NewNode(NodeList::iterator position, std::string name, std::string op,
                const std::vector<Value*>& inputs, const std::vector<std::string>& output_names,
                const std::vector<TensorType>& output_types);
  void EraseValue(Value* value);

  std::list<std::unique_ptr<Value>> values_;
  NodeList nodes_;
  std::vector<Value*> inputs_;
  std::vector<Value*> weights_;
  std::vector<Value*> constants_;
  std::vector<Value*> outputs_;
  std::unordered_map<std::string, Value*> values_by_name_;
  std::unordered_map<std::string, Node*> nodes_by_name_;
};

}  // namespace torchir::ir
