// The broadcasting binary kernels (arithmetic, comparisons) and where, against
// the LibTorch Edge reference: every op, every allowed dtype, every kind of
// broadcast (same shape, 0-d and one-element operands, size-1 dims, different
// ranks, empty tensors).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/dialect/shape_rules.h"
#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_harness.h"
#include "tests/runtime/kernels/kernel_test_support.h"
#include "tests/support/graph_builder.h"

namespace torchir::testing {
namespace {

using Shape = std::vector<int64_t>;

// numpy broadcasting, for the recorded output type.
Shape Broadcast(const Shape& a, const Shape& b) {
  absl::StatusOr<Shape> shape = dialect::shape_rules::BroadcastShapes(a, b);
  return shape.ok() ? *shape : Shape{};
}

const char* const kBinaryOps[] = {
    "edge.add",        "edge.sub",         "edge.mul",       "edge.div",       "edge.pow",
    "edge.maximum",    "edge.minimum",     "edge.remainder", "edge.fmod",      "edge.floor_divide",
    "edge.atan2",      "edge.hypot",       "edge.copysign",  "edge.logaddexp", "edge.bitwise_and",
    "edge.bitwise_or", "edge.bitwise_xor", "edge.eq",        "edge.ne",        "edge.lt",
    "edge.le",         "edge.gt",          "edge.ge"};

// Integer division by zero raises in PyTorch; these ops' divisors avoid it.
bool DividesIntegers(const std::string& op, ir::DType dtype) {
  return (op == "edge.remainder" || op == "edge.fmod" || op == "edge.floor_divide") &&
         !ir::IsFloatingPoint(dtype);
}

// Replaces zeros of an integer tensor by `replacement`.
void ReplaceZeros(reference::HostTensor& tensor, int64_t replacement) {
  if (tensor.type.dtype == ir::DType::kInt32) {
    std::vector<int32_t> v = ValuesOf<int32_t>(tensor);
    for (int32_t& x : v) x = x == 0 ? static_cast<int32_t>(replacement) : x;
    tensor = HostTensorOf(tensor.type, v);
  } else if (tensor.type.dtype == ir::DType::kInt64) {
    std::vector<int64_t> v = ValuesOf<int64_t>(tensor);
    for (int64_t& x : v) x = x == 0 ? replacement : x;
    tensor = HostTensorOf(tensor.type, v);
  }
}

bool IsComparison(const std::string& op) {
  return op == "edge.eq" || op == "edge.ne" || op == "edge.lt" || op == "edge.le" ||
         op == "edge.gt" || op == "edge.ge";
}

std::unique_ptr<ir::Graph> BinaryGraph(const std::string& op, ir::DType dtype, const Shape& a,
                                       const Shape& b, const Shape* out_override = nullptr,
                                       ir::DType other_dtype = ir::DType::kFloat32,
                                       bool same_dtypes = true) {
  GraphBuilder builder;
  ir::Value* x = builder.Input("x", TypeOf(dtype, a));
  ir::Value* y = builder.Input("y", TypeOf(same_dtypes ? dtype : other_dtype, b));
  const ir::DType out_dtype = IsComparison(op) ? ir::DType::kBool : dtype;
  builder.Output(
      builder.Op(op, {x, y})
          .Out(TypeOf(out_dtype, out_override != nullptr ? *out_override : Broadcast(a, b))));
  return builder.Build();
}

// Operand shapes exercising each path of the broadcast loop.
const std::vector<std::pair<Shape, Shape>>& ShapePairs() {
  static const auto* pairs = new std::vector<std::pair<Shape, Shape>>{
      {{2, 3, 4}, {2, 3, 4}},  // same shape: one flat loop
      {{1027}, {1027}},        // long enough to vectorise, with a tail
      {{}, {2, 3}},            // 0-d left
      {{2, 3}, {}},            // 0-d right
      {{}, {}},                // both 0-d
      {{1}, {4, 5}},           // one-element operand
      {{4, 5}, {1, 1}},        // one-element operand of the same rank
      {{3, 1, 5}, {1, 4, 1}},  // size-1 dims on both sides
      {{4, 1}, {1, 6}},        // outer product
      {{2, 3, 4, 5}, {4, 5}},  // different ranks
      {{5}, {2, 1, 5}},        // different ranks, left shorter
      {{7, 1, 9}, {7, 5, 1}},  // inner broadcast on the right
      {{64, 33}, {33}},        // row vector
      {{64, 1}, {64, 33}},     // column vector
      {{0, 3}, {1, 3}},        // empty
      {{2, 0}, {}},            // empty with a scalar
  };
  return *pairs;
}

struct BinaryParam {
  std::string op;
  ir::DType dtype;
};

std::vector<BinaryParam> EveryBinaryOpAndDType() {
  std::vector<BinaryParam> params;
  for (const char* op : kBinaryOps) {
    for (ir::DType dtype : AllowedDTypes(op)) params.push_back({op, dtype});
  }
  return params;
}

class BinaryKernelTest : public ::testing::TestWithParam<BinaryParam> {};

TEST_P(BinaryKernelTest, MatchesReferenceOnEveryBroadcast) {
  const BinaryParam& p = GetParam();
  // pow stays on positive bases (negative ones are NaN for most exponents);
  // small integer ranges make comparisons hit equality often.
  const double low = p.op == "edge.pow" ? 0.1 : -3.0;
  for (const auto& [a, b] : ShapePairs()) {
    auto graph = BinaryGraph(p.op, p.dtype, a, b);
    std::vector<reference::HostTensor> inputs = RandomInputs(*graph, 5, low, 3.0, -4, 4);
    if (DividesIntegers(p.op, p.dtype)) ReplaceZeros(inputs[1], -3);
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, inputs)))
        << p.op << " " << ir::DTypeName(p.dtype) << " " << a.size() << "-d x " << b.size() << "-d";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryOpAndDType, BinaryKernelTest,
                         ::testing::ValuesIn(EveryBinaryOpAndDType()),
                         [](const ::testing::TestParamInfo<BinaryParam>& info) {
                           return info.param.op.substr(5) + "_" +
                                  std::string(ir::DTypeName(info.param.dtype));
                         });

