// Lowering of normalization, reductions, softmax, pooling and attention (rules/normalization.cpp,
// rules/reduction.cpp) on small hand-made ATen graphs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/dialect/aten_call.h"
#include "compiler/dialect/aten_schema.h"
#include "compiler/lowering/edge_builder.h"
#include "compiler/lowering/lowering.h"
#include "compiler/lowering/rule_table.h"
#include "tests/support/graph_builder.h"

namespace torchir::lowering {
namespace {

using ::testing::ElementsAre;
using testing::F32;
using testing::GraphBuilder;
using ::testing::HasSubstr;
using testing::I64;

// The op of every node of `graph`, in order.
std::vector<std::string> Ops(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node* node : graph.nodes()) ops.push_back(node->op());
  return ops;
}

// The first node of `graph` running `op`.
const ir::Node* FirstNode(const ir::Graph& graph, const std::string& op) {
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() == op) return node;
  }
  return nullptr;
}

std::vector<int64_t> Ints(const ir::Node& node, const std::string& attr) {
  return node.FindAttr(attr)->as_int_list();
}

// getitem reading only the output it picks. (pytorch-ir's getitem lists every output of the
// producer; see PytorchIrGetitemForm for why these tests do not use that form yet.)
// getitem as pytorch-ir writes it: it lists every output of the producer and picks one.
ir::Value* Getitem(GraphBuilder& b, const std::vector<ir::Value*>& outs, int index) {
  return b.Op("getitem", outs).Attr("index", index).Out(outs[index]->type());
}

ir::Value* PytorchIrGetitem(GraphBuilder& b, const std::vector<ir::Value*>& outs, int index) {
  return Getitem(b, outs, index);
}

absl::StatusOr<std::unique_ptr<ir::Graph>> Lower(GraphBuilder& b) {
  std::unique_ptr<ir::Graph> aten = b.Build();
  return LowerToEdge(*aten);
}

// --- Normalization -------------------------------------------------------------------------------

TEST(BatchNorm, WithoutAffineLowersToThreeOperands) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4, 4}));
  ir::Value* mean = b.Weight("bn.running_mean", F32({3}));
  ir::Value* var = b.Weight("bn.running_var", F32({3}));
  ir::Value* y = b.Op("aten.batch_norm.default", {x, mean, var})
                     .Attr("training", false)
                     .Attr("momentum", 0.1)
                     .Attr("eps", 1e-3)
                     .Attr("cudnn_enabled", true)
                     .Out(F32({2, 3, 4, 4}));
  b.Output(y);
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.batch_norm"));
  const ir::Node* bn = FirstNode(**edge, "edge.batch_norm");
  EXPECT_EQ(bn->num_inputs(), 3u);
  EXPECT_EQ(bn->input(1)->name(), "bn.running_mean");
  EXPECT_EQ(bn->input(2)->name(), "bn.running_var");
  EXPECT_DOUBLE_EQ(bn->FindAttr("eps")->as_double(), 1e-3);
}

// training=true: the batch's own statistics (edge.mean over every dim but the channels), not
// edge.batch_norm; native_batch_norm's saved mean and invstd are those statistics, [C].
TEST(BatchNorm, TrainingNormalisesWithTheBatchStatistics) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4, 4}));
  std::vector<ir::Value*> inputs = {x};
  for (const char* name : {"w", "b", "mean", "var"}) inputs.push_back(b.Weight(name, F32({3})));
  std::vector<ir::Value*> outs = b.Op("aten.native_batch_norm.default", inputs)
                                     .Attr("training", true)
                                     .Attr("momentum", 0.1)
                                     .Attr("eps", 1e-5)
                                     .Outs({F32({2, 3, 4, 4}), F32({3}), F32({3})});
  b.Output(Getitem(b, outs, 0));
  b.Output(Getitem(b, outs, 1));
  b.Output(Getitem(b, outs, 2));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_EQ(FirstNode(**edge, "edge.batch_norm"), nullptr);
  const ir::Node* mean = FirstNode(**edge, "edge.mean");
  ASSERT_NE(mean, nullptr);
  EXPECT_THAT(Ints(*mean, "dims"), ElementsAre(0, 2, 3));
  EXPECT_EQ((*edge)->outputs()[1]->type(), F32({3}));
  EXPECT_EQ((*edge)->outputs()[2]->type(), F32({3}));
}

