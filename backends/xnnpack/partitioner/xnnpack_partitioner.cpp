#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/xnnpack/partitioner/node_grouping.h"
#include "backends/xnnpack/partitioner/op_capability.h"
#include "backends/xnnpack/partitioner/region_tools.h"
#include "backends/xnnpack/partitioner/subgraph_serializer.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/dialect/node_macs.h"

namespace torchir::xnnpack {
namespace {

bool IsChannelsLastRank(const ir::Value* value) {
  return value->sizes().size() == 3 || value->sizes().size() == 4;
}

// Step 4 for groups that work in either layout: count the 3-d/4-d tensors crossing the
// group's border to or from a channels-last group against the others.
Layout ChooseLayout(const NodeGroup& group,
                    const std::unordered_map<const ir::Node*, Layout>& decided) {
  if (group.need == LayoutNeed::kChannelsLast) return Layout::kChannelsLast;
  if (group.need == LayoutNeed::kLogical) return Layout::kLogical;
  const std::unordered_set<const ir::Node*> members(group.nodes.begin(), group.nodes.end());
  auto is_channels_last = [&](const ir::Node* node) {
    auto it = decided.find(node);
    return it != decided.end() && it->second == Layout::kChannelsLast;
  };
  // A layout conversion the graph already holds (at the border of an earlier backend's
  // channels-last delegate, e.g. the native kernels'): its far side is channels-last.
  auto converts = [](const ir::Node* node, bool to_channels_last) {
    if (node == nullptr || node->op() != "edge.permute") return false;
    const ir::AttrValue* dims = node->FindAttr("dims");
    if (dims == nullptr || dims->kind() != ir::AttrValue::Kind::kIntList) return false;
    const std::vector<int64_t> perm =
        PhysicalPermutation(Layout::kChannelsLast, node->input(0)->sizes().size());
    return dims->as_int_list() == (to_channels_last ? perm : InversePermutation(perm));
  };
  int channels_last = 0;
  int logical = 0;
  for (const ir::Node* node : group.nodes) {
    for (const ir::Value* input : node->inputs()) {
      if (!IsChannelsLastRank(input) || input->is_constant_like() ||
          members.count(input->producer()) != 0) {
        continue;
      }
      ++(is_channels_last(input->producer()) || converts(input->producer(), false)
             ? channels_last
             : logical);
    }
    for (const ir::Value* output : node->outputs()) {
      if (!IsChannelsLastRank(output)) continue;
      if (output->is_graph_output()) ++logical;
      for (const ir::Use& use : output->uses()) {
        if (members.count(use.user) == 0) {
          ++(is_channels_last(use.user) || converts(use.user, true) ? channels_last : logical);
        }
      }
    }
  }
  return channels_last > logical ? Layout::kChannelsLast : Layout::kLogical;
}

std::string DataMovementOnlyReason(const NodeGroup& group) {
  std::vector<std::string> ops;
  for (const ir::Node* node : group.nodes) {
    if (std::find(ops.begin(), ops.end(), node->op()) == ops.end()) ops.push_back(node->op());
  }
  return absl::StrCat("supported, but its region only moves data (", absl::StrJoin(ops, ", "),
                      "): a delegate call would copy what the portable kernels do for free");
}

// Step 5: a reshape at a region's border is a free view on the portable side but a copy in
// XNNPACK. It leaves the region when it reads from outside it or is read only outside it,
// touches one region node only (so the region stays connected), and no layout conversion
// takes its place (its tensors are stored in logical order). The region stays convex: no
// path can leave through a node fed only from outside, or come back from one read only
// outside. Repeats, so that chains peel off whole.
void PeelBorderReshapes(NodeGroup& group, Layout layout,
                        std::unordered_map<const ir::Node*, std::string>& reasons) {
  std::unordered_set<const ir::Node*> members(group.nodes.begin(), group.nodes.end());
  auto keeps_order = [&](const ir::Value* value) {
    return PermutationKeepsOrder(value->sizes(),
                                 PhysicalPermutation(layout, value->sizes().size()));
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = group.nodes.begin(); it != group.nodes.end(); ++it) {
      const ir::Node* node = *it;
      if (node->op() != "edge.reshape" || !keeps_order(node->input(0)) ||
          !keeps_order(node->output(0))) {
        continue;
      }
      // A leaf of the region (fed from outside and read by one region node, or fed by a
      // region node and read only outside): removing it keeps the region connected.
      std::unordered_set<const ir::Node*> neighbours;
      if (members.count(node->input(0)->producer()) != 0) {
        neighbours.insert(node->input(0)->producer());
      }
      for (const ir::Use& use : node->output(0)->uses()) {
        if (members.count(use.user) != 0) neighbours.insert(use.user);
      }
      if (neighbours.size() != 1) continue;
      reasons[node] =
          "supported, but it sits at its region's border, where the portable "
          "kernels reshape for free (a view) and XNNPACK would copy";
      members.erase(node);
      group.nodes.erase(it);
      changed = true;
      break;
    }
  }
}

}  // namespace

