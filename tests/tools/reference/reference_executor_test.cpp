#include "tools/reference/reference_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compiler/frontend/ir_reader.h"

// Expected numbers were computed independently with PyTorch in Python (in
// float64 where the op allows, then rounded to float32) and are embedded here.
namespace torchir::reference {
namespace {

using ir::AttrValue;
using ir::DType;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

ir::TensorType Type(DType dtype, std::vector<int64_t> sizes) { return {dtype, std::move(sizes)}; }
ir::TensorType F32(std::vector<int64_t> sizes) { return Type(DType::kFloat32, std::move(sizes)); }
ir::TensorType I64(std::vector<int64_t> sizes) { return Type(DType::kInt64, std::move(sizes)); }

template <typename T>
ir::TensorData Bytes(const std::vector<T>& values) {
  return ir::TensorData::Copy(values.data(), values.size() * sizeof(T));
}

HostTensor Floats(std::vector<int64_t> sizes, const std::vector<float>& values) {
  return {F32(std::move(sizes)), Bytes(values)};
}

HostTensor Longs(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
  return {I64(std::move(sizes)), Bytes(values)};
}

template <typename T>
std::vector<T> Values(const HostTensor& tensor) {
  std::vector<T> values(tensor.data.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), tensor.data.data(), tensor.data.size());
  return values;
}

std::vector<float> AsFloats(const HostTensor& tensor) {
  EXPECT_EQ(tensor.type.dtype, DType::kFloat32);
  return Values<float>(tensor);
}

std::vector<int64_t> AsLongs(const HostTensor& tensor) {
  EXPECT_EQ(tensor.type.dtype, DType::kInt64);
  return Values<int64_t>(tensor);
}

// Runs a graph expected to succeed, returning its outputs.
std::vector<HostTensor> MustRun(const ir::Graph& graph, const std::vector<HostTensor>& inputs) {
  absl::StatusOr<std::vector<HostTensor>> outputs = RunReference(graph, inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  return outputs.ok() ? *outputs : std::vector<HostTensor>{};
}

std::string ErrorOf(const ir::Graph& graph, const std::vector<HostTensor>& inputs) {
  absl::StatusOr<std::vector<HostTensor>> outputs = RunReference(graph, inputs);
  EXPECT_FALSE(outputs.ok());
  return outputs.ok() ? "" : std::string(outputs.status().message());
}

ir::Node* AddNode(ir::Graph& graph, const std::string& name, const std::string& op,
                  const std::vector<ir::Value*>& inputs, const ir::TensorType& output) {
  return graph.AppendNode(name, op, inputs, {name}, {output});
}

TEST(ReferenceExecutorTest, ScalarGivenForTensorArgumentIsAWrappedNumber) {
  // x * 0.5 exports as aten.mul.Tensor with attrs.other = 0.5; like a Python
  // scalar it must not promote an int64 tensor to float64.
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({3}));
  ir::Value* n = graph.AddInput("n", I64({3}));
  ir::Node* mul = AddNode(graph, "mul", "aten.mul.Tensor", {x}, F32({3}));
  mul->SetAttr("other", AttrValue::Double(0.5));
  ir::Node* mul_1 = AddNode(graph, "mul_1", "aten.mul.Tensor", {n}, F32({3}));
  mul_1->SetAttr("other", AttrValue::Double(0.5));
  graph.AddOutput(mul->output());
  graph.AddOutput(mul_1->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({3}, {1, 2, 3}), Longs({3}, {1, 2, 3})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(0.5f, 1.0f, 1.5f));
  EXPECT_THAT(AsFloats(out[1]), ElementsAre(0.5f, 1.0f, 1.5f));
}

TEST(ReferenceExecutorTest, TensorListArgumentIsRegroupedBySizes) {
  ir::Graph graph;
  ir::Value* a = graph.AddInput("a", F32({1, 2}));
  ir::Value* b = graph.AddInput("b", F32({1, 3}));
  ir::Node* cat = AddNode(graph, "cat", "aten.cat.default", {a, b}, F32({1, 5}));
  cat->set_tensor_list_sizes({2});
  cat->SetAttr("dim", AttrValue::Int(1));
  graph.AddOutput(cat->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 2}, {1, 2}), Floats({1, 3}, {3, 4, 5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(1, 2, 3, 4, 5));
}

// x[:, idx] as pytorch-ir writes it: aten.index.Tensor with indices [None, idx].
constexpr char kIndexWithNone[] = R"json({
  "model_name": "IndexWithNone", "pytorch_version": "2.8.0",
  "graph_inputs": [{"name": "x", "shape": [2, 3], "dtype": "float32"},
                   {"name": "idx", "shape": [2], "dtype": "int64"}],
  "graph_outputs": [{"name": "index", "shape": [2, 2], "dtype": "float32"}],
  "weights": [], "weight_name_mapping": {},
  "nodes": [
    {"name": "index", "op_type": "aten.index.Tensor",
     "inputs": [{"name": "x", "shape": [2, 3], "dtype": "float32", "producer_node": "x",
                 "producer_output_idx": 0},
                {"name": "idx", "shape": [2], "dtype": "int64", "producer_node": "idx",
                 "producer_output_idx": 0}],
     "outputs": [{"name": "index", "shape": [2, 2], "dtype": "float32"}],
     "attrs": {"_tensor_list_sizes": [1], "_tensor_list_none_masks": [[true, false]]}}
  ]
})json";

