// The blobs: values (dims, arguments, outputs, blob-local data) and nodes
// (XNNPACK op, parameters in the order the runtime reads them) for each family
// of ops, built through PartitionForXnnpack on one-region graphs.
#include "backends/xnnpack/partitioner/subgraph_serializer.h"

#include <gtest/gtest.h>

#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"
#include "tests/backends/xnnpack/partitioner/blob_reader.h"
#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"

namespace torchir::xnnpack {
namespace {

using testing::BlobOf;
using testing::BlobOps;
using testing::ConstantFloats;
using testing::EdgeGraphBuilder;
using testing::F32;
using testing::kInf;
using testing::NodeFloats;
using testing::NodeInputs;
using testing::NodeInts;
using testing::NodeOutputs;
using testing::ValueDims;
using Dims = std::vector<int64_t>;

XnnpackPartitionResult Partition(ir::Graph& graph) {
  absl::StatusOr<XnnpackPartitionResult> result = PartitionForXnnpack(graph);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? std::move(*result) : XnnpackPartitionResult{};
}

const xnnpack::Value* BlobValue(const xnnpack::Graph* blob, uint32_t id) {
  return blob->values()->Get(id);
}

TEST(SubgraphSerializerTest, ConvolutionWithBiasAndReluIsOneNodeOverArguments) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 4, 8, 8}));
  ir::Value* w = g.Weight("w", F32({6, 4, 3, 3}));
  g.Output(g.Conv(x, w, g.Weight("b", F32({6})), {1, 1}, {1, 1}, {1, 1}, 1, 0.0, kInf));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  EXPECT_EQ(blob->version(), 1u);
  EXPECT_EQ(blob->num_arguments(), 4u);
  ASSERT_EQ(blob->values()->size(), 4u);
  // Activation inputs, then constants, then outputs; dims as XNNPACK sees them.
  EXPECT_EQ(ValueDims(BlobValue(blob, 0)), (Dims{1, 8, 8, 4}));
  EXPECT_EQ(BlobValue(blob, 0)->argument(), 0);
  EXPECT_EQ(ValueDims(BlobValue(blob, 1)), (Dims{6, 3, 3, 4}));  // OHWI
  EXPECT_EQ(BlobValue(blob, 1)->argument(), 1);
  EXPECT_EQ(ValueDims(BlobValue(blob, 2)), (Dims{6}));
  EXPECT_EQ(BlobValue(blob, 2)->argument(), 2);
  EXPECT_EQ(ValueDims(BlobValue(blob, 3)), (Dims{1, 8, 8, 6}));
  EXPECT_EQ(BlobValue(blob, 3)->argument(), 3);
  EXPECT_TRUE(BlobValue(blob, 3)->is_output());
  for (uint32_t id = 0; id < 3; ++id) EXPECT_FALSE(BlobValue(blob, id)->is_output());
  for (const xnnpack::Value* value : *blob->values()) EXPECT_EQ(value->data(), nullptr);

  ASSERT_EQ(BlobOps(blob), std::vector<std::string>{"convolution_2d"});
  const xnnpack::Node* conv = blob->nodes()->Get(0);
  EXPECT_EQ(NodeInputs(conv), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(NodeOutputs(conv), (std::vector<uint32_t>{3}));
  // pads (top, right, bottom, left), kernel, stride, dilation, groups, per-group channels.
  EXPECT_EQ(NodeInts(conv), (Dims{1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 4, 6}));
  EXPECT_EQ(NodeFloats(conv), (std::vector<double>{0.0, kInf}));
  ASSERT_EQ(blob->source_ops()->size(), 1u);
  EXPECT_EQ(blob->source_ops()->Get(0)->str(), "edge.convolution");
  EXPECT_EQ(blob->macs(), 1u * 6 * 8 * 8 * 4 * 3 * 3);

  // The delegate call passes a repacked OHWI copy of the filter; the original is gone.
  const ir::Node* call = graph->FindNode(result.delegates[0].call_node);
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(call->num_inputs(), 3u);
  const ir::Value* filter = call->input(1);
  EXPECT_EQ(filter->sizes(), (Dims{6, 3, 3, 4}));
  const std::vector<float> packed = ConstantFloats(filter);
  ASSERT_EQ(packed.size(), 216u);
  for (int o = 0; o < 6; ++o) {
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < 9; ++k) {
        EXPECT_EQ(packed[(o * 9 + k) * 4 + i], static_cast<float>((o * 4 + i) * 9 + k));
      }
    }
  }
  EXPECT_EQ(graph->FindValue("w"), nullptr);
  EXPECT_EQ(call->input(2), graph->FindValue("b"));
  EXPECT_EQ(result.constants_repacked, 1u);
}