// ATen also updates the running statistics in place: refused when the graph reads them after.
TEST(BatchNorm, TrainingIsRefusedWhenTheRunningStatisticsAreReadAfter) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4, 4}));
  std::vector<ir::Value*> inputs = {x};
  for (const char* name : {"w", "b", "mean", "var"}) inputs.push_back(b.Weight(name, F32({3})));
  b.Output(b.Op("aten.batch_norm.default", inputs)
               .Attr("training", true)
               .Attr("momentum", 0.1)
               .Attr("eps", 1e-5)
               .Attr("cudnn_enabled", true)
               .Out(F32({2, 3, 4, 4})));
  b.Output(b.Op("aten.mul.Tensor", {inputs[3]}).Attr("other", 2.0).Out(F32({3})));
  auto edge = Lower(b);
  ASSERT_FALSE(edge.ok());
  EXPECT_EQ(edge.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(edge.status().message(),
              HasSubstr("training=true updates running_mean in place and this graph reads it"));
}

TEST(BatchNorm, NoStatsNeedsTraining) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4}));
  std::vector<ir::Value*> outs = b.Op("aten._native_batch_norm_legit.no_stats", {x})
                                     .Attr("training", false)
                                     .Attr("momentum", 0.1)
                                     .Attr("eps", 1e-5)
                                     .Outs({F32({2, 3, 4}), F32({3}), F32({3})});
  b.Output(Getitem(b, outs, 0));
  auto edge = Lower(b);
  ASSERT_FALSE(edge.ok());
  EXPECT_THAT(edge.status().message(), HasSubstr("no statistics"));
}

// BindAtenCall never yields a bias without its weight (its presence rule says a bias needs a
// weight), so this binds the call by hand to reach the rule.
TEST(BatchNorm, BiasWithoutWeightGetsAOnesWeight) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 3, 2, 2}));
  ir::Value* bias = b.Weight("bias", F32({3}));
  ir::Value* mean = b.Weight("mean", F32({3}));
  ir::Value* var = b.Weight("var", F32({3}));
  ir::Value* y = b.Op("aten.batch_norm.default", {x, bias, mean, var}).Out(F32({1, 3, 2, 2}));
  const ir::Node* node = y->producer();

  const dialect::AtenSchema* schema = dialect::FindAtenSchema("aten.batch_norm.default");
  ASSERT_NE(schema, nullptr);
  using Bound = dialect::AtenCall::Bound;
  auto tensor = [](ir::Value* value) {
    Bound bound;
    bound.kind = Bound::Kind::kTensor;
    bound.tensor = value;
    return bound;
  };
  auto value = [](ir::AttrValue attr) {
    Bound bound;
    bound.value = std::move(attr);
    return bound;
  };
  Bound none;
  none.kind = Bound::Kind::kNone;
  dialect::AtenCall call(node, schema,
                         {tensor(x), none, tensor(bias), tensor(mean), tensor(var),
                          value(ir::AttrValue::Bool(false)), value(ir::AttrValue::Double(0.1)),
                          value(ir::AttrValue::Double(1e-5)), value(ir::AttrValue::Bool(true))});

  ir::Graph edge;
  std::map<const ir::Value*, ir::Value*> mapped = {{x, edge.AddInput("x", x->type())}};
  for (ir::Value* weight : {bias, mean, var}) {
    mapped[weight] = edge.AddWeight(weight->name(), weight->name(), weight->type());
  }
  EdgeBuilder builder(&edge);
  LoweringContext ctx(&builder, node, [&](const ir::Value* v) { return mapped.at(v); });
  LoweringRule rule = LoweringRules().Find("aten.batch_norm.default");
  ASSERT_NE(rule, nullptr);
  auto results = rule(ctx, call);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1u);
  const ir::Node* bn = (*results)[0]->producer();
  ASSERT_EQ(bn->op(), "edge.batch_norm");
  ASSERT_EQ(bn->num_inputs(), 5u);
  const ir::Value* weight = bn->input(3);
  EXPECT_EQ(weight->kind(), ir::ValueKind::kConstant);
  EXPECT_EQ(weight->type(), F32({3}));
  const float* ones = reinterpret_cast<const float*>(weight->data().data());
  EXPECT_THAT(std::vector<float>(ones, ones + 3), ElementsAre(1.0f, 1.0f, 1.0f));
  EXPECT_EQ(bn->input(4)->name(), "bias");
}

