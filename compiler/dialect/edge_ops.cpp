#include "compiler/dialect/edge_ops.h"

#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dialect/fold_rules.h"
#include "compiler/dialect/node_macs.h"
#include "compiler/dialect/noop_rules.h"
#include "compiler/dialect/shape_rules.h"
#include "compiler/ir/tensor_limits.h"

namespace torchir::dialect {
namespace {

using ir::DType;
namespace rules = shape_rules;
namespace fold = fold_rules;
namespace macs = mac_rules;
namespace noop = noop_rules;

// ---- Table-building shorthands --------------------------------------------------

TensorOperand In(const char* name, const char* type_var = "T") { return {name, type_var, {}}; }
TensorOperand Optional(const char* name, const char* type_var = "T") {
  return {name, type_var, {}, /*optional=*/true};
}
TensorOperand Variadic(const char* name, const char* type_var = "T") {
  return {name, type_var, {}, false, /*variadic=*/true};
}
TensorOperand Fixed(const char* name, DTypeSet dtypes) { return {name, "", dtypes}; }

AttrSpec Int(const char* name) { return {name, AttrKind::kInt}; }
AttrSpec Ints(const char* name) { return {name, AttrKind::kIntList}; }
AttrSpec Real(const char* name) { return {name, AttrKind::kDouble}; }
AttrSpec Flag(const char* name) { return {name, AttrKind::kBool}; }
AttrSpec Type(const char* name) { return {name, AttrKind::kDType}; }
AttrSpec Text(const char* name) { return {name, AttrKind::kString}; }

// Floating-point ops take float32 and float64 (computed in double, as PyTorch's CPU kernels
// do); convolution, pooling and prelu have float32 kernels only, and float64
// reaching them is refused (docs/decisions.md, "Reduced dtypes compute wide ...").
const DTypeSet kFloat{DType::kFloat32, DType::kFloat64};
const DTypeSet kFloat32{DType::kFloat32};
const DTypeSet kArithmetic{DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64};
const DTypeSet kIndex{DType::kInt32, DType::kInt64};
const DTypeSet kBits{DType::kInt32, DType::kInt64, DType::kBool};
const DTypeSet kBool{DType::kBool};
const DTypeSet kInt64{DType::kInt64};

std::vector<TypeVariable> T(DTypeSet allowed) { return {{"T", allowed}}; }

// A row under construction. The per-op facts chain onto the row:
// Binary(...).Commutative(), Op(...).Noop(rule).Folds(rule).
struct Row {
  EdgeOpDef def;

