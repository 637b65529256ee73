// Lowering of elementwise ops: arithmetic, unary math, activations, comparisons, selection,
// eval-mode identities and dtype conversions.
//
// Every rule makes promotion explicit: operands are cast to the dtype the IR records for the output
// (comparisons, whose output is bool, to PyTorch's result type of the operands), and Python numbers
// become 0-d constants of that dtype.
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
constexpr char kHardswish[] = "edge.hardswish";
constexpr char kHardsigmoid[] = "edge.hardsigmoid";
constexpr char kSilu[] = "edge.silu";
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

Results DivMode(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue mode, call.Value("rounding_mode"));
  if (mode.is_none()) return Div(ctx, call);
  return Unsupported(absl::StrCat("div with rounding_mode=", mode.ToString(),
                                  ": the Edge dialect has no floor or trunc op"));
}

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
// comparison dtypes (float32, int32, int64).
absl::StatusOr<DType> ComparisonDType(DType common) {
  switch (common) {
    case DType::kFloat32:
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
                                      " values: Edge compares float32, int32 and int64 only"));
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
    return absl::InvalidArgumentError(absl::StrCat(
        "asserts dtype ", std::string(ir::DTypeName(*dtype)), " but '", a->name(), "' is ",
        std::string(ir::DTypeName(a->dtype()))));
  }
  TORCHIR_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> sizes, call.OptionalIntList("size"));
  if (sizes && *sizes != a->sizes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "asserts sizes [", absl::StrJoin(*sizes, ", "), "] but '", a->name(), "' has [",
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
  AddOp(table, "maximum", "default", Binary<kMaximum>);
  AddOp(table, "minimum", "default", Binary<kMinimum>);

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