TEST(BinaryKernelTest, EveryTableBinaryOpIsListed) {
  for (const dialect::EdgeOpDef& def : dialect::EdgeOps()) {
    if (def.shape_rule != dialect::shape_rules::Broadcast &&
        def.shape_rule != dialect::shape_rules::BroadcastToBool) {
      continue;
    }
    EXPECT_NE(std::find(std::begin(kBinaryOps), std::end(kBinaryOps), def.name),
              std::end(kBinaryOps))
        << def.name;
  }
}

TEST(BinaryKernelTest, IntegerArithmeticWrapsAround) {
  const ir::TensorType type = TypeOf(ir::DType::kInt32, {4});
  const std::vector<int32_t> a = {INT32_MAX, INT32_MIN, 123456789, -7};
  const std::vector<int32_t> b = {2, -1, 1000, 3};
  for (const char* op : {"edge.add", "edge.sub", "edge.mul"}) {
    auto graph = BinaryGraph(op, ir::DType::kInt32, {4}, {4});
    EXPECT_TRUE(
        IsOk(CompareKernelWithReference(*graph, {HostTensorOf(type, a), HostTensorOf(type, b)})))
        << op;
  }
  auto graph = BinaryGraph("edge.add", ir::DType::kInt32, {4}, {4});
  KernelOnlyResult r = RunKernelOnly(*graph, {HostTensorOf(type, a), HostTensorOf(type, b)});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<int32_t>(r.outputs[0]),
            (std::vector<int32_t>{INT32_MIN + 1, INT32_MAX, 123457789, -4}));
}

