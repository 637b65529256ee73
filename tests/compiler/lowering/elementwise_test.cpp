// The elementwise family's lowering rules (compiler/lowering/rules/elementwise.cpp): arithmetic,
// unary math, activations, comparisons, where/masked_fill, eval-mode identities and dtype
// conversions, on tiny hand-made graphs and on the zoo's op-level models.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "compiler/dialect/aten_schema.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/frontend/ir_reader.h"
#include "compiler/lowering/lowering.h"
#include "compiler/lowering/rule_table.h"
#include "tests/support/graph_builder.h"

namespace torchir::lowering {
namespace {

using testing::Bool;
using ::testing::ElementsAre;
using testing::F32;
using testing::GraphBuilder;
using ::testing::HasSubstr;
using testing::I64;

constexpr double kInf = std::numeric_limits<double>::infinity();

ir::TensorType I32(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kInt32, std::move(sizes)};
}

std::unique_ptr<ir::Graph> Lower(GraphBuilder& b) {
  std::unique_ptr<ir::Graph> aten = b.Build();
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge = LowerToEdge(*aten);
  EXPECT_TRUE(edge.ok()) << edge.status();
  return edge.ok() ? std::move(*edge) : nullptr;
}

absl::Status LowerStatus(GraphBuilder& b) {
  std::unique_ptr<ir::Graph> aten = b.Build();
  return LowerToEdge(*aten).status();
}

std::vector<const ir::Node*> Nodes(const ir::Graph& graph) {
  std::vector<const ir::Node*> nodes;
  for (const ir::Node* node : graph.nodes()) nodes.push_back(node);
  return nodes;
}

std::vector<std::string> Ops(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node* node : graph.nodes()) ops.push_back(node->op());
  return ops;
}

// The number a 0-d constant holds.
double ScalarOf(const ir::Value* value) {
  EXPECT_TRUE(value->is_constant_like());
  EXPECT_EQ(value->type().rank(), 0u);
  const uint8_t* bytes = value->data().data();
  switch (value->dtype()) {
    case ir::DType::kFloat32: {
      float v;
      std::memcpy(&v, bytes, sizeof v);
      return v;
    }
    case ir::DType::kInt64: {
      int64_t v;
      std::memcpy(&v, bytes, sizeof v);
      return static_cast<double>(v);
    }
    case ir::DType::kInt32: {
      int32_t v;
      std::memcpy(&v, bytes, sizeof v);
      return v;
    }
    default:
      ADD_FAILURE() << "unexpected constant dtype";
      return 0;
  }
}

std::pair<double, double> ClampBounds(const ir::Node* clamp) {
  return {clamp->FindAttr("min")->as_double(), clamp->FindAttr("max")->as_double()};
}

// ---- Scalars and promotion ----