TEST(BatchNorm, CoreFormLeavesTheSavedStatisticsUnlowered) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4, 4}));
  std::vector<ir::Value*> inputs = {x};
  for (const char* name : {"w", "b", "mean", "var"}) inputs.push_back(b.Weight(name, F32({3})));
  std::vector<ir::Value*> outs = b.Op("aten._native_batch_norm_legit_no_training.default", inputs)
                                     .Attr("momentum", 0.1)
                                     .Attr("eps", 1e-5)
                                     .Outs({F32({2, 3, 4, 4}), F32({0}), F32({0})});
  b.Output(Getitem(b, outs, 0));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.batch_norm"));
  EXPECT_EQ(FirstNode(**edge, "edge.batch_norm")->num_inputs(), 5u);
}

// aten.native_layer_norm's mean and rstd outputs have no Edge form.
ir::Value* NativeLayerNorm(GraphBuilder& b, std::vector<ir::Value*>* outs) {
  ir::Value* x = b.Input("x", F32({2, 5, 8}));
  ir::Value* w = b.Weight("ln.weight", F32({8}));
  ir::Value* bias = b.Weight("ln.bias", F32({8}));
  *outs = b.Op("aten.native_layer_norm.default", {x, w, bias})
              .Attr("normalized_shape", std::vector<int64_t>{8})
              .Attr("eps", 1e-5)
              .Outs({F32({2, 5, 8}), F32({2, 5, 1}), F32({2, 5, 1})});
  return x;
}

TEST(LayerNorm, NativeFormDropsMeanAndRstd) {
  GraphBuilder b;
  std::vector<ir::Value*> outs;
  NativeLayerNorm(b, &outs);
  b.Output(Getitem(b, outs, 0));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.layer_norm"));
  const ir::Node* ln = FirstNode(**edge, "edge.layer_norm");
  EXPECT_EQ(ln->num_inputs(), 3u);
  EXPECT_THAT(Ints(*ln, "normalized_shape"), ElementsAre(8));
}

TEST(LayerNorm, ReadingTheMeanIsAnError) {
  GraphBuilder b;
  std::vector<ir::Value*> outs;
  NativeLayerNorm(b, &outs);
  b.Output(Getitem(b, outs, 1));
  auto edge = Lower(b);
  ASSERT_FALSE(edge.ok());
  EXPECT_THAT(edge.status().message(), HasSubstr("is used but cannot be lowered"));
}

TEST(LayerNorm, WithoutAffineHasOneOperand) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 5, 8}));
  b.Output(
      b.Op("aten.layer_norm.default", {x}).Attr("normalized_shape", {5, 8}).Out(F32({2, 5, 8})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  const ir::Node* ln = FirstNode(**edge, "edge.layer_norm");
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(ln->num_inputs(), 1u);
  EXPECT_DOUBLE_EQ(ln->FindAttr("eps")->as_double(), 1e-5);
}

TEST(GroupNorm, DecomposesOverGroups) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 4, 3, 3}));
  ir::Value* w = b.Weight("gn.weight", F32({4}));
  ir::Value* bias = b.Weight("gn.bias", F32({4}));
  b.Output(
      b.Op("aten.group_norm.default", {x, w, bias}).Attr("num_groups", 2).Out(F32({2, 4, 3, 3})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge),
              ElementsAre("edge.reshape", "edge.mean", "edge.sub", "edge.mul", "edge.mean",
                          "edge.add", "edge.rsqrt", "edge.mul", "edge.reshape", "edge.reshape",
                          "edge.mul", "edge.reshape", "edge.add"));
  EXPECT_THAT(Ints(*FirstNode(**edge, "edge.reshape"), "shape"), ElementsAre(2, 2, 18));
}

// --- Softmax and reductions ----------------------------------------------------------------------

TEST(Softmax, NegativeDimIsNormalised) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 7}));
  b.Output(b.Op("aten._log_softmax.default", {x})
               .Attr("dim", -1)
               .Attr("half_to_float", false)
               .Out(F32({2, 7})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  const ir::Node* node = FirstNode(**edge, "edge.log_softmax");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->FindAttr("dim")->as_int(), 1);
}