TEST(BinaryKernelTest, FloatSpecialValuesMatchReference) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a = {nan, 1.0f, nan, inf, -inf, 0.0f, -2.0f, -2.0f, 0.0f, 4.0f, -0.0f};
  const std::vector<float> b = {1.0f, nan, nan, inf, inf, 0.0f, 3.0f, 0.5f, -1.0f, -0.5f, 0.0f};
  const ir::TensorType type = TypeOf(ir::DType::kFloat32, {static_cast<int64_t>(a.size())});
  for (const char* op : kBinaryOps) {
    const std::vector<ir::DType> dtypes = AllowedDTypes(op);
    if (std::find(dtypes.begin(), dtypes.end(), ir::DType::kFloat32) == dtypes.end()) continue;
    auto graph = BinaryGraph(op, ir::DType::kFloat32, type.sizes, type.sizes);
    EXPECT_TRUE(
        IsOk(CompareKernelWithReference(*graph, {HostTensorOf(type, a), HostTensorOf(type, b)})))
        << op;
  }
}

// The same in float64 (harness tolerance: at most 1e-10, compare.h), with values that are not
// float32 values, so that an op computed in float32 would fail.
TEST(BinaryKernelTest, Float64SpecialValuesMatchReference) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> a = {nan, 1.0, nan,  inf, -inf,  0.0,   -2.0,    -2.0,
                                 0.0, 4.0, -0.0, 0.1, 1e300, -7.25, 1.0 / 3, 709.0};
  const std::vector<double> b = {1.0,  nan,  nan, inf, inf,   0.0, 3.0,     0.5,
                                 -1.0, -0.5, 0.0, 0.3, 1e300, 0.7, 2.0 / 3, 2.0};
  const ir::TensorType type = TypeOf(ir::DType::kFloat64, {static_cast<int64_t>(a.size())});
  for (const char* op : kBinaryOps) {
    const std::vector<ir::DType> dtypes = AllowedDTypes(op);
    if (std::find(dtypes.begin(), dtypes.end(), ir::DType::kFloat64) == dtypes.end()) continue;
    auto graph = BinaryGraph(op, ir::DType::kFloat64, type.sizes, type.sizes);
    EXPECT_TRUE(
        IsOk(CompareKernelWithReference(*graph, {HostTensorOf(type, a), HostTensorOf(type, b)})))
        << op;
  }
}

// Python's // and %, C's fmod, on every sign combination, and the integer edge cases: the
// quotient that overflows wraps like PyTorch's, exact values as well as agreement.
TEST(BinaryKernelTest, IntegerDivisionRoundsLikePython) {
  const std::vector<int64_t> a = {7, -7, 7, -7, 6, INT64_MIN, 0};
  const std::vector<int64_t> b = {2, 2, -2, -2, 3, -1, -5};
  const ir::TensorType type = TypeOf(ir::DType::kInt64, {7});
  for (const char* op : {"edge.floor_divide", "edge.remainder", "edge.fmod"}) {
    auto graph = BinaryGraph(op, ir::DType::kInt64, {7}, {7});
    KernelOnlyResult r = RunKernelOnly(*graph, {HostTensorOf(type, a), HostTensorOf(type, b)});
    ASSERT_EQ(r.run, runtime::Error::kOk) << op;
    const std::vector<int64_t> out = ValuesOf<int64_t>(r.outputs[0]);
    if (std::string(op) == "edge.floor_divide") {
      EXPECT_EQ(out, (std::vector<int64_t>{3, -4, -4, 3, 2, INT64_MIN, 0}));
    } else if (std::string(op) == "edge.remainder") {
      EXPECT_EQ(out, (std::vector<int64_t>{1, 1, -1, -1, 0, 0, 0}));
    } else {
      EXPECT_EQ(out, (std::vector<int64_t>{1, -1, 1, -1, 0, 0, 0}));
    }
    // The reference agrees on the first five (LibTorch's INT64_MIN // -1 is the platform's).
    const std::vector<int64_t> a5(a.begin(), a.begin() + 5), b5(b.begin(), b.begin() + 5);
    auto graph5 = BinaryGraph(op, ir::DType::kInt64, {5}, {5});
    EXPECT_TRUE(IsOk(
        CompareKernelWithReference(*graph5, {HostTensorOf(TypeOf(ir::DType::kInt64, {5}), a5),
                                             HostTensorOf(TypeOf(ir::DType::kInt64, {5}), b5)})))
        << op;
  }
}

