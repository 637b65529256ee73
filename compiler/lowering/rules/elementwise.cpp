// Lowering of elementwise ops: arithmetic, unary math, activations, comparisons, selection,
// eval-mode identities and dtype conversions.
//
// Every rule makes promotion explicit: operands are cast to the dtype the IR records for the output
// (comparisons, whose output is bool, to PyTorch's result type of the operands), and Python numbers
// become 0-d constants of that dtype.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {
namespace {

using dialect::AtenCall;
using ir::AttrValue;
using ir::DType;

// Edge op names, usable as template arguments so one rule body serves many ops.
constexpr char kAdd[] = "edge.add";
constexpr char kSub[] = "edge.sub";
constexpr char kMul[] = "edge.mul";
constexpr char kMaximum[] = "edge.maximum";
constexpr char kMinimum[] = "edge.minimum";
constexpr char kNeg[] = "edge.neg";
constexpr char kAbs[] = "edge.abs";
constexpr char kExp[] = "edge.exp";
constexpr char kLog[] = "edge.log";
constexpr char kSqrt[] = "edge.sqrt";
constexpr char kRsqrt[] = "edge.rsqrt";
constexpr char kTanh[] = "edge.tanh";
constexpr char kSigmoid[] = "edge.sigmoid";
constexpr char kErf[] = "edge.erf";
constexpr char kErfc[] = "edge.erfc";
constexpr char kLogSigmoid[] = "edge.log_sigmoid";
constexpr char kHardswish[] = "edge.hardswish";
constexpr char kHardsigmoid[] = "edge.hardsigmoid";
constexpr char kSilu[] = "edge.silu";
constexpr char kDiv[] = "edge.div";
constexpr char kWhere[] = "edge.where";
constexpr char kMish[] = "edge.mish";
constexpr char kExp2[] = "edge.exp2";
constexpr char kExpm1[] = "edge.expm1";
constexpr char kLog2[] = "edge.log2";
constexpr char kLog10[] = "edge.log10";
constexpr char kLog1p[] = "edge.log1p";
constexpr char kReciprocal[] = "edge.reciprocal";
constexpr char kSin[] = "edge.sin";
constexpr char kCos[] = "edge.cos";
constexpr char kTan[] = "edge.tan";
constexpr char kAsin[] = "edge.asin";
constexpr char kAcos[] = "edge.acos";
constexpr char kAtan[] = "edge.atan";
constexpr char kSinh[] = "edge.sinh";
constexpr char kCosh[] = "edge.cosh";
constexpr char kAsinh[] = "edge.asinh";
constexpr char kAcosh[] = "edge.acosh";
constexpr char kAtanh[] = "edge.atanh";
constexpr char kFloor[] = "edge.floor";
constexpr char kCeil[] = "edge.ceil";
constexpr char kRound[] = "edge.round";
constexpr char kTrunc[] = "edge.trunc";
constexpr char kFrac[] = "edge.frac";
constexpr char kSign[] = "edge.sign";
constexpr char kBitwiseNot[] = "edge.bitwise_not";
constexpr char kBitwiseAnd[] = "edge.bitwise_and";
constexpr char kBitwiseOr[] = "edge.bitwise_or";
constexpr char kBitwiseXor[] = "edge.bitwise_xor";
constexpr char kRemainder[] = "edge.remainder";
constexpr char kFmod[] = "edge.fmod";
constexpr char kFloorDivide[] = "edge.floor_divide";
constexpr char kAtan2[] = "edge.atan2";
constexpr char kHypot[] = "edge.hypot";
constexpr char kCopysign[] = "edge.copysign";
constexpr char kLogaddexp[] = "edge.logaddexp";
constexpr char kEq[] = "edge.eq";
constexpr char kNe[] = "edge.ne";
constexpr char kLt[] = "edge.lt";
constexpr char kLe[] = "edge.le";
constexpr char kGt[] = "edge.gt";
constexpr char kGe[] = "edge.ge";

// A Scalar argument as a double.
absl::StatusOr<double> Number(const AtenCall& call, std::string_view name) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue scalar, call.Scalar(name));
  std::optional<double> number = scalar.ToDouble();
  if (!number) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument '", std::string(name), "' is not a number"));
  }
  return *number;
}

// A Scalar? argument as a double, `absent` when None.
absl::StatusOr<double> OptionalNumber(const AtenCall& call, std::string_view name, double absent) {
  if (call.IsNone(name)) return absent;
  return Number(call, name);
}

bool IsTensorArgument(const AtenCall& call, std::string_view name) {
  absl::StatusOr<const AtenCall::Bound*> bound = call.Find(name);
  return bound.ok() && (*bound)->kind == AtenCall::Bound::Kind::kTensor;
}

// `alpha * argument` as an Edge value of `dtype` (add/sub/rsub scale one operand by alpha). A
// number is scaled at compile time; a tensor gets an edge.mul when alpha is not 1.
absl::StatusOr<ir::Value*> Scaled(LoweringContext& ctx, const AtenCall& call, std::string_view name,
                                  DType dtype) {
  TORCHIR_ASSIGN_OR_RETURN(double alpha, Number(call, "alpha"));
  if (!IsTensorArgument(call, name)) {
    TORCHIR_ASSIGN_OR_RETURN(double number, Number(call, name));
    return ctx.builder().Scalar(alpha * number, dtype);
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * value, ctx.TensorOrScalar(call, name, dtype));
  if (alpha == 1.0) return value;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * factor, ctx.builder().Scalar(alpha, dtype));
  return ctx.builder().Emit1(kMul, {value, factor});
}

