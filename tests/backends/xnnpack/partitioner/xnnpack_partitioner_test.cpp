// PartitionForXnnpack as a whole: the explanation of every node left out, the
// MACs taken, regions that are not worth a delegate call, and determinism.
#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <xnnpack.h>  // XNN_EXTRA_BYTES only: the compiler does not link XNNPACK

#include <sstream>

#include "compiler/dialect/delegate_call.h"
#include "compiler/ir/graph_printer.h"
#include "tests/backends/xnnpack/partitioner/blob_reader.h"
#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"

namespace torchir::xnnpack {
namespace {

using testing::BlobOf;
using testing::EdgeGraphBuilder;
using testing::F32;
using ::testing::HasSubstr;

// The partitioner states XNNPACK's overrun itself so that the compiler needs no XNNPACK.
static_assert(kXnnpackExtraBytes == XNN_EXTRA_BYTES, "XNN_EXTRA_BYTES changed");

XnnpackPartitionResult Partition(ir::Graph& graph) {
  absl::StatusOr<XnnpackPartitionResult> result = PartitionForXnnpack(graph);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? std::move(*result) : XnnpackPartitionResult{};
}

// conv -> matmul with an activation (refused) -> linear.
std::unique_ptr<ir::Graph> ConvMatmulLinear() {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 4, 4}));
  ir::Value* conv = g.Conv(x, g.Weight("w", F32({4, 2, 3, 3})), nullptr, {1, 1}, {1, 1});
  ir::Value* rows = g.Reshape(conv, {1, 4, 16}, "rows");
  ir::Value* gram = g.Op("edge.matmul", {rows, g.Input("y", F32({1, 16, 5}))}, {}, "gram");
  g.Output(g.Linear(gram, g.Weight("fc", F32({3, 5})), g.Weight("fc_b", F32({3}))));
  return g.Build();
}

TEST(XnnpackPartitionerTest, ExplainsEveryNodeLeftOutAndCountsMacs) {
  auto graph = ConvMatmulLinear();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.left_out.size(), 1u);
  EXPECT_EQ(result.left_out[0].node, "gram");
  EXPECT_EQ(result.left_out[0].op, "edge.matmul");
  EXPECT_THAT(result.left_out[0].reason, HasSubstr("no batch matrix multiply"));
  EXPECT_EQ(result.left_out[0].macs, 4u * 5 * 16);
  const uint64_t conv_macs = 4u * 16 * 2 * 9;
  const uint64_t linear_macs = 4u * 3 * 5;
  EXPECT_EQ(result.total_macs, conv_macs + 4 * 5 * 16 + linear_macs);
  EXPECT_EQ(result.delegated_macs, conv_macs + linear_macs);
  EXPECT_DOUBLE_EQ(result.DelegatedMacShare(),
                   static_cast<double>(conv_macs + linear_macs) / result.total_macs);

  ASSERT_EQ(result.delegates.size(), 2u);
  EXPECT_EQ(result.delegates[0].ops,
            (std::vector<std::string>{"edge.convolution", "edge.reshape"}));
  EXPECT_EQ(result.delegates[0].nodes[1], "rows");
  EXPECT_EQ(result.delegates[0].macs, conv_macs);
  EXPECT_EQ(result.delegates[0].layout, Layout::kChannelsLast);
  EXPECT_EQ(result.delegates[1].ops, std::vector<std::string>{"edge.linear"});
  EXPECT_EQ(result.delegates[1].layout, Layout::kLogical);
  for (size_t i = 0; i < result.payloads.size(); ++i) {
    EXPECT_EQ(result.payloads[i].backend_id, "XnnpackBackend");
    EXPECT_TRUE(result.payloads[i].compile_specs.empty());
    EXPECT_EQ(result.delegates[i].delegate_index, static_cast<int64_t>(i));
    EXPECT_EQ(result.delegates[i].blob_bytes, result.payloads[i].blob.size());
    const xnnpack::Graph* blob = BlobOf(result, i);
    ASSERT_NE(blob, nullptr);
    EXPECT_EQ(blob->macs(), result.delegates[i].macs);
    ASSERT_EQ(blob->source_ops()->size(), result.delegates[i].ops.size());
    const ir::Node* call = graph->FindNode(result.delegates[i].call_node);
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(blob->num_arguments(), call->num_inputs() + call->num_outputs());
  }
}

