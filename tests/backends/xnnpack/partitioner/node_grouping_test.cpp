// Grouping supported nodes into regions: connected, convex (no cycle once each
// region is one node), maximal, and kept apart when their layouts conflict.
#include "backends/xnnpack/partitioner/node_grouping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/support/graph_builder.h"

namespace torchir::xnnpack {
namespace {

using testing::F32;
using testing::GraphBuilder;

std::vector<std::string> Names(const NodeGroup& group) {
  std::vector<std::string> names;
  for (const ir::Node* node : group.nodes) names.push_back(node->name());
  return names;
}

std::vector<std::optional<LayoutNeed>> Needs(
    const ir::Graph& graph, const std::set<std::string>& unsupported,
    const std::map<std::string, LayoutNeed>& special = {}) {
  std::vector<std::optional<LayoutNeed>> needs;
  for (const ir::Node* node : graph.nodes()) {
    if (unsupported.count(node->name()) != 0) {
      needs.push_back(std::nullopt);
    } else if (auto it = special.find(node->name()); it != special.end()) {
      needs.push_back(it->second);
    } else {
      needs.push_back(LayoutNeed::kAny);
    }
  }
  return needs;
}

// a -> b -> c and a -> c, with b unsupported: merging a and c would make the region both
// feed b and wait for it, a cycle. They must stay apart.
TEST(NodeGroupingTest, NaiveMergingWouldCreateACycle) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* a = b.Op("t.op", {x}).Name("a").Out(F32({4}));
  ir::Value* mid = b.Op("t.op", {a}).Name("b").Out(F32({4}));
  b.Output(b.Op("t.op", {a, mid}).Name("c").Out(F32({4})));
  auto graph = b.Build();
  std::vector<NodeGroup> groups = GroupSupportedNodes(*graph, Needs(*graph, {"b"}));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(Names(groups[0]), std::vector<std::string>{"a"});
  EXPECT_EQ(Names(groups[1]), std::vector<std::string>{"c"});
}

// The same shape with the middle node supported is one region.
TEST(NodeGroupingTest, ADiamondOfSupportedNodesIsOneRegion) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* a = b.Op("t.op", {x}).Name("a").Out(F32({4}));
  ir::Value* left = b.Op("t.op", {a}).Name("left").Out(F32({4}));
  ir::Value* right = b.Op("t.op", {a}).Name("right").Out(F32({4}));
  b.Output(b.Op("t.op", {left, right}).Name("join").Out(F32({4})));
  auto graph = b.Build();
  std::vector<NodeGroup> groups = GroupSupportedNodes(*graph, Needs(*graph, {}));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(Names(groups[0]), (std::vector<std::string>{"a", "left", "right", "join"}));
}

// Unsupported nodes split chains; regions are ordered by their first node.
TEST(NodeGroupingTest, UnsupportedNodesSplitChains) {
  GraphBuilder b;
  ir::Value* v = b.Input("x", F32({4}));
  for (const char* name : {"n0", "n1", "cut", "n3", "n4"}) {
    v = b.Op("t.op", {v}).Name(name).Out(F32({4}));
  }
  b.Output(v);
  auto graph = b.Build();
  std::vector<NodeGroup> groups = GroupSupportedNodes(*graph, Needs(*graph, {"cut"}));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(Names(groups[0]), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(Names(groups[1]), (std::vector<std::string>{"n3", "n4"}));
}

// A channels-last node and a logical one never share a region; layout-agnostic nodes join
// either, and the region takes the need of its members.
TEST(NodeGroupingTest, ConflictingLayoutNeedsStayApart) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* conv = b.Op("t.op", {x}).Name("conv").Out(F32({4}));
  ir::Value* relu = b.Op("t.op", {conv}).Name("relu").Out(F32({4}));
  ir::Value* linear = b.Op("t.op", {relu}).Name("linear").Out(F32({4}));
  b.Output(b.Op("t.op", {linear}).Name("add").Out(F32({4})));
  auto graph = b.Build();
  std::vector<NodeGroup> groups = GroupSupportedNodes(
      *graph,
      Needs(*graph, {}, {{"conv", LayoutNeed::kChannelsLast}, {"linear", LayoutNeed::kLogical}}));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(Names(groups[0]), (std::vector<std::string>{"conv", "relu"}));
  EXPECT_EQ(groups[0].need, LayoutNeed::kChannelsLast);
  EXPECT_EQ(Names(groups[1]), (std::vector<std::string>{"linear", "add"}));
  EXPECT_EQ(groups[1].need, LayoutNeed::kLogical);
}