Results IdentityOfSelf(LoweringContext& ctx, const AtenCall& call);

// ---- Arithmetic ----

// self `op` other, both in the output dtype (mul, div, pow, maximum, minimum).
Results BinaryIn(LoweringContext& ctx, const AtenCall& call, std::string_view op,
                 std::string_view self, std::string_view other) {
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.TensorOrScalar(call, self, dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.TensorOrScalar(call, other, dtype));
  return Single(ctx.builder().Emit1(op, {a, b}));
}

template <const char* kOp>
Results Binary(LoweringContext& ctx, const AtenCall& call) {
  return BinaryIn(ctx, call, kOp, "self", "other");
}

// add/sub: self op alpha * other.
template <const char* kOp>
Results BinaryWithAlpha(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * self, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * other, Scaled(ctx, call, "other", dtype));
  return Single(ctx.builder().Emit1(kOp, {self, other}));
}

// rsub: other - alpha * self.
Results Rsub(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * other, ctx.TensorOrScalar(call, "other", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * self, Scaled(ctx, call, "self", dtype));
  return Single(ctx.builder().Emit1(kSub, {other, self}));
}

// True division: the output dtype is floating even for integer operands.
Results Div(LoweringContext& ctx, const AtenCall& call) {
  return BinaryIn(ctx, call, "edge.div", "self", "other");
}

// Integer division rounded toward zero, exactly: a - fmod(a, b) is a multiple of b (of a's sign
// and no larger), so flooring its quotient rounds nothing.
Results IntegerTruncDivide(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.TensorOrScalar(call, "other", dtype));
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * rest, builder.Emit1(kFmod, {a, b}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * multiple, builder.Emit1(kSub, {a, rest}));
  return Single(builder.Emit1(kFloorDivide, {multiple, b}));
}

// rounding_mode 'floor' is floor_divide; 'trunc' rounds the quotient toward zero.
Results DivMode(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue mode, call.Value("rounding_mode"));
  if (mode.is_none()) return Div(ctx, call);
  if (mode.kind() == AttrValue::Kind::kString && mode.as_string() == "floor") {
    return BinaryIn(ctx, call, kFloorDivide, "self", "other");
  }
  if (mode.kind() == AttrValue::Kind::kString && mode.as_string() == "trunc" &&
      ir::IsFloatingPoint(ctx.OutputType().dtype)) {
    TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> quotient, Div(ctx, call));
    return Single(ctx.builder().Emit1(kTrunc, {quotient[0]}));
  }
  if (mode.kind() == AttrValue::Kind::kString && mode.as_string() == "trunc" &&
      ir::IsIntegral(ctx.OutputType().dtype)) {
    return IntegerTruncDivide(ctx, call);
  }
  return Unsupported(absl::StrCat("div with rounding_mode=", mode.ToString(), " of ",
                                  std::string(ir::DTypeName(ctx.OutputType().dtype)), " values"));
}

// pow.Tensor_Tensor, pow.Tensor_Scalar, and pow.Scalar (a number base, `2 ** x`): the number
// becomes a 0-d constant that edge.pow broadcasts, so every form runs ATen's pow itself (an
// exp(exponent * log(base)) rewrite would round differently).
Results Pow(LoweringContext& ctx, const AtenCall& call) {
  return BinaryIn(ctx, call, "edge.pow", "self", "exponent");
}

// ---- Unary math and activations ----

// op(self) in the output dtype (exp of an int tensor is float).
template <const char* kOp>
Results Unary(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return Single(ctx.builder().Emit1(kOp, {x}));
}

absl::StatusOr<ir::Value*> Clamp(LoweringContext& ctx, const AtenCall& call, double min,
                                 double max) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return ctx.builder().Emit1("edge.clamp", {x},
                             {{"min", AttrValue::Double(min)}, {"max", AttrValue::Double(max)}});
}

Results Relu(LoweringContext& ctx, const AtenCall& call) {
  return Single(Clamp(ctx, call, 0.0, kInfinity));
}

Results Relu6(LoweringContext& ctx, const AtenCall& call) {
  return Single(Clamp(ctx, call, 0.0, 6.0));
}

Results Hardtanh(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double min, Number(call, "min_val"));
  TORCHIR_ASSIGN_OR_RETURN(double max, Number(call, "max_val"));
  return Single(Clamp(ctx, call, min, max));
}

Results ClampScalars(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double min, OptionalNumber(call, "min", -kInfinity));
  TORCHIR_ASSIGN_OR_RETURN(double max, OptionalNumber(call, "max", kInfinity));
  return Single(Clamp(ctx, call, min, max));
}

Results ClampMin(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double min, Number(call, "min"));
  return Single(Clamp(ctx, call, min, kInfinity));
}

Results ClampMax(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double max, Number(call, "max"));
  return Single(Clamp(ctx, call, -kInfinity, max));
}