TEST(XnnpackPartitionerTest, RegionsThatOnlyMoveDataStayPortable) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 3, 4}));
  ir::Value* flat = g.Reshape(x, {6, 4}, "flat");
  g.Output(g.Op("edge.tanh", {g.Pad(flat, {1, 1}, 0.0)}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  EXPECT_TRUE(result.delegates.empty());
  ASSERT_EQ(result.left_out.size(), 3u);
  EXPECT_EQ(result.left_out[0].node, "flat");
  EXPECT_THAT(result.left_out[0].reason,
              HasSubstr("its region only moves data (edge.reshape, edge.constant_pad)"));
  EXPECT_EQ(graph->num_nodes(), 3u);
}

TEST(XnnpackPartitionerTest, ReshapesAtARegionBorderStayPortableViews) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 12}));
  ir::Value* in = g.Reshape(x, {2, 3, 4}, "split_heads_in");
  ir::Value* y = g.Linear(in, g.Weight("w", F32({5, 4})));
  ir::Value* out = g.Reshape(y, {2, 15}, "merge_out");
  g.Output(g.Op("edge.tanh", {out}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(result.delegates[0].ops, std::vector<std::string>{"edge.linear"});
  ASSERT_EQ(result.left_out.size(), 3u);
  EXPECT_EQ(result.left_out[0].node, "split_heads_in");
  EXPECT_THAT(result.left_out[0].reason, HasSubstr("sits at its region's border"));
  EXPECT_EQ(result.left_out[1].node, "merge_out");
  EXPECT_NE(graph->FindNode("split_heads_in"), nullptr);
}

// A reshape feeding two region nodes holds the region together: it stays in.
TEST(XnnpackPartitionerTest, AReshapeJoiningTwoPartsOfARegionStays) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 12}));
  ir::Value* rows = g.Reshape(x, {6, 4}, "rows");
  ir::Value* a = g.Linear(rows, g.Weight("wa", F32({3, 4})));
  ir::Value* b = g.Linear(rows, g.Weight("wb", F32({3, 4})));
  g.Output(a);
  g.Output(b);
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(result.delegates[0].ops,
            (std::vector<std::string>{"edge.reshape", "edge.linear", "edge.linear"}));
  EXPECT_TRUE(result.left_out.empty());
}

TEST(XnnpackPartitionerTest, TheSameGraphGivesTheSameGraphAndBytes) {
  auto first = ConvMatmulLinear();
  auto second = ConvMatmulLinear();
  XnnpackPartitionResult a = Partition(*first);
  XnnpackPartitionResult b = Partition(*second);
  ASSERT_EQ(a.payloads.size(), b.payloads.size());
  for (size_t i = 0; i < a.payloads.size(); ++i) EXPECT_EQ(a.payloads[i].blob, b.payloads[i].blob);
  std::ostringstream text_a, text_b;
  ir::PrintGraph(*first, text_a);
  ir::PrintGraph(*second, text_b);
  EXPECT_EQ(text_a.str(), text_b.str());
}

TEST(XnnpackPartitionerTest, AGraphWithoutSupportedNodesIsLeftAlone) {
  EdgeGraphBuilder g;
  g.Output(g.Op("edge.tanh", {g.Input("x", F32({4}))}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  EXPECT_TRUE(result.payloads.empty());
  EXPECT_EQ(result.left_out.size(), 1u);
  EXPECT_EQ(graph->num_nodes(), 1u);
  EXPECT_DOUBLE_EQ(result.DelegatedMacShare(), 1.0);
}

TEST(XnnpackPartitionerTest, NodesOfOtherBackendsAreIgnored) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({4}));
  ir::Value* other = g.graph()
                         .AppendNode("other", dialect::kDelegateCallOp, {x}, {"other"}, {F32({4})})
                         ->output(0);
  g.Output(g.Op("edge.neg", {other}));
  auto graph = g.BuildUnverified();  // the Edge verifier rejects the foreign node
  absl::StatusOr<XnnpackPartitionResult> result = PartitionForXnnpack(*graph);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->delegates.size(), 1u);
  EXPECT_TRUE(result->left_out.empty());
}

}  // namespace
}  // namespace torchir::xnnpack