// Bitwise ops on bool are the logical ones and write 0 or 1 even from non-canonical bytes.
TEST(BinaryKernelTest, BitwiseOpsOnBoolAreLogical) {
  const ir::TensorType type = TypeOf(ir::DType::kBool, {4});
  const std::vector<uint8_t> a = {0, 0, 2, 1}, b = {0, 7, 0, 1};
  const std::vector<std::pair<const char*, std::vector<uint8_t>>> expected = {
      {"edge.bitwise_and", {0, 0, 0, 1}},
      {"edge.bitwise_or", {0, 1, 1, 1}},
      {"edge.bitwise_xor", {0, 1, 1, 0}}};
  for (const auto& [op, want] : expected) {
    auto graph = BinaryGraph(op, ir::DType::kBool, {4}, {4});
    KernelOnlyResult r = RunKernelOnly(*graph, {HostTensorOf(type, a), HostTensorOf(type, b)});
    ASSERT_EQ(r.run, runtime::Error::kOk) << op;
    EXPECT_EQ(ValuesOf<uint8_t>(r.outputs[0]), want) << op;
  }
}

TEST(BinaryKernelTest, ComparisonsWriteZeroOrOne) {
  auto graph = BinaryGraph("edge.lt", ir::DType::kInt64, {3}, {});
  const std::vector<int64_t> a = {1, 5, 9};
  KernelOnlyResult r =
      RunKernelOnly(*graph, {HostTensorOf(TypeOf(ir::DType::kInt64, {3}), a),
                             HostTensorOf(TypeOf(ir::DType::kInt64, {}), std::vector<int64_t>{5})});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<uint8_t>(r.outputs[0]), (std::vector<uint8_t>{1, 0, 0}));
}

// ---- where ------------------------------------------------------------------------

std::unique_ptr<ir::Graph> WhereGraph(ir::DType dtype, const Shape& c, const Shape& a,
                                      const Shape& b, const Shape* out_override = nullptr) {
  GraphBuilder builder;
  ir::Value* cond = builder.Input("cond", TypeOf(ir::DType::kBool, c));
  ir::Value* x = builder.Input("x", TypeOf(dtype, a));
  ir::Value* y = builder.Input("y", TypeOf(dtype, b));
  builder.Output(builder.Op("edge.where", {cond, x, y})
                     .Out(TypeOf(dtype, out_override != nullptr ? *out_override
                                                                : Broadcast(Broadcast(c, a), b))));
  return builder.Build();
}

TEST(WhereKernelTest, MatchesReferenceForEveryDTypeAndBroadcast) {
  const std::vector<std::vector<Shape>> shapes = {
      {{2, 3}, {2, 3}, {2, 3}},
      {{1027}, {1027}, {1027}},
      {{}, {2, 3}, {2, 3}},
      {{2, 3}, {}, {}},
      {{3, 1}, {1, 4}, {}},
      {{2, 1, 4}, {3, 1}, {4}},
      {{}, {}, {}},
      {{5, 1}, {5, 6}, {1, 6}},
      {{0, 2}, {1, 2}, {2}},
      {{4}, {3, 1}, {2, 1, 1}},
  };
  const std::vector<ir::DType> dtypes = AllowedDTypes("edge.where");
  ASSERT_EQ(dtypes.size(), 5u);
  for (ir::DType dtype : dtypes) {
    for (const std::vector<Shape>& s : shapes) {
      auto graph = WhereGraph(dtype, s[0], s[1], s[2]);
      EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 9, -5, 5, -5, 5))))
          << ir::DTypeName(dtype) << " " << s[0].size() << "/" << s[1].size() << "/" << s[2].size();
    }
  }
}

TEST(WhereKernelTest, PicksByCondition) {
  auto graph = WhereGraph(ir::DType::kInt64, {4}, {4}, {});
  KernelOnlyResult r = RunKernelOnly(
      *graph, {HostTensorOf(TypeOf(ir::DType::kBool, {4}), std::vector<uint8_t>{1, 0, 0, 1}),
               HostTensorOf(TypeOf(ir::DType::kInt64, {4}), std::vector<int64_t>{1, 2, 3, 4}),
               HostTensorOf(TypeOf(ir::DType::kInt64, {}), std::vector<int64_t>{-9})});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<int64_t>(r.outputs[0]), (std::vector<int64_t>{1, -9, -9, 4}));
}