// clamp.Tensor: tensor bounds become maximum/minimum (in that order, as PyTorch applies them).
Results ClampTensors(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * min, ctx.OptionalTensor(call, "min"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * max, ctx.OptionalTensor(call, "max"));
  if (min != nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(min, builder.CastTo(min, dtype));
    TORCHIR_ASSIGN_OR_RETURN(x, builder.Emit1(kMaximum, {x, min}));
  }
  if (max != nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(max, builder.CastTo(max, dtype));
    TORCHIR_ASSIGN_OR_RETURN(x, builder.Emit1(kMinimum, {x, max}));
  }
  return std::vector<ir::Value*>{x};
}

Results ClampMinTensor(LoweringContext& ctx, const AtenCall& call) {
  return BinaryIn(ctx, call, kMaximum, "self", "min");
}

Results ClampMaxTensor(LoweringContext& ctx, const AtenCall& call) {
  return BinaryIn(ctx, call, kMinimum, "self", "max");
}

Results Gelu(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::string approximate, call.String("approximate"));
  if (approximate != "none" && approximate != "tanh") {
    return Unsupported(absl::StrCat("gelu with approximate='", approximate, "'"));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return Single(
      ctx.builder().Emit1("edge.gelu", {x}, {{"approximate", AttrValue::String(approximate)}}));
}

Results LeakyRelu(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double slope, Number(call, "negative_slope"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return Single(
      ctx.builder().Emit1("edge.leaky_relu", {x}, {{"negative_slope", AttrValue::Double(slope)}}));
}

// Rounding an integer tensor changes nothing: no node.
template <const char* kOp>
Results Rounding(LoweringContext& ctx, const AtenCall& call) {
  if (!ir::IsFloatingPoint(ctx.OutputType().dtype)) return IdentityOfSelf(ctx, call);
  return Unary<kOp>(ctx, call);
}

// round.decimals: round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d for negative d, as
// PyTorch computes it.
Results RoundDecimals(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(int64_t decimals, call.Int("decimals"));
  if (decimals == 0) return Rounding<kRound>(ctx, call);
  const DType dtype = ctx.OutputType().dtype;
  if (!ir::IsFloatingPoint(dtype)) return IdentityOfSelf(ctx, call);
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", dtype));
  const bool negative = decimals < 0;
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * scale,
      builder.Scalar(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals)), dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * scaled, builder.Emit1(negative ? kDiv : kMul, {x, scale}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * rounded, builder.Emit1(kRound, {scaled}));
  return Single(builder.Emit1(negative ? kMul : kDiv, {rounded, scale}));
}

// sign of a bool tensor is itself.
Results Sign(LoweringContext& ctx, const AtenCall& call) {
  if (ctx.OutputType().dtype == DType::kBool) return IdentityOfSelf(ctx, call);
  return Unary<kSign>(ctx, call);
}

// square: x * x.
Results Square(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return Single(ctx.builder().Emit1(kMul, {x, x}));
}

Results EluWith(LoweringContext& ctx, const AtenCall& call, double alpha, double scale,
                double input_scale) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return Single(ctx.builder().Emit1("edge.elu", {x},
                                    {{"alpha", AttrValue::Double(alpha)},
                                     {"scale", AttrValue::Double(scale)},
                                     {"input_scale", AttrValue::Double(input_scale)}}));
}

Results Elu(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double alpha, Number(call, "alpha"));
  TORCHIR_ASSIGN_OR_RETURN(double scale, Number(call, "scale"));
  TORCHIR_ASSIGN_OR_RETURN(double input_scale, Number(call, "input_scale"));
  return EluWith(ctx, call, alpha, scale, input_scale);
}

// celu(x, alpha) = elu(x, alpha, scale 1, input_scale 1 / alpha).
Results Celu(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double alpha, Number(call, "alpha"));
  if (alpha == 0.0) return Unsupported("celu with alpha=0");
  return EluWith(ctx, call, alpha, 1.0, 1.0 / alpha);
}

// selu: elu with PyTorch's fixed alpha and scale.
Results Selu(LoweringContext& ctx, const AtenCall& call) {
  return EluWith(ctx, call, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946,
                 1.0);
}