  Row Commutative() && {
    def.commutative = true;
    return std::move(*this);
  }
  Row ViewOfInput0() && {
    def.output_storage = OutputStorage::kViewOfInput0;
    return std::move(*this);
  }
  Row Macs(MacRule rule) && {
    def.macs = rule;
    return std::move(*this);
  }
  Row Noop(NoopRule rule) && {
    def.is_noop = rule;
    return std::move(*this);
  }
  Row CollapsesChains(ChainRule rule) && {
    def.collapse_chain = rule;
    return std::move(*this);
  }
  Row Folds(FoldRule rule) && {
    def.fold = rule;
    return std::move(*this);
  }
};

// The kernel is registered under the op name without the "edge." prefix.
Row Op(const char* name, std::vector<TensorOperand> inputs, std::vector<AttrSpec> attrs,
       std::vector<TensorOperand> outputs, std::vector<TypeVariable> type_vars, ShapeRule rule,
       const char* summary) {
  EdgeOpDef def;
  def.name = name;
  def.inputs = std::move(inputs);
  def.attrs = std::move(attrs);
  def.outputs = std::move(outputs);
  def.type_vars = std::move(type_vars);
  def.shape_rule = rule;
  def.kernel = std::string(name).substr(5);
  def.summary = summary;
  return {std::move(def)};
}

Row Unary(const char* name, DTypeSet allowed, const char* summary,
          std::vector<AttrSpec> attrs = {}) {
  return Op(name, {In("input")}, std::move(attrs), {In("out")}, T(allowed), rules::SameAsFirst,
            summary);
}

Row Binary(const char* name, DTypeSet allowed, const char* summary) {
  return Op(name, {In("self"), In("other")}, {}, {In("out")}, T(allowed), rules::Broadcast,
            summary);
}

Row Compare(const char* name, const char* summary) {
  return Op(name, {In("self"), In("other")}, {}, {Fixed("out", kBool)}, T(kArithmetic),
            rules::BroadcastToBool, summary);
}

Row Reduction(const char* name, DTypeSet allowed, const char* summary) {
  return Op(name, {In("input")}, {Ints("dims"), Flag("keepdim")}, {In("out")}, T(allowed),
            rules::Reduce, summary);
}

// edge.prelu: the input's type; the weight holds one slope or one per channel (dim 1; a 0-d or
// 1-d input has one channel), as aten::prelu requires.
absl::StatusOr<std::vector<ir::TensorType>> PreluShape(
    const std::vector<const ir::TensorType*>& inputs, const ir::Node&) {
  const ir::TensorType& input = *inputs[0];
  const ir::TensorType& weight = *inputs[1];
  const int64_t channels = input.rank() >= 2 ? input.sizes[1] : 1;
  if (weight.rank() > 1 || (weight.numel() != 1 && weight.numel() != channels)) {
    return absl::InvalidArgumentError(absl::StrCat("prelu weight ", weight.ToString(),
                                                   " is neither one slope nor one per channel of ",
                                                   input.ToString()));
  }
  return std::vector<ir::TensorType>{input};
}

std::vector<EdgeOpDef> BuildTable() {
  const std::initializer_list<Row> rows = {
      // Compute-heavy ops; output_min/output_max is a fused clamp (+-inf when none).
      Op("edge.convolution", {In("input"), In("weight"), Optional("bias")},
         {Ints("stride"), Ints("padding"), Ints("dilation"), Int("groups"), Real("output_min"),
          Real("output_max")},
         {In("out")}, T(kFloat32), rules::Convolution,
         "1-d/2-d/3-d convolution, NC* layout, weight [O, C/groups, k...], fused output clamp")
          .Macs(macs::Convolution),
      Op("edge.linear", {In("input"), In("weight"), Optional("bias")},
         {Real("output_min"), Real("output_max")}, {In("out")}, T(kFloat), rules::Linear,
         "input [..., K] x weight [N, K]^T + bias [N], fused output clamp")
          .Macs(macs::MatrixProduct),
      Op("edge.matmul", {In("self"), In("other")}, {}, {In("out")}, T(kFloat), rules::Matmul,
         "batched matrix product of two rank >= 2 tensors, batch dims broadcast")
          .Macs(macs::MatrixProduct),
      Op("edge.batch_norm",
         {In("input"), In("running_mean"), In("running_var"), Optional("weight"),
          Optional("bias")},
         {Real("eps")}, {In("out")}, T(kFloat), rules::Normalization,
         "inference batch norm over dim 1 with running statistics"),
      Op("edge.layer_norm", {In("input"), Optional("weight"), Optional("bias")},
         {Ints("normalized_shape"), Real("eps")}, {In("out")}, T(kFloat), rules::LayerNorm,
         "layer norm over the trailing normalized_shape dims"),
      Op("edge.softmax", {In("input")}, {Int("dim")}, {In("out")}, T(kFloat), rules::Softmax,
         "softmax along dim"),
      Op("edge.log_softmax", {In("input")}, {Int("dim")}, {In("out")}, T(kFloat),
         rules::Softmax, "log of softmax along dim"),

      // Elementwise unary.
      Unary("edge.clamp", kArithmetic, "clamp to [min, max] (+-inf for an open side); relu, "
            "relu6 and hardtanh lower to it", {Real("min"), Real("max")}),
      Unary("edge.hardswish", kFloat, "x * relu6(x + 3) / 6"),
      Unary("edge.hardsigmoid", kFloat, "relu6(x + 3) / 6"),
      Unary("edge.sigmoid", kFloat, "1 / (1 + exp(-x))"),
      Unary("edge.tanh", kFloat, "hyperbolic tangent"),
      Unary("edge.gelu", kFloat, "GELU; approximate is 'none' (erf) or 'tanh'",
            {Text("approximate")}),
      Unary("edge.silu", kFloat, "x * sigmoid(x)"),
      Unary("edge.leaky_relu", kFloat, "x if x > 0 else negative_slope * x",
            {Real("negative_slope")}),
      Op("edge.prelu", {In("input"), Fixed("weight", kFloat32)}, {}, {In("out")}, T(kFloat32),
         PreluShape, "x if x > 0 else weight * x, one weight or one per channel (dim 1)"),
      Unary("edge.mish", kFloat, "x * tanh(softplus(x))"),
      Unary("edge.log_sigmoid", kFloat, "log(sigmoid(x))"),
      Unary("edge.threshold", kFloat, "value if x <= threshold else x",
            {Real("threshold"), Real("value")}),
      Unary("edge.nan_to_num", kFloat, "NaN, +inf, -inf replaced by nan, posinf, neginf",
            {Real("nan"), Real("posinf"), Real("neginf")}),
      Unary("edge.elu", kFloat,
            "scale * x if x > 0 else scale * alpha * (exp(input_scale * x) - 1); celu and selu "
            "lower to it",
            {Real("alpha"), Real("scale"), Real("input_scale")}),
      Unary("edge.softplus", kFloat, "log(1 + exp(beta * x)) / beta, x where beta * x > threshold",
            {Real("beta"), Real("threshold")}),
      Unary("edge.hardshrink", kFloat, "0 if -lambd <= x <= lambd else x", {Real("lambd")}),
      Unary("edge.softshrink", kFloat, "x - lambd above lambd, x + lambd below -lambd, else 0",
            {Real("lambd")}),
      Unary("edge.exp", kFloat, "e^x"),
      Unary("edge.exp2", kFloat, "2^x"),
      Unary("edge.expm1", kFloat, "e^x - 1"),
      Unary("edge.log", kFloat, "natural logarithm"),
      Unary("edge.log2", kFloat, "base-2 logarithm"),
      Unary("edge.log10", kFloat, "base-10 logarithm"),
      Unary("edge.log1p", kFloat, "log(1 + x)"),
      Unary("edge.sqrt", kFloat, "square root"),
      Unary("edge.rsqrt", kFloat, "1 / sqrt(x)"),
      Unary("edge.reciprocal", kFloat, "1 / x"),
      Unary("edge.erf", kFloat, "error function"),
      Unary("edge.erfc", kFloat, "1 - erf(x), accurate where erf(x) is near 1"),
      Unary("edge.sin", kFloat, "sine"),
      Unary("edge.cos", kFloat, "cosine"),
      Unary("edge.tan", kFloat, "tangent"),
      Unary("edge.asin", kFloat, "arcsine"),
      Unary("edge.acos", kFloat, "arccosine"),
      Unary("edge.atan", kFloat, "arctangent"),
      Unary("edge.sinh", kFloat, "hyperbolic sine"),
      Unary("edge.cosh", kFloat, "hyperbolic cosine"),
      Unary("edge.asinh", kFloat, "inverse hyperbolic sine"),
      Unary("edge.acosh", kFloat, "inverse hyperbolic cosine"),
      Unary("edge.atanh", kFloat, "inverse hyperbolic tangent"),
      Unary("edge.floor", kFloat, "round down (integer tensors lower to nothing)"),
      Unary("edge.ceil", kFloat, "round up (integer tensors lower to nothing)"),
      Unary("edge.round", kFloat, "round half to even (round.decimals scales around it)"),
      Unary("edge.trunc", kFloat, "round toward zero"),
      Unary("edge.frac", kFloat, "x - trunc(x)"),
      Unary("edge.neg", kArithmetic, "-x"),
      Unary("edge.abs", kArithmetic, "|x|"),
      Unary("edge.sign", kArithmetic, "-1, 0 or 1 (0 for NaN)"),
      Unary("edge.bitwise_not", kBits, "~x; logical not on bool (logical_not lowers to it)"),

      // Elementwise binary, broadcasting, no implicit promotion.
      Binary("edge.add", kArithmetic, "self + other").Commutative(),
      Binary("edge.sub", kArithmetic, "self - other"),
      Binary("edge.mul", kArithmetic, "self * other").Commutative(),
      Binary("edge.div", kFloat, "self / other (true division)"),
      Binary("edge.pow", kFloat, "self ** other"),
      Binary("edge.remainder", kArithmetic, "Python's self % other (the sign of other)"),
      Binary("edge.fmod", kArithmetic, "C's fmod(self, other) (the sign of self)"),
      Binary("edge.floor_divide", kArithmetic, "Python's self // other (rounded toward -inf)"),
      Binary("edge.maximum", kArithmetic, "elementwise max").Commutative(),
      Binary("edge.minimum", kArithmetic, "elementwise min").Commutative(),
      Binary("edge.atan2", kFloat, "arctangent of self / other in the quadrant of (other, self)"),
      Binary("edge.hypot", kFloat, "sqrt(self^2 + other^2)").Commutative(),
      Binary("edge.copysign", kFloat, "the magnitude of self with the sign of other"),
      Binary("edge.logaddexp", kFloat, "log(exp(self) + exp(other))").Commutative(),
      Binary("edge.bitwise_and", kBits, "bitwise and; logical and on bool").Commutative(),
      Binary("edge.bitwise_or", kBits, "bitwise or; logical or on bool").Commutative(),
      Binary("edge.bitwise_xor", kBits, "bitwise xor; logical xor on bool").Commutative(),
      Compare("edge.eq", "self == other").Commutative().Folds(fold::Compare),
      Compare("edge.ne", "self != other").Commutative().Folds(fold::Compare),
      Compare("edge.lt", "self < other").Folds(fold::Compare),
      Compare("edge.le", "self <= other").Folds(fold::Compare),
      Compare("edge.gt", "self > other").Folds(fold::Compare),
      Compare("edge.ge", "self >= other").Folds(fold::Compare),
      Op("edge.where", {Fixed("condition", kBool), In("self"), In("other")}, {}, {In("out")},
         T(DTypeSet{DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kBool}),
         rules::Where, "condition ? self : other, broadcasting"),
      Op("edge.cast", {In("input")}, {Type("dtype")}, {In("out", "U")},
         {{"T", DTypeSet::All()}, {"U", DTypeSet::All()}}, rules::Cast,
         "convert to dtype (the only op whose output dtype differs from its input's)")
          .Noop(noop::SameType),

      // Reductions.
      Reduction("edge.mean", kFloat, "mean over dims (all when empty)"),
      Reduction("edge.sum", kArithmetic, "sum over dims (all when empty)"),
      Reduction("edge.amax", kArithmetic, "max over dims (all when empty)"),
      Op("edge.max_dim", {In("input")}, {Int("dim"), Flag("keepdim")},
         {In("values"), Fixed("indices", kInt64)}, T(kArithmetic), rules::MaxDim,
         "max along dim with the index of the first maximum"),
      Reduction("edge.amin", kArithmetic, "min over dims (all when empty)"),
      Reduction("edge.prod", kArithmetic, "product over dims (all when empty)"),
      Op("edge.min_dim", {In("input")}, {Int("dim"), Flag("keepdim")},
         {In("values"), Fixed("indices", kInt64)}, T(kArithmetic), rules::MaxDim,
         "min along dim with the index of the first minimum"),
      Op("edge.cumsum", {In("input")}, {Int("dim")}, {In("out")}, T(kArithmetic),
         rules::AlongDim, "running sums along dim"),
      Op("edge.topk", {In("input")}, {Int("k"), Int("dim"), Flag("largest")},
         {In("values"), Fixed("indices", kInt64)}, T(kArithmetic), rules::TopK,
         "the k largest (or smallest) along dim, in order, ties in index order (sort, argsort)"),

      // Pooling over the last two dims.
      Op("edge.max_pool2d", {In("input")},
         {Ints("kernel_size"), Ints("stride"), Ints("padding"), Ints("dilation"),
          Flag("ceil_mode")},
         {In("out")}, T(kFloat32), rules::Pool2d, "2-d max pooling"),
      Op("edge.avg_pool2d", {In("input")},
         {Ints("kernel_size"), Ints("stride"), Ints("padding"), Flag("ceil_mode"),
          Flag("count_include_pad")},
         {In("out")}, T(kFloat32), rules::Pool2d, "2-d average pooling"),
      Op("edge.adaptive_avg_pool2d", {In("input")}, {Ints("output_size")}, {In("out")},
         T(kFloat32), rules::AdaptiveAvgPool2d,
         "average pooling to output_size (a 1x1 output lowers to edge.mean instead)"),
      Op("edge.upsample_bilinear2d", {In("input")},
         {Ints("output_size"), Flag("align_corners"), Real("scales_h"), Real("scales_w")},
         {In("out")}, T(kFloat32), rules::Upsample2d,
         "bilinear resizing of the last two dims to output_size; scales_h/w <= 0 mean none "
         "given (else the source step is 1 / scale)"),

      // Sampling an image at grid positions.
      Op("edge.grid_sampler_2d", {In("input"), In("grid")},
         {Int("interpolation_mode"), Int("padding_mode"), Flag("align_corners")}, {In("out")},
         T(kFloat32), rules::GridSampler2d,
         "input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]): "
         "bilinear/nearest/bicubic (0/1/2), zeros/border/reflection padding (0/1/2)"),

      // Data movement.
      Op("edge.reshape", {In("input")}, {Ints("shape")}, {In("out")}, T(DTypeSet::All()),
         rules::Reshape, "same elements in a new shape (fully specified, no -1)")
          .ViewOfInput0()
          .Noop(noop::SameType)
          .CollapsesChains(noop::SkipInner)
          .Folds(fold::Reshape),
      Op("edge.permute", {In("input")}, {Ints("dims")}, {In("out")}, T(DTypeSet::All()),
         rules::Permute, "reorder dims (transpose, t, permute)")
          .Noop(noop::IdentityPermutation)
          .CollapsesChains(noop::ComposePermutations)
          .Folds(fold::Permute),
      Op("edge.slice", {In("input")}, {Int("dim"), Int("start"), Int("end"), Int("step")},
         {In("out")}, T(DTypeSet::All()), rules::Slice,
         "elements start, start+step, ... < end along dim (all normalised)")
          .Noop(noop::WholeSlice)
          .Folds(fold::Slice),
      Op("edge.concatenate", {Variadic("tensors")}, {Int("dim")}, {In("out")},
         T(DTypeSet::All()), rules::Concatenate, "join tensors along a normalised dim")
          .Noop(noop::SingleInput)
          .Folds(fold::Concatenate),
      Op("edge.expand", {In("input")}, {Ints("sizes")}, {In("out")}, T(DTypeSet::All()),
         rules::Expand, "broadcast to sizes")
          .Noop(noop::SameType)
          .Folds(fold::Expand),
      Op("edge.index_select", {In("input"), In("index", "I")}, {Int("dim")}, {In("out")},
         {{"T", DTypeSet::All()}, {"I", kIndex}}, rules::IndexSelect,
         "gather entries of a 1-d index along dim (embedding, index.Tensor)"),
      Op("edge.scatter", {In("input"), In("index", "I"), In("src")},
         {Int("dim"), Text("reduce"), Flag("include_self")}, {In("out")},
         {{"T", DTypeSet::All()}, {"I", kIndex}}, rules::Scatter,
         "input with src written (reduce none) or combined (sum, prod, amax, amin: float32, "
         "int32, int64) where the index points along dim; without include_self a target "
         "starts from the reduction's identity (scatter, scatter_add, scatter_reduce, "
         "index_put)"),
      Op("edge.constant_pad", {In("input")}, {Ints("pad"), Real("value")}, {In("out")},
         T(kArithmetic), rules::ConstantPad,
         "pad with a constant; pad pairs innermost dim first (negative crops)"),
      Op("edge.pad", {In("input")}, {Ints("pad"), Text("mode")}, {In("out")},
         T(DTypeSet::All()), rules::ModePad,
         "pad with the input's own values: mode reflect, replicate or circular; pad pairs "
         "innermost dim first, each >= 0"),
  };
  std::vector<EdgeOpDef> table;
  table.reserve(rows.size());
  for (const Row& row : rows) table.push_back(row.def);
  return table;
}

bool KindMatches(AttrKind kind, const ir::AttrValue& value) {
  using Kind = ir::AttrValue::Kind;
  switch (kind) {
    case AttrKind::kInt: return value.kind() == Kind::kInt;
    case AttrKind::kIntList: return value.kind() == Kind::kIntList;
    case AttrKind::kDouble: return value.kind() == Kind::kDouble;
    case AttrKind::kBool: return value.kind() == Kind::kBool;
    case AttrKind::kDType: return value.kind() == Kind::kDType;
    case AttrKind::kString: return value.kind() == Kind::kString;
  }
  return false;
}

// The row's facts as short words for the docs table.
std::vector<std::string> RenderFacts(const EdgeOpDef& def) {
  std::vector<std::string> facts;
  if (def.commutative) facts.push_back("commutative");
  if (def.output_storage == OutputStorage::kViewOfInput0) facts.push_back("view of input");
  if (def.macs != nullptr) facts.push_back("MACs");
  if (def.is_noop != nullptr) facts.push_back("no-op rule");
  if (def.collapse_chain != nullptr) facts.push_back("chains collapse");
  if (def.fold != nullptr) facts.push_back("folds on constants");
  return facts;
}

std::string Where(const ir::Node& node) {
  return absl::StrCat("node '", node.name(), "' (", node.op(), ")");
}

}  // namespace

// ---- DTypeSet --------------------------------------------------------------------

DTypeSet::DTypeSet(std::initializer_list<ir::DType> dtypes) {
  for (ir::DType dtype : dtypes) bits_ |= 1u << static_cast<int>(dtype);
}

DTypeSet DTypeSet::All() {
  DTypeSet set;
  set.bits_ = (1u << ir::kNumDTypes) - 1;
  return set;
}

std::string DTypeSet::ToString() const {
  std::vector<std::string> names;
  for (int i = 0; i < ir::kNumDTypes; ++i) {
    if (Contains(static_cast<ir::DType>(i))) {
      names.emplace_back(ir::DTypeName(static_cast<ir::DType>(i)));
    }
  }
  return absl::StrCat("{", absl::StrJoin(names, ", "), "}");
}

std::string_view AttrKindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt: return "int";
    case AttrKind::kIntList: return "int[]";
    case AttrKind::kDouble: return "float";
    case AttrKind::kBool: return "bool";
    case AttrKind::kDType: return "ScalarType";
    case AttrKind::kString: return "str";
  }
  return "?";
}