TEST(ReferenceExecutorTest, OptionalTensorListGetsNonesBackFromMask) {
  absl::StatusOr<std::unique_ptr<ir::Graph>> graph =
      frontend::ParsePytorchIr(kIndexWithNone, "index.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<HostTensor> out =
      MustRun(**graph, {Floats({2, 3}, {0, 1, 2, 3, 4, 5}), Longs({2}, {2, 0})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(2, 0, 5, 3));
}

TEST(ReferenceExecutorTest, SingleIntFillsIntListAndDefaultsComeFromSchema) {
  // max_pool2d(x, kernel_size=2, stride=2): padding, dilation, ceil_mode are
  // schema defaults.
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 1, 4, 4}));
  ir::Node* pool = AddNode(graph, "max_pool2d", "aten.max_pool2d.default", {x}, F32({1, 1, 2, 2}));
  pool->SetAttr("kernel_size", AttrValue::Int(2));
  pool->SetAttr("stride", AttrValue::Int(2));
  ir::Node* leaky =
      AddNode(graph, "leaky_relu", "aten.leaky_relu.default", {pool->output()}, F32({1, 1, 2, 2}));
  graph.AddOutput(leaky->output());

  std::vector<float> input(16);
  for (int i = 0; i < 16; ++i) input[i] = static_cast<float>(i) - 6.0f;
  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 1, 4, 4}, input)});
  ASSERT_EQ(out.size(), 1u);
  // Pooled: [-1, 1, 7, 9]; leaky_relu's default negative_slope is 0.01.
  EXPECT_THAT(AsFloats(out[0]), Pointwise(FloatNear(1e-7), std::vector<float>{-0.01f, 1, 7, 9}));
}

TEST(ReferenceExecutorTest, KeywordOnlyArgumentsComeFromAttributes) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({2}));
  ir::Node* div = AddNode(graph, "div", "aten.div.Tensor_mode", {x}, F32({2}));
  div->SetAttr("other", AttrValue::Int(2));
  div->SetAttr("rounding_mode", AttrValue::String("floor"));
  ir::Value* y = graph.AddInput("y", F32({2}));
  ir::Node* gelu = AddNode(graph, "gelu", "aten.gelu.default", {y}, F32({2}));
  gelu->SetAttr("approximate", AttrValue::String("tanh"));
  graph.AddOutput(div->output());
  graph.AddOutput(gelu->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({2}, {7, -7}), Floats({2}, {1, -0.5f})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(3, -4));
  // The tanh approximation; the exact gelu(1) would be 0.8413447.
  EXPECT_THAT(AsFloats(out[1]),
              Pointwise(FloatNear(1e-7), std::vector<float>{0.841192007f, -0.154285997f}));
}