Results Softplus(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double beta, Number(call, "beta"));
  TORCHIR_ASSIGN_OR_RETURN(double threshold, Number(call, "threshold"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return Single(ctx.builder().Emit1(
      "edge.softplus", {x},
      {{"beta", AttrValue::Double(beta)}, {"threshold", AttrValue::Double(threshold)}}));
}

template <const char* kOp>
Results Shrink(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(double lambd, Number(call, "lambd"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", ctx.OutputType().dtype));
  return Single(ctx.builder().Emit1(kOp, {x}, {{"lambd", AttrValue::Double(lambd)}}));
}
constexpr char kHardshrink[] = "edge.hardshrink";
constexpr char kSoftshrink[] = "edge.softshrink";

// log_sigmoid_forward (core ATen) also returns a buffer nothing may read.
Results LogSigmoidForward(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> output, Unary<kLogSigmoid>(ctx, call));
  return std::vector<ir::Value*>{output[0], nullptr};
}

Results Threshold(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return Unsupported(absl::StrCat("threshold of ", std::string(ir::DTypeName(dtype)),
                                    " values: edge.threshold is float32 or float64"));
  }
  TORCHIR_ASSIGN_OR_RETURN(double threshold, Number(call, "threshold"));
  TORCHIR_ASSIGN_OR_RETURN(double value, Number(call, "value"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", dtype));
  return Single(ctx.builder().Emit1(
      "edge.threshold", {x},
      {{"threshold", AttrValue::Double(threshold)}, {"value", AttrValue::Double(value)}}));
}

// nan_to_num: None means 0 for NaN and the dtype's limits for the infinities (float32's for
// the dtypes that compute in float32); integer tensors have nothing to replace.
Results NanToNum(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  if (!ir::IsFloatingPoint(dtype)) return IdentityOfSelf(ctx, call);
  const double kFloatMax =
      dtype == DType::kFloat64 ? std::numeric_limits<double>::max() : 3.4028234663852886e+38;
  TORCHIR_ASSIGN_OR_RETURN(std::optional<double> nan, call.OptionalDouble("nan"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<double> posinf, call.OptionalDouble("posinf"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<double> neginf, call.OptionalDouble("neginf"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", dtype));
  return Single(ctx.builder().Emit1("edge.nan_to_num", {x},
                                    {{"nan", AttrValue::Double(nan.value_or(0.0))},
                                     {"posinf", AttrValue::Double(posinf.value_or(kFloatMax))},
                                     {"neginf", AttrValue::Double(neginf.value_or(-kFloatMax))}}));
}

// ---- Logical ops: bitwise ops on bool ----

// logical_not(x) = bitwise_not(bool(x)), in the recorded output dtype.
Results LogicalNot(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", DType::kBool));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * result, ctx.builder().Emit1(kBitwiseNot, {x}));
  return Single(ctx.builder().CastTo(result, ctx.OutputType().dtype));
}

// logical_and/or/xor(a, b) = bitwise op of bool(a) and bool(b).
template <const char* kOp>
Results Logical(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.TensorOrScalar(call, "self", DType::kBool));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.TensorOrScalar(call, "other", DType::kBool));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * result, ctx.builder().Emit1(kOp, {a, b}));
  return Single(ctx.builder().CastTo(result, ctx.OutputType().dtype));
}

// ---- Predicates: decompositions ----

// The dtype a predicate compares x in: float64 as itself (a float32 cast would turn large
// values into infinities), other floats in float32, integers in int32 or int64.
DType PredicateDType(DType dtype) {
  if (dtype == DType::kFloat64 || dtype == DType::kInt64) return dtype;
  return ir::IsFloatingPoint(dtype) ? DType::kFloat32 : DType::kInt32;
}

// isnan(x) = x != x (never true for integers).
Results IsNan(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  const DType dtype = PredicateDType(x->dtype());
  TORCHIR_ASSIGN_OR_RETURN(x, ctx.builder().CastTo(x, dtype));
  return Single(ctx.builder().Emit1("edge.ne", {x, x}));
}

// isinf(x) = |x| == inf (never true for integers).
Results IsInf(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (!ir::IsFloatingPoint(x->dtype())) return IsNan(ctx, call);
  EdgeBuilder& builder = ctx.builder();
  const DType dtype = PredicateDType(x->dtype());
  TORCHIR_ASSIGN_OR_RETURN(x, builder.CastTo(x, dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * magnitude, builder.Emit1(kAbs, {x}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * inf, builder.Scalar(kInfinity, dtype));
  return Single(builder.Emit1(kEq, {magnitude, inf}));
}

// ---- Composites: decompositions ----

// lerp(self, end, weight) = self + weight * (end - self).
Results Lerp(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * self, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * end, ctx.TensorOrScalar(call, "end", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.TensorOrScalar(call, "weight", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * difference, builder.Emit1(kSub, {end, self}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * step, builder.Emit1(kMul, {weight, difference}));
  return Single(builder.Emit1(kAdd, {self, step}));
}

// addcmul/addcdiv(self, tensor1, tensor2, value) = self + value * (tensor1 op tensor2).
template <const char* kOp>
Results AddCombined(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * self, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * t1, ctx.TensorOrScalar(call, "tensor1", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * t2, ctx.TensorOrScalar(call, "tensor2", dtype));
  TORCHIR_ASSIGN_OR_RETURN(double value, Number(call, "value"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * combined, builder.Emit1(kOp, {t1, t2}));
  if (value != 1.0) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * factor, builder.Scalar(value, dtype));
    TORCHIR_ASSIGN_OR_RETURN(combined, builder.Emit1(kMul, {combined, factor}));
  }
  return Single(builder.Emit1(kAdd, {self, combined}));
}

// logit(x, eps) = log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given.
Results Logit(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * z, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<double> eps, call.OptionalDouble("eps"));
  if (eps) {
    TORCHIR_ASSIGN_OR_RETURN(z, builder.Emit1("edge.clamp", {z},
                                              {{"min", AttrValue::Double(*eps)},
                                               {"max", AttrValue::Double(1.0 - *eps)}}));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * one, builder.Scalar(1.0, dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * complement, builder.Emit1(kSub, {one, z}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * odds, builder.Emit1(kDiv, {z, complement}));
  return Single(builder.Emit1(kLog, {odds}));
}

// prelu(x, weight): edge.prelu, its shape rule checks the weight (one or one per channel).
Results Prelu(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.TensorOrScalar(call, "weight", dtype));
  return Single(ctx.builder().Emit1("edge.prelu", {x, weight}));
}

// glu(x, dim) = a * sigmoid(b), a and b the two halves of x along dim.
Results Glu(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  const int64_t rank = static_cast<int64_t>(x->type().rank());
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || x->type().sizes[dim] % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("glu: dim ", dim, " of ", x->type().ToString(), " is not of even size"));
  }
  const int64_t half = x->type().sizes[dim] / 2;
  auto slice = [&](int64_t start) {
    return builder.Emit1("edge.slice", {x},
                         {{"dim", AttrValue::Int(dim)},
                          {"start", AttrValue::Int(start)},
                          {"end", AttrValue::Int(start + half)},
                          {"step", AttrValue::Int(1)}});
  };
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, slice(0));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, slice(half));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * gate, builder.Emit1(kSigmoid, {b}));
  return Single(builder.Emit1(kMul, {a, gate}));
}

// ---- Comparisons ----

// PyTorch's result_type for the operands of one call: tensors with dims outrank 0-d tensors, which
// outrank Python numbers, unless a lower class holds a higher category (bool < integer < floating).
// Python floats count as float32 (the default dtype), ints as int64.
class ResultType {
 public:
  absl::Status Add(LoweringContext& ctx, const AtenCall& call, std::string_view name) {
    if (IsTensorArgument(call, name)) {
      TORCHIR_ASSIGN_OR_RETURN(ir::Value * value, ctx.Tensor(call, name));
      Join(value->type().rank() == 0 ? zero_dim_ : dimensioned_, value->dtype());
      return absl::OkStatus();
    }
    TORCHIR_ASSIGN_OR_RETURN(AttrValue scalar, call.Scalar(name));
    Join(number_, scalar.kind() == AttrValue::Kind::kBool  ? DType::kBool
                  : scalar.kind() == AttrValue::Kind::kInt ? DType::kInt64
                                                           : DType::kFloat32);
    return absl::OkStatus();
  }

  DType Get() const { return *Combine(dimensioned_, Combine(zero_dim_, number_)); }

 private:
  static void Join(std::optional<DType>& slot, DType dtype) {
    slot = slot ? PromoteTypes(*slot, dtype) : dtype;
  }
  // c10's combine_categories.
  static std::optional<DType> Combine(std::optional<DType> higher, std::optional<DType> lower) {
    if (!higher) return lower;
    if (!lower || ir::IsFloatingPoint(*higher)) return higher;
    if (*higher == DType::kBool || ir::IsFloatingPoint(*lower)) {
      return PromoteTypes(*higher, *lower);
    }
    return higher;
  }

  std::optional<DType> dimensioned_, zero_dim_, number_;
};

// The dtype Edge compares `common` values in: the same values, widened exactly into one of the
// comparison dtypes (float32, float64, int32, int64).
absl::StatusOr<DType> ComparisonDType(DType common) {
  switch (common) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kInt32:
    case DType::kInt64:
      return common;
    case DType::kFloat16:
    case DType::kBFloat16:
      return DType::kFloat32;
    case DType::kBool:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kUInt8:
    case DType::kUInt16:
      return DType::kInt32;
    case DType::kUInt32:
      return DType::kInt64;
    default:
      return Unsupported(absl::StrCat("comparison of ", std::string(ir::DTypeName(common)),
                                      " values: Edge compares float32, float64, int32 and "
                                      "int64 only"));
  }
}

template <const char* kOp>
Results Compare(LoweringContext& ctx, const AtenCall& call) {
  ResultType result_type;
  for (std::string_view name : {"self", "other"}) {
    absl::Status status = result_type.Add(ctx, call, name);
    if (!status.ok()) return status;
  }
  TORCHIR_ASSIGN_OR_RETURN(DType dtype, ComparisonDType(result_type.Get()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.TensorOrScalar(call, "other", dtype));
  return Single(ctx.builder().Emit1(kOp, {a, b}));
}

// ---- Selection ----

// where(condition, self, other) with both branches in the output dtype (where.self and its Scalar
// overloads).
Results Where(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * condition, ctx.Tensor(call, "condition"));
  TORCHIR_ASSIGN_OR_RETURN(condition, ctx.builder().CastTo(condition, DType::kBool));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.TensorOrScalar(call, "other", dtype));
  return Single(ctx.builder().Emit1("edge.where", {condition, a, b}));
}

