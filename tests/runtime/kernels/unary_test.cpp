// The elementwise unary kernels (activations, math, neg/abs, clamp) against
// the LibTorch Edge reference, for every dtype the Edge table allows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "compiler/dialect/shape_rules.h"
#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_harness.h"
#include "tests/runtime/kernels/kernel_test_support.h"
#include "tests/support/graph_builder.h"

namespace torchir::testing {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// One op, its attributes, and the input range that keeps it defined.
struct UnaryCase {
  std::string op;
  std::vector<std::pair<std::string, ir::AttrValue>> attrs;
  double low = -4.0;
  double high = 4.0;
};

std::string CaseName(const UnaryCase& c) {
  std::string name = c.op.substr(5);
  for (const auto& [key, value] : c.attrs) {
    if (value.kind() == ir::AttrValue::Kind::kString) name += "_" + value.as_string();
  }
  return name;
}

std::vector<UnaryCase> UnaryCases() {
  using A = ir::AttrValue;
  return {
      {"edge.clamp", {{"min", A::Double(-1.0)}, {"max", A::Double(1.0)}}},
      {"edge.hardswish", {}},
      {"edge.hardsigmoid", {}},
      {"edge.sigmoid", {}, -12.0, 12.0},
      {"edge.tanh", {}},
      {"edge.gelu", {{"approximate", A::String("none")}}},
      {"edge.gelu", {{"approximate", A::String("tanh")}}},
      {"edge.silu", {}, -12.0, 12.0},
      {"edge.leaky_relu", {{"negative_slope", A::Double(0.01)}}},
      {"edge.exp", {}, -10.0, 10.0},
      {"edge.log", {}, 0.01, 100.0},
      {"edge.sqrt", {}, 0.0, 100.0},
      {"edge.rsqrt", {}, 0.01, 100.0},
      {"edge.erf", {}},
      {"edge.erfc", {}},
      {"edge.neg", {}},
      {"edge.abs", {}},
      {"edge.mish", {}, -12.0, 12.0},
      {"edge.log_sigmoid", {}, -30.0, 30.0},
      {"edge.threshold", {{"threshold", A::Double(0.5)}, {"value", A::Double(-2.0)}}},
      {"edge.nan_to_num",
       {{"nan", A::Double(1.0)}, {"posinf", A::Double(100.0)}, {"neginf", A::Double(-3e38)}}},
      {"edge.elu",
       {{"alpha", A::Double(1.5)}, {"scale", A::Double(1.0507)}, {"input_scale", A::Double(0.5)}}},
      {"edge.softplus", {{"beta", A::Double(2.0)}, {"threshold", A::Double(3.0)}}},
      {"edge.hardshrink", {{"lambd", A::Double(0.5)}}},
      {"edge.softshrink", {{"lambd", A::Double(0.5)}}},
      {"edge.exp2", {}, -10.0, 10.0},
      {"edge.expm1", {}, -10.0, 10.0},
      {"edge.log2", {}, 0.01, 100.0},
      {"edge.log10", {}, 0.01, 100.0},
      {"edge.log1p", {}, -0.99, 100.0},
      {"edge.reciprocal", {}},
      {"edge.sin", {}, -10.0, 10.0},
      {"edge.cos", {}, -10.0, 10.0},
      {"edge.tan", {}, -1.5, 1.5},
      {"edge.asin", {}, -0.99, 0.99},
      {"edge.acos", {}, -0.99, 0.99},
      {"edge.atan", {}, -10.0, 10.0},
      {"edge.sinh", {}, -10.0, 10.0},
      {"edge.cosh", {}, -10.0, 10.0},
      {"edge.asinh", {}, -10.0, 10.0},
      {"edge.acosh", {}, 1.0, 10.0},
      {"edge.atanh", {}, -0.99, 0.99},
      {"edge.floor", {}},
      {"edge.ceil", {}},
      {"edge.round", {}},
      {"edge.trunc", {}},
      {"edge.frac", {}},
      {"edge.sign", {}},
      {"edge.bitwise_not", {}},
  };
}

std::unique_ptr<ir::Graph> UnaryGraph(const UnaryCase& c, const ir::TensorType& type) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", type);
  NodeBuilder node = b.Op(c.op, {x});
  for (const auto& [key, value] : c.attrs) node.Attr(key, value);
  b.Output(node.Out(type));
  return b.Build();
}

struct UnaryParam {
  UnaryCase c;
  ir::DType dtype;
};

std::vector<UnaryParam> EveryUnaryOpAndDType() {
  std::vector<UnaryParam> params;
  for (const UnaryCase& c : UnaryCases()) {
    for (ir::DType dtype : AllowedDTypes(c.op)) params.push_back({c, dtype});
  }
  return params;
}

class UnaryKernelTest : public ::testing::TestWithParam<UnaryParam> {};

