#include "passes/common_subexpression_elimination.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"

namespace torchir::passes {
namespace {

size_t Combine(size_t seed, size_t value) {
  return absl::Hash<std::pair<size_t, size_t>>()({seed, value});
}

// Consistent with AttrValue::operator==: equal values hash equally (0.0 and -0.0 included).
size_t HashAttr(const ir::AttrValue& value) {
  using Kind = ir::AttrValue::Kind;
  size_t seed = static_cast<size_t>(value.kind());
  switch (value.kind()) {
    case Kind::kNone:
      return seed;
    case Kind::kBool:
      return Combine(seed, value.as_bool());
    case Kind::kInt:
      return Combine(seed, absl::Hash<int64_t>()(value.as_int()));
    case Kind::kDouble:
      return Combine(seed, absl::Hash<double>()(value.as_double()));
    case Kind::kString:
      return Combine(seed, absl::Hash<std::string>()(value.as_string()));
    case Kind::kIntList:
      return Combine(seed, absl::Hash<std::vector<int64_t>>()(value.as_int_list()));
    case Kind::kDoubleList:
      return Combine(seed, absl::Hash<std::vector<double>>()(value.as_double_list()));
    case Kind::kBoolList:
      for (bool element : value.as_bool_list()) seed = Combine(seed, element);
      return seed;
    case Kind::kDType:
      return Combine(seed, static_cast<size_t>(value.as_dtype()));
    case Kind::kDevice:
      return Combine(seed, absl::Hash<std::pair<std::string, int>>()(
                               {value.as_device().type, value.as_device().index}));
    case Kind::kMemoryFormat:
      return Combine(seed, static_cast<size_t>(value.as_memory_format()));
    case Kind::kLayout:
      return Combine(seed, static_cast<size_t>(value.as_layout()));
    case Kind::kList:
      for (const ir::AttrValue& element : value.as_list()) seed = Combine(seed, HashAttr(element));
      return seed;
  }
  return seed;
}

// A pure node in the set, with what the comparison needs precomputed.
struct NodeKey {
  ir::Node* node;
  bool commutative;  // the first two inputs may be swapped
  size_t hash;
};

size_t HashNode(const ir::Node& node, bool commutative) {
  size_t seed = absl::Hash<std::string>()(node.op());
  seed = Combine(seed, commutative);
  const std::vector<ir::Value*>& inputs = node.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (commutative && i < 2) continue;
    seed = Combine(seed, absl::Hash<const ir::Value*>()(inputs[i]));
  }
  if (commutative) {
    // Order-independent: the same for (a, b) and (b, a).
    seed = Combine(seed, absl::Hash<const ir::Value*>()(inputs[0]) +
                             absl::Hash<const ir::Value*>()(inputs[1]));
  }
  // Summing per-attribute hashes makes the attribute order irrelevant.
  size_t attrs = node.attrs().size();
  for (const auto& [name, value] : node.attrs()) {
    attrs += Combine(absl::Hash<std::string>()(name), HashAttr(value));
  }
  seed = Combine(seed, attrs);
  seed = Combine(seed, absl::Hash<std::vector<int64_t>>()(node.tensor_list_sizes()));
  for (const std::vector<bool>& mask : node.tensor_list_none_masks()) {
    seed = Combine(seed, mask.size());
    for (bool none : mask) seed = Combine(seed, none);
  }
  for (const ir::Value* output : node.outputs()) {
    seed = Combine(seed, static_cast<size_t>(output->dtype()));
    seed = Combine(seed, absl::Hash<std::vector<int64_t>>()(output->sizes()));
  }
  return seed;
}

bool SameInputs(const NodeKey& a, const NodeKey& b) {
  const std::vector<ir::Value*>& x = a.node->inputs();
  const std::vector<ir::Value*>& y = b.node->inputs();
  if (x.size() != y.size()) return false;
  if (x == y) return true;
  if (!a.commutative) return false;
  return x[0] == y[1] && x[1] == y[0] && std::equal(x.begin() + 2, x.end(), y.begin() + 2);
}

bool SameAttrs(const ir::Node& a, const ir::Node& b) {
  if (a.attrs().size() != b.attrs().size()) return false;
  for (const auto& [name, value] : a.attrs()) {
    const ir::AttrValue* other = b.FindAttr(name);
    if (other == nullptr || *other != value) return false;
  }
  return true;
}

bool SameOutputTypes(const ir::Node& a, const ir::Node& b) {
  if (a.num_outputs() != b.num_outputs()) return false;
  for (size_t i = 0; i < a.num_outputs(); ++i) {
    if (a.output(i)->type() != b.output(i)->type()) return false;
  }
  return true;
}

struct NodeKeyHash {
  size_t operator()(const NodeKey& key) const { return key.hash; }
};

struct NodeKeyEq {
  bool operator()(const NodeKey& a, const NodeKey& b) const {
    return a.hash == b.hash && a.commutative == b.commutative && a.node->op() == b.node->op() &&
           SameInputs(a, b) && SameAttrs(*a.node, *b.node) &&
           a.node->tensor_list_sizes() == b.node->tensor_list_sizes() &&
           a.node->tensor_list_none_masks() == b.node->tensor_list_none_masks() &&
           SameOutputTypes(*a.node, *b.node);
  }
};

}  // namespace

absl::Status CommonSubexpressionElimination::Run(ir::Graph& graph, PassContext& context) {
  const OpProperties& properties = context.op_properties();
  absl::flat_hash_set<NodeKey, NodeKeyHash, NodeKeyEq> seen;
  int64_t nodes_merged = 0;
  for (ir::Node* node : graph.NodeSnapshot()) {
    if (!properties.IsPure(*node)) continue;
    bool commutative = node->num_inputs() >= 2 && properties.IsCommutative(*node);
    NodeKey key{node, commutative, HashNode(*node, commutative)};
    auto [it, inserted] = seen.insert(key);
    if (inserted) continue;
    ir::Node* earlier = it->node;
    for (size_t i = 0; i < node->num_outputs(); ++i) {
      graph.ReplaceAllUsesWith(node->output(i), earlier->output(i));
    }
    graph.EraseNode(node);
    ++nodes_merged;
  }
  if (nodes_merged > 0) context.MarkChanged();
  context.AddToCounter("nodes_merged", nodes_merged);
  return absl::OkStatus();
}

}  // namespace torchir::passes