double XnnpackPartitionResult::DelegatedMacShare() const {
  return total_macs == 0 ? 1.0
                         : static_cast<double>(delegated_macs) / static_cast<double>(total_macs);
}

absl::StatusOr<XnnpackPartitionResult> PartitionForXnnpack(ir::Graph& graph,
                                                           int64_t first_delegate_index) {
  XnnpackPartitionResult result;
  const std::vector<ir::Node*> nodes = graph.NodeSnapshot();
  std::unordered_map<const ir::Node*, uint64_t> macs;
  std::unordered_map<const ir::Node*, std::string> reasons;
  std::vector<std::optional<LayoutNeed>> needs(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node* node = nodes[i];
    if (!dialect::IsEdgeOpName(node->op())) continue;  // e.g. another backend's delegate call
    macs[node] = dialect::NodeMacs(*node);
    result.total_macs += macs[node];
    Support support = CheckXnnpackSupport(*node);
    if (support.ok()) {
      needs[i] = support.need;
    } else {
      reasons[node] = support.reason;
    }
  }

  // Steps 2-4.
  std::vector<NodeGroup> groups;
  for (NodeGroup& group : GroupSupportedNodes(graph, needs)) {
    bool computes = false;
    for (const ir::Node* node : group.nodes)
      computes |= FindXnnpackCapability(node->op())->computes;
    if (!computes) {
      for (const ir::Node* node : group.nodes) reasons[node] = DataMovementOnlyReason(group);
      continue;
    }
    groups.push_back(std::move(group));
  }
  std::unordered_map<const ir::Node*, Layout> layouts;
  std::vector<Layout> group_layouts;
  for (NodeGroup& group : groups) {
    group_layouts.push_back(ChooseLayout(group, layouts));
    for (const ir::Node* node : group.nodes) layouts[node] = group_layouts.back();
    PeelBorderReshapes(group, group_layouts.back(), reasons);
  }

  // Step 6.
  std::vector<RegionRewrite> regions;
  for (size_t g = 0; g < groups.size(); ++g) {
    const NodeGroup& group = groups[g];
    const std::vector<const ir::Node*> members(group.nodes.begin(), group.nodes.end());
    SubgraphSerializer serializer(group_layouts[g], members);
    DelegateSummary summary;
    summary.delegate_index = first_delegate_index + static_cast<int64_t>(g);
    summary.layout = group_layouts[g];
    for (const ir::Node* node : group.nodes) {
      absl::Status status = FindXnnpackCapability(node->op())->serialize(*node, serializer);
      if (!status.ok()) {
        return absl::InternalError(absl::StrCat("XNNPACK preprocess of node '", node->name(), "' (",
                                                node->op(), "): ", status.message()));
      }
      summary.nodes.push_back(node->name());
      summary.ops.push_back(node->op());
      summary.macs += macs[node];
    }
    absl::StatusOr<SerializedSubgraph> subgraph = serializer.Finish(summary.ops, summary.macs);
    if (!subgraph.ok()) return subgraph.status();
    summary.blob_bytes = subgraph->blob.size();
    result.delegated_macs += summary.macs;
    emit::DelegatePayload payload;
    payload.backend_id = kXnnpackBackendId;
    payload.blob = subgraph->blob;
    payload.read_overrun_bytes = kXnnpackExtraBytes;
    result.payloads.push_back(std::move(payload));
    result.delegates.push_back(std::move(summary));
    RegionRewrite region;
    region.members = group.nodes;
    region.subgraph = std::move(*subgraph);
    region.delegate_index = first_delegate_index + static_cast<int64_t>(g);
    region.tag = "xnnpack";
    region.attributes = {{kReadOverrunAttr, kXnnpackExtraBytes},
                         {dialect::kDelegateMacsAttr,
                          static_cast<int64_t>(std::min<uint64_t>(summary.macs, INT64_MAX))}};
    regions.push_back(std::move(region));
  }

  for (const ir::Node* node : nodes) {
    auto reason = reasons.find(node);
    if (reason == reasons.end()) continue;
    result.left_out.push_back({node->name(), node->op(), reason->second, macs[node]});
  }

  // Step 7.
  absl::StatusOr<RewriteStats> stats = ReplaceRegionsWithDelegateCalls(graph, regions);
  if (!stats.ok()) return stats.status();
  for (size_t g = 0; g < result.delegates.size(); ++g) {
    result.delegates[g].call_node = stats->delegate_nodes[g];
  }
  result.permutes_inserted = stats->permutes_inserted;
  result.permutes_cancelled = stats->permutes_cancelled;
  result.constants_repacked = stats->constants_repacked;
  return result;
}

}  // namespace torchir::xnnpack