TEST(ReferenceExecutorTest, GetitemPicksOneResultOfMultiOutputOps) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({2, 3}));
  ir::Node* max =
      graph.AppendNode("max", "aten.max.dim", {x}, {"max_0", "max_1"}, {F32({2}), I64({2})});
  max->SetAttr("dim", AttrValue::Int(1));
  ir::Node* indices = graph.AppendNode("getitem", "getitem", {max->output(0), max->output(1)},
                                       {"getitem"}, {I64({2})});
  indices->SetAttr("index", AttrValue::Int(1));
  ir::Value* flat = graph.AddInput("flat", F32({5}));
  ir::Node* split =
      graph.AppendNode("split", "aten.split.Tensor", {flat}, {"split_0", "split_1", "split_2"},
                       {F32({2}), F32({2}), F32({1})});
  split->SetAttr("split_size", AttrValue::Int(2));
  ir::Node* last = graph.AppendNode("getitem_1", "getitem",
                                    {split->output(0), split->output(1), split->output(2)},
                                    {"getitem_1"}, {F32({1})});
  last->SetAttr("index", AttrValue::Int(2));
  graph.AddOutput(indices->output());
  graph.AddOutput(last->output());

  std::vector<HostTensor> out =
      MustRun(graph, {Floats({2, 3}, {1, 5, 2, 7, 0, 3}), Floats({5}, {0, 1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(AsLongs(out[0]), ElementsAre(1, 0));
  EXPECT_THAT(AsFloats(out[1]), ElementsAre(4));
}

TEST(ReferenceExecutorTest, InPlaceOpsUpdateEveryNameOfTheTensor) {
  // a = x * 1; relu_(a); b = a * 2 (reads a after relu_); add_(relu_, x);
  // c = a * 1 (sees both updates).
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({4}));
  ir::Node* a = AddNode(graph, "a", "aten.mul.Tensor", {x}, F32({4}));
  a->SetAttr("other", AttrValue::Double(1.0));
  ir::Node* relu = AddNode(graph, "relu_", "aten.relu_.default", {a->output()}, F32({4}));
  ir::Node* b = AddNode(graph, "b", "aten.mul.Tensor", {a->output()}, F32({4}));
  b->SetAttr("other", AttrValue::Double(2.0));
  AddNode(graph, "add_", "aten.add_.Tensor", {relu->output(), x}, F32({4}));
  ir::Node* c = AddNode(graph, "c", "aten.mul.Tensor", {a->output()}, F32({4}));
  c->SetAttr("other", AttrValue::Double(1.0));
  graph.AddOutput(b->output());
  graph.AddOutput(c->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({4}, {-1, 2, -3, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(0, 4, 0, 8));
  EXPECT_THAT(AsFloats(out[1]), ElementsAre(-1, 4, -3, 8));
}

TEST(ReferenceExecutorTest, InPlaceOpOnAWeightDoesNotTouchTheBoundData) {
  ir::Graph graph;
  ir::Value* w = graph.AddWeight("p_w", "w", F32({2}));
  std::vector<float> weight = {-1, 1};
  w->set_data(Bytes(weight));
  ir::Node* relu = AddNode(graph, "relu_", "aten.relu_.default", {w}, F32({2}));
  graph.AddOutput(relu->output());
  std::vector<HostTensor> out = MustRun(graph, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(0, 1));
  EXPECT_THAT(Values<float>(HostTensor{F32({2}), w->data()}), ElementsAre(-1, 1));
}

// q, k, v of shape [1, 1, 3, 2] shared by the attention tests.
std::vector<HostTensor> AttentionInputs() {
  return {Floats({1, 1, 3, 2}, {0.1f, 0.2f, 0.3f, -0.1f, 0.5f, 0.4f}),
          Floats({1, 1, 3, 2}, {0.2f, -0.3f, 0.1f, 0.4f, -0.5f, 0.2f}),
          Floats({1, 1, 3, 2}, {1, 2, 3, 4, 5, 6})};
}

TEST(ReferenceExecutorTest, ScaledDotProductAttentionRuns) {
  ir::Graph graph;
  ir::Value* q = graph.AddInput("q", F32({1, 1, 3, 2}));
  ir::Value* k = graph.AddInput("k", F32({1, 1, 3, 2}));
  ir::Value* v = graph.AddInput("v", F32({1, 1, 3, 2}));
  ir::Node* causal = AddNode(graph, "causal", "aten.scaled_dot_product_attention.default",
                             {q, k, v}, F32({1, 1, 3, 2}));
  causal->SetAttr("is_causal", AttrValue::Bool(true));
  ir::Node* scaled = AddNode(graph, "scaled", "aten.scaled_dot_product_attention.default",
                             {q, k, v}, F32({1, 1, 3, 2}));
  scaled->SetAttr("scale", AttrValue::Double(2.0));  // keyword-only
  graph.AddOutput(causal->output());
  graph.AddOutput(scaled->output());

  std::vector<HostTensor> out = MustRun(graph, AttentionInputs());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(AsFloats(out[0]),
              Pointwise(FloatNear(1e-6), std::vector<float>{1.0f, 2.0f, 1.964659333f, 2.964659452f,
                                                            2.934567213f, 3.934567213f}));
  EXPECT_THAT(
      AsFloats(out[1]),
      Pointwise(FloatNear(1e-6), std::vector<float>{3.036820889f, 4.036820889f, 2.663955927f,
                                                    3.663955927f, 2.844096184f, 3.844096184f}));
}

TEST(ReferenceExecutorTest, FlashAttentionForCpuTakesKeywordMaskAndReturnsLogsumexp) {
  // The core-ATen form of sdpa: attn_mask is keyword-only, so it follows the
  // non-tensor dropout_p and is_causal in the schema but is still an input. It
  // takes an additive mask of the query's dtype (LibTorch refuses a bool one).
  ir::Graph graph;
  ir::Value* q = graph.AddInput("q", F32({1, 1, 3, 2}));
  ir::Value* k = graph.AddInput("k", F32({1, 1, 3, 2}));
  ir::Value* v = graph.AddInput("v", F32({1, 1, 3, 2}));
  ir::Value* mask = graph.AddInput("mask", F32({3, 3}));
  ir::Node* attention = graph.AppendNode(
      "attention", "aten._scaled_dot_product_flash_attention_for_cpu.default", {q, k, v, mask},
      {"attention_0", "attention_1"}, {F32({1, 1, 3, 2}), F32({1, 1, 3})});
  graph.AddOutput(attention->output(0));
  graph.AddOutput(attention->output(1));

  std::vector<HostTensor> inputs = AttentionInputs();
  const float drop = -std::numeric_limits<float>::infinity();
  inputs.push_back(Floats({3, 3}, {0, drop, 0, 0, 0, drop, drop, 0, 0}));
  std::vector<HostTensor> out = MustRun(graph, inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(
      AsFloats(out[0]),
      Pointwise(FloatNear(1e-6), std::vector<float>{3.021212339f, 4.021212578f, 1.964659333f,
                                                    2.964659452f, 3.866452217f, 4.866452217f}));
  EXPECT_THAT(
      AsFloats(out[1]),
      Pointwise(FloatNear(1e-6), std::vector<float>{0.675525784f, 0.722056329f, 0.716287315f}));
}

TEST(ReferenceExecutorTest, SqueezeWithADimListRuns) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 2, 1, 1}));
  ir::Node* squeeze = AddNode(graph, "squeeze", "aten.squeeze.dims", {x}, F32({2, 1}));
  squeeze->SetAttr("dim", AttrValue::IntList({0, -2}));
  graph.AddOutput(squeeze->output());
  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 2, 1, 1}, {5, 6})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type, F32({2, 1}));
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(5, 6));
}