TEST(Reduction, MeanOverNegativeDims) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4, 5}));
  b.Output(b.Op("aten.mean.dim", {x})
               .Attr("dim", {-1, -2})
               .Attr("keepdim", true)
               .Out(F32({2, 3, 1, 1})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.mean"));
  const ir::Node* mean = FirstNode(**edge, "edge.mean");
  EXPECT_THAT(Ints(*mean, "dims"), ElementsAre(3, 2));
  EXPECT_TRUE(mean->FindAttr("keepdim")->as_bool());
}

TEST(Reduction, SumOfInt64StaysInt64) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", I64({3, 4}));
  b.Output(b.Op("aten.sum.default", {x}).Out(I64({})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.sum"));
  EXPECT_TRUE(Ints(*FirstNode(**edge, "edge.sum"), "dims").empty());
}

TEST(Reduction, SumOfInt32IsCastToInt64First) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", ir::TensorType{ir::DType::kInt32, {3, 4}});
  b.Output(b.Op("aten.sum.dim_IntList", {x}).Attr("dim", std::vector<int64_t>{0}).Out(I64({4})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.cast", "edge.sum"));
}

TEST(Reduction, MaxDimHasTwoOutputs) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3, 4}));
  std::vector<ir::Value*> outs =
      b.Op("aten.max.dim", {x}).Attr("dim", -1).Outs({F32({3}), I64({3})});
  b.Output(Getitem(b, outs, 0));
  b.Output(Getitem(b, outs, 1));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.max_dim"));
  EXPECT_EQ(FirstNode(**edge, "edge.max_dim")->FindAttr("dim")->as_int(), 1);
}

// --- Pooling -------------------------------------------------------------------------------------

TEST(Pooling, MaxPoolEmptyStrideIsTheKernel) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 8, 8}));
  b.Output(b.Op("aten.max_pool2d.default", {x})
               .Attr("kernel_size", 2)
               .Attr("stride", std::vector<int64_t>{})
               .Out(F32({1, 2, 4, 4})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  const ir::Node* pool = FirstNode(**edge, "edge.max_pool2d");
  ASSERT_NE(pool, nullptr);
  EXPECT_THAT(Ints(*pool, "kernel_size"), ElementsAre(2, 2));
  EXPECT_THAT(Ints(*pool, "stride"), ElementsAre(2, 2));
  EXPECT_THAT(Ints(*pool, "padding"), ElementsAre(0, 0));
  EXPECT_THAT(Ints(*pool, "dilation"), ElementsAre(1, 1));
  EXPECT_FALSE(pool->FindAttr("ceil_mode")->as_bool());
}

TEST(Pooling, MaxPoolWithUnreadIndicesLowers) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 8, 8}));
  std::vector<ir::Value*> outs = b.Op("aten.max_pool2d_with_indices.default", {x})
                                     .Attr("kernel_size", {3, 3})
                                     .Attr("stride", {2, 2})
                                     .Attr("padding", {1, 1})
                                     .Outs({F32({1, 2, 4, 4}), I64({1, 2, 4, 4})});
  b.Output(Getitem(b, outs, 0));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.max_pool2d"));
}

// The driver (lowering.cpp) counts every getitem that lists an output as a reader, so with
// pytorch-ir's getitem, which lists all outputs, the unread indices (and batch/layer norm's saved
// statistics) fail as "used but cannot be lowered". Enable once the driver ignores a getitem
// whose index picks another output.
TEST(Pooling, PytorchIrGetitemForm) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 8, 8}));
  std::vector<ir::Value*> outs = b.Op("aten.max_pool2d_with_indices.default", {x})
                                     .Attr("kernel_size", {2, 2})
                                     .Outs({F32({1, 2, 4, 4}), I64({1, 2, 4, 4})});
  b.Output(PytorchIrGetitem(b, outs, 0));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.max_pool2d"));
}

TEST(Pooling, MaxPoolIndicesInUseAreAnError) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 8, 8}));
  std::vector<ir::Value*> outs = b.Op("aten.max_pool2d_with_indices.default", {x})
                                     .Attr("kernel_size", {2, 2})
                                     .Attr("stride", {2, 2})
                                     .Outs({F32({1, 2, 4, 4}), I64({1, 2, 4, 4})});
  b.Output(PytorchIrGetitem(b, outs, 1));
  auto edge = Lower(b);
  ASSERT_FALSE(edge.ok());
  EXPECT_THAT(edge.status().message(), HasSubstr("indices"));
}

