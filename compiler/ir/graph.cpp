#include "compiler/ir/graph.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <unordered_set>

namespace torchir::ir {
namespace {

[[noreturn]] void Fatal(const std::string& message) {
  std::fprintf(stderr, "torchir internal error: %s\n", message.c_str());
  std::abort();
}

}  // namespace

// ---- TensorType -------------------------------------------------------------

int64_t TensorType::numel() const {
  int64_t count = 1;
  for (int64_t size : sizes) {
    if (size < 0) return 0;
    if (size != 0 && count > std::numeric_limits<int64_t>::max() / size) {
      return std::numeric_limits<int64_t>::max();
    }
    count *= size;
  }
  return count;
}

size_t TensorType::nbytes() const {
  auto count = static_cast<uint64_t>(numel());
  uint64_t element = DTypeSize(dtype);
  if (count > std::numeric_limits<uint64_t>::max() / element) {
    return std::numeric_limits<size_t>::max();
  }
  return static_cast<size_t>(count * element);
}

std::string TensorType::ToString() const {
  std::string text(DTypeName(dtype));
  text += "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(sizes[i]);
  }
  return text + "]";
}

std::string_view ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kGraphInput: return "input";
    case ValueKind::kWeight: return "weight";
    case ValueKind::kConstant: return "constant";
    case ValueKind::kNodeOutput: return "node output";
  }
  return "?";
}

// ---- Value ------------------------------------------------------------------

void Value::RemoveUse(const Use& use) {
  auto it = std::find(uses_.begin(), uses_.end(), use);
  if (it == uses_.end()) Fatal("use of '" + name_ + "' not found");
  uses_.erase(it);
}

// ---- Node -------------------------------------------------------------------

void Node::ReplaceInput(size_t index, Value* value) {
  Value* old = inputs_.at(index);
  if (old == value) return;
  old->RemoveUse({this, static_cast<int>(index)});
  inputs_[index] = value;
  value->uses_.push_back({this, static_cast<int>(index)});
}

void Node::AddInput(Value* value) {
  value->uses_.push_back({this, static_cast<int>(inputs_.size())});
  inputs_.push_back(value);
}

void Node::RemoveInput(size_t index) {
  // Later inputs shift down: rewrite their use records.
  for (size_t i = index; i < inputs_.size(); ++i) {
    inputs_[i]->RemoveUse({this, static_cast<int>(i)});
  }
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(index));
  for (size_t i = index; i < inputs_.size(); ++i) {
    inputs_[i]->uses_.push_back({this, static_cast<int>(i)});
  }
}

void Node::ClearInputs() {
  for (size_t i = 0; i < inputs_.size(); ++i) inputs_[i]->RemoveUse({this, static_cast<int>(i)});
  inputs_.clear();
}

const AttrValue* Node::FindAttr(std::string_view name) const {
  for (const auto& [key, value] : attrs_) {
    if (key == name) return &value;
  }
  return nullptr;
}

void Node::SetAttr(std::string name, AttrValue value) {
  for (auto& [key, existing] : attrs_) {
    if (key == name) {
      existing = std::move(value);
      return;
    }
  }
  attrs_.emplace_back(std::move(name), std::move(value));
}

bool Node::RemoveAttr(std::string_view name) {
  for (auto it = attrs_.begin(); it != attrs_.end(); ++it) {
    if (it->first == name) {
      attrs_.erase(it);
      return true;
    }
  }
  return false;
}

Node* Node::next() const {
  auto it = std::next(self_);
  return it == graph_->nodes_.end() ? nullptr : it->get();
}

Node* Node::prev() const {
  return self_ == graph_->nodes_.begin() ? nullptr : std::prev(self_)->get();
}

// ---- Graph ------------------------------------------------------------------

Value* Graph::NewValue(std::string name, TensorType type, ValueKind kind) {
  if (values_by_name_.count(name)) Fatal("duplicate value name '" + name + "'");
  auto value = std::unique_ptr<Value>(new Value(name, std::move(type), kind));
  Value* raw = value.get();
  values_.push_back(std::move(value));
  raw->self_ = std::prev(values_.end());
  values_by_name_.emplace(std::move(name), raw);
  return raw;
}

Value* Graph::AddInput(std::string name, TensorType type) {
  Value* value = NewValue(std::move(name), std::move(type), ValueKind::kGraphInput);
  inputs_.push_back(value);
  return value;
}

Value* Graph::AddWeight(std::string name, std::string state_dict_key, TensorType type) {
  Value* value = NewValue(std::move(name), std::move(type), ValueKind::kWeight);
  value->state_dict_key_ = std::move(state_dict_key);
  weights_.push_back(value);
  return value;
}

Value* Graph::AddConstant(std::string name, TensorType type, TensorData data) {
  Value* value = NewValue(std::move(name), std::move(type), ValueKind::kConstant);
  value->data_ = std::move(data);
  constants_.push_back(value);
  return value;
}

Node* Graph::NewNode(NodeList::iterator position, std::string name, std::string op,
                     const std::vector<Value*>& inputs,
                     const std::vector<std::string>& output_names,
                     const std::vector<TensorType>& output_types) {
  if (output_names.size() != output_types.size()) Fatal("output names and types differ in count");
  if (nodes_by_name_.count(name)) Fatal("duplicate node name '" + name + "'");
  auto node = std::unique_ptr<Node>(new Node(this, name, std::move(op)));
  Node* raw = node.get();
  raw->self_ = nodes_.insert(position, std::move(node));
  nodes_by_name_.emplace(std::move(name), raw);
  for (Value* input : inputs) raw->AddInput(input);
  for (size_t i = 0; i < output_names.size(); ++i) {
    Value* output = NewValue(output_names[i], output_types[i], ValueKind::kNodeOutput);
    output->producer_ = raw;
    output->producer_index_ = static_cast<int>(i);
    raw->outputs_.push_back(output);
  }
  return raw;
}