// masked_fill(self, mask, value) = where(mask, value, self); a tensor value must be 0-d.
Results MaskedFill(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  if (IsTensorArgument(call, "value")) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * value, ctx.Tensor(call, "value"));
    if (value->type().rank() != 0) {
      return Unsupported(absl::StrCat("masked_fill with a ", value->type().rank(),
                                      "-d value tensor (only a 0-d value is supported)"));
    }
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * self, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mask, ctx.Tensor(call, "mask"));
  TORCHIR_ASSIGN_OR_RETURN(mask, ctx.builder().CastTo(mask, DType::kBool));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * value, ctx.TensorOrScalar(call, "value", dtype));
  return Single(ctx.builder().Emit1("edge.where", {mask, value, self}));
}

// ---- Identities and conversions ----

// The value of argument `name` itself: no node.
Results Identity(LoweringContext& ctx, const AtenCall& call, std::string_view name) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, name));
  return std::vector<ir::Value*>{x};
}

Results IdentityOfSelf(LoweringContext& ctx, const AtenCall& call) {
  return Identity(ctx, call, "self");
}

// dropout (input) and dropout_ (self) are identities in eval mode.
Results Dropout(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(bool train, call.Bool("train"));
  if (train) {
    return absl::InvalidArgumentError(
        "dropout with train=True cannot be compiled; export the model in "
        "eval() mode");
  }
  return Identity(ctx, call, IsTensorArgument(call, "input") ? "input" : "self");
}

