// The Edge-aware passes: batch-norm folding, activation fusion, no-op removal,
// constant folding. Every graph is checked by the Edge verifier after the pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/dialect/edge_ops.h"
#include "passes/edge/constant_data.h"
#include "passes/edge/edge_op_properties.h"
#include "passes/edge/fold_batch_norm.h"
#include "passes/edge/fold_constants.h"
#include "passes/edge/fuse_activation.h"
#include "passes/edge/remove_noop_ops.h"
#include "tests/passes/run_pass.h"
#include "tests/support/graph_builder.h"

namespace torchir::passes {
namespace {

using testing::Bool;
using testing::DataOf;
using testing::F32;
using testing::I64;
using testing::GraphBuilder;

constexpr double kInf = std::numeric_limits<double>::infinity();

void ExpectValidEdge(const ir::Graph& graph) {
  absl::Status status = dialect::VerifyEdgeGraph(graph);
  EXPECT_TRUE(status.ok()) << status;
}

ir::Value* Conv(GraphBuilder& b, ir::Value* x, ir::Value* w, ir::Value* bias,
                std::vector<int64_t> out, double low = -kInf, double high = kInf) {
  std::vector<ir::Value*> inputs = {x, w};
  if (bias != nullptr) inputs.push_back(bias);
  return b.Op("edge.convolution", inputs)
      .Name("conv")
      .Attr("stride", {1, 1})
      .Attr("padding", {0, 0})
      .Attr("dilation", {1, 1})
      .Attr("groups", int64_t{1})
      .Attr("output_min", low)
      .Attr("output_max", high)
      .Out(F32(out));
}

// conv (2 output channels, 1x1 kernel over 1 input channel) -> batch_norm.
TEST(FoldBatchNormTest, FoldsIntoConvolutionWithTheRightNumbers) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 1, 2, 2}));
  ir::Value* w = b.Weight("w", F32({2, 1, 1, 1}), std::vector<float>{2.0f, -1.0f});
  ir::Value* bias = b.Weight("bias", F32({2}), std::vector<float>{0.5f, 1.0f});
  ir::Value* mean = b.Weight("mean", F32({2}), std::vector<float>{1.0f, -2.0f});
  ir::Value* var = b.Weight("var", F32({2}), std::vector<float>{3.0f, 0.0f});
  ir::Value* gamma = b.Weight("gamma", F32({2}), std::vector<float>{4.0f, 1.0f});
  ir::Value* beta = b.Weight("beta", F32({2}), std::vector<float>{0.25f, 0.0f});
  ir::Value* y = Conv(b, x, w, bias, {1, 2, 2, 2});
  ir::Value* bn = b.Op("edge.batch_norm", {y, mean, var, gamma, beta})
                      .Attr("eps", 1.0)
                      .Out(F32({1, 2, 2, 2}));
  b.Output(bn);
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldBatchNorm pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_EQ(testing::Counter(context, "batch_norms_folded"), 1);
  ASSERT_EQ(graph->num_nodes(), 1u);
  const ir::Node* conv = graph->first_node();
  EXPECT_EQ(graph->outputs()[0], conv->output());
  // scale = gamma / sqrt(var + eps) = {4 / 2, 1 / 1} = {2, 1}
  // shift = beta - mean * scale = {0.25 - 2, 0 + 2} = {-1.75, 2}
  // W' = W * scale = {4, -1}; b' = b * scale + shift = {1 - 1.75, 1 + 2} = {-0.75, 3}
  EXPECT_EQ(*ReadFloat32(conv->input(1)), (std::vector<float>{4.0f, -1.0f}));
  EXPECT_EQ(*ReadFloat32(conv->input(2)), (std::vector<float>{-0.75f, 3.0f}));
  ExpectValidEdge(*graph);
}