// ---- Table -----------------------------------------------------------------------

const std::vector<EdgeOpDef>& EdgeOps() {
  static const std::vector<EdgeOpDef>* const table = new std::vector<EdgeOpDef>(BuildTable());
  return *table;
}

const EdgeOpDef* FindEdgeOp(std::string_view name) {
  static const auto* const index = [] {
    auto* map = new std::unordered_map<std::string, const EdgeOpDef*>();
    for (const EdgeOpDef& def : EdgeOps()) map->emplace(def.name, &def);
    return map;
  }();
  auto it = index->find(std::string(name));
  return it == index->end() ? nullptr : it->second;
}

bool IsEdgeOpName(std::string_view op) { return op.substr(0, 5) == "edge."; }

std::string RenderEdgeOpTableMarkdown() {
  std::string text =
      "| op | tensor inputs | attributes | outputs | dtypes | kernel | facts | meaning |\n"
      "|---|---|---|---|---|---|---|---|\n";
  auto operand = [](const TensorOperand& o) {
    std::string type = o.type_var.empty() ? o.fixed.ToString() : o.type_var;
    return absl::StrCat(o.name, ": ", type, o.optional ? "?" : "", o.variadic ? "..." : "");
  };
  for (const EdgeOpDef& def : EdgeOps()) {
    std::vector<std::string> inputs, attrs, outputs, vars;
    for (const TensorOperand& o : def.inputs) inputs.push_back(operand(o));
    for (const AttrSpec& a : def.attrs) {
      attrs.push_back(absl::StrCat(a.name, ": ", std::string(AttrKindName(a.kind))));
    }
    for (const TensorOperand& o : def.outputs) outputs.push_back(operand(o));
    for (const TypeVariable& v : def.type_vars) {
      vars.push_back(absl::StrCat(v.name, " in ", v.allowed.ToString()));
    }
    absl::StrAppend(&text, "| `", def.name, "` | ", absl::StrJoin(inputs, ", "), " | ",
                    absl::StrJoin(attrs, ", "), " | ", absl::StrJoin(outputs, ", "), " | ",
                    absl::StrJoin(vars, "; "), " | `", def.kernel, "` | ",
                    absl::StrJoin(RenderFacts(def), ", "), " | ", def.summary, " |\n");
  }
  return text;
}