TEST(ElementwiseLowering, PythonScalarBecomesZeroDConstantOfTheOutputDtype) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  ir::Value* ids = b.Input("ids", I64({2, 3}));
  b.Output(b.Op("aten.add.Tensor", {x}).Attr("other", 2.0).Out(F32({2, 3})));
  b.Output(b.Op("aten.add.Tensor", {ids}).Attr("other", 1).Out(I64({2, 3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.add", "edge.add"));
  const ir::Value* float_scalar = Nodes(*edge)[0]->input(1);
  EXPECT_EQ(float_scalar->type(), F32({}));
  EXPECT_EQ(ScalarOf(float_scalar), 2.0);
  const ir::Value* int_scalar = Nodes(*edge)[1]->input(1);
  EXPECT_EQ(int_scalar->type(), I64({}));
  EXPECT_EQ(ScalarOf(int_scalar), 1.0);
}

TEST(ElementwiseLowering, IntTensorTimesHalfIsCastToFloatFirst) {
  GraphBuilder b;
  ir::Value* ids = b.Input("ids", I64({2, 3}));
  b.Output(b.Op("aten.mul.Tensor", {ids}).Attr("other", 0.5).Out(F32({2, 3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.mul"));
  const ir::Node* cast = Nodes(*edge)[0];
  EXPECT_EQ(cast->input(0), edge->inputs()[0]);
  EXPECT_EQ(cast->FindAttr("dtype")->as_dtype(), ir::DType::kFloat32);
  const ir::Node* mul = Nodes(*edge)[1];
  EXPECT_EQ(mul->input(0), cast->output(0));
  EXPECT_EQ(ScalarOf(mul->input(1)), 0.5);
}

TEST(ElementwiseLowering, AddAlphaScalesOther) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  ir::Value* y = b.Input("y", F32({3}));
  b.Output(b.Op("aten.add.Tensor", {x, y}).Attr("alpha", 2.0).Out(F32({2, 3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.mul", "edge.add"));
  const ir::Node* mul = Nodes(*edge)[0];
  EXPECT_EQ(mul->input(0), edge->inputs()[1]);
  EXPECT_EQ(ScalarOf(mul->input(1)), 2.0);
  const ir::Node* add = Nodes(*edge)[1];
  EXPECT_EQ(add->input(0), edge->inputs()[0]);
  EXPECT_EQ(add->input(1), mul->output(0));
}

TEST(ElementwiseLowering, AlphaTimesANumberFoldsIntoTheConstant) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(b.Op("aten.sub.Scalar", {x}).Attr("other", 3).Attr("alpha", 2).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.sub"));
  EXPECT_EQ(ScalarOf(Nodes(*edge)[0]->input(1)), 6.0);
}

TEST(ElementwiseLowering, RsubSubtractsSelfFromOther) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(b.Op("aten.rsub.Scalar", {x}).Attr("other", 1.0).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.sub"));
  EXPECT_EQ(ScalarOf(Nodes(*edge)[0]->input(0)), 1.0);
  EXPECT_EQ(Nodes(*edge)[0]->input(1), edge->inputs()[0]);
}

TEST(ElementwiseLowering, DivOfIntegersIsTrueDivisionInFloat) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", I64({4}));
  ir::Value* c = b.Input("c", I64({4}));
  b.Output(b.Op("aten.div.Tensor", {a, c}).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.cast", "edge.div"));
}

TEST(ElementwiseLowering, DivWithRoundingModeFloorIsFloorDivideAndTruncTruncates) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* y = b.Input("y", F32({4}));
  b.Output(b.Op("aten.div.Tensor_mode", {x, y}).Attr("rounding_mode", "floor").Out(F32({4})));
  b.Output(b.Op("aten.div.Tensor_mode", {x, y}).Attr("rounding_mode", "trunc").Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.floor_divide", "edge.div", "edge.trunc"));
}

TEST(ElementwiseLowering, IntegerDivWithRoundingModeTruncFloorsAnExactMultiple) {
  // a - fmod(a, b) is a multiple of b, so floor_divide of it rounds nothing (zoo
  // binary_integer checks the numbers against eager).
  GraphBuilder b;
  ir::Value* x = b.Input("x", I64({4}));
  ir::Value* y = b.Input("y", I64({4}));
  b.Output(b.Op("aten.div.Tensor_mode", {x, y}).Attr("rounding_mode", "trunc").Out(I64({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.fmod", "edge.sub", "edge.floor_divide"));
}

// Rounding integers is the identity; round.decimals scales around edge.round; logical ops
// are bitwise ops on bool; isnan is x != x; square is x * x; celu and selu are elu.
TEST(ElementwiseLowering, NewElementwiseOpsLowerToTheirEdgeForms) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* n = b.Input("n", I64({4}));
  b.Output(b.Op("aten.floor.default", {n}).Out(I64({4})));
  b.Output(b.Op("aten.round.decimals", {x}).Attr("decimals", 2).Out(F32({4})));
  b.Output(b.Op("aten.logical_and.default", {x, n}).Out(Bool({4})));
  b.Output(b.Op("aten.isnan.default", {x}).Out(Bool({4})));
  b.Output(b.Op("aten.square.default", {x}).Out(F32({4})));
  b.Output(b.Op("aten.celu.default", {x}).Attr("alpha", 2.0).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.mul", "edge.round", "edge.div",        // decimals
                                      "edge.cast", "edge.cast", "edge.bitwise_and",  // logical
                                      "edge.ne", "edge.mul", "edge.elu"));
  const ir::Node* elu = nullptr;
  for (const ir::Node* node : edge->nodes()) elu = node;
  EXPECT_EQ(elu->FindAttr("input_scale")->as_double(), 0.5);
  EXPECT_EQ(elu->FindAttr("scale")->as_double(), 1.0);
}

TEST(ElementwiseLowering, PreluIsEdgePreluAndItsWeightIsChecked) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4, 5}));
  ir::Value* w = b.Weight("w", F32({3}), std::vector<float>{0.1f, 0.2f, 0.3f});
  b.Output(b.Op("aten.prelu.default", {x, w}).Out(F32({2, 3, 4, 5})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.prelu"));

  GraphBuilder wrong;
  ir::Value* y = wrong.Input("x", F32({2, 3, 4, 5}));
  ir::Value* w4 = wrong.Weight("w", F32({4}), std::vector<float>(4, 0.25f));
  wrong.Output(wrong.Op("aten.prelu.default", {y, w4}).Out(F32({2, 3, 4, 5})));
  EXPECT_THAT(std::string(LowerStatus(wrong).message()),
              HasSubstr("prelu weight float32[4] is neither one slope nor one per channel"));
}

TEST(ElementwiseLowering, DivWithoutRoundingModeIsTrueDivision) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* y = b.Input("y", F32({4}));
  b.Output(b.Op("aten.div.Tensor_mode", {x, y}).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.div"));
}

TEST(ElementwiseLowering, UnaryFloatOpOfAnIntTensorCastsFirst) {
  GraphBuilder b;
  ir::Value* ids = b.Input("ids", I64({3}));
  b.Output(b.Op("aten.exp.default", {ids}).Out(F32({3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.exp"));
}

// ---- Activations ----

TEST(ElementwiseLowering, ReluAndInPlaceReluBecomeClampZeroToInfinity) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  ir::Value* r = b.Op("aten.relu.default", {x}).Out(F32({2, 3}));
  b.Output(b.Op("aten.relu_.default", {r}).Out(F32({2, 3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.clamp", "edge.clamp"));
  for (const ir::Node* clamp : edge->nodes()) {
    EXPECT_EQ(ClampBounds(clamp), std::make_pair(0.0, kInf));
  }
}

TEST(ElementwiseLowering, HardtanhKeepsItsBoundsAndDefaults) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(
      b.Op("aten.hardtanh.default", {x}).Attr("min_val", 0.0).Attr("max_val", 6.0).Out(F32({4})));
  b.Output(b.Op("aten.hardtanh_.default", {x}).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.clamp", "edge.clamp"));
  EXPECT_EQ(ClampBounds(Nodes(*edge)[0]), std::make_pair(0.0, 6.0));
  EXPECT_EQ(ClampBounds(Nodes(*edge)[1]), std::make_pair(-1.0, 1.0));
}

TEST(ElementwiseLowering, ClampLeavesAnOpenSideInfinite) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(b.Op("aten.clamp.default", {x}).Attr("min", -0.5).Out(F32({4})));
  b.Output(b.Op("aten.clamp_max.default", {x}).Attr("max", 2).Out(F32({4})));
  b.Output(b.Op("aten.clamp.default", {x}).Attr("min", -1).Attr("max", 1).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.clamp", "edge.clamp", "edge.clamp"));
  EXPECT_EQ(ClampBounds(Nodes(*edge)[0]), std::make_pair(-0.5, kInf));
  EXPECT_EQ(ClampBounds(Nodes(*edge)[1]), std::make_pair(-kInf, 2.0));
  EXPECT_EQ(ClampBounds(Nodes(*edge)[2]), std::make_pair(-1.0, 1.0));
}

TEST(ElementwiseLowering, ActivationsWriteTheirAttributes) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(b.Op("aten.gelu.default", {x}).Attr("approximate", "tanh").Out(F32({4})));
  b.Output(b.Op("aten.gelu.default", {x}).Out(F32({4})));
  b.Output(b.Op("aten.leaky_relu.default", {x}).Attr("negative_slope", 0.2).Out(F32({4})));
  b.Output(b.Op("aten.leaky_relu_.default", {x}).Out(F32({4})));
  b.Output(b.Op("aten.hardswish_.default", {x}).Out(F32({4})));
  b.Output(b.Op("aten.hardsigmoid.default", {x}).Out(F32({4})));
  b.Output(b.Op("aten.silu.default", {x}).Out(F32({4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge),
              ElementsAre("edge.gelu", "edge.gelu", "edge.leaky_relu", "edge.leaky_relu",
                          "edge.hardswish", "edge.hardsigmoid", "edge.silu"));
  EXPECT_EQ(Nodes(*edge)[0]->FindAttr("approximate")->as_string(), "tanh");
  EXPECT_EQ(Nodes(*edge)[1]->FindAttr("approximate")->as_string(), "none");
  EXPECT_EQ(Nodes(*edge)[2]->FindAttr("negative_slope")->as_double(), 0.2);
  EXPECT_EQ(Nodes(*edge)[3]->FindAttr("negative_slope")->as_double(), 0.01);
}

// ---- Comparisons ----

TEST(ElementwiseLowering, ComparisonOfAnIntTensorWithAFloatComparesInFloat) {
  GraphBuilder b;
  ir::Value* ids = b.Input("ids", I64({3}));
  b.Output(b.Op("aten.gt.Scalar", {ids}).Attr("other", 0.5).Out(Bool({3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.gt"));
  const ir::Node* gt = Nodes(*edge)[1];
  EXPECT_EQ(gt->input(0)->dtype(), ir::DType::kFloat32);
  EXPECT_EQ(gt->input(1)->type(), F32({}));
  EXPECT_EQ(gt->output(0)->dtype(), ir::DType::kBool);
}

TEST(ElementwiseLowering, ComparisonOfAFloatTensorWithAnIntKeepsTheTensorDtype) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  b.Output(b.Op("aten.gt.Scalar", {x}).Attr("other", 0).Out(Bool({3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.gt"));
  EXPECT_EQ(Nodes(*edge)[0]->input(1)->type(), F32({}));
}

TEST(ElementwiseLowering, ComparisonOfTwoTensorsPromotesToTheWiderType) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", I32({3}));
  ir::Value* c = b.Input("c", I64({3}));
  b.Output(b.Op("aten.eq.Tensor", {a, c}).Out(Bool({3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.eq"));
  EXPECT_EQ(Nodes(*edge)[0]->FindAttr("dtype")->as_dtype(), ir::DType::kInt64);
}

TEST(ElementwiseLowering, ComparisonWithAZeroDTensorOfTheSameCategoryKeepsTheDimensionedType) {
  // PyTorch: result_type(int32[3], int64[]) is int32.
  GraphBuilder b;
  ir::Value* a = b.Input("a", I32({3}));
  ir::Value* c = b.Input("c", I64({}));
  b.Output(b.Op("aten.lt.Tensor", {a, c}).Out(Bool({3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.lt"));
  EXPECT_EQ(Nodes(*edge)[0]->input(0), edge->inputs()[1]);
  EXPECT_EQ(Nodes(*edge)[0]->FindAttr("dtype")->as_dtype(), ir::DType::kInt32);
}

TEST(ElementwiseLowering, ComparisonOfBoolsComparesExactlyInInt32) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", Bool({3}));
  ir::Value* c = b.Input("c", Bool({3}));
  b.Output(b.Op("aten.ne.Tensor", {a, c}).Out(Bool({3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.cast", "edge.ne"));
}

// ---- Selection ----

TEST(ElementwiseLowering, WhereSelectsBetweenBranchesOfTheOutputDtype) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  ir::Value* ids = b.Input("ids", I64({2, 3}));
  ir::Value* mask = b.Op("aten.gt.Scalar", {x}).Attr("other", 0).Out(Bool({2, 3}));
  b.Output(b.Op("aten.where.self", {mask, x, ids}).Out(F32({2, 3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.gt", "edge.cast", "edge.where"));
  const ir::Node* where = Nodes(*edge)[2];
  EXPECT_EQ(where->input(0), Nodes(*edge)[0]->output(0));
  EXPECT_EQ(where->input(1), edge->inputs()[0]);
  EXPECT_EQ(where->input(2), Nodes(*edge)[1]->output(0));
}

TEST(ElementwiseLowering, MaskedFillIsWhereOfMaskValueSelf) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 4}));
  ir::Value* mask = b.Input("mask", Bool({4}));
  b.Output(b.Op("aten.masked_fill.Scalar", {x, mask}).Attr("value", -kInf).Out(F32({2, 4})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.where"));
  const ir::Node* where = Nodes(*edge)[0];
  EXPECT_EQ(where->input(0), edge->inputs()[1]);
  EXPECT_EQ(ScalarOf(where->input(1)), -kInf);
  EXPECT_EQ(where->input(2), edge->inputs()[0]);
}

TEST(ElementwiseLowering, MaskedFillTensorTakesAZeroDValueOnly) {
  GraphBuilder ok;
  ir::Value* x = ok.Input("x", F32({4}));
  ir::Value* mask = ok.Input("mask", Bool({4}));
  ir::Value* value = ok.Input("value", F32({}));
  ok.Output(ok.Op("aten.masked_fill.Tensor", {x, mask, value}).Out(F32({4})));
  auto edge = Lower(ok);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.where"));

  GraphBuilder bad;
  x = bad.Input("x", F32({4}));
  mask = bad.Input("mask", Bool({4}));
  value = bad.Input("value", F32({4}));
  bad.Output(bad.Op("aten.masked_fill.Tensor", {x, mask, value}).Out(F32({4})));
  absl::Status status = LowerStatus(bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(status.message()), HasSubstr("0-d"));
}

// ---- Identities and conversions ----

TEST(ElementwiseLowering, DropoutInTrainingModeIsAnError) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(b.Op("aten.dropout.default", {x}).Attr("p", 0.5).Attr("train", true).Out(F32({4})));
  absl::Status status = LowerStatus(b);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("train=True"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("aten.dropout.default"));
}

// native_dropout's eval form (train=False, or p=0): the input and an all-true mask; sampling a
// mask (train=True or None with p > 0) is refused.
TEST(ElementwiseLowering, NativeDropoutEvalFormIsTheInputAndAnAllTrueMask) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  std::vector<ir::Value*> outs = b.Op("aten.native_dropout.default", {x})
                                     .Attr("p", 0.0)
                                     .Attr("train", true)
                                     .Outs({F32({2, 3}), Bool({2, 3})});
  b.Output(b.Op("getitem", outs).Attr("index", 0).Out(F32({2, 3})));
  b.Output(b.Op("getitem", outs).Attr("index", 1).Out(Bool({2, 3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_EQ(edge->outputs()[0], edge->inputs()[0]);
  EXPECT_EQ(edge->outputs()[1]->type(), Bool({2, 3}));

  for (bool none : {false, true}) {
    GraphBuilder train;
    ir::Value* y = train.Input("y", F32({4}));
    auto op = train.Op("aten.native_dropout.default", {y}).Attr("p", 0.5);
    if (!none) op.Attr("train", true);
    std::vector<ir::Value*> sampled = op.Outs({F32({4}), Bool({4})});
    train.Output(train.Op("getitem", sampled).Attr("index", 0).Out(F32({4})));
    absl::Status status = LowerStatus(train);
    EXPECT_THAT(std::string(status.message()), HasSubstr("samples a random mask")) << none;
  }
}

TEST(ElementwiseLowering, IdentityOpsEmitNoNode) {
  GraphBuilder b;
  ir::Value* v = b.Input("x", F32({2, 3}));
  v = b.Op("aten.dropout.default", {v}).Attr("p", 0.1).Attr("train", false).Out(F32({2, 3}));
  v = b.Op("aten.dropout_.default", {v}).Attr("p", 0.1).Attr("train", false).Out(F32({2, 3}));
  for (const char* op : {"aten.clone.default", "aten.contiguous.default", "aten.alias.default",
                         "aten.detach.default", "aten.detach_.default",
                         "aten.lift_fresh_copy.default"}) {
    v = b.Op(op, {v}).Out(F32({2, 3}));
  }
  b.Output(v);
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_TRUE(Nodes(*edge).empty());
  EXPECT_EQ(edge->outputs()[0], edge->inputs()[0]);
}

// torch 2.x writes `_assert_tensor_metadata(x, dtype=..)` (no outputs) before each `.to()`; the
// real pytorch-ir traces on "meta", so that is the device it records.
TEST(ElementwiseLowering, AssertTensorMetadataIsCheckedAndEmitsNoNode) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3}));
  b.Op("aten._assert_tensor_metadata.default", {x})
      .Attr("dtype", ir::AttrValue::OfDType(ir::DType::kFloat32))
      .Attr("size", {2, 3})
      .Attr("device", ir::AttrValue::OfDevice(ir::Device{}))
      .Attr("layout", ir::AttrValue::OfLayout(ir::Layout::kStrided))
      .Emit();
  b.Output(b.Op("aten.relu.default", {x}).Out(F32({2, 3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(Ops(*edge), ElementsAre("edge.clamp"));
}

TEST(ElementwiseLowering, AssertTensorMetadataThatDoesNotHoldIsAnError) {
  for (bool wrong_dtype : {true, false}) {
    GraphBuilder b;
    ir::Value* x = b.Input("x", F32({2, 3}));
    auto assertion = b.Op("aten._assert_tensor_metadata.default", {x});
    if (wrong_dtype) {
      assertion.Attr("dtype", ir::AttrValue::OfDType(ir::DType::kFloat16));
    } else {
      assertion.Attr("size", {3, 2});
    }
    assertion.Emit();
    b.Output(b.Op("aten.relu.default", {x}).Out(F32({2, 3})));
    absl::Status status = LowerStatus(b);
    EXPECT_FALSE(status.ok());
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(wrong_dtype ? "asserts dtype float16 but 'x' is float32"
                                      : "asserts sizes [3, 2] but 'x' has [2, 3]"));
  }
}

TEST(ElementwiseLowering, DtypeConversionsAreCasts) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  ir::Value* ids = b.Input("ids", I64({3}));
  b.Output(b.Op("aten.to.dtype", {x})
               .Attr("dtype", ir::AttrValue::OfDType(ir::DType::kInt32))
               .Out(I32({3})));
  b.Output(b.Op("aten._to_copy.default", {ids})
               .Attr("dtype", ir::AttrValue::OfDType(ir::DType::kFloat32))
               .Attr("device", ir::AttrValue::OfDevice(ir::Device{}))
               .Out(F32({3})));
  b.Output(b.Op("aten.type_as.default", {ids, x}).Out(F32({3})));
  b.Output(b.Op("aten.to.dtype", {x})
               .Attr("dtype", ir::AttrValue::OfDType(ir::DType::kFloat32))
               .Out(F32({3})));
  auto edge = Lower(b);
  ASSERT_NE(edge, nullptr);
  ASSERT_THAT(Ops(*edge), ElementsAre("edge.cast", "edge.cast", "edge.cast"));
  EXPECT_EQ(Nodes(*edge)[0]->FindAttr("dtype")->as_dtype(), ir::DType::kInt32);
  EXPECT_EQ(edge->outputs()[3],
            edge->inputs()[0]);  // to(float32) of a float32: no node
}

TEST(ElementwiseLowering, ToCopyToAnotherLayoutIsUnsupported) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  b.Output(b.Op("aten._to_copy.default", {x})
               .Attr("layout", ir::AttrValue::OfLayout(ir::Layout::kSparse))
               .Out(F32({3})));
  absl::Status status = LowerStatus(b);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(status.message()), HasSubstr("layout"));
}

// ---- The table and the zoo ----

TEST(ElementwiseLowering, EveryRuleOfTheFamilyHasAnAtenSchema) {
  RuleTable table;
  AddElementwiseRules(table);
  for (const auto& [op, rule] : table.rules()) {
    EXPECT_NE(dialect::FindAtenSchema(op), nullptr) << op;
  }
}

std::filesystem::path ZooDir() {
  if (const char* dir = std::getenv("TORCHIR_ZOO_DIR")) return dir;
  return std::filesystem::path(TORCHIR_BINARY_DIR_DEFAULT) / "zoo";
}

TEST(ElementwiseLowering, ZooOpModelsLowerToVerifiedEdgeGraphs) {
  const char* const kModels[] = {"relu",
                                 "relu_inplace",
                                 "relu6",
                                 "hardtanh",
                                 "hardswish",
                                 "hardswish_inplace",
                                 "hardsigmoid",
                                 "silu",
                                 "gelu",
                                 "gelu_tanh",
                                 "sigmoid",
                                 "tanh",
                                 "leaky_relu",
                                 "dropout_eval",
                                 "add_tensor",
                                 "add_scalar",
                                 "add_broadcast_alpha",
                                 "add_inplace",
                                 "sub",
                                 "mul",
                                 "div",
                                 "pow",
                                 "sqrt_rsqrt",
                                 "exp_neg",
                                 "where",
                                 "clamp",
                                 "to_dtype"};
  int lowered = 0;
  for (const char* model : kModels) {
    for (const char* flavour : {"export", "core"}) {
      std::filesystem::path json = ZooDir() / model / flavour / "model.json";
      if (!std::filesystem::is_regular_file(json)) continue;
      absl::StatusOr<std::unique_ptr<ir::Graph>> aten = frontend::ReadPytorchIrFile(json.string());
      ASSERT_TRUE(aten.ok()) << json << ": " << aten.status();
      absl::StatusOr<std::unique_ptr<ir::Graph>> edge = LowerToEdge(**aten);
      EXPECT_TRUE(edge.ok()) << model << "/" << flavour << ": " << edge.status();
      ++lowered;
    }
  }
  if (lowered == 0) GTEST_SKIP() << "no zoo at " << ZooDir();
}

}  // namespace
}  // namespace torchir::lowering
