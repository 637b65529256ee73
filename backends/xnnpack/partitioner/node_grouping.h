// Grouping the nodes XNNPACK supports into regions, each run by one delegate call.
#pragma once

#include <optional>
#include <vector>

#include "backends/xnnpack/partitioner/region_tools.h"
#include "compiler/ir/graph.h"

namespace torchir::xnnpack {

// Nodes one delegate call runs, in graph order, and the layout they need together.
struct NodeGroup {
  std::vector<ir::Node*> nodes;
  LayoutNeed need = LayoutNeed::kAny;
};

// Groups the supported nodes of `graph` (needs[i] is set for the i-th node in graph order
// when XNNPACK takes it) into maximal groups that are connected and convex, i.e. no path
// leaves a group and comes back, so that each can become one node without a cycle:
//   1. every supported node starts as its own group;
//   2. for each node in graph order and each of its inputs in order, when the producer is in
//      another group, the two merge if their layout needs agree and no path from the union
//      to itself passes a node outside it (searched forward from the union's outside users,
//      never beyond the union's last node in graph order, which no such path can reach
//      past);
//   3. step 2 repeats until nothing merges: a merge refused because a third group sat on
//      the path may succeed once that group has joined.
// The result is ordered by each group's first node. Deterministic: only graph order decides.
std::vector<NodeGroup> GroupSupportedNodes(const ir::Graph& graph,
                                           const std::vector<std::optional<LayoutNeed>>& needs);

}  // namespace torchir::xnnpack