TEST(FoldBatchNormTest, AddsABiasWhenTheConvolutionHadNoneAndHandlesNoAffine) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 1, 2, 2}));
  ir::Value* w = b.Weight("w", F32({1, 1, 1, 1}), std::vector<float>{3.0f});
  ir::Value* mean = b.Weight("mean", F32({1}), std::vector<float>{1.0f});
  ir::Value* var = b.Weight("var", F32({1}), std::vector<float>{4.0f});
  ir::Value* y = Conv(b, x, w, nullptr, {1, 1, 2, 2});
  b.Output(b.Op("edge.batch_norm", {y, mean, var}).Attr("eps", 0.0).Out(F32({1, 1, 2, 2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldBatchNorm pass;
  testing::RunPass(pass, *graph, GetEdgeOpProperties());
  const ir::Node* conv = graph->first_node();
  ASSERT_EQ(conv->num_inputs(), 3u);
  EXPECT_EQ(*ReadFloat32(conv->input(1)), (std::vector<float>{1.5f}));   // 3 / 2
  EXPECT_EQ(*ReadFloat32(conv->input(2)), (std::vector<float>{-0.5f}));  // -1 * 1/2
  ExpectValidEdge(*graph);
}

TEST(FoldBatchNormTest, FoldsIntoLinearOnlyWhenFeaturesAreDimOne) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4, 3}));
  ir::Value* w = b.Weight("w", F32({2, 3}), std::vector<float>{1, 2, 3, 4, 5, 6});
  ir::Value* mean = b.Weight("mean", F32({2}), std::vector<float>{0, 0});
  ir::Value* var = b.Weight("var", F32({2}), std::vector<float>{1, 1});
  ir::Value* y = b.Op("edge.linear", {x, w}).Attr("output_min", -kInf).Attr("output_max", kInf)
                     .Out(F32({4, 2}));
  b.Output(b.Op("edge.batch_norm", {y, mean, var}).Attr("eps", 0.0).Out(F32({4, 2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldBatchNorm pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_EQ(testing::Counter(context, "batch_norms_folded"), 1);
  EXPECT_EQ(graph->num_nodes(), 1u);
  ExpectValidEdge(*graph);
}

TEST(FoldBatchNormTest, LeavesSharedOrClampedProducersAlone) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 1, 2, 2}));
  ir::Value* w = b.Weight("w", F32({1, 1, 1, 1}), std::vector<float>{3.0f});
  ir::Value* mean = b.Weight("mean", F32({1}), std::vector<float>{1.0f});
  ir::Value* var = b.Weight("var", F32({1}), std::vector<float>{4.0f});
  ir::Value* shared = Conv(b, x, w, nullptr, {1, 1, 2, 2});
  b.Output(b.Op("edge.batch_norm", {shared, mean, var}).Attr("eps", 0.0).Out(F32({1, 1, 2, 2})));
  b.Output(shared);  // the convolution's own result is also read
  ir::Value* clamped = Conv(b, x, w, nullptr, {1, 1, 2, 2}, 0.0, kInf);
  b.Output(b.Op("edge.batch_norm", {clamped, mean, var}).Attr("eps", 0.0).Out(F32({1, 1, 2, 2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldBatchNorm pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_FALSE(context.changed());
  EXPECT_EQ(graph->num_nodes(), 4u);
}

TEST(FuseActivationTest, IntersectsClampRangesIntoTheProducer) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 1, 2, 2}));
  ir::Value* w = b.Weight("w", F32({1, 1, 1, 1}), std::vector<float>{3.0f});
  ir::Value* y = Conv(b, x, w, nullptr, {1, 1, 2, 2});
  ir::Value* relu6 = b.Op("edge.clamp", {y}).Attr("min", 0.0).Attr("max", 6.0).Out(F32({1, 1, 2, 2}));
  ir::Value* more = b.Op("edge.clamp", {relu6}).Attr("min", -1.0).Attr("max", 4.0)
                        .Out(F32({1, 1, 2, 2}));
  b.Output(more);
  std::unique_ptr<ir::Graph> graph = b.Build();
  FuseActivation pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_EQ(testing::Counter(context, "activations_fused"), 2);
  ASSERT_EQ(graph->num_nodes(), 1u);
  const ir::Node* conv = graph->first_node();
  EXPECT_EQ(conv->FindAttr("output_min")->as_double(), 0.0);
  EXPECT_EQ(conv->FindAttr("output_max")->as_double(), 4.0);
  EXPECT_EQ(graph->outputs()[0], conv->output());
  ExpectValidEdge(*graph);
}