TEST(ReferenceExecutorTest, BatchNormLegitNoTrainingRunsWithThreeResults) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 2, 1, 2}));
  std::vector<ir::Value*> params;
  const std::vector<std::vector<float>> values = {{1, 2}, {0, 1}, {1, 2}, {1, 4}};
  const char* names[] = {"p_bn_weight", "p_bn_bias", "b_bn_running_mean", "b_bn_running_var"};
  for (int i = 0; i < 4; ++i) {
    params.push_back(graph.AddWeight(names[i], names[i], F32({2})));
    params.back()->set_data(Bytes(values[i]));
  }
  ir::Node* bn =
      graph.AppendNode("bn", "aten._native_batch_norm_legit_no_training.default",
                       {x, params[0], params[1], params[2], params[3]}, {"bn_0", "bn_1", "bn_2"},
                       {F32({1, 2, 1, 2}), F32({0}), F32({0})});
  bn->SetAttr("momentum", AttrValue::Double(0.1));
  bn->SetAttr("eps", AttrValue::Double(1e-5));
  ir::Node* pick =
      graph.AppendNode("getitem", "getitem", bn->outputs(), {"getitem"}, {F32({1, 2, 1, 2})});
  pick->SetAttr("index", AttrValue::Int(0));
  graph.AddOutput(pick->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 2, 1, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]),
              Pointwise(FloatNear(1e-6),
                        std::vector<float>{0.0f, 0.999994993f, 1.999998808f, 2.999997616f}));
}