TEST_P(UnaryKernelTest, MatchesReferenceOnEveryShape) {
  const UnaryParam& p = GetParam();
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 4}, {}, {1}, {0, 3}, {1031}};
  for (const std::vector<int64_t>& sizes : shapes) {
    auto graph = UnaryGraph(p.c, TypeOf(p.dtype, sizes));
    EXPECT_TRUE(IsOk(CompareKernelWithReference(
        *graph, RandomInputs(*graph, /*seed=*/7, p.c.low, p.c.high, -50, 50))))
        << CaseName(p.c) << " " << ir::DTypeName(p.dtype) << " " << sizes.size() << "-d";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryOpAndDType, UnaryKernelTest,
                         ::testing::ValuesIn(EveryUnaryOpAndDType()),
                         [](const ::testing::TestParamInfo<UnaryParam>& info) {
                           return CaseName(info.param.c) + "_" +
                                  std::string(ir::DTypeName(info.param.dtype));
                         });

TEST(UnaryKernelTest, EveryTableOpOfTheUnaryShapeIsCovered) {
  // Guards the case list above against a table row it forgot.
  std::vector<std::string> covered;
  for (const UnaryCase& c : UnaryCases()) covered.push_back(c.op);
  int rows = 0;
  for (const dialect::EdgeOpDef& def : dialect::EdgeOps()) {
    if (def.shape_rule != dialect::shape_rules::SameAsFirst) continue;
    ++rows;
    EXPECT_NE(std::find(covered.begin(), covered.end(), def.name), covered.end()) << def.name;
  }
  EXPECT_EQ(rows, static_cast<int>(UnaryCases().size()) - 1);  // gelu is listed twice
}

// NaN, infinities, signed zeros and values where exp overflows, for every
// float op: NaN must stay NaN (hardsigmoid and clamp included), limits must
// match PyTorch's.
TEST(UnaryKernelTest, FloatSpecialValuesMatchReference) {
  const std::vector<float> specials = {NAN,     INFINITY, -INFINITY, 0.0f,   -0.0f,   1e-30f,
                                       -1e-30f, 88.5f,    -88.5f,    100.0f, -100.0f, 1e30f,
                                       -1e30f,  3.0f,     -3.0f,     2.5f,   -2.5f};
  // (log, sqrt and rsqrt of negatives are NaN on both sides.)
  for (const UnaryCase& c : UnaryCases()) {
    const std::vector<ir::DType> dtypes = AllowedDTypes(c.op);
    if (std::find(dtypes.begin(), dtypes.end(), ir::DType::kFloat32) == dtypes.end()) continue;
    std::vector<float> values = specials;
    if (CaseName(c) == "gelu_none") {
      // torch 2.x's vectorised erf-GELU returns NaN for +inf (1.13 and the tanh form: +inf);
      // the kernel keeps the limit, x * Phi(x) -> +inf, so +inf is left out of this comparison.
      values.erase(std::find(values.begin(), values.end(), INFINITY));
    }
    const ir::TensorType case_type =
        TypeOf(ir::DType::kFloat32, {static_cast<int64_t>(values.size())});
    auto graph = UnaryGraph(c, case_type);
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, {HostTensorOf(case_type, values)})))
        << CaseName(c);
  }
}

// The same in float64, with the limits of double: exp overflows past 709.8, not 88.7, so
// values that are infinities in float32 are finite here. Compared at the harness's float64
// tolerance (at most 1e-10 absolute and relative, compare.h), which a float32 computation fails.
TEST(UnaryKernelTest, Float64SpecialValuesMatchReference) {
  const std::vector<double> specials = {NAN,    INFINITY, -INFINITY, 0.0,    -0.0,  1e-300, -1e-300,
                                        88.5,   -88.5,    709.5,     -709.5, 750.0, -750.0, 1e300,
                                        -1e300, 3.0,      -3.0,      2.5,    -2.5,  1e-30,  0.1,
                                        -0.7,   1e30,     -1e30,     0.5,    -0.5};
  for (const UnaryCase& c : UnaryCases()) {
    const std::vector<ir::DType> dtypes = AllowedDTypes(c.op);
    if (std::find(dtypes.begin(), dtypes.end(), ir::DType::kFloat64) == dtypes.end()) continue;
    std::vector<double> values = specials;
    if (CaseName(c) == "gelu_none") {
      // As in float32: torch 2.x's vectorised erf-GELU gives NaN for +inf, the kernel +inf.
      values.erase(std::find(values.begin(), values.end(), INFINITY));
    }
    const ir::TensorType case_type =
        TypeOf(ir::DType::kFloat64, {static_cast<int64_t>(values.size())});
    auto graph = UnaryGraph(c, case_type);
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, {HostTensorOf(case_type, values)})))
        << CaseName(c);
  }
}