TEST(Pooling, AvgPoolDivisorOverrideScalesTheAverage) {
  // Windows of 4 padded elements everywhere: the average times 4 / 3.
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 8, 8}));
  b.Output(b.Op("aten.avg_pool2d.default", {x})
               .Attr("kernel_size", {2, 2})
               .Attr("divisor_override", 3)
               .Out(F32({1, 2, 4, 4})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.avg_pool2d", "edge.mul"));
  EXPECT_TRUE(FirstNode(**edge, "edge.avg_pool2d")->FindAttr("count_include_pad")->as_bool());
  const ir::Value* factor = FirstNode(**edge, "edge.mul")->input(1);
  ASSERT_EQ(factor->type(), F32({}));
  float value;
  std::memcpy(&value, factor->data().data(), sizeof(value));
  EXPECT_FLOAT_EQ(value, 4.0f / 3.0f);
}

TEST(Pooling, PytorchIrUnreadIndicesGetitemIsNotARead) {
  // pytorch-ir writes a getitem for every output; one that nothing reads reads nothing.
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 8, 8}));
  std::vector<ir::Value*> outs = b.Op("aten.adaptive_max_pool2d.default", {x})
                                     .Attr("output_size", {1, 1})
                                     .Outs({F32({1, 2, 1, 1}), I64({1, 2, 1, 1})});
  b.Output(PytorchIrGetitem(b, outs, 0));
  PytorchIrGetitem(b, outs, 1);
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.amax"));
  EXPECT_THAT(Ints(*FirstNode(**edge, "edge.amax"), "dims"), ElementsAre(2, 3));
}

TEST(Pooling, MaxPool1dIsA2dPoolOverOneRow) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 4, 12}));
  b.Output(b.Op("aten.max_pool1d.default", {x})
               .Attr("kernel_size", std::vector<int64_t>{3})
               .Attr("stride", std::vector<int64_t>{2})
               .Attr("padding", std::vector<int64_t>{1})
               .Attr("dilation", std::vector<int64_t>{2})
               .Attr("ceil_mode", true)
               .Out(F32({2, 4, 6})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.reshape", "edge.max_pool2d", "edge.reshape"));
  const ir::Node* pool = FirstNode(**edge, "edge.max_pool2d");
  EXPECT_THAT(Ints(*pool, "kernel_size"), ElementsAre(1, 3));
  EXPECT_THAT(Ints(*pool, "stride"), ElementsAre(1, 2));
  EXPECT_THAT(Ints(*pool, "padding"), ElementsAre(0, 1));
  EXPECT_THAT(Ints(*pool, "dilation"), ElementsAre(1, 2));
}

TEST(Pooling, MaxPool3dIsAnHwPoolThenADepthPool) {
  // One-entry lists broadcast to all three dims.
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 6, 7, 8}));
  b.Output(b.Op("aten.max_pool3d.default", {x})
               .Attr("kernel_size", std::vector<int64_t>{3})
               .Attr("stride", std::vector<int64_t>{2})
               .Attr("padding", std::vector<int64_t>{1})
               .Attr("ceil_mode", true)
               .Out(F32({2, 3, 4, 4, 5})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.reshape", "edge.max_pool2d", "edge.reshape",
                                       "edge.max_pool2d", "edge.reshape"));
  std::vector<const ir::Node*> pools;
  for (const ir::Node* node : (*edge)->nodes()) {
    if (node->op() == "edge.max_pool2d") pools.push_back(node);
  }
  // (H, W) over [N, C * D, H, W], then D over [N, C, D, Ho * Wo].
  EXPECT_EQ(pools[0]->input(0)->sizes(), (std::vector<int64_t>{2, 18, 7, 8}));
  EXPECT_THAT(Ints(*pools[0], "kernel_size"), ElementsAre(3, 3));
  EXPECT_THAT(Ints(*pools[0], "padding"), ElementsAre(1, 1));
  EXPECT_EQ(pools[1]->input(0)->sizes(), (std::vector<int64_t>{2, 3, 6, 20}));
  EXPECT_THAT(Ints(*pools[1], "kernel_size"), ElementsAre(3, 1));
  EXPECT_THAT(Ints(*pools[1], "stride"), ElementsAre(2, 1));
  EXPECT_THAT(Ints(*pools[1], "padding"), ElementsAre(1, 0));
  EXPECT_TRUE(pools[1]->FindAttr("ceil_mode")->as_bool());
}