TEST(SubgraphSerializerTest, DepthwiseAndGroupedConvolutions) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 4, 6, 6}));
  ir::Value* depthwise =
      g.Conv(x, g.Weight("dw", F32({8, 1, 3, 3})), nullptr, {2, 2}, {1, 1}, {1, 1}, 4);
  g.Output(
      g.Conv(depthwise, g.Weight("gw", F32({6, 4, 1, 1})), nullptr, {1, 1}, {0, 0}, {1, 1}, 2));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob),
            (std::vector<std::string>{"depthwise_convolution_2d", "convolution_2d"}));
  // ..., depth multiplier, input channels.
  EXPECT_EQ(NodeInts(blob->nodes()->Get(0)), (Dims{1, 1, 1, 1, 3, 3, 2, 2, 1, 1, 2, 4}));
  EXPECT_EQ(ValueDims(BlobValue(blob, NodeInputs(blob->nodes()->Get(0))[1])), (Dims{1, 3, 3, 8}));
  // 2 groups of 4 input and 3 output channels.
  EXPECT_EQ(NodeInts(blob->nodes()->Get(1)), (Dims{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 4, 3}));
  EXPECT_EQ(ValueDims(BlobValue(blob, NodeInputs(blob->nodes()->Get(1))[1])), (Dims{6, 1, 1, 4}));
  // The depthwise filter [C*m, 1, kh, kw] is stored [1, kh, kw, C*m].
  const ir::Node* call = graph->FindNode(result.delegates[0].call_node);
  const std::vector<float> packed = ConstantFloats(call->input(1));
  ASSERT_EQ(packed.size(), 72u);
  for (int c = 0; c < 8; ++c) {
    for (int k = 0; k < 9; ++k) EXPECT_EQ(packed[k * 8 + c], static_cast<float>(c * 9 + k));
  }
}

TEST(SubgraphSerializerTest, OneDimensionalConvolutionRunsAsHeightOne) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 4, 16}));
  g.Output(g.Conv(x, g.Weight("w", F32({6, 4, 3})), nullptr, {2}, {1}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob),
            (std::vector<std::string>{"static_reshape", "convolution_2d", "static_reshape"}));
  EXPECT_EQ(NodeInts(blob->nodes()->Get(0)), (Dims{1, 1, 16, 4}));
  EXPECT_EQ(NodeInts(blob->nodes()->Get(1)), (Dims{0, 1, 0, 1, 1, 3, 1, 2, 1, 1, 1, 4, 6}));
  EXPECT_EQ(NodeInts(blob->nodes()->Get(2)), (Dims{1, 8, 6}));
  EXPECT_EQ(ValueDims(BlobValue(blob, 0)), (Dims{1, 16, 4}));  // [N, L, C]
}

TEST(SubgraphSerializerTest, FullyConnectedKeepsTheWeightAsItIs) {
  EdgeGraphBuilder g;
  ir::Value* w = g.Weight("w", F32({3, 5}));
  g.Output(g.Linear(g.Input("x", F32({2, 5})), w, g.Weight("b", F32({3})), -1.0, 1.0));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob), std::vector<std::string>{"fully_connected"});
  EXPECT_EQ(NodeFloats(blob->nodes()->Get(0)), (std::vector<double>{-1.0, 1.0}));
  EXPECT_EQ(ValueDims(BlobValue(blob, 1)), (Dims{3, 5}));
  EXPECT_EQ(graph->FindNode(result.delegates[0].call_node)->input(1), w);
  EXPECT_EQ(result.constants_repacked, 0u);
}