// ---- Malformed calls are refused at init ------------------------------------------

TEST(BinaryKernelTest, RefusesMalformedCalls) {
  const Shape s23 = {2, 3};
  EXPECT_EQ(CheckKernel(*BinaryGraph("edge.add", ir::DType::kFloat32, s23, s23)),
            runtime::Error::kOk);
  // Output not the broadcast shape: transposed, larger rank, a 1 where 3 belongs.
  for (const Shape& wrong : {Shape{3, 2}, Shape{1, 2, 3}, Shape{2, 1}, Shape{2, 3, 1}, Shape{}}) {
    EXPECT_NE(CheckKernel(*BinaryGraph("edge.add", ir::DType::kFloat32, s23, s23, &wrong)),
              runtime::Error::kOk)
        << wrong.size();
  }
  // Shapes that do not broadcast (the recorded output picks one of them).
  const Shape s43 = {4, 3};
  EXPECT_NE(CheckKernel(*BinaryGraph("edge.mul", ir::DType::kInt32, s23, s43, &s43)),
            runtime::Error::kOk);
  // Mixed operand dtypes (no promotion), a dtype outside the op's set.
  EXPECT_NE(CheckKernel(*BinaryGraph("edge.add", ir::DType::kFloat32, s23, s23, nullptr,
                                     ir::DType::kInt32, /*same_dtypes=*/false)),
            runtime::Error::kOk);
  EXPECT_NE(CheckKernel(*BinaryGraph("edge.div", ir::DType::kInt32, s23, s23)),
            runtime::Error::kOk);
  EXPECT_NE(CheckKernel(*BinaryGraph("edge.add", ir::DType::kFloat16, s23, s23)),
            runtime::Error::kOk);
  EXPECT_NE(CheckKernel(*BinaryGraph("edge.add", ir::DType::kFloat64, s23, s23, nullptr,
                                     ir::DType::kFloat32, /*same_dtypes=*/false)),
            runtime::Error::kOk);
  // A comparison whose output is not bool.
  {
    GraphBuilder builder;
    ir::Value* x = builder.Input("x", TypeOf(ir::DType::kFloat32, s23));
    ir::Value* y = builder.Input("y", TypeOf(ir::DType::kFloat32, s23));
    builder.Output(builder.Op("edge.eq", {x, y}).Out(TypeOf(ir::DType::kFloat32, s23)));
    EXPECT_NE(CheckKernel(*builder.Build()), runtime::Error::kOk);
  }
}

TEST(WhereKernelTest, RefusesMalformedCalls) {
  const Shape s23 = {2, 3};
  EXPECT_EQ(CheckKernel(*WhereGraph(ir::DType::kFloat32, s23, s23, s23)), runtime::Error::kOk);
  const Shape wrong = {2, 3, 1};
  EXPECT_NE(CheckKernel(*WhereGraph(ir::DType::kFloat32, s23, s23, s23, &wrong)),
            runtime::Error::kOk);
  const Shape s4 = {4};
  EXPECT_NE(CheckKernel(*WhereGraph(ir::DType::kFloat32, s4, s23, s23, &s23)), runtime::Error::kOk);
  EXPECT_NE(CheckKernel(*WhereGraph(ir::DType::kInt8, s23, s23, s23)), runtime::Error::kOk);
  {
    // A float condition.
    GraphBuilder builder;
    ir::Value* c = builder.Input("c", TypeOf(ir::DType::kFloat32, s23));
    ir::Value* x = builder.Input("x", TypeOf(ir::DType::kFloat32, s23));
    builder.Output(builder.Op("edge.where", {c, x, x}).Out(TypeOf(ir::DType::kFloat32, s23)));
    EXPECT_NE(CheckKernel(*builder.Build()), runtime::Error::kOk);
  }
}

}  // namespace
}  // namespace torchir::testing