TEST(Pooling, MaxPool3dIndicesInUseAreAnError) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 4, 4, 4}));
  std::vector<ir::Value*> outs = b.Op("aten.max_pool3d_with_indices.default", {x})
                                     .Attr("kernel_size", {2, 2, 2})
                                     .Outs({F32({1, 2, 2, 2, 2}), I64({1, 2, 2, 2, 2})});
  b.Output(PytorchIrGetitem(b, outs, 1));
  auto edge = Lower(b);
  ASSERT_FALSE(edge.ok());
  EXPECT_THAT(edge.status().message(), HasSubstr("indices"));
}

TEST(Pooling, AvgPool3dDivisorOverrideScalesByTheThreeDimWindow) {
  // 2x2x2 windows without padding: the average times 8 / 5.
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3, 4, 4, 4}));
  b.Output(b.Op("aten.avg_pool3d.default", {x})
               .Attr("kernel_size", {2, 2, 2})
               .Attr("divisor_override", 5)
               .Out(F32({3, 2, 2, 2})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  const ir::Value* factor = FirstNode(**edge, "edge.mul")->input(1);
  ASSERT_EQ(factor->type(), F32({}));
  float value;
  std::memcpy(&value, factor->data().data(), sizeof(value));
  EXPECT_FLOAT_EQ(value, 8.0f / 5.0f);
}

TEST(Pooling, AdaptiveAvgPool3dGlobalIsTwoMeans) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 3, 4, 5}));
  b.Output(b.Op("aten._adaptive_avg_pool3d.default", {x})
               .Attr("output_size", {1, 1, 1})
               .Out(F32({1, 2, 1, 1, 1})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.reshape", "edge.mean", "edge.reshape", "edge.mean",
                                       "edge.reshape"));
}

TEST(Pooling, Pool3dOfAThreeDimInputIsRefused) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4, 4, 4}));
  b.Output(b.Op("aten.avg_pool3d.default", {x})
               .Attr("kernel_size", {2, 2, 2})
               .Out(F32({2, 2, 2})));
  auto edge = Lower(b);
  ASSERT_FALSE(edge.ok());
  EXPECT_THAT(edge.status().message(), HasSubstr("rank-3"));
}

TEST(Reduction, ArgmaxWithoutDimFlattensAndKeepdimGivesOnes) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4}));
  b.Output(b.Op("aten.argmax.default", {x}).Attr("keepdim", true).Out(I64({1, 1, 1})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.reshape", "edge.max_dim", "edge.reshape"));
  EXPECT_EQ(FirstNode(**edge, "edge.max_dim")->input(0)->type(), F32({24}));
}

TEST(Reduction, AllOfAnEmptyDimCountsAgainstZero) {
  // all() over nothing is true: the count of true elements (0) equals the element count (0).
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3, 0}));
  b.Output(b.Op("aten.all.dim", {x}).Attr("dim", 1).Out(ir::TensorType{ir::DType::kBool, {3}}));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.ne", "edge.cast", "edge.sum", "edge.eq"));
  const ir::Value* count = FirstNode(**edge, "edge.eq")->input(1);
  int64_t value = -1;
  std::memcpy(&value, count->data().data(), sizeof(value));
  EXPECT_EQ(value, 0);
}

TEST(Reduction, VarianceDividesByTheCountLessTheCorrection) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4}));
  b.Output(b.Op("aten.var.correction", {x})
               .Attr("dim", std::vector<int64_t>{0, -1})
               .Attr("correction", 2)
               .Attr("keepdim", true)
               .Out(F32({1, 3, 1})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge),
              ElementsAre("edge.mean", "edge.sub", "edge.mul", "edge.sum", "edge.div"));
  EXPECT_THAT(Ints(*FirstNode(**edge, "edge.sum"), "dims"), ElementsAre(0, 2));
  const ir::Value* divisor = FirstNode(**edge, "edge.div")->input(1);
  float value;
  std::memcpy(&value, divisor->data().data(), sizeof(value));
  EXPECT_FLOAT_EQ(value, 6.0f);  // 8 elements - 2
}