// native_dropout(input, p, train) -> (output, mask). In its eval form (train=False, or p=0,
// where the Bernoulli draw keeps everything) output is the input and mask all true (of the
// input's dtype when it is empty, as ATen makes it); sampling a mask is refused.
Results NativeDropout(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(double p, call.Double("p"));
  bool train = true;  // ATen treats train=None as training
  if (!call.IsNone("train")) {
    TORCHIR_ASSIGN_OR_RETURN(train, call.Bool("train"));
  }
  if (train && p != 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "native_dropout with train=True and p=", p,
        " samples a random mask, so there is nothing deterministic to compile; export the model "
        "in eval() mode"));
  }
  const ir::TensorType& mask_type = ctx.OutputType(1);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * one, ctx.builder().Scalar(1.0, mask_type.dtype));
  TORCHIR_ASSIGN_OR_RETURN(
      one, ctx.builder().ReshapeTo(one, std::vector<int64_t>(mask_type.sizes.size(), 1)));
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * mask,
      ctx.builder().Emit1("edge.expand", {one}, {{"sizes", AttrValue::IntList(mask_type.sizes)}}));
  return std::vector<ir::Value*>{x, mask};
}

Results CastToOutputDType(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  return Single(ctx.builder().CastTo(x, ctx.OutputType().dtype));
}

// to.dtype: a cast to `dtype`.
Results ToDType(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::optional<DType> dtype, call.OptionalDType("dtype"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  return Single(ctx.builder().CastTo(x, dtype.value_or(x->dtype())));
}

// _to_copy / to.dtype_layout: only the dtype may change; the tensor stays a strided CPU one.
Results ToCopy(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue layout, call.Value("layout"));
  if (!layout.is_none() &&
      !(layout.kind() == AttrValue::Kind::kLayout && layout.as_layout() == ir::Layout::kStrided)) {
    return Unsupported(absl::StrCat("conversion to layout ", layout.ToString()));
  }
  TORCHIR_ASSIGN_OR_RETURN(AttrValue device, call.Value("device"));
  if (!device.is_none() &&
      !(device.kind() == AttrValue::Kind::kDevice && device.as_device().type == "cpu")) {
    return Unsupported(absl::StrCat("conversion to device ", device.ToString()));
  }
  return ToDType(ctx, call);
}

// _assert_tensor_metadata: torch.export (torch >= 2.5) records one before each `.to()` to pin
// the dtype (and sometimes sizes) it traced with. Shapes and dtypes are static here, so the
// assertion is checked once, now, and the node lowers to nothing. Strides are not checked:
// Edge values are dense row-major, whatever strides the traced tensor had. `device` is
// whatever the model was traced on (pytorch-ir traces on "meta") and is not checked either.
Results AssertTensorMetadata(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "a"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<DType> dtype, call.OptionalDType("dtype"));
  if (dtype && *dtype != a->dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("asserts dtype ", std::string(ir::DTypeName(*dtype)), " but '", a->name(),
                     "' is ", std::string(ir::DTypeName(a->dtype()))));
  }
  TORCHIR_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> sizes, call.OptionalIntList("size"));
  if (sizes && *sizes != a->sizes()) {
    return absl::InvalidArgumentError(absl::StrCat("asserts sizes [", absl::StrJoin(*sizes, ", "),
                                                   "] but '", a->name(), "' has [",
                                                   absl::StrJoin(a->sizes(), ", "), "]"));
  }
  TORCHIR_ASSIGN_OR_RETURN(AttrValue layout, call.Value("layout"));
  if (!layout.is_none() &&
      !(layout.kind() == AttrValue::Kind::kLayout && layout.as_layout() == ir::Layout::kStrided)) {
    return Unsupported(absl::StrCat("tensors of layout ", layout.ToString()));
  }
  return std::vector<ir::Value*>{};
}

// Registers `rule` for aten.<name>.<overload> and, when `in_place`, aten.<name>_.<overload>.
void AddOp(RuleTable& table, const std::string& name, const std::string& overload,
           LoweringRule rule, bool in_place = false) {
  table.Add(absl::StrCat("aten.", name, ".", overload), rule);
  if (in_place) table.Add(absl::StrCat("aten.", name, "_.", overload), rule);
}

constexpr bool kInPlace = true;

}  // namespace