TEST(UnaryKernelTest, IntegerNegAndAbsWrapAtTheMinimum) {
  auto check = [](ir::DType dtype, auto values) {
    const ir::TensorType type = TypeOf(dtype, {static_cast<int64_t>(values.size())});
    for (const char* op : {"edge.neg", "edge.abs"}) {
      auto graph = UnaryGraph({op, {}}, type);
      EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, {HostTensorOf(type, values)})))
          << op << " " << ir::DTypeName(dtype);
    }
  };
  check(ir::DType::kInt32, std::vector<int32_t>{INT32_MIN, INT32_MAX, -1, 0, 7});
  check(ir::DType::kInt64, std::vector<int64_t>{INT64_MIN, INT64_MAX, -1, 0, 7});
  // And the exact values, not only agreement.
  const ir::TensorType type = TypeOf(ir::DType::kInt32, {2});
  auto graph = UnaryGraph({"edge.neg", {}}, type);
  KernelOnlyResult r =
      RunKernelOnly(*graph, {HostTensorOf(type, std::vector<int32_t>{INT32_MIN, 5})});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<int32_t>(r.outputs[0]), (std::vector<int32_t>{INT32_MIN, -5}));
}

// round is half to even; sign is 0 for NaN; bitwise_not of bool is logical not, 0 or 1 even
// from a non-canonical byte.
TEST(UnaryKernelTest, RoundingSignAndNotExactValues) {
  const ir::TensorType f32 = TypeOf(ir::DType::kFloat32, {6});
  const std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, NAN};
  auto run = [&](const char* op, const ir::TensorType& type, const reference::HostTensor& in) {
    auto graph = UnaryGraph({op, {}}, type);
    KernelOnlyResult r = RunKernelOnly(*graph, {in});
    EXPECT_EQ(r.run, runtime::Error::kOk) << op;
    return r;
  };
  std::vector<float> rounded =
      ValuesOf<float>(run("edge.round", f32, HostTensorOf(f32, x)).outputs[0]);
  EXPECT_EQ(std::vector<float>(rounded.begin(), rounded.end() - 1),
            (std::vector<float>{0.0f, 2.0f, 2.0f, -0.0f, -2.0f}));
  EXPECT_TRUE(std::isnan(rounded.back()));
  EXPECT_EQ(ValuesOf<float>(run("edge.sign", f32, HostTensorOf(f32, x)).outputs[0]),
            (std::vector<float>{1, 1, 1, -1, -1, 0}));
  const ir::TensorType b4 = TypeOf(ir::DType::kBool, {4});
  EXPECT_EQ(ValuesOf<uint8_t>(
                run("edge.bitwise_not", b4, HostTensorOf(b4, std::vector<uint8_t>{0, 1, 2, 255}))
                    .outputs[0]),
            (std::vector<uint8_t>{1, 0, 0, 0}));
  const ir::TensorType i4 = TypeOf(ir::DType::kInt32, {4});
  EXPECT_EQ(ValuesOf<int32_t>(run("edge.bitwise_not", i4,
                                  HostTensorOf(i4, std::vector<int32_t>{0, -1, 5, INT32_MIN}))
                                  .outputs[0]),
            (std::vector<int32_t>{-1, 0, -6, INT32_MAX}));
}

// prelu: one slope, or one per channel (dim 1; a 1-d input has one), against aten::prelu.
TEST(UnaryKernelTest, PreluMatchesReferenceForEverySlopeLayout) {
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{2, 3, 4, 5}, 3}, {{2, 3, 4, 5}, 1}, {{4, 6}, 6}, {{7}, 1},
      {{2, 3, 5}, 3},    {{}, 1},           {{0, 3}, 3}};
  for (const auto& [sizes, slopes] : cases) {
    GraphBuilder b;
    const ir::TensorType type = TypeOf(ir::DType::kFloat32, sizes);
    ir::Value* x = b.Input("x", type);
    ir::Value* w = b.Input("w", TypeOf(ir::DType::kFloat32, {slopes}));
    b.Output(b.Op("edge.prelu", {x, w}).Out(type));
    auto graph = b.Build();
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 13, -3.0, 3.0))))
        << sizes.size() << "-d, " << slopes << " slope(s)";
  }
  // A weight of neither size is refused at init.
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(ir::DType::kFloat32, {2, 3}));
  ir::Value* w = b.Input("w", TypeOf(ir::DType::kFloat32, {2}));
  b.Output(b.Op("edge.prelu", {x, w}).Out(TypeOf(ir::DType::kFloat32, {2, 3})));
  EXPECT_EQ(CheckKernel(*b.Build()), runtime::Error::kShapeMismatch);
}