// ---- Verification ----------------------------------------------------------------

absl::Status VerifyEdgeNode(const ir::Node& node) {
  const EdgeOpDef* def = FindEdgeOp(node.op());
  if (def == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(Where(node), ": not an Edge op"));
  }
  // Operand count.
  size_t required = 0;
  const bool variadic = !def->inputs.empty() && def->inputs.back().variadic;
  for (const TensorOperand& operand : def->inputs) required += operand.optional ? 0 : 1;
  const size_t given = node.num_inputs();
  if (given < required || (!variadic && given > def->inputs.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(Where(node), ": takes ", required,
                     required == def->inputs.size() ? "" : " or more", " tensor input(s), got ",
                     given));
  }
  if (node.num_outputs() != def->outputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(Where(node), ": has ", node.num_outputs(),
                                                   " output(s), the op has ",
                                                   def->outputs.size()));
  }
  // Attributes: exactly the table's, each of its kind.
  for (const AttrSpec& spec : def->attrs) {
    const ir::AttrValue* value = node.FindAttr(spec.name);
    if (value == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(node), ": missing attribute '", spec.name, "' (",
                       std::string(AttrKindName(spec.kind)), ")"));
    }
    if (!KindMatches(spec.kind, *value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(node), ": attribute '", spec.name, "' must be ",
          std::string(AttrKindName(spec.kind)), ", got ", value->ToString()));
    }
  }
  for (const auto& [name, value] : node.attrs()) {
    bool known = false;
    for (const AttrSpec& spec : def->attrs) known = known || spec.name == name;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(node), ": unexpected attribute '", name, "'"));
    }
  }
  // Dtypes: bind type variables, check fixed sets.
  std::unordered_map<std::string, ir::DType> bound;
  auto check = [&](const TensorOperand& operand, const ir::Value* value,
                   const char* role) -> absl::Status {
    const ir::DType dtype = value->dtype();
    std::string what =
        absl::StrCat(Where(node), ": ", role, " '", operand.name, "' ('", value->name(), "')");
    if (operand.type_var.empty()) {
      if (!operand.fixed.Contains(dtype)) {
        return absl::InvalidArgumentError(absl::StrCat(what, " is ", std::string(ir::DTypeName(dtype)),
                                                       ", must be one of ",
                                                       operand.fixed.ToString()));
      }
      return absl::OkStatus();
    }
    auto [it, inserted] = bound.emplace(operand.type_var, dtype);
    if (!inserted && it->second != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " is ", std::string(ir::DTypeName(dtype)), " but ", operand.type_var, " is ",
          std::string(ir::DTypeName(it->second)), " (no implicit promotion in Edge)"));
    }
    for (const TypeVariable& var : def->type_vars) {
      if (var.name == operand.type_var && !var.allowed.Contains(dtype)) {
        return absl::InvalidArgumentError(absl::StrCat(what, " is ",
                                                       std::string(ir::DTypeName(dtype)),
                                                       ", must be one of ",
                                                       var.allowed.ToString()));
      }
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < given; ++i) {
    const TensorOperand& operand = def->inputs[std::min(i, def->inputs.size() - 1)];
    if (absl::Status status = check(operand, node.input(i), "input"); !status.ok()) return status;
  }
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    if (absl::Status status = check(def->outputs[i], node.output(i), "output"); !status.ok()) {
      return status;
    }
  }
  // Sizes: a shape rule may assume its inputs' sizes are sane, and a shape it
  // computes from attributes (an expand, a pad) may still be too large to exist.
  auto check_size = [&](const ir::Value* value, const char* role) -> absl::Status {
    std::string problem = ir::TensorSizeProblem(value->type());
    if (problem.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(Where(node), ": ", role, " '", value->name(),
                                                   "' ", value->type().ToString(), ": ", problem));
  };
  for (const ir::Value* input : node.inputs()) {
    if (absl::Status status = check_size(input, "input"); !status.ok()) return status;
  }
  // Shapes.
  std::vector<const ir::TensorType*> types;
  for (const ir::Value* input : node.inputs()) types.push_back(&input->type());
  absl::StatusOr<std::vector<ir::TensorType>> expected = def->shape_rule(types, node);
  if (!expected.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(Where(node), ": ", expected.status().message()));
  }
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    if ((*expected)[i] != node.output(i)->type()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(node), ": output '", node.output(i)->name(), "' is recorded as ",
          node.output(i)->type().ToString(), " but the op computes ",
          (*expected)[i].ToString()));
    }
    if (absl::Status status = check_size(node.output(i), "output"); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status VerifyEdgeGraph(const ir::Graph& graph) {
  std::vector<std::string> problems = graph.CheckInvariants();
  for (const ir::Node* node : graph.nodes()) {
    absl::Status status = VerifyEdgeNode(*node);
    if (!status.ok()) problems.emplace_back(status.message());
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
}

}  // namespace torchir::dialect
