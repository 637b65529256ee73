#include "tools/reference/edge_reference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/dialect/edge_ops.h"
#include "tests/support/graph_builder.h"

// Every expected number below is worked out by hand in the comment above it,
// from the op's meaning in docs/edge-dialect.md; none comes from LibTorch.
namespace torchir::reference {
namespace {

using ir::DType;
using ::testing::ElementsAre;
using testing::F32;
using ::testing::FloatNear;
using testing::GraphBuilder;
using ::testing::HasSubstr;
using testing::I64;
using ::testing::Pointwise;

constexpr double kInf = INFINITY;

ir::TensorType I32(std::vector<int64_t> sizes) { return {DType::kInt32, std::move(sizes)}; }

template <typename T>
HostTensor Host(ir::TensorType type, const std::vector<T>& values) {
  return {std::move(type), testing::DataOf(values)};
}

template <typename T>
std::vector<T> Values(const HostTensor& tensor, DType dtype) {
  EXPECT_EQ(tensor.type.dtype, dtype);
  std::vector<T> values(tensor.data.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), tensor.data.data(), tensor.data.size());
  return values;
}
std::vector<float> AsFloats(const HostTensor& t) { return Values<float>(t, DType::kFloat32); }
std::vector<int64_t> AsLongs(const HostTensor& t) { return Values<int64_t>(t, DType::kInt64); }
std::vector<int32_t> AsInts(const HostTensor& t) { return Values<int32_t>(t, DType::kInt32); }

// Runs a well-formed Edge graph (checked by the dialect verifier first).
std::vector<HostTensor> MustRun(const ir::Graph& graph, const std::vector<HostTensor>& inputs) {
  absl::Status verified = dialect::VerifyEdgeGraph(graph);
  EXPECT_TRUE(verified.ok()) << verified;
  absl::StatusOr<std::vector<HostTensor>> outputs = RunEdgeReference(graph, inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (outputs.ok()) {
    EXPECT_EQ(outputs->size(), graph.outputs().size());
  }
  return outputs.ok() ? *outputs : std::vector<HostTensor>(graph.outputs().size());
}

std::string ErrorOf(const ir::Graph& graph, const std::vector<HostTensor>& inputs) {
  absl::StatusOr<std::vector<HostTensor>> outputs = RunEdgeReference(graph, inputs);
  EXPECT_FALSE(outputs.ok());
  return outputs.ok() ? "" : std::string(outputs.status().message());
}

TEST(EdgeReferenceTest, EveryEdgeOpHasAnImplementationAndNoOtherOpDoes) {
  std::vector<std::string> implemented = EdgeReferenceOps();
  std::vector<std::string> missing;
  std::vector<std::string> table;
  for (const dialect::EdgeOpDef& op : dialect::EdgeOps()) {
    table.push_back(op.name);
    if (!std::binary_search(implemented.begin(), implemented.end(), op.name)) {
      missing.push_back(op.name);
    }
  }
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "Edge ops the reference executor cannot run";
  std::sort(table.begin(), table.end());
  EXPECT_EQ(implemented, table) << "the reference implements ops the dialect table lacks";
}

TEST(EdgeReferenceTest, ConvolutionAddsBiasAndAppliesTheFusedClamp) {
  // x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], w = [[1, 2], [0, -1]], b = 0.5:
  // out[i][j] = x[i][j] + 2 x[i][j+1] - x[i+1][j+1] + 0.5
  //           = [[1 + 4 - 5, 2 + 6 - 6], [4 + 10 - 8, 5 + 12 - 9]] + 0.5
  //           = [[0.5, 2.5], [6.5, 8.5]], clamped to [1, 7]: [[1, 2.5], [6.5, 7]].
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 1, 3, 3}));
  ir::Value* w = b.Weight("w", F32({1, 1, 2, 2}), std::vector<float>{1, 2, 0, -1});
  ir::Value* bias = b.Weight("b", F32({1}), std::vector<float>{0.5f});
  auto conv = [&](double lo, double hi) {
    return b.Op("edge.convolution", {x, w, bias})
        .Attr("stride", {1, 1})
        .Attr("padding", {0, 0})
        .Attr("dilation", {1, 1})
        .Attr("groups", 1)
        .Attr("output_min", lo)
        .Attr("output_max", hi)
        .Out(F32({1, 1, 2, 2}));
  };
  b.Output(conv(1.0, 7.0));
  b.Output(conv(-kInf, kInf));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out =
      MustRun(*graph, {Host(F32({1, 1, 3, 3}), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9})});
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(1.0f, 2.5f, 6.5f, 7.0f));
  EXPECT_THAT(AsFloats(out[1]), ElementsAre(0.5f, 2.5f, 6.5f, 8.5f));
}