Node* Graph::AppendNode(std::string name, std::string op, const std::vector<Value*>& inputs,
                        const std::vector<std::string>& output_names,
                        const std::vector<TensorType>& output_types) {
  return NewNode(nodes_.end(), std::move(name), std::move(op), inputs, output_names, output_types);
}

Node* Graph::InsertNodeBefore(Node* position, std::string name, std::string op,
                              const std::vector<Value*>& inputs,
                              const std::vector<std::string>& output_names,
                              const std::vector<TensorType>& output_types) {
  return NewNode(position->self_, std::move(name), std::move(op), inputs, output_names,
                 output_types);
}

Node* Graph::InsertNodeAfter(Node* position, std::string name, std::string op,
                             const std::vector<Value*>& inputs,
                             const std::vector<std::string>& output_names,
                             const std::vector<TensorType>& output_types) {
  return NewNode(std::next(position->self_), std::move(name), std::move(op), inputs, output_names,
                 output_types);
}

void Graph::MoveBefore(Node* node, Node* position) {
  if (node == position) return;
  nodes_.splice(position->self_, nodes_, node->self_);
}

void Graph::EraseValue(Value* value) {
  values_by_name_.erase(value->name_);
  values_.erase(value->self_);
}

void Graph::EraseNode(Node* node) {
  for (Value* output : node->outputs_) {
    if (output->has_uses() || output->is_graph_output()) {
      Fatal("erasing node '" + node->name_ + "' whose output '" + output->name_ + "' is in use");
    }
  }
  node->ClearInputs();
  for (Value* output : node->outputs_) EraseValue(output);
  nodes_by_name_.erase(node->name_);
  nodes_.erase(node->self_);
}

void Graph::EraseLeaf(Value* value) {
  if (value->kind_ == ValueKind::kNodeOutput) Fatal("EraseLeaf on node output '" + value->name_ + "'");
  if (value->has_uses() || value->is_graph_output()) Fatal("erasing used value '" + value->name_ + "'");
  for (auto* list : {&inputs_, &weights_, &constants_}) {
    list->erase(std::remove(list->begin(), list->end(), value), list->end());
  }
  EraseValue(value);
}

void Graph::ReplaceAllUsesWith(Value* from, Value* to) {
  if (from == to) return;
  std::vector<Use> uses = from->uses_;
  for (const Use& use : uses) use.user->ReplaceInput(static_cast<size_t>(use.index), to);
  if (!from->is_graph_output()) return;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i] == from) ReplaceOutput(i, to);
  }
}

void Graph::AddOutput(Value* value) {
  outputs_.push_back(value);
  ++value->graph_output_count_;
}

void Graph::ReplaceOutput(size_t index, Value* value) {
  --outputs_.at(index)->graph_output_count_;
  outputs_[index] = value;
  ++value->graph_output_count_;
}

std::vector<Node*> Graph::NodeSnapshot() const {
  std::vector<Node*> snapshot;
  snapshot.reserve(nodes_.size());
  for (const auto& node : nodes_) snapshot.push_back(node.get());
  return snapshot;
}

Value* Graph::FindValue(std::string_view name) const {
  auto it = values_by_name_.find(std::string(name));
  return it == values_by_name_.end() ? nullptr : it->second;
}

Node* Graph::FindNode(std::string_view name) const {
  auto it = nodes_by_name_.find(std::string(name));
  return it == nodes_by_name_.end() ? nullptr : it->second;
}

std::string Graph::UniqueValueName(std::string_view base) const {
  std::string name(base);
  for (int suffix = 1; FindValue(name) != nullptr; ++suffix) {
    name = std::string(base) + "_" + std::to_string(suffix);
  }
  return name;
}

std::string Graph::UniqueNodeName(std::string_view base) const {
  std::string name(base);
  for (int suffix = 1; FindNode(name) != nullptr; ++suffix) {
    name = std::string(base) + "_" + std::to_string(suffix);
  }
  return name;
}

std::vector<std::string> Graph::CheckInvariants() const {
  std::vector<std::string> problems;
  std::unordered_set<const Node*> seen;
  for (const auto& owned : nodes_) {
    const Node* node = owned.get();
    for (size_t i = 0; i < node->inputs_.size(); ++i) {
      const Value* input = node->inputs_[i];
      if (input->producer_ != nullptr && !seen.count(input->producer_)) {
        problems.push_back("node '" + node->name_ + "' uses '" + input->name_ +
                           "' before its producer '" + input->producer_->name_ + "'");
      }
      Use use{const_cast<Node*>(node), static_cast<int>(i)};
      if (std::find(input->uses_.begin(), input->uses_.end(), use) == input->uses_.end()) {
        problems.push_back("use of '" + input->name_ + "' by '" + node->name_ + "' not recorded");
      }
    }
    for (size_t i = 0; i < node->outputs_.size(); ++i) {
      const Value* output = node->outputs_[i];
      if (output->producer_ != node || output->producer_index_ != static_cast<int>(i)) {
        problems.push_back("output '" + output->name_ + "' of '" + node->name_ +
                           "' has a wrong producer link");
      }
    }
    seen.insert(node);
  }
  for (const auto& owned : values_) {
    for (const Use& use : owned->uses_) {
      if (!seen.count(use.user) || use.index < 0 ||
          static_cast<size_t>(use.index) >= use.user->inputs_.size() ||
          use.user->inputs_[static_cast<size_t>(use.index)] != owned.get()) {
        problems.push_back("stale use recorded on '" + owned->name_ + "'");
      }
    }
  }
  return problems;
}

}  // namespace torchir::ir