TEST(SubgraphSerializerTest, AClampFoldsIntoTheAddBeforeIt) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 4, 4}));
  ir::Value* y = g.Input("y", F32({1, 3, 4, 4}));
  g.Output(g.Clamp(g.Op("edge.add", {x, y}), 0, 6));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob), std::vector<std::string>{"add2"});
  EXPECT_EQ(NodeFloats(blob->nodes()->Get(0)), (std::vector<double>{0.0, 6.0}));
  EXPECT_EQ(blob->values()->size(), 3u);
  EXPECT_EQ(blob->source_ops()->size(), 2u);
}

TEST(SubgraphSerializerTest, AClampReadElsewhereStaysAClamp) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 3}));
  ir::Value* sum = g.Op("edge.add", {x, x});
  g.Output(g.Clamp(sum, -1, 1));
  g.Output(sum);
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob), (std::vector<std::string>{"add2", "clamp"}));
  EXPECT_EQ(NodeFloats(blob->nodes()->Get(0)), (std::vector<double>{-kInf, kInf}));
  EXPECT_EQ(NodeFloats(blob->nodes()->Get(1)), (std::vector<double>{-1.0, 1.0}));
}

TEST(SubgraphSerializerTest, HardsigmoidIsAddClampedThenMultiplyWithBlobConstants) {
  EdgeGraphBuilder g;
  g.Output(g.Op("edge.hardsigmoid", {g.Input("x", F32({2, 5}))}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob), (std::vector<std::string>{"add2", "multiply2"}));
  const xnnpack::Node* add = blob->nodes()->Get(0);
  const xnnpack::Node* multiply = blob->nodes()->Get(1);
  EXPECT_EQ(NodeFloats(add), (std::vector<double>{0.0, 6.0}));  // the relu6, folded
  const xnnpack::Value* three = BlobValue(blob, NodeInputs(add)[1]);
  ASSERT_NE(three->data(), nullptr);
  EXPECT_EQ(three->argument(), -1);
  EXPECT_EQ(ValueDims(three), (Dims{1}));
  EXPECT_EQ(three->data()->Get(0), 3.0f);
  const xnnpack::Value* sixth = BlobValue(blob, NodeInputs(multiply)[1]);
  ASSERT_NE(sixth->data(), nullptr);
  EXPECT_EQ(sixth->data()->Get(0), 1.0f / 6.0f);
  EXPECT_EQ(NodeInputs(multiply)[0], NodeOutputs(add)[0]);
  EXPECT_EQ(BlobValue(blob, NodeOutputs(add)[0])->argument(), -1);  // internal
  EXPECT_EQ(blob->num_arguments(), 2u);
}

TEST(SubgraphSerializerTest, Decompositions) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 5}));
  g.Output(g.Op("edge.silu", {x}));
  g.Output(g.Op("edge.rsqrt", {g.Input("y", F32({2, 5}))}));
  g.Output(g.Op("edge.pow", {g.Input("z", F32({2, 5})), g.Scalar("two", 2)}));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.payloads.size(), 3u);
  EXPECT_EQ(BlobOps(BlobOf(result, 0)), (std::vector<std::string>{"sigmoid", "multiply2"}));
  EXPECT_EQ(BlobOps(BlobOf(result, 1)), (std::vector<std::string>{"square_root", "divide"}));
  EXPECT_EQ(BlobOps(BlobOf(result, 2)), std::vector<std::string>{"square"});
  EXPECT_EQ(BlobOf(result, 2)->num_arguments(), 2u);  // the exponent is not an argument
}

