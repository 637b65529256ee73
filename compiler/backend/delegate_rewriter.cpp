#include "compiler/backend/delegate_rewriter.h"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "compiler/backend/layout.h"
#include "compiler/dialect/delegate_call.h"

namespace torchir::backend {
namespace {

constexpr char kPermuteOp[] = "edge.permute";
constexpr char kReshapeOp[] = "edge.reshape";

// Where a node goes in the final order: near `position` (a graph-order index), before
// (-1) or after (+1) the node holding it, ties broken by creation.
using OrderKey = std::tuple<int64_t, int, int64_t>;

// True when permuting by `first` then by `second` changes nothing.
bool Cancels(const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
  if (first.size() != second.size()) return false;
  for (size_t i = 0; i < second.size(); ++i) {
    if (first[static_cast<size_t>(second[i])] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

const std::vector<int64_t>* PermuteDims(const ir::Node* node) {
  if (node == nullptr || node->op() != kPermuteOp) return nullptr;
  const ir::AttrValue* dims = node->FindAttr("dims");
  if (dims == nullptr || dims->kind() != ir::AttrValue::Kind::kIntList) return nullptr;
  return &dims->as_int_list();
}

class Rewriter {
 public:
  Rewriter(ir::Graph& graph, const std::vector<RegionRewrite>& regions)
      : graph_(graph), regions_(regions) {
    int64_t position = 0;
    for (ir::Node* node : graph_.NodeSnapshot()) {
      position_[node] = position;
      keys_[node] = {position++, 0, 0};
    }
    for (const RegionRewrite& region : regions_) {
      for (ir::Node* member : region.members) member_.insert(member);
    }
  }

  absl::StatusOr<RewriteStats> Run() {
    std::vector<ir::Node*> delegates;
    for (const RegionRewrite& region : regions_) delegates.push_back(CreateDelegate(region));
    for (size_t r = 0; r < regions_.size(); ++r) WireInputs(regions_[r], delegates[r]);
    for (const RegionRewrite& region : regions_) RedirectOutsideReaders(region);
    CancelPermutesAfterRegions();
    EraseRegionNodes();
    EraseDeadLeftovers();
    if (absl::Status status = Reorder(); !status.ok()) return status;
    return stats_;
  }

 private:
  // Where a region output lives: the delegate's output, stored by `perm`.
  struct Produced {
    ir::Value* physical;
    std::vector<int64_t> perm;
    int64_t position;
  };

  ir::Node* CreateDelegate(const RegionRewrite& region) {
    const SerializedSubgraph& subgraph = region.subgraph;
    std::vector<std::string> names;
    std::vector<ir::TensorType> types;
    for (size_t i = subgraph.num_inputs; i < subgraph.arguments.size(); ++i) {
      const SubgraphArgument& argument = subgraph.arguments[i];
      const bool stored_logically = IsIdentityPermutation(argument.perm);
      names.push_back(graph_.UniqueValueName(absl::StrCat(
          argument.value->name(), "_", stored_logically ? region.tag : "channels_last")));
      types.push_back({argument.value->dtype(), argument.dims});
    }
    const int64_t position = position_.at(region.members.front());
    ir::Node* node = graph_.AppendNode(
        graph_.UniqueNodeName(absl::StrCat(region.tag, "_delegate_", region.delegate_index)),
        dialect::kDelegateCallOp, {}, names, types);
    node->SetAttr(dialect::kDelegateIndexAttr, ir::AttrValue::Int(region.delegate_index));
    for (const auto& [name, value] : region.attributes)
      node->SetAttr(name, ir::AttrValue::Int(value));
    keys_[node] = {position, 0, 0};
    for (size_t i = subgraph.num_inputs; i < subgraph.arguments.size(); ++i) {
      const SubgraphArgument& argument = subgraph.arguments[i];
      produced_[argument.value] = {node->output(i - subgraph.num_inputs), argument.perm, position};
    }
    stats_.delegate_nodes.push_back(node->name());
    return node;
  }

  // A layout conversion: an edge.permute, or an edge.reshape (a view, no copy) when the
  // permutation only moves dims of size 1.
  ir::Node* AddPermute(ir::Value* input, const std::vector<int64_t>& dims, OrderKey key) {
    ir::TensorType type{input->dtype(), PermuteSizes(input->sizes(), dims)};
    const bool view = PermutationKeepsOrder(input->sizes(), dims);
    ir::Node* node = graph_.AppendNode(
        graph_.UniqueNodeName(absl::StrCat(input->name(), view ? "_view" : "_permute")),
        view ? kReshapeOp : kPermuteOp, {input},
        {graph_.UniqueValueName(absl::StrCat(input->name(), view ? "_view" : "_permuted"))},
        {type});
    if (view) {
      node->SetAttr("shape", ir::AttrValue::IntList(type.sizes));
    } else {
      node->SetAttr("dims", ir::AttrValue::IntList(dims));
    }
    keys_[node] = key;
    if (!view) ++stats_.permutes_inserted;
    return node;
  }

  // The logical (program order) version of `value` for readers outside its region.
  ir::Value* LogicalOf(ir::Value* value) {
    auto produced = produced_.find(value);
    if (produced == produced_.end()) return value;
    if (IsIdentityPermutation(produced->second.perm)) return produced->second.physical;
    auto cached = logical_.find(value);
    if (cached != logical_.end()) return cached->second;
    ir::Node* permute =
        AddPermute(produced->second.physical, InversePermutation(produced->second.perm),
                   {produced->second.position, 1, sequence_++});
    created_permutes_.push_back(permute);
    logical_[value] = permute->output(0);
    return permute->output(0);
  }

  // `value` stored by `perm` for a region whose first node is at `position`.
  ir::Value* PhysicalOf(ir::Value* value, const std::vector<int64_t>& perm, int64_t position) {
    auto produced = produced_.find(value);
    if (produced != produced_.end() && produced->second.perm == perm) {
      ++stats_.permutes_cancelled;  // the permute back and this one would undo each other
      return produced->second.physical;
    }
    auto cached = physical_.find(value);
    if (cached != physical_.end()) return cached->second;
    ir::Value* logical = LogicalOf(value);
    // A graph permute that did the opposite conversion: read what it read.
    const std::vector<int64_t>* dims = PermuteDims(logical->producer());
    ir::Value* result;
    if (dims != nullptr && member_.count(logical->producer()) == 0 && Cancels(*dims, perm)) {
      result = logical->producer()->input(0);
      maybe_dead_.push_back(logical->producer());
      ++stats_.permutes_cancelled;
    } else {
      result = AddPermute(logical, perm, {position, -1, sequence_++})->output(0);
    }
    physical_[value] = result;
    return result;
  }

  ir::Value* RepackedConstant(const SubgraphArgument& argument, const std::string& tag) {
    ir::Value* source = argument.value;
    ir::Value* constant;
    if (argument.encoded.has_value()) {
      constant = graph_.AddConstant(graph_.UniqueValueName(absl::StrCat(source->name(), "_", tag)),
                                    argument.encoded->type, argument.encoded->data);
    } else {
      if (argument.transform.IsNoop(source->sizes())) return source;
      for (const auto& [key, value] : repacked_) {
        if (key.first == source && key.second == argument.transform) return value;
      }
      constant = graph_.AddConstant(
          graph_.UniqueValueName(absl::StrCat(source->name(), "_", tag)),
          {source->dtype(), argument.transform.Dims()},
          ApplyTransform(source->data(), ir::DTypeSize(source->dtype()), argument.transform));
      repacked_.push_back({{source, argument.transform}, constant});
    }
    // One source may be repacked more than once (two readers wanting other layouts); it is
    // erased once, after the last of them.
    if (std::find(replaced_constants_.begin(), replaced_constants_.end(), source) ==
        replaced_constants_.end()) {
      replaced_constants_.push_back(source);
    }
    ++stats_.constants_repacked;
    return constant;
  }

  void WireInputs(const RegionRewrite& region, ir::Node* delegate) {
    const SerializedSubgraph& subgraph = region.subgraph;
    const int64_t position = std::get<0>(keys_.at(delegate));
    for (size_t i = 0; i < subgraph.num_inputs; ++i) {
      const SubgraphArgument& argument = subgraph.arguments[i];
      ir::Value* input;
      if (argument.kind == SubgraphArgument::Kind::kConstant) {
        input = RepackedConstant(argument, region.tag);
      } else if (IsIdentityPermutation(argument.perm)) {
        input = LogicalOf(argument.value);
      } else {
        input = PhysicalOf(argument.value, argument.perm, position);
      }
      delegate->AddInput(input);
    }
  }

  // Readers that survive the rewrite: nodes outside every region, and graph outputs.
  bool HasSurvivingReaders(const ir::Value* value) const {
    if (value->is_graph_output()) return true;
    for (const ir::Use& use : value->uses()) {
      if (member_.count(use.user) == 0) return true;
    }
    return false;
  }

  void RedirectOutsideReaders(const RegionRewrite& region) {
    const SerializedSubgraph& subgraph = region.subgraph;
    for (size_t i = subgraph.num_inputs; i < subgraph.arguments.size(); ++i) {
      ir::Value* value = subgraph.arguments[i].value;
      if (HasSurvivingReaders(value)) graph_.ReplaceAllUsesWith(value, LogicalOf(value));
    }
  }

  // A permute back to logical order whose readers are graph permutes undoing it: those
  // read the delegate's output directly.
  void CancelPermutesAfterRegions() {
    for (ir::Node* permute : created_permutes_) {
      maybe_dead_.push_back(permute);
      const std::vector<int64_t>* created_dims = PermuteDims(permute);
      if (created_dims == nullptr) continue;  // a view
      ir::Value* physical = permute->input(0);
      const std::vector<int64_t>& dims = *created_dims;
      const std::vector<ir::Use> uses = permute->output(0)->uses();
      for (const ir::Use& use : uses) {
        const std::vector<int64_t>* undo = PermuteDims(use.user);
        if (undo == nullptr || member_.count(use.user) != 0 || !Cancels(dims, *undo)) continue;
        graph_.ReplaceAllUsesWith(use.user->output(0), physical);
        maybe_dead_.push_back(use.user);
        ++stats_.permutes_cancelled;
      }
    }
  }

  void EraseRegionNodes() {
    std::vector<ir::Node*> members;
    for (const RegionRewrite& region : regions_) {
      members.insert(members.end(), region.members.begin(), region.members.end());
    }
    std::sort(members.begin(), members.end(), [&](const ir::Node* a, const ir::Node* b) {
      return position_.at(a) > position_.at(b);
    });
    for (ir::Node* member : members) {
      keys_.erase(member);
      graph_.EraseNode(member);
    }
  }

  bool IsDead(const ir::Node* node) const {
    for (const ir::Value* output : node->outputs()) {
      if (output->has_uses() || output->is_graph_output()) return false;
    }
    return true;
  }

  void EraseDeadLeftovers() {
    std::unordered_set<const ir::Node*> erased;
    // Latest first, so that a dead permute reading another dead one goes first.
    std::sort(maybe_dead_.begin(), maybe_dead_.end(),
              [&](const ir::Node* a, const ir::Node* b) { return keys_.at(a) > keys_.at(b); });
    for (ir::Node* node : maybe_dead_) {
      if (erased.count(node) != 0 || !IsDead(node)) continue;
      erased.insert(node);
      if (node->op() == kPermuteOp && std::find(created_permutes_.begin(), created_permutes_.end(),
                                                node) != created_permutes_.end()) {
        --stats_.permutes_inserted;
      }
      keys_.erase(node);
      graph_.EraseNode(node);
    }
    for (ir::Value* constant : replaced_constants_) {
      if (!constant->has_uses() && !constant->is_graph_output()) graph_.EraseLeaf(constant);
    }
  }

  // Kahn's algorithm, taking among the ready nodes the one with the smallest key.
  absl::Status Reorder() {
    std::vector<ir::Node*> nodes = graph_.NodeSnapshot();
    std::unordered_map<const ir::Node*, int> waiting;
    using Entry = std::pair<OrderKey, ir::Node*>;
    auto later = [](const Entry& a, const Entry& b) { return a.first > b.first; };
    std::priority_queue<Entry, std::vector<Entry>, decltype(later)> ready(later);
    for (ir::Node* node : nodes) {
      int count = 0;
      for (const ir::Value* input : node->inputs()) count += input->producer() != nullptr;
      waiting[node] = count;
      if (count == 0) ready.push({keys_.at(node), node});
    }
    std::vector<ir::Node*> order;
    while (!ready.empty()) {
      ir::Node* node = ready.top().second;
      ready.pop();
      order.push_back(node);
      for (const ir::Value* output : node->outputs()) {
        for (const ir::Use& use : output->uses()) {
          if (--waiting[use.user] == 0) ready.push({keys_.at(use.user), use.user});
        }
      }
    }
    if (order.size() != nodes.size()) {
      return absl::InternalError("partitioning created a cycle between delegate calls");
    }
    for (size_t i = order.size(); i-- > 1;) graph_.MoveBefore(order[i - 1], order[i]);
    return absl::OkStatus();
  }

  ir::Graph& graph_;
  const std::vector<RegionRewrite>& regions_;
  std::unordered_map<const ir::Node*, int64_t> position_;
  std::unordered_map<const ir::Node*, OrderKey> keys_;
  std::unordered_set<const ir::Node*> member_;
  std::unordered_map<const ir::Value*, Produced> produced_;
  std::unordered_map<const ir::Value*, ir::Value*> logical_;
  std::unordered_map<const ir::Value*, ir::Value*> physical_;
  std::vector<std::pair<std::pair<ir::Value*, ConstantTransform>, ir::Value*>> repacked_;
  std::vector<ir::Value*> replaced_constants_;
  std::vector<ir::Node*> created_permutes_;
  std::vector<ir::Node*> maybe_dead_;
  int64_t sequence_ = 0;
  RewriteStats stats_;
};

}  // namespace

absl::StatusOr<RewriteStats> ReplaceRegionsWithDelegateCalls(
    ir::Graph& graph, const std::vector<RegionRewrite>& regions) {
  return Rewriter(graph, regions).Run();
}

}  // namespace torchir::backend