// Random DAGs against brute force: every region is connected and convex, no two adjacent
// regions could still merge, every supported node is in exactly one region, and the result
// does not depend on anything but the graph.
class RandomDag {
 public:
  RandomDag(uint32_t seed, int size) {
    std::mt19937 random(seed);
    GraphBuilder b;
    values_.push_back(b.Input("x", F32({4})));
    for (int i = 0; i < size; ++i) {
      std::vector<ir::Value*> inputs;
      const int fan_in = 1 + static_cast<int>(random() % 3);
      for (int k = 0; k < fan_in; ++k) {
        // Mostly recent values, so that chains and diamonds are common.
        const size_t back = std::min<size_t>(values_.size(), 1 + random() % 6);
        inputs.push_back(values_[values_.size() - back]);
      }
      values_.push_back(b.Op("t.op", inputs).Name("n" + std::to_string(i)).Out(F32({4})));
      const uint32_t kind = random() % 10;
      needs_.push_back(kind < 2   ? std::optional<LayoutNeed>()
                       : kind < 4 ? std::optional<LayoutNeed>(LayoutNeed::kChannelsLast)
                       : kind < 5 ? std::optional<LayoutNeed>(LayoutNeed::kLogical)
                                  : std::optional<LayoutNeed>(LayoutNeed::kAny));
    }
    b.Output(values_.back());
    graph_ = b.Build();
    nodes_ = graph_->NodeSnapshot();
    for (size_t i = 0; i < nodes_.size(); ++i) index_[nodes_[i]] = static_cast<int>(i);
    // reach[i][j]: a path of one or more edges from node i to node j.
    const size_t n = nodes_.size();
    reach_.assign(n, std::vector<bool>(n, false));
    for (size_t i = n; i-- > 0;) {
      for (const ir::Use& use : nodes_[i]->output(0)->uses()) {
        const int j = index_.at(use.user);
        reach_[i][j] = true;
        for (size_t k = 0; k < n; ++k) {
          if (reach_[j][k]) reach_[i][k] = true;
        }
      }
    }
  }

  const ir::Graph& graph() const { return *graph_; }
  const std::vector<std::optional<LayoutNeed>>& needs() const { return needs_; }
  int Index(const ir::Node* node) const { return index_.at(node); }

  bool Convex(const std::set<int>& group) const {
    for (int u : group) {
      for (size_t w = 0; w < nodes_.size(); ++w) {
        if (group.count(static_cast<int>(w)) != 0 || !reach_[u][w]) continue;
        for (int v : group) {
          if (reach_[w][v]) return false;
        }
      }
    }
    return true;
  }

  bool Connected(const std::set<int>& group) const {
    std::set<int> seen = {*group.begin()};
    std::vector<int> stack = {*group.begin()};
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      for (int j : group) {
        if (seen.count(j) == 0 && Adjacent(i, j)) {
          seen.insert(j);
          stack.push_back(j);
        }
      }
    }
    return seen.size() == group.size();
  }

  bool Adjacent(int i, int j) const {
    auto feeds = [&](int from, int to) {
      for (const ir::Value* input : nodes_[static_cast<size_t>(to)]->inputs()) {
        if (input->producer() == nodes_[static_cast<size_t>(from)]) return true;
      }
      return false;
    };
    return feeds(i, j) || feeds(j, i);
  }

 private:
  std::unique_ptr<ir::Graph> graph_;
  std::vector<ir::Value*> values_;
  std::vector<ir::Node*> nodes_;
  std::map<const ir::Node*, int> index_;
  std::vector<std::optional<LayoutNeed>> needs_;
  std::vector<std::vector<bool>> reach_;
};

TEST(NodeGroupingTest, RandomGraphsGiveConvexConnectedMaximalRegions) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomDag dag(seed, 30);
    std::vector<NodeGroup> groups = GroupSupportedNodes(dag.graph(), dag.needs());
    std::vector<std::set<int>> sets;
    std::vector<int> region_of(dag.needs().size(), -1);
    for (const NodeGroup& group : groups) {
      std::set<int> set;
      LayoutNeed combined = LayoutNeed::kAny;
      for (const ir::Node* node : group.nodes) {
        const int i = dag.Index(node);
        ASSERT_TRUE(dag.needs()[static_cast<size_t>(i)].has_value()) << node->name();
        ASSERT_EQ(region_of[static_cast<size_t>(i)], -1) << node->name() << " in two regions";
        region_of[static_cast<size_t>(i)] = static_cast<int>(sets.size());
        ASSERT_TRUE(CombineNeeds(combined, *dag.needs()[static_cast<size_t>(i)], &combined));
        set.insert(i);
      }
      EXPECT_EQ(group.need, combined);
      EXPECT_TRUE(dag.Connected(set));
      EXPECT_TRUE(dag.Convex(set));
      sets.push_back(set);
    }
    for (size_t i = 0; i < dag.needs().size(); ++i) {
      EXPECT_EQ(dag.needs()[i].has_value(), region_of[i] >= 0) << "node " << i;
    }
    for (size_t a = 0; a < sets.size(); ++a) {
      for (size_t b = a + 1; b < sets.size(); ++b) {
        bool adjacent = false;
        for (int i : sets[a]) {
          for (int j : sets[b]) adjacent |= dag.Adjacent(i, j);
        }
        LayoutNeed combined;
        if (!adjacent || !CombineNeeds(groups[a].need, groups[b].need, &combined)) continue;
        std::set<int> merged = sets[a];
        merged.insert(sets[b].begin(), sets[b].end());
        EXPECT_FALSE(dag.Convex(merged)) << "regions " << a << " and " << b << " could merge";
      }
    }
    // Deterministic: the same graph built again groups the same way.
    RandomDag again(seed, 30);
    std::vector<NodeGroup> regrouped = GroupSupportedNodes(again.graph(), again.needs());
    ASSERT_EQ(regrouped.size(), groups.size());
    for (size_t g = 0; g < groups.size(); ++g) EXPECT_EQ(Names(regrouped[g]), Names(groups[g]));
  }
}

}  // namespace
}  // namespace torchir::xnnpack