void AddElementwiseRules(RuleTable& table) {
  // Arithmetic.
  AddOp(table, "add", "Tensor", BinaryWithAlpha<kAdd>, kInPlace);
  AddOp(table, "add", "Scalar", BinaryWithAlpha<kAdd>, kInPlace);
  AddOp(table, "sub", "Tensor", BinaryWithAlpha<kSub>, kInPlace);
  AddOp(table, "sub", "Scalar", BinaryWithAlpha<kSub>, kInPlace);
  AddOp(table, "rsub", "Tensor", Rsub);
  AddOp(table, "rsub", "Scalar", Rsub);
  AddOp(table, "mul", "Tensor", Binary<kMul>, kInPlace);
  AddOp(table, "mul", "Scalar", Binary<kMul>, kInPlace);
  AddOp(table, "div", "Tensor", Div, kInPlace);
  AddOp(table, "div", "Scalar", Div, kInPlace);
  AddOp(table, "div", "Tensor_mode", DivMode, kInPlace);
  AddOp(table, "div", "Scalar_mode", DivMode, kInPlace);
  AddOp(table, "pow", "Tensor_Scalar", Pow);
  AddOp(table, "pow", "Tensor_Tensor", Pow);
  AddOp(table, "pow", "Scalar", Pow);
  AddOp(table, "maximum", "default", Binary<kMaximum>);
  AddOp(table, "minimum", "default", Binary<kMinimum>);
  for (const char* overload : {"Tensor", "Scalar"}) {
    AddOp(table, "fmod", overload, Binary<kFmod>, kInPlace);
    AddOp(table, "remainder", overload, Binary<kRemainder>, kInPlace);
    AddOp(table, "copysign", overload, Binary<kCopysign>, kInPlace);
  }
  AddOp(table, "remainder", "Scalar_Tensor", Binary<kRemainder>);
  AddOp(table, "floor_divide", "default", Binary<kFloorDivide>);
  AddOp(table, "floor_divide", "Scalar", Binary<kFloorDivide>, kInPlace);
  AddOp(table, "floor_divide_", "Tensor", Binary<kFloorDivide>);
  AddOp(table, "atan2", "default", Binary<kAtan2>, kInPlace);
  AddOp(table, "hypot", "default", Binary<kHypot>, kInPlace);
  AddOp(table, "logaddexp", "default", Binary<kLogaddexp>);
  AddOp(table, "square", "default", Square, kInPlace);
  AddOp(table, "lerp", "Scalar", Lerp, kInPlace);
  AddOp(table, "lerp", "Tensor", Lerp, kInPlace);
  AddOp(table, "addcmul", "default", AddCombined<kMul>, kInPlace);
  AddOp(table, "addcdiv", "default", AddCombined<kDiv>, kInPlace);

  // Bitwise and logical.
  for (const char* overload : {"Tensor", "Scalar", "Scalar_Tensor"}) {
    AddOp(table, "bitwise_and", overload, Binary<kBitwiseAnd>);
    AddOp(table, "bitwise_or", overload, Binary<kBitwiseOr>);
    AddOp(table, "bitwise_xor", overload, Binary<kBitwiseXor>);
  }
  for (const char* overload : {"Tensor", "Scalar"}) {
    AddOp(table, "bitwise_and_", overload, Binary<kBitwiseAnd>);
    AddOp(table, "bitwise_or_", overload, Binary<kBitwiseOr>);
    AddOp(table, "bitwise_xor_", overload, Binary<kBitwiseXor>);
  }
  // Python's &, |, ^ on tensors (torch.export keeps the dunder names).
  for (const char* overload : {"Tensor", "Scalar"}) {
    AddOp(table, "__and__", overload, Binary<kBitwiseAnd>);
    AddOp(table, "__or__", overload, Binary<kBitwiseOr>);
    AddOp(table, "__xor__", overload, Binary<kBitwiseXor>);
    AddOp(table, "__iand__", overload, Binary<kBitwiseAnd>);
    AddOp(table, "__ior__", overload, Binary<kBitwiseOr>);
    AddOp(table, "__ixor__", overload, Binary<kBitwiseXor>);
  }
  AddOp(table, "bitwise_not", "default", Unary<kBitwiseNot>, kInPlace);
  AddOp(table, "logical_not", "default", LogicalNot, kInPlace);
  AddOp(table, "logical_and", "default", Logical<kBitwiseAnd>, kInPlace);
  AddOp(table, "logical_or", "default", Logical<kBitwiseOr>, kInPlace);
  AddOp(table, "logical_xor", "default", Logical<kBitwiseXor>, kInPlace);
  AddOp(table, "isnan", "default", IsNan);
  AddOp(table, "isinf", "default", IsInf);

  // Unary math.
  AddOp(table, "neg", "default", Unary<kNeg>, kInPlace);
  AddOp(table, "abs", "default", Unary<kAbs>, kInPlace);
  AddOp(table, "exp", "default", Unary<kExp>, kInPlace);
  AddOp(table, "log", "default", Unary<kLog>, kInPlace);
  AddOp(table, "sqrt", "default", Unary<kSqrt>, kInPlace);
  AddOp(table, "rsqrt", "default", Unary<kRsqrt>, kInPlace);
  AddOp(table, "tanh", "default", Unary<kTanh>, kInPlace);
  AddOp(table, "sigmoid", "default", Unary<kSigmoid>, kInPlace);
  AddOp(table, "erf", "default", Unary<kErf>, kInPlace);
  AddOp(table, "erfc", "default", Unary<kErfc>, kInPlace);
  AddOp(table, "exp2", "default", Unary<kExp2>, kInPlace);
  AddOp(table, "expm1", "default", Unary<kExpm1>, kInPlace);
  AddOp(table, "log2", "default", Unary<kLog2>, kInPlace);
  AddOp(table, "log10", "default", Unary<kLog10>, kInPlace);
  AddOp(table, "log1p", "default", Unary<kLog1p>, kInPlace);
  AddOp(table, "reciprocal", "default", Unary<kReciprocal>, kInPlace);
  AddOp(table, "sin", "default", Unary<kSin>, kInPlace);
  AddOp(table, "cos", "default", Unary<kCos>, kInPlace);
  AddOp(table, "tan", "default", Unary<kTan>, kInPlace);
  AddOp(table, "asin", "default", Unary<kAsin>, kInPlace);
  AddOp(table, "acos", "default", Unary<kAcos>, kInPlace);
  AddOp(table, "atan", "default", Unary<kAtan>, kInPlace);
  AddOp(table, "sinh", "default", Unary<kSinh>, kInPlace);
  AddOp(table, "cosh", "default", Unary<kCosh>, kInPlace);
  AddOp(table, "asinh", "default", Unary<kAsinh>, kInPlace);
  AddOp(table, "acosh", "default", Unary<kAcosh>, kInPlace);
  AddOp(table, "atanh", "default", Unary<kAtanh>, kInPlace);
  AddOp(table, "floor", "default", Rounding<kFloor>, kInPlace);
  AddOp(table, "ceil", "default", Rounding<kCeil>, kInPlace);
  AddOp(table, "round", "default", Rounding<kRound>, kInPlace);
  AddOp(table, "round", "decimals", RoundDecimals, kInPlace);
  AddOp(table, "trunc", "default", Rounding<kTrunc>, kInPlace);
  AddOp(table, "fix", "default", Rounding<kTrunc>, kInPlace);
  AddOp(table, "frac", "default", Unary<kFrac>, kInPlace);
  AddOp(table, "sign", "default", Sign, kInPlace);
  AddOp(table, "sgn", "default", Sign, kInPlace);  // sign, for real tensors
  AddOp(table, "positive", "default", IdentityOfSelf);
  AddOp(table, "nan_to_num", "default", NanToNum, kInPlace);
  AddOp(table, "logit", "default", Logit, kInPlace);

  // Activations.
  AddOp(table, "relu", "default", Relu, kInPlace);
  AddOp(table, "relu6", "default", Relu6);
  AddOp(table, "hardtanh", "default", Hardtanh, kInPlace);
  AddOp(table, "clamp", "default", ClampScalars, kInPlace);
  AddOp(table, "clamp", "Tensor", ClampTensors, kInPlace);
  AddOp(table, "clamp_min", "default", ClampMin, kInPlace);
  AddOp(table, "clamp_max", "default", ClampMax, kInPlace);
  AddOp(table, "clamp_min", "Tensor", ClampMinTensor, kInPlace);
  AddOp(table, "clamp_max", "Tensor", ClampMaxTensor, kInPlace);
  AddOp(table, "hardswish", "default", Unary<kHardswish>, kInPlace);
  AddOp(table, "hardsigmoid", "default", Unary<kHardsigmoid>, kInPlace);
  AddOp(table, "silu", "default", Unary<kSilu>, kInPlace);
  AddOp(table, "gelu", "default", Gelu, kInPlace);
  AddOp(table, "leaky_relu", "default", LeakyRelu, kInPlace);
  AddOp(table, "elu", "default", Elu, kInPlace);
  AddOp(table, "celu", "default", Celu, kInPlace);
  AddOp(table, "selu", "default", Selu, kInPlace);
  AddOp(table, "softplus", "default", Softplus);
  AddOp(table, "hardshrink", "default", Shrink<kHardshrink>);
  AddOp(table, "softshrink", "default", Shrink<kSoftshrink>);
  AddOp(table, "mish", "default", Unary<kMish>, kInPlace);
  AddOp(table, "log_sigmoid", "default", Unary<kLogSigmoid>);
  AddOp(table, "log_sigmoid_forward", "default", LogSigmoidForward);
  AddOp(table, "threshold", "default", Threshold, kInPlace);
  AddOp(table, "prelu", "default", Prelu);
  AddOp(table, "glu", "default", Glu);

  // Comparisons (their in-place forms keep self's dtype instead of bool: not lowered).
  for (const char* overload : {"Tensor", "Scalar"}) {
    AddOp(table, "eq", overload, Compare<kEq>);
    AddOp(table, "ne", overload, Compare<kNe>);
    AddOp(table, "lt", overload, Compare<kLt>);
    AddOp(table, "le", overload, Compare<kLe>);
    AddOp(table, "gt", overload, Compare<kGt>);
    AddOp(table, "ge", overload, Compare<kGe>);
  }

  // Selection.
  for (const char* overload : {"self", "ScalarSelf", "ScalarOther", "Scalar"}) {
    AddOp(table, "where", overload, Where);
  }
  AddOp(table, "masked_fill", "Scalar", MaskedFill, kInPlace);
  AddOp(table, "masked_fill", "Tensor", MaskedFill, kInPlace);

  // Identities in eval mode.
  AddOp(table, "dropout", "default", Dropout, kInPlace);
  AddOp(table, "native_dropout", "default", NativeDropout);
  for (const char* name : {"clone", "contiguous", "alias", "lift_fresh_copy"}) {
    AddOp(table, name, "default", IdentityOfSelf);
  }
  // detach_: torch.export writes `lift_fresh_copy` + `detach_` for a torch.tensor() literal.
  AddOp(table, "detach", "default", IdentityOfSelf, kInPlace);
  AddOp(table, "_assert_tensor_metadata", "default", AssertTensorMetadata);

  // Dtype conversions.
  AddOp(table, "to", "dtype", ToDType);
  AddOp(table, "to", "dtype_layout", ToCopy);
  AddOp(table, "_to_copy", "default", ToCopy);
  AddOp(table, "type_as", "default", CastToOutputDType);
}

}  // namespace torchir::lowering