TEST(FuseActivationTest, KeepsClampsOfSharedValuesAndOfOtherOps) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 2}));
  ir::Value* w = b.Weight("w", F32({2, 2}), std::vector<float>{1, 0, 0, 1});
  ir::Value* y = b.Op("edge.linear", {x, w}).Attr("output_min", -kInf).Attr("output_max", kInf)
                     .Out(F32({2, 2}));
  b.Output(b.Op("edge.clamp", {y}).Attr("min", 0.0).Attr("max", kInf).Out(F32({2, 2})));
  b.Output(y);
  ir::Value* sum = b.Op("edge.add", {x, x}).Out(F32({2, 2}));
  b.Output(b.Op("edge.clamp", {sum}).Attr("min", 0.0).Attr("max", kInf).Out(F32({2, 2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  FuseActivation pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_FALSE(context.changed());
}

TEST(RemoveNoopOpsTest, CollapsesChainsAndRemovesIdentities) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4}));
  ir::Value* r1 = b.Op("edge.reshape", {x}).Attr("shape", {6, 4}).Out(F32({6, 4}));
  ir::Value* r2 = b.Op("edge.reshape", {r1}).Attr("shape", {2, 3, 4}).Out(F32({2, 3, 4}));
  ir::Value* p1 = b.Op("edge.permute", {r2}).Attr("dims", {1, 2, 0}).Out(F32({3, 4, 2}));
  ir::Value* p2 = b.Op("edge.permute", {p1}).Attr("dims", {2, 0, 1}).Out(F32({2, 3, 4}));
  ir::Value* s = b.Op("edge.slice", {p2}).Attr("dim", int64_t{1}).Attr("start", int64_t{0})
                     .Attr("end", int64_t{3}).Attr("step", int64_t{1}).Out(F32({2, 3, 4}));
  ir::Value* c = b.Op("edge.cast", {s}).Attr("dtype", ir::AttrValue::OfDType(ir::DType::kFloat32))
                     .Out(F32({2, 3, 4}));
  b.Output(c);
  std::unique_ptr<ir::Graph> graph = b.Build();
  RemoveNoopOps pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_TRUE(context.changed());
  // reshape(reshape(x)) back to x's shape, the composed permute (identity), the
  // full slice and the same-dtype cast all go: the output is x itself.
  EXPECT_EQ(graph->outputs()[0], x);
  ExpectValidEdge(*graph);
}

TEST(RemoveNoopOpsTest, KeepsRealDataMovement) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  ir::Value* p = b.Op("edge.permute", {x}).Attr("dims", {1, 0}).Out(F32({3, 2}));
  ir::Value* s = b.Op("edge.slice", {p}).Attr("dim", int64_t{0}).Attr("start", int64_t{1})
                     .Attr("end", int64_t{3}).Attr("step", int64_t{1}).Out(F32({2, 2}));
  b.Output(s);
  std::unique_ptr<ir::Graph> graph = b.Build();
  RemoveNoopOps pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_FALSE(context.changed());
  EXPECT_EQ(graph->num_nodes(), 2u);
}