TEST(UnaryKernelTest, ClampBoundsMatchReference) {
  using A = ir::AttrValue;
  // Open sides (relu, clamp_max), relu6, fractional bounds (integer tensors
  // clamp to the integers inside) and min > max (everything becomes max).
  const std::vector<std::pair<double, double>> bounds = {
      {0.0, kInf}, {-kInf, 0.5}, {0.0, 6.0}, {-1.5, 2.5}, {2.0, 1.0}, {-kInf, kInf}, {3.0, 3.0}};
  for (ir::DType dtype : AllowedDTypes("edge.clamp")) {
    for (const auto& [low, high] : bounds) {
      UnaryCase c{"edge.clamp", {{"min", A::Double(low)}, {"max", A::Double(high)}}};
      auto graph = UnaryGraph(c, TypeOf(dtype, {5, 7}));
      EXPECT_TRUE(
          IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 3, -8.0, 8.0, -8, 8))))
          << ir::DTypeName(dtype) << " [" << low << ", " << high << "]";
    }
  }
}

// The reference refuses integer bounds beyond int32 (at::clamp overflows);
// the kernel saturates them, which is what the bound means.
TEST(UnaryKernelTest, ClampSaturatesOutOfRangeIntegerBounds) {
  using A = ir::AttrValue;
  const ir::TensorType type = TypeOf(ir::DType::kInt32, {4});
  UnaryCase c{"edge.clamp", {{"min", A::Double(-1e10)}, {"max", A::Double(1.5)}}};
  auto graph = UnaryGraph(c, type);
  KernelOnlyResult r = RunKernelOnly(
      *graph, {HostTensorOf(type, std::vector<int32_t>{INT32_MIN, -3, 1, INT32_MAX})});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<int32_t>(r.outputs[0]), (std::vector<int32_t>{INT32_MIN, -3, 1, 1}));
}

TEST(UnaryKernelTest, LeakyReluSlopes) {
  for (double slope : {0.0, 0.2, -0.5, 1.0}) {
    UnaryCase c{"edge.leaky_relu", {{"negative_slope", ir::AttrValue::Double(slope)}}};
    auto graph = UnaryGraph(c, TypeOf(ir::DType::kFloat32, {64}));
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 11)))) << slope;
  }
}

// ---- Malformed calls are refused at init ----------------------------------------

runtime::Error CheckUnary(const UnaryCase& c, const ir::TensorType& in, const ir::TensorType& out) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", in);
  NodeBuilder node = b.Op(c.op, {x});
  for (const auto& [key, value] : c.attrs) node.Attr(key, value);
  b.Output(node.Out(out));
  return CheckKernel(*b.Build());
}

TEST(UnaryKernelTest, RefusesMalformedCalls) {
  using A = ir::AttrValue;
  const ir::TensorType f32 = TypeOf(ir::DType::kFloat32, {2, 3});
  EXPECT_EQ(CheckUnary({"edge.exp", {}}, f32, f32), runtime::Error::kOk);
  // Wrong output shape, rank or dtype.
  EXPECT_NE(CheckUnary({"edge.exp", {}}, f32, TypeOf(ir::DType::kFloat32, {3, 2})),
            runtime::Error::kOk);
  EXPECT_NE(CheckUnary({"edge.exp", {}}, f32, TypeOf(ir::DType::kFloat32, {6})),
            runtime::Error::kOk);
  EXPECT_NE(CheckUnary({"edge.sigmoid", {}}, f32, TypeOf(ir::DType::kInt32, {2, 3})),
            runtime::Error::kOk);
  // A float-only op on integers; neg on a dtype outside the table.
  const ir::TensorType i32 = TypeOf(ir::DType::kInt32, {2, 3});
  EXPECT_NE(CheckUnary({"edge.tanh", {}}, i32, i32), runtime::Error::kOk);
  const ir::TensorType f16 = TypeOf(ir::DType::kFloat16, {2, 3});
  EXPECT_NE(CheckUnary({"edge.neg", {}}, f16, f16), runtime::Error::kOk);
  // float64 in and float32 out: no implicit conversion.
  const ir::TensorType f64 = TypeOf(ir::DType::kFloat64, {2, 3});
  EXPECT_NE(CheckUnary({"edge.exp", {}}, f64, f32), runtime::Error::kOk);
  // Attribute values and kinds.
  EXPECT_NE(CheckUnary({"edge.gelu", {{"approximate", A::String("fast")}}}, f32, f32),
            runtime::Error::kOk);
  EXPECT_NE(CheckUnary({"edge.gelu", {{"approximate", A::String("tan")}}}, f32, f32),
            runtime::Error::kOk);
  EXPECT_NE(
      CheckUnary({"edge.clamp", {{"min", A::Double(kNaN)}, {"max", A::Double(1.0)}}}, f32, f32),
      runtime::Error::kOk);
}

}  // namespace
}  // namespace torchir::testing
