// The graph after partitioning: one delegate call per region, layout
// conversions only at region borders, none between two channels-last regions
// nor where the graph already converted, and a graph that still verifies.
#include "compiler/backend/delegate_rewriter.h"

#include <gtest/gtest.h>

#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"

namespace torchir::xnnpack {
namespace {

using testing::EdgeGraphBuilder;
using testing::F32;
using testing::kInf;
using Dims = std::vector<int64_t>;

XnnpackPartitionResult Partition(ir::Graph& graph) {
  absl::StatusOr<XnnpackPartitionResult> result = PartitionForXnnpack(graph);
  EXPECT_TRUE(result.ok()) << result.status();
  // What the pipeline checks: invariants hold and every other node is still Edge.
  EXPECT_TRUE(graph.CheckInvariants().empty());
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() == dialect::kDelegateCallOp) continue;
    absl::Status status = dialect::VerifyEdgeNode(*node);
    EXPECT_TRUE(status.ok()) << status;
  }
  return result.ok() ? std::move(*result) : XnnpackPartitionResult{};
}

std::vector<std::string> Ops(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node* node : graph.nodes()) ops.push_back(node->op());
  return ops;
}

const std::vector<int64_t>& DimsAttr(const ir::Node* node) {
  return node->FindAttr("dims")->as_int_list();
}

TEST(DelegateRewriterTest, ChannelsLastRegionsConvertOnlyAtTheirBorders) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 8, 8}));
  ir::Value* a = g.Conv(x, g.Weight("w1", F32({4, 3, 3, 3})), nullptr, {1, 1}, {1, 1});
  ir::Value* b = g.Clamp(a, 0, 6);
  ir::Value* c = g.Conv(b, g.Weight("w2", F32({4, 4, 3, 3})), nullptr, {1, 1}, {1, 1});
  g.Output(g.Op("edge.add", {c, b}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(Ops(*graph),
            (std::vector<std::string>{"edge.permute", dialect::kDelegateCallOp, "edge.permute"}));
  const ir::Node* in = graph->first_node();
  const ir::Node* call = in->next();
  const ir::Node* out = call->next();
  EXPECT_EQ(in->input(0), x);
  EXPECT_EQ(DimsAttr(in), (Dims{0, 2, 3, 1}));
  EXPECT_EQ(call->input(0), in->output(0));
  EXPECT_EQ(call->output(0)->sizes(), (Dims{1, 8, 8, 4}));
  EXPECT_EQ(DimsAttr(out), (Dims{0, 3, 1, 2}));
  EXPECT_EQ(graph->outputs()[0], out->output(0));
  EXPECT_EQ(out->output(0)->sizes(), (Dims{1, 4, 8, 8}));
  EXPECT_EQ(result.permutes_inserted, 2u);
  EXPECT_EQ(call->FindAttr(dialect::kDelegateIndexAttr)->as_int(), 0);
  EXPECT_EQ(call->FindAttr(kReadOverrunAttr)->as_int(), kXnnpackExtraBytes);
  EXPECT_EQ(call->FindAttr(dialect::kDelegateMacsAttr)->as_int(),
            static_cast<int64_t>(result.delegates[0].macs));
}

// conv1 -> tanh (unsupported) -> add <- conv1: the add cannot join conv1's region (the
// path through tanh would become a cycle), so two channels-last regions meet. The second
// reads conv1's output as the first wrote it, channels last: no permute pair in between.
TEST(DelegateRewriterTest, NoConversionBetweenTwoChannelsLastRegions) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 8, 8}));
  ir::Value* conv1 = g.Conv(x, g.Weight("w1", F32({4, 3, 1, 1})), nullptr, {1, 1}, {0, 0});
  ir::Value* tanh = g.Op("edge.tanh", {conv1});
  ir::Value* sum = g.Op("edge.add", {conv1, tanh});
  g.Output(g.Conv(sum, g.Weight("w2", F32({4, 4, 1, 1})), nullptr, {1, 1}, {0, 0}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 2u);
  const ir::Node* first = graph->FindNode(result.delegates[0].call_node);
  const ir::Node* second = graph->FindNode(result.delegates[1].call_node);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->input(0), first->output(0)) << "conv1's NHWC output read directly";
  // tanh reads conv1 in logical order, and the region reads tanh's result channels last.
  const ir::Node* tanh_node = graph->FindNode("tanh");
  ASSERT_NE(tanh_node, nullptr);
  EXPECT_EQ(tanh_node->input(0)->producer()->op(), "edge.permute");
  EXPECT_EQ(tanh_node->input(0)->producer()->input(0), first->output(0));
  EXPECT_EQ(second->input(1)->producer()->op(), "edge.permute");
  EXPECT_EQ(second->input(1)->producer()->input(0), tanh_node->output(0));
  EXPECT_EQ(result.permutes_inserted, 4u);  // x in, conv1 out for tanh, tanh in, result out
  EXPECT_EQ(result.permutes_cancelled, 1u);
}

