#include "backends/xnnpack/partitioner/node_grouping.h"

#include <algorithm>
#include <unordered_map>

namespace torchir::xnnpack {
namespace {

class Grouper {
 public:
  Grouper(const ir::Graph& graph, const std::vector<std::optional<LayoutNeed>>& needs)
      : nodes_(graph.NodeSnapshot()),
        group_of_(nodes_.size(), -1),
        members_(nodes_.size()),
        need_(nodes_.size(), LayoutNeed::kAny),
        mark_(nodes_.size(), 0),
        seen_(nodes_.size(), 0) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      index_.emplace(nodes_[i], static_cast<int>(i));
      if (i < needs.size() && needs[i].has_value()) {
        group_of_[i] = static_cast<int>(i);
        members_[i] = {static_cast<int>(i)};
        need_[i] = *needs[i];
      }
    }
  }

  std::vector<NodeGroup> Run() {
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < nodes_.size(); ++i) {
        if (group_of_[i] < 0) continue;
        for (const ir::Value* input : nodes_[i]->inputs()) {
          const ir::Node* producer = input->producer();
          if (producer == nullptr) continue;
          const int p = index_.at(producer);
          if (group_of_[p] >= 0 && group_of_[p] != group_of_[i] &&
              TryMerge(group_of_[p], group_of_[i])) {
            changed = true;
          }
        }
      }
    }
    std::vector<NodeGroup> groups;
    for (size_t g = 0; g < members_.size(); ++g) {
      if (members_[g].empty() || group_of_[members_[g].front()] != static_cast<int>(g)) continue;
      NodeGroup group;
      group.need = need_[g];
      for (int i : members_[g]) group.nodes.push_back(nodes_[static_cast<size_t>(i)]);
      groups.push_back(std::move(group));
    }
    std::sort(groups.begin(), groups.end(), [&](const NodeGroup& a, const NodeGroup& b) {
      return index_.at(a.nodes.front()) < index_.at(b.nodes.front());
    });
    return groups;
  }

 private:
  bool TryMerge(int a, int b) {
    LayoutNeed combined;
    if (!CombineNeeds(need_[a], need_[b], &combined)) return false;
    std::vector<int> merged = members_[a];
    merged.insert(merged.end(), members_[b].begin(), members_[b].end());
    std::sort(merged.begin(), merged.end());
    if (LeavesAndReturns(merged)) return false;
    const int keep = std::min(a, b);
    const int gone = std::max(a, b);
    for (int i : members_[gone]) group_of_[i] = keep;
    members_[keep] = std::move(merged);
    members_[gone].clear();
    need_[keep] = combined;
    return true;
  }

  // True when some path from `group` (sorted node indices) to itself passes an outside node.
  bool LeavesAndReturns(const std::vector<int>& group) {
    ++generation_;
    for (int i : group) mark_[i] = generation_;
    const int last = group.back();
    std::vector<int> stack;
    auto visit_users = [&](int from, bool from_inside) {
      for (const ir::Value* output : nodes_[static_cast<size_t>(from)]->outputs()) {
        for (const ir::Use& use : output->uses()) {
          const int user = index_.at(use.user);
          if (mark_[user] == generation_) {
            if (!from_inside) return true;
            continue;
          }
          // Nothing after the group's last node leads back into it.
          if (user < last && seen_[user] != generation_) {
            seen_[user] = generation_;
            stack.push_back(user);
          }
        }
      }
      return false;
    };
    for (int i : group) visit_users(i, /*from_inside=*/true);
    while (!stack.empty()) {
      const int node = stack.back();
      stack.pop_back();
      if (visit_users(node, /*from_inside=*/false)) return true;
    }
    return false;
  }

  std::vector<ir::Node*> nodes_;
  std::unordered_map<const ir::Node*, int> index_;
  std::vector<int> group_of_;
  std::vector<std::vector<int>> members_;
  std::vector<LayoutNeed> need_;
  std::vector<int> mark_;  // == generation_: in the group being checked
  std::vector<int> seen_;  // == generation_: reached outside it
  int generation_ = 0;
};

}  // namespace

std::vector<NodeGroup> GroupSupportedNodes(const ir::Graph& graph,
                                           const std::vector<std::optional<LayoutNeed>>& needs) {
  return Grouper(graph, needs).Run();
}

}  // namespace torchir::xnnpack