TEST(SubgraphSerializerTest, CeilModeMaxPoolingPadsBottomAndRight) {
  EdgeGraphBuilder g;
  g.Output(g.MaxPool(g.Input("x", F32({1, 2, 9, 9})), {2, 2}, {2, 2}, {0, 0}, {1, 1}, true));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob), std::vector<std::string>{"max_pooling_2d"});
  EXPECT_EQ(NodeInts(blob->nodes()->Get(0)), (Dims{0, 1, 1, 0, 2, 2, 2, 2, 1, 1}));
  EXPECT_EQ(ValueDims(BlobValue(blob, 1)), (Dims{1, 5, 5, 2}));
}

TEST(SubgraphSerializerTest, AveragePooling) {
  EdgeGraphBuilder g;
  g.Output(g.AvgPool(g.Input("x", F32({1, 2, 8, 8})), {3, 3}, {2, 2}, {1, 1}, false, false));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob), std::vector<std::string>{"average_pooling_2d"});
  EXPECT_EQ(NodeInts(blob->nodes()->Get(0)), (Dims{1, 1, 1, 1, 3, 3, 2, 2}));
}

TEST(SubgraphSerializerTest, MeanOverHeightAndWidthIsGlobalAveragePooling) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 8, 7, 7}));
  g.Output(g.Mean(x, {2, 3}, true));
  g.Output(g.Mean(g.Input("y", F32({1, 8, 7, 7})), {2, 3}, false));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.payloads.size(), 2u);
  const xnnpack::Graph* keep = BlobOf(result, 0);
  EXPECT_EQ(BlobOps(keep), std::vector<std::string>{"global_average_pooling_2d"});
  EXPECT_EQ(ValueDims(BlobValue(keep, 1)), (Dims{1, 1, 1, 8}));
  const xnnpack::Graph* drop = BlobOf(result, 1);
  ASSERT_EQ(BlobOps(drop),
            (std::vector<std::string>{"global_average_pooling_2d", "static_reshape"}));
  EXPECT_EQ(NodeInts(drop->nodes()->Get(1)), (Dims{1, 8}));
}

TEST(SubgraphSerializerTest, MaxOverTheSequenceIsAPoolingWindow) {
  EdgeGraphBuilder g;
  ir::Node* max = g.Node("edge.max_dim", {g.Input("x", F32({1, 8, 16}))},
                         {{"dim", ir::AttrValue::Int(2)}, {"keepdim", ir::AttrValue::Bool(false)}});
  g.Output(max->output(0));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob),
            (std::vector<std::string>{"static_reshape", "max_pooling_2d", "static_reshape"}));
  EXPECT_EQ(NodeInts(blob->nodes()->Get(1)), (Dims{0, 0, 0, 0, 1, 16, 1, 1, 1, 1}));
  EXPECT_EQ(NodeInts(blob->nodes()->Get(2)), (Dims{1, 8}));
}