// One constant read by two regions in two layouts (ConvNeXt's layer scale [C, 1, 1] did this:
// torchir-compile crashed on convnext_tiny). It is repacked once per layout and the source
// constant, read by no one after the rewrite, is erased exactly once.
TEST(DelegateRewriterTest, AConstantRepackedForTwoLayoutsIsErasedOnce) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 8, 8}));
  ir::Value* scale = g.Weight("scale", F32({4, 1, 1}));
  ir::Value* conv = g.Conv(x, g.Weight("w", F32({4, 3, 1, 1})), nullptr, {1, 1}, {0, 0});
  ir::Value* scaled = g.Op("edge.mul", {conv, scale});  // channels last, with the conv
  ir::Value* tanh = g.Op("edge.tanh", {scaled});          // not delegated: splits the regions
  g.Output(g.Op("edge.mul", {tanh, scale}));              // logical
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 2u);
  for (const ir::Value* weight : graph->weights()) {
    EXPECT_NE(weight, scale) << "the source constant survived";
  }
  std::vector<std::vector<int64_t>> repacked;
  for (const ir::Value* constant : graph->constants()) {
    if (constant->name().rfind("scale", 0) == 0) repacked.push_back(constant->sizes());
  }
  EXPECT_EQ(repacked.size(), 2u) << "one repacked copy per layout";
}

// permute([N, L, C] -> [N, C, L]) -> conv1d: the region wants [N, L, C], which the graph's
// permute read. It reads that instead, and the graph's permute goes.
TEST(DelegateRewriterTest, AGraphPermuteUndoneAtTheRegionInputDisappears) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 16, 8}));
  ir::Value* channels_first = g.Permute(x, {0, 2, 1}, "to_ncl");
  g.Output(g.Conv(channels_first, g.Weight("w", F32({4, 8, 3})), nullptr, {1}, {1}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(graph->FindNode("to_ncl"), nullptr);
  const ir::Node* call = graph->FindNode(result.delegates[0].call_node);
  EXPECT_EQ(call->input(0), x);
  EXPECT_EQ(Ops(*graph), (std::vector<std::string>{dialect::kDelegateCallOp, "edge.permute"}));
  EXPECT_EQ(result.permutes_inserted, 1u);
  EXPECT_EQ(result.permutes_cancelled, 1u);
}

// conv -> flatten(2) -> transpose(1, 2), the start of a vision transformer: the region's
// output [N, H*W, C] is already what the transpose computes.
TEST(DelegateRewriterTest, AGraphPermuteUndoneAtTheRegionOutputDisappears) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 8, 8}));
  ir::Value* patches = g.Conv(x, g.Weight("w", F32({16, 3, 4, 4})), nullptr, {4, 4}, {0, 0});
  ir::Value* flat = g.Reshape(patches, {1, 16, 4});
  ir::Value* tokens = g.Permute(flat, {0, 2, 1}, "to_tokens");
  g.Output(g.Op("edge.tanh", {tokens}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(graph->FindNode("to_tokens"), nullptr);
  const ir::Node* call = graph->FindNode(result.delegates[0].call_node);
  EXPECT_EQ(call->output(0)->sizes(), (Dims{1, 4, 16}));
  EXPECT_EQ(graph->FindNode("tanh")->input(0), call->output(0));
  EXPECT_EQ(Ops(*graph),
            (std::vector<std::string>{"edge.permute", dialect::kDelegateCallOp, "edge.tanh"}));
  EXPECT_EQ(result.permutes_inserted, 1u);
}

// Converting [N, C, 1, 1] moves no element: a reshape (a view) does it.
TEST(DelegateRewriterTest, ConversionsOfSizeOneDimsAreViews) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 8, 1, 1}));
  g.Output(g.Conv(x, g.Weight("w", F32({16, 8, 1, 1})), nullptr, {1, 1}, {0, 0}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  EXPECT_EQ(Ops(*graph),
            (std::vector<std::string>{"edge.reshape", dialect::kDelegateCallOp, "edge.reshape"}));
  EXPECT_EQ(result.permutes_inserted, 0u);
  EXPECT_EQ(graph->first_node()->output(0)->sizes(), (Dims{1, 1, 1, 8}));
}

// Softmax over W and elementwise ops: no spatial op, so the region keeps the logical
// layout and needs no conversion at all.
TEST(DelegateRewriterTest, LogicalRegionsNeedNoConversion) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 3, 4}));
  g.Output(g.Op("edge.mul", {g.Softmax(x, 3), g.Scalar("half", 0.5f)}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(result.delegates[0].layout, Layout::kLogical);
  EXPECT_EQ(Ops(*graph), std::vector<std::string>{dialect::kDelegateCallOp});
  const ir::Node* call = graph->first_node();
  EXPECT_EQ(call->input(0), x);
  EXPECT_EQ(call->input(1), graph->FindValue("half"));
  EXPECT_EQ(graph->outputs()[0], call->output(0));
}

// A region output read both inside and outside, and by two later regions of the other
// layout, is converted once.
TEST(DelegateRewriterTest, ARegionOutputIsConvertedOnceForAllOutsideReaders) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 4, 4}));
  ir::Value* conv = g.Conv(x, g.Weight("w", F32({3, 3, 1, 1})), nullptr, {1, 1}, {0, 0});
  g.Output(g.Op("edge.tanh", {conv}));
  g.Output(g.Op("edge.exp", {conv}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  EXPECT_EQ(result.permutes_inserted, 2u);
  EXPECT_EQ(graph->FindNode("tanh")->input(0), graph->FindNode("exp")->input(0));
}

TEST(DelegateRewriterTest, TheNodeOrderStaysTopologicalAroundRegions) {
  // a region whose output is read by a node that sits between its members in graph order
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 3}));
  ir::Value* a = g.Op("edge.neg", {x}, {}, "a");
  ir::Value* early = g.Op("edge.tanh", {a}, {}, "early");  // unsupported, reads a
  ir::Value* b = g.Op("edge.abs", {a}, {}, "b");
  g.Output(early);
  g.Output(b);
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(Ops(*graph), (std::vector<std::string>{dialect::kDelegateCallOp, "edge.tanh"}));
}

}  // namespace
}  // namespace torchir::xnnpack