TEST(ReferenceExecutorTest, RmsNormRuns) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 4}));
  ir::Value* w = graph.AddWeight("p_norm_weight", "norm.weight", F32({4}));
  w->set_data(Bytes(std::vector<float>{1, 1, 2, 2}));
  ir::Node* norm = AddNode(graph, "rms_norm", "aten.rms_norm.default", {x, w}, F32({1, 4}));
  norm->SetAttr("normalized_shape", AttrValue::IntList({4}));
  norm->SetAttr("eps", AttrValue::Double(1e-6));
  graph.AddOutput(norm->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 4}, {1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]),
              Pointwise(FloatNear(1e-6), std::vector<float>{0.365148336f, 0.730296671f,
                                                            2.190890074f, 2.921186686f}));
}

TEST(ReferenceExecutorTest, BatchNormWithoutAffineUsesRunningStatsInEvalMode) {
  // weight and bias were None: the inputs are x, running_mean, running_var.
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 2, 1, 2}));
  ir::Value* mean = graph.AddWeight("b_bn_running_mean", "bn.running_mean", F32({2}));
  mean->set_data(Bytes(std::vector<float>{1, 2}));
  ir::Value* var = graph.AddWeight("b_bn_running_var", "bn.running_var", F32({2}));
  var->set_data(Bytes(std::vector<float>{1, 4}));
  ir::Node* bn =
      AddNode(graph, "batch_norm", "aten.batch_norm.default", {x, mean, var}, F32({1, 2, 1, 2}));
  bn->SetAttr("training", AttrValue::Bool(false));
  bn->SetAttr("momentum", AttrValue::Double(0.1));
  bn->SetAttr("eps", AttrValue::Double(1e-5));
  bn->SetAttr("cudnn_enabled", AttrValue::Bool(true));
  graph.AddOutput(bn->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 2, 1, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]),
              Pointwise(FloatNear(1e-6),
                        std::vector<float>{0.0f, 0.999994993f, 0.499999374f, 0.999998748f}));
}

TEST(ReferenceExecutorTest, BatchNormInTrainingModeWithTwoTensorsTakesWeightAndBias) {
  // training=True in an eval-mode export means the module tracks no running
  // statistics: the two tensors are weight and bias.
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 2, 1, 2}));
  ir::Value* w = graph.AddWeight("p_bn_weight", "bn.weight", F32({2}));
  w->set_data(Bytes(std::vector<float>{1, 2}));
  ir::Value* b = graph.AddWeight("p_bn_bias", "bn.bias", F32({2}));
  b->set_data(Bytes(std::vector<float>{0, 1}));
  ir::Node* bn =
      AddNode(graph, "batch_norm", "aten.batch_norm.default", {x, w, b}, F32({1, 2, 1, 2}));
  bn->SetAttr("training", AttrValue::Bool(true));
  bn->SetAttr("momentum", AttrValue::Double(0.1));
  bn->SetAttr("eps", AttrValue::Double(1e-5));
  bn->SetAttr("cudnn_enabled", AttrValue::Bool(true));
  graph.AddOutput(bn->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 2, 1, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]),
              Pointwise(FloatNear(1e-6), std::vector<float>{-0.999979973f, 0.999979973f,
                                                            -0.999960005f, 2.999959946f}));
}