absl::StatusOr<std::unique_ptr<ir::Graph>> AdaptivePool(std::vector<int64_t> in,
                                                        std::vector<int64_t> out) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 4, in[0], in[1]}));
  b.Output(b.Op("aten.adaptive_avg_pool2d.default", {x})
               .Attr("output_size", out)
               .Out(F32({1, 4, out[0], out[1]})));
  return Lower(b);
}

TEST(Pooling, AdaptiveToOneByOneIsAMean) {
  auto edge = AdaptivePool({7, 7}, {1, 1});
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.mean"));
  const ir::Node* mean = FirstNode(**edge, "edge.mean");
  EXPECT_THAT(Ints(*mean, "dims"), ElementsAre(2, 3));
  EXPECT_TRUE(mean->FindAttr("keepdim")->as_bool());
}

TEST(Pooling, AdaptiveDividingEvenlyIsAnAvgPool) {
  auto edge = AdaptivePool({10, 10}, {5, 5});
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.avg_pool2d"));
  const ir::Node* pool = FirstNode(**edge, "edge.avg_pool2d");
  EXPECT_THAT(Ints(*pool, "kernel_size"), ElementsAre(2, 2));
  EXPECT_THAT(Ints(*pool, "stride"), ElementsAre(2, 2));
  EXPECT_THAT(Ints(*pool, "padding"), ElementsAre(0, 0));
}

TEST(Pooling, AdaptiveUnevenStaysAdaptive) {
  auto edge = AdaptivePool({10, 10}, {3, 3});
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.adaptive_avg_pool2d"));
}

// --- Attention -----------------------------------------------------------------------------------

TEST(Attention, CausalSdpaDecomposes) {
  GraphBuilder b;
  ir::Value* q = b.Input("q", F32({1, 2, 4, 8}));
  ir::Value* k = b.Input("k", F32({1, 2, 6, 8}));
  ir::Value* v = b.Input("v", F32({1, 2, 6, 3}));
  b.Output(b.Op("aten.scaled_dot_product_attention.default", {q, k, v})
               .Attr("is_causal", true)
               .Out(F32({1, 2, 4, 3})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.permute", "edge.matmul", "edge.mul", "edge.where",
                                       "edge.softmax", "edge.matmul"));
  EXPECT_THAT(Ints(*FirstNode(**edge, "edge.permute"), "dims"), ElementsAre(0, 1, 3, 2));
  const ir::Value* mask = FirstNode(**edge, "edge.where")->input(0);
  EXPECT_EQ(mask->type(), (ir::TensorType{ir::DType::kBool, {4, 6}}));
  const ir::Value* scale = FirstNode(**edge, "edge.mul")->input(1);
  EXPECT_FLOAT_EQ(*reinterpret_cast<const float*>(scale->data().data()), 1.0f / std::sqrt(8.0f));
  EXPECT_EQ(FirstNode(**edge, "edge.softmax")->FindAttr("dim")->as_int(), 3);
}

TEST(Attention, FloatMaskIsAdded) {
  GraphBuilder b;
  ir::Value* q = b.Input("q", F32({2, 4, 8}));
  ir::Value* mask = b.Input("mask", F32({4, 4}));
  b.Output(b.Op("aten.scaled_dot_product_attention.default", {q, q, q, mask})
               .Attr("scale", 0.5)
               .Out(F32({2, 4, 8})));
  auto edge = Lower(b);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_THAT(Ops(**edge), ElementsAre("edge.permute", "edge.matmul", "edge.mul", "edge.add",
                                       "edge.softmax", "edge.matmul"));
}

TEST(Attention, DropoutIsUnsupported) {
  GraphBuilder b;
  ir::Value* q = b.Input("q", F32({2, 4, 8}));
  b.Output(b.Op("aten.scaled_dot_product_attention.default", {q, q, q})
               .Attr("dropout_p", 0.1)
               .Out(F32({2, 4, 8})));
  auto edge = Lower(b);
  ASSERT_FALSE(edge.ok());
  EXPECT_THAT(edge.status().message(), HasSubstr("dropout_p"));
}

}  // namespace
}  // namespace torchir::lowering