TEST(SubgraphSerializerTest, ChannelsLastRegionsPermutePadsAndConstantOperands) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 4, 5}));
  ir::Value* conv = g.Conv(x, g.Weight("w", F32({2, 2, 1, 1})), nullptr, {1, 1}, {0, 0});
  ir::Value* scaled = g.Op("edge.mul", {conv, g.Weight("c", F32({1, 2, 4, 5}))});
  ir::Value* shifted = g.Op("edge.add", {scaled, g.Input("v", F32({5}))});
  g.Output(g.Pad(shifted, {1, 2, 3, 4}, 0.5));
  auto graph = g.Build();
  XnnpackPartitionResult result = Partition(*graph);
  ASSERT_EQ(result.delegates.size(), 1u);
  EXPECT_EQ(result.delegates[0].layout, Layout::kChannelsLast);
  const xnnpack::Graph* blob = BlobOf(result, 0);
  ASSERT_NE(blob, nullptr);
  ASSERT_EQ(BlobOps(blob),
            (std::vector<std::string>{"convolution_2d", "multiply2", "static_reshape", "add2",
                                      "static_constant_pad"}));
  // The [W] activation broadcasts as [1, 1, W, 1] against [N, H, W, C].
  EXPECT_EQ(NodeInts(blob->nodes()->Get(2)), (Dims{1, 1, 5, 1}));
  // Pads per stored dim (N, H, W, C): befores, then afters.
  EXPECT_EQ(NodeInts(blob->nodes()->Get(4)), (Dims{0, 3, 1, 0, 0, 4, 2, 0}));
  EXPECT_EQ(NodeFloats(blob->nodes()->Get(4)), std::vector<double>{0.5});
  // The 4-d constant operand is stored NHWC like the activations.
  const ir::Node* call = graph->FindNode(result.delegates[0].call_node);
  const ir::Value* constant = nullptr;
  for (const ir::Value* input : call->inputs()) {
    if (input->sizes() == Dims{1, 4, 5, 2}) constant = input;
  }
  ASSERT_NE(constant, nullptr);
  const std::vector<float> packed = ConstantFloats(constant);
  ASSERT_EQ(packed.size(), 40u);
  for (int c = 0; c < 2; ++c) {
    for (int hw = 0; hw < 20; ++hw) EXPECT_EQ(packed[hw * 2 + c], static_cast<float>(c * 20 + hw));
  }
}

// Nodes go through node_params.h, the layout the delegate reads: a node that does not fit it
// (counts, int ranges) is an error of the compile, not a blob the delegate later refuses.
TEST(SubgraphSerializerTest, RefusesNodesThatDoNotFitTheirLayout) {
  auto finish = [](auto add) {
    SubgraphSerializer subgraph(Layout::kLogical, {});
    const uint32_t in = subgraph.Internal({1, 8, 8, 1});
    const uint32_t out = subgraph.Internal({1, 4, 4, 1});
    add(subgraph, in, out);
    return subgraph.Finish({}, 0).status();
  };
  using Pool = node_params::MaxPooling2d;
  std::vector<int64_t> ints(Pool::kNumInts, 1);
  ints[Pool::kPadTop] = ints[Pool::kPadRight] = ints[Pool::kPadBottom] = ints[Pool::kPadLeft] = 0;
  ints[Pool::kPoolH] = ints[Pool::kPoolW] = ints[Pool::kStrideH] = ints[Pool::kStrideW] = 2;
  EXPECT_TRUE(finish([&](SubgraphSerializer& s, uint32_t in, uint32_t out) {
                s.AddNode<Pool>({in}, out, ints, {-kInf, kInf});
              }).ok());
  const absl::Status one_float = finish([&](SubgraphSerializer& s, uint32_t in, uint32_t out) {
    s.AddNode<Pool>({in}, out, ints, {0.0});
  });
  EXPECT_NE(one_float.message().find("1 floats, its layout has 2"), std::string::npos) << one_float;
  const absl::Status short_ints = finish([&](SubgraphSerializer& s, uint32_t in, uint32_t out) {
    s.AddNode<Pool>({in}, out, {0, 0, 0, 0}, {-kInf, kInf});
  });
  EXPECT_NE(short_ints.message().find("4 ints, its layout has 10"), std::string::npos)
      << short_ints;
  std::vector<int64_t> no_stride = ints;
  no_stride[Pool::kStrideW] = 0;
  const absl::Status zero = finish([&](SubgraphSerializer& s, uint32_t in, uint32_t out) {
    s.AddNode<Pool>({in}, out, no_stride, {-kInf, kInf});
  });
  EXPECT_NE(zero.message().find("stride_w = 0 is outside"), std::string::npos) << zero;
  const absl::Status two_inputs = finish([&](SubgraphSerializer& s, uint32_t in, uint32_t out) {
    s.AddNode<node_params::Abs>({in, in}, out);
  });
  EXPECT_NE(two_inputs.message().find("2 inputs"), std::string::npos) << two_inputs;
}

}  // namespace
}  // namespace torchir::xnnpack