TEST(ReferenceExecutorTest, LayerNormWithoutBiasTakesTheWeight) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 4}));
  ir::Value* w = graph.AddWeight("p_ln_weight", "ln.weight", F32({4}));
  w->set_data(Bytes(std::vector<float>{1, 2, 3, 4}));
  ir::Node* ln = AddNode(graph, "layer_norm", "aten.layer_norm.default", {x, w}, F32({1, 4}));
  ln->SetAttr("normalized_shape", AttrValue::IntList({4}));
  graph.AddOutput(ln->output());

  std::vector<HostTensor> out = MustRun(graph, {Floats({1, 4}, {1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(AsFloats(out[0]),
              Pointwise(FloatNear(1e-5), std::vector<float>{-1.341635466f, -0.894423604f,
                                                            1.341635466f, 5.366541862f}));
}

TEST(ReferenceExecutorTest, AmbiguousOptionalTensorIsAClearError) {
  // clamp(x, min=None, max=t) leaves one tensor for two optional arguments.
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({2}));
  ir::Value* t = graph.AddInput("t", F32({2}));
  ir::Node* clamp = AddNode(graph, "clamp", "aten.clamp.Tensor", {x, t}, F32({2}));
  graph.AddOutput(clamp->output());
  EXPECT_THAT(ErrorOf(graph, {Floats({2}, {1, 2}), Floats({2}, {0, 0})}),
              HasSubstr("node 'clamp' (aten.clamp.Tensor): 1 of the optional tensor arguments "
                        "'min', 'max' were given"));
}

TEST(ReferenceExecutorTest, UnknownOpsAreAllReported) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({2}));
  ir::Node* a = AddNode(graph, "foo", "aten.does_not_exist.default", {x}, F32({2}));
  ir::Node* b = AddNode(graph, "bar", "aten.relu.no_such_overload", {a->output()}, F32({2}));
  graph.AddOutput(b->output());
  std::string error = ErrorOf(graph, {Floats({2}, {1, 2})});
  EXPECT_THAT(error, HasSubstr("node 'foo' (aten.does_not_exist.default): unknown op"));
  EXPECT_THAT(error, HasSubstr("node 'bar' (aten.relu.no_such_overload): unknown op"));
  EXPECT_FALSE(CheckOpsKnown(graph).ok());
}

TEST(ReferenceExecutorTest, BadAttributeNamesNodeAndArgument) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1, 1, 4, 4}));
  ir::Node* pool = AddNode(graph, "max_pool2d", "aten.max_pool2d.default", {x}, F32({1, 1, 2, 2}));
  pool->SetAttr("kernel_size", AttrValue::String("big"));
  graph.AddOutput(pool->output());
  EXPECT_THAT(ErrorOf(graph, {Floats({1, 1, 4, 4}, std::vector<float>(16))}),
              HasSubstr("node 'max_pool2d' (aten.max_pool2d.default): argument 'kernel_size' "
                        "(int[2]): cannot take the value 'big'"));
}

TEST(ReferenceExecutorTest, MissingAndUnknownAttributesAreErrors) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({2}));
  ir::Node* softmax = AddNode(graph, "softmax", "aten.softmax.int", {x}, F32({2}));
  graph.AddOutput(softmax->output());
  EXPECT_THAT(ErrorOf(graph, {Floats({2}, {1, 2})}),
              HasSubstr("node 'softmax' (aten.softmax.int): argument 'dim' (int): missing"));
  softmax->SetAttr("dim", AttrValue::Int(0));
  softmax->SetAttr("temperature", AttrValue::Double(2.0));
  EXPECT_THAT(ErrorOf(graph, {Floats({2}, {1, 2})}),
              HasSubstr("attribute 'temperature' = 2.0 names no argument"));
}

TEST(ReferenceExecutorTest, LibTorchFailuresBecomeStatuses) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({6}));
  ir::Node* view = AddNode(graph, "view", "aten.view.default", {x}, F32({4}));
  view->SetAttr("size", AttrValue::IntList({4}));
  graph.AddOutput(view->output());
  EXPECT_THAT(ErrorOf(graph, {Floats({6}, std::vector<float>(6))}),
              HasSubstr("node 'view' (aten.view.default): LibTorch: shape '[4]' is invalid"));
}

TEST(ReferenceExecutorTest, ResultsMustMatchTheRecordedTypes) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({3}));
  ir::Node* relu = AddNode(graph, "relu", "aten.relu.default", {x}, F32({4}));
  graph.AddOutput(relu->output());
  EXPECT_THAT(ErrorOf(graph, {Floats({3}, {1, 2, 3})}),
              HasSubstr("output 'relu': computed float32[3] but the graph records float32[4]"));
}

TEST(ReferenceExecutorTest, InputsMustMatchTheGraph) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({3}));
  graph.AddOutput(x);
  EXPECT_THAT(ErrorOf(graph, {Floats({2}, {1, 2})}),
              HasSubstr("input 'x' is float32[2], the graph expects float32[3]"));
  EXPECT_THAT(ErrorOf(graph, {}), HasSubstr("the graph takes 1 input(s), 0 given"));
}


}  // namespace
}  // namespace torchir::reference