TEST(FoldConstantsTest, TransposesAWeightAtCompileTime) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 3}));
  ir::Value* w = b.Weight("w", F32({3, 2}), std::vector<float>{1, 2, 3, 4, 5, 6});
  ir::Value* t = b.Op("edge.permute", {w}).Attr("dims", {1, 0}).Out(F32({2, 3}));
  b.Output(b.Op("edge.linear", {x, t}).Attr("output_min", -kInf).Attr("output_max", kInf)
               .Out(F32({1, 2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldConstants pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_EQ(testing::Counter(context, "nodes_folded"), 1);
  ASSERT_EQ(graph->num_nodes(), 1u);
  EXPECT_EQ(*ReadFloat32(graph->first_node()->input(1)),
            (std::vector<float>{1, 3, 5, 2, 4, 6}));
  ExpectValidEdge(*graph);
}

TEST(FoldConstantsTest, SlicesExpandsAndConcatenatesConstants) {
  GraphBuilder b;
  ir::Value* c = b.Constant("c", F32({2, 3}), std::vector<float>{1, 2, 3, 4, 5, 6});
  ir::Value* s = b.Op("edge.slice", {c}).Attr("dim", int64_t{1}).Attr("start", int64_t{0})
                     .Attr("end", int64_t{3}).Attr("step", int64_t{2}).Out(F32({2, 2}));
  ir::Value* e = b.Op("edge.expand", {b.Constant("r", F32({1, 2}), std::vector<float>{7, 8})})
                     .Attr("sizes", {2, 2}).Out(F32({2, 2}));
  ir::Value* cat = b.Op("edge.concatenate", {s, e}).Attr("dim", int64_t{1}).Out(F32({2, 4}));
  b.Output(cat);
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldConstants pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_EQ(testing::Counter(context, "nodes_folded"), 3);
  EXPECT_EQ(graph->num_nodes(), 0u);
  EXPECT_EQ(*ReadFloat32(graph->outputs()[0]), (std::vector<float>{1, 3, 7, 8, 4, 6, 7, 8}));
}

// A slice step near 2^63 takes one element; folding it must not multiply the stride by it.
TEST(FoldConstantsTest, SliceWithAHugeStepTakesOneElement) {
  GraphBuilder b;
  ir::Value* c = b.Constant("c", F32({2, 3}), std::vector<float>{1, 2, 3, 4, 5, 6});
  b.Output(b.Op("edge.slice", {c}).Attr("dim", int64_t{0}).Attr("start", int64_t{1})
               .Attr("end", int64_t{2}).Attr("step", std::numeric_limits<int64_t>::max())
               .Out(F32({1, 3})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldConstants pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_EQ(testing::Counter(context, "nodes_folded"), 1);
  EXPECT_EQ(*ReadFloat32(graph->outputs()[0]), (std::vector<float>{4, 5, 6}));
}

// A transformer's causal mask: a float buffer compared with 0 (broadcast), and integer
// comparisons in their own type (2^53 + 1 and 2^53 differ as int64, not as double).
TEST(FoldConstantsTest, ComparesConstantsWithBroadcasting) {
  GraphBuilder b;
  ir::Value* mask = b.Weight("mask", F32({1, 1, 2, 3}), std::vector<float>{1, 0, 0, 1, 1, 0});
  ir::Value* zero = b.Constant("zero", F32({}), std::vector<float>{0});
  b.Output(b.Op("edge.eq", {mask, zero}).Out(Bool({1, 1, 2, 3})));
  ir::Value* column = b.Constant("column", F32({2, 1}), std::vector<float>{1, std::nanf("")});
  ir::Value* row = b.Constant("row", F32({3}), std::vector<float>{0, 1, 2});
  b.Output(b.Op("edge.ge", {column, row}).Out(Bool({2, 3})));
  const int64_t big = int64_t{1} << 53;
  ir::Value* x = b.Constant("x", I64({2}), DataOf(std::vector<int64_t>{big + 1, big}));
  ir::Value* y = b.Constant("y", I64({1}), DataOf(std::vector<int64_t>{big}));
  b.Output(b.Op("edge.gt", {x, y}).Out(Bool({2})));
  b.Output(b.Op("edge.ne", {x, y}).Out(Bool({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  FoldConstants pass;
  PassContext context = testing::RunPass(pass, *graph, GetEdgeOpProperties());
  EXPECT_EQ(testing::Counter(context, "nodes_folded"), 4);
  EXPECT_EQ(graph->num_nodes(), 0u);
  auto bytes = [&](size_t output) {
    const ir::TensorData& data = graph->outputs()[output]->data();
    return std::vector<uint8_t>(data.data(), data.data() + data.size());
  };
  EXPECT_EQ(bytes(0), (std::vector<uint8_t>{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(bytes(1), (std::vector<uint8_t>{1, 1, 0, 0, 0, 0}));  // NaN >= nothing
  EXPECT_EQ(bytes(2), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bytes(3), (std::vector<uint8_t>{1, 0}));
  ExpectValidEdge(*graph);
}

TEST(EdgeOpPropertiesTest, EdgeOpsArePure) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  ir::Node* add = b.Op("edge.add", {x, x}).Emit({F32({2})});
  ir::Node* inplace = b.Op("aten.relu_.default", {x}).Emit({F32({2})});
  EXPECT_TRUE(GetEdgeOpProperties().IsPure(*add));
  EXPECT_TRUE(GetEdgeOpProperties().IsCommutative(*add));
  EXPECT_FALSE(GetEdgeOpProperties().IsPure(*inplace));
}

}  // namespace
}  // namespace torchir::passes