TEST(EdgeReferenceTest, LinearThenClampAsRelu) {
  // W = [[1, -1], [2, 0.5]], b = [0.5, -10], x = [3, 1]:
  // linear = [3 - 1 + 0.5, 6 + 0.5 - 10] = [2.5, -3.5]; clamp [0, inf) = [2.5, 0].
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2}));
  ir::Value* w = b.Weight("w", F32({2, 2}), std::vector<float>{1, -1, 2, 0.5f});
  ir::Value* bias = b.Weight("b", F32({2}), std::vector<float>{0.5f, -10});
  ir::Value* linear = b.Op("edge.linear", {x, w, bias})
                          .Attr("output_min", -kInf)
                          .Attr("output_max", kInf)
                          .Out(F32({1, 2}));
  ir::Value* relu =
      b.Op("edge.clamp", {linear}).Attr("min", 0.0).Attr("max", kInf).Out(F32({1, 2}));
  b.Output(linear);
  b.Output(relu);
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out = MustRun(*graph, {Host(F32({1, 2}), std::vector<float>{3, 1})});
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(2.5f, -3.5f));
  EXPECT_THAT(AsFloats(out[1]), ElementsAre(2.5f, 0.0f));
}

TEST(EdgeReferenceTest, BatchNormUsesRunningStatisticsWithAndWithoutAffine) {
  // Channels c0 = [1, 3], c1 = [2, 6]; mean = [2, 4], var = [4, 1], eps = 0.
  // normalised: c0 = [-1/2, 1/2], c1 = [-2, 2]; with weight [1, 2] and bias
  // [0, 1]: c0 = [-0.5, 0.5], c1 = [-3, 5].
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 1, 2}));
  ir::Value* mean = b.Weight("mean", F32({2}), std::vector<float>{2, 4});
  ir::Value* var = b.Weight("var", F32({2}), std::vector<float>{4, 1});
  ir::Value* weight = b.Weight("weight", F32({2}), std::vector<float>{1, 2});
  ir::Value* bias = b.Weight("bias", F32({2}), std::vector<float>{0, 1});
  b.Output(b.Op("edge.batch_norm", {x, mean, var, weight, bias})
               .Attr("eps", 0.0)
               .Out(F32({1, 2, 1, 2})));
  b.Output(b.Op("edge.batch_norm", {x, mean, var}).Attr("eps", 0.0).Out(F32({1, 2, 1, 2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out =
      MustRun(*graph, {Host(F32({1, 2, 1, 2}), std::vector<float>{1, 3, 2, 6})});
  EXPECT_THAT(AsFloats(out[0]), Pointwise(FloatNear(1e-6f), {-0.5f, 0.5f, -3.0f, 5.0f}));
  EXPECT_THAT(AsFloats(out[1]), Pointwise(FloatNear(1e-6f), {-0.5f, 0.5f, -2.0f, 2.0f}));
}

TEST(EdgeReferenceTest, ReshapeSlicePermuteMoveElements) {
  // 0..5 as [3, 2] = [[0, 1], [2, 3], [4, 5]]; rows 1..2 = [[2, 3], [4, 5]];
  // transposed = [[2, 4], [3, 5]].
  GraphBuilder b;
  ir::Value* x = b.Input("x", I64({2, 3}));
  ir::Value* reshaped = b.Op("edge.reshape", {x}).Attr("shape", {3, 2}).Out(I64({3, 2}));
  ir::Value* sliced = b.Op("edge.slice", {reshaped})
                          .Attr("dim", 0)
                          .Attr("start", 1)
                          .Attr("end", 3)
                          .Attr("step", 1)
                          .Out(I64({2, 2}));
  b.Output(b.Op("edge.permute", {sliced}).Attr("dims", {1, 0}).Out(I64({2, 2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out =
      MustRun(*graph, {Host(I64({2, 3}), std::vector<int64_t>{0, 1, 2, 3, 4, 5})});
  EXPECT_EQ(out[0].type, I64({2, 2}));
  EXPECT_THAT(AsLongs(out[0]), ElementsAre(2, 4, 3, 5));
}

TEST(EdgeReferenceTest, MaxDimGivesValuesAndFirstIndexThenCastTruncates) {
  // [[1.5, -2, 7.9], [3, 3, -1]]: row maxima 7.9 (index 2) and 3 (first at 0);
  // cast to int64 truncates toward zero: [7, 3].
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  std::vector<ir::Value*> max =
      b.Op("edge.max_dim", {x}).Attr("dim", 1).Attr("keepdim", false).Outs({F32({2}), I64({2})});
  b.Output(max[1]);
  b.Output(b.Op("edge.cast", {max[0]})
               .Attr("dtype", ir::AttrValue::OfDType(DType::kInt64))
               .Out(I64({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out =
      MustRun(*graph, {Host(F32({2, 3}), std::vector<float>{1.5f, -2, 7.9f, 3, 3, -1})});
  EXPECT_THAT(AsLongs(out[0]), ElementsAre(2, 0));
  EXPECT_THAT(AsLongs(out[1]), ElementsAre(7, 3));
}

TEST(EdgeReferenceTest, IndexSelectThenConstantPad) {
  // Rows [2, 0] of [[1, 2], [3, 4], [5, 6]] = [[5, 6], [1, 2]]; pad (1, 0) on
  // the last dim with -1 = [[-1, 5, 6], [-1, 1, 2]].
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3, 2}));
  ir::Value* index = b.Input("index", I32({2}));
  ir::Value* rows = b.Op("edge.index_select", {x, index}).Attr("dim", 0).Out(F32({2, 2}));
  b.Output(
      b.Op("edge.constant_pad", {rows}).Attr("pad", {1, 0}).Attr("value", -1.0).Out(F32({2, 3})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out =
      MustRun(*graph, {Host(F32({3, 2}), std::vector<float>{1, 2, 3, 4, 5, 6}),
                       Host(I32({2}), std::vector<int32_t>{2, 0})});
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(-1, 5, 6, -1, 1, 2));
}

TEST(EdgeReferenceTest, IntegerOpsKeepTheirDtype) {
  // sum over all of [[1, 2], [3, 4]] (int32) = 10, still int32 (LibTorch alone
  // would give int64); clamp of int64 [0, 1, 2, 3] to [0.5, 2.5] keeps the
  // integers inside: [1, 1, 2, 2].
  GraphBuilder b;
  ir::Value* x = b.Input("x", I32({2, 2}));
  ir::Value* y = b.Input("y", I64({4}));
  b.Output(b.Op("edge.sum", {x})
               .Attr("dims", std::vector<int64_t>{})
               .Attr("keepdim", false)
               .Out(I32({})));
  b.Output(b.Op("edge.clamp", {y}).Attr("min", 0.5).Attr("max", 2.5).Out(I64({4})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out =
      MustRun(*graph, {Host(I32({2, 2}), std::vector<int32_t>{1, 2, 3, 4}),
                       Host(I64({4}), std::vector<int64_t>{0, 1, 2, 3})});
  EXPECT_EQ(out[0].type, I32({}));
  EXPECT_THAT(AsInts(out[0]), ElementsAre(10));
  EXPECT_THAT(AsLongs(out[1]), ElementsAre(1, 1, 2, 2));
}

TEST(EdgeReferenceTest, OpsWithoutAHandImplementationRunAsTheirAtenNamesake) {
  // The generic fallback: edge.<kernel> as aten::<kernel>, tensors in order, attributes by name.
  // x = [-2, 0.5, 3], y = [1, 2, -1]:
  //   sub = [-3, -1.5, 4]; pow(|x|, y) = [2, 0.25, 1/3];
  //   leaky_relu(x, 0.25) = [-0.5, 0.5, 3]; where(x > y, x, y) = [1, 2, 3].
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  ir::Value* y = b.Input("y", F32({3}));
  b.Output(b.Op("edge.sub", {x, y}).Out(F32({3})));
  ir::Value* magnitude = b.Op("edge.abs", {x}).Out(F32({3}));
  b.Output(b.Op("edge.pow", {magnitude, y}).Out(F32({3})));
  b.Output(b.Op("edge.leaky_relu", {x}).Attr("negative_slope", 0.25).Out(F32({3})));
  ir::Value* greater = b.Op("edge.gt", {x, y}).Out({DType::kBool, {3}});
  b.Output(b.Op("edge.where", {greater, x, y}).Out(F32({3})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::vector<HostTensor> out =
      MustRun(*graph, {Host(F32({3}), std::vector<float>{-2, 0.5f, 3}),
                       Host(F32({3}), std::vector<float>{1, 2, -1})});
  EXPECT_THAT(AsFloats(out[0]), ElementsAre(-3.0f, -1.5f, 4.0f));
  EXPECT_THAT(AsFloats(out[1]), Pointwise(FloatNear(1e-6f), {2.0f, 0.25f, 1.0f / 3}));
  EXPECT_THAT(AsFloats(out[2]), ElementsAre(-0.5f, 0.5f, 3.0f));
  EXPECT_THAT(AsFloats(out[3]), ElementsAre(1.0f, 2.0f, 3.0f));
}

TEST(EdgeReferenceTest, TheFallbackRefusesCallsNoOverloadTakes) {
  // An attribute the ATen namesake has no argument for.
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  b.Output(b.Op("edge.exp", {x}).Name("odd").Attr("base", 2.0).Out(F32({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  EXPECT_THAT(ErrorOf(*graph, {Host(F32({2}), std::vector<float>{1, 2})}),
              HasSubstr("node 'odd' (edge.exp): no overload of aten::exp takes its operands and "
                        "attributes"));
}

TEST(EdgeReferenceTest, OpsOutsideTheDialectAreAllListed) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  ir::Value* y = b.Op("aten.relu.default", {x}).Name("relu").Out(F32({2}));
  b.Output(b.Op("edge.conv2d", {y}).Name("conv").Out(F32({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  std::string error = ErrorOf(*graph, {Host(F32({2}), std::vector<float>{1, 2})});
  EXPECT_THAT(error, HasSubstr("node 'relu' (aten.relu.default): the Edge reference executor "
                               "has no such op"));
  EXPECT_THAT(error, HasSubstr("node 'conv' (edge.conv2d)"));
}

TEST(EdgeReferenceTest, MissingAttributeAndWrongRecordedTypeNameTheNode) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  b.Output(b.Op("edge.clamp", {x}).Name("open").Attr("min", 0.0).Out(F32({2})));
  std::unique_ptr<ir::Graph> missing = b.Build();
  std::string error = ErrorOf(*missing, {Host(F32({2}), std::vector<float>{1, 2})});
  EXPECT_THAT(error, HasSubstr("node 'open' (edge.clamp): "));
  EXPECT_THAT(error, HasSubstr("attribute 'max' is missing"));

  GraphBuilder c;
  ir::Value* z = c.Input("x", F32({2}));
  c.Output(c.Op("edge.neg", {z}).Name("neg").Out(F32({3})));
  std::unique_ptr<ir::Graph> wrong = c.Build();
  EXPECT_THAT(ErrorOf(*wrong, {Host(F32({2}), std::vector<float>{1, 2})}),
              HasSubstr("node 'neg' (edge.neg): output 'neg': computed float32[2] but the graph "
                        "records float32[3]"));
}

TEST(EdgeReferenceTest, InputsMustMatchTheGraph) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  b.Output(b.Op("edge.neg", {x}).Out(F32({2})));
  std::unique_ptr<ir::Graph> graph = b.Build();
  EXPECT_THAT(ErrorOf(*graph, {Host(F32({3}), std::vector<float>{1, 2, 3})}),
              HasSubstr("input 'x' is float32[3], the graph expects float32[2]"));
  EXPECT_THAT(ErrorOf(*graph, {}), HasSubstr("the graph takes 1 input(s), 0 given"));
}

}  // namespace
}  // namespace torchir::reference
