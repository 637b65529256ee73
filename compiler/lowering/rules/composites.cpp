// Composite ops that torch.export keeps in its pre-dispatch graph (CompositeImplicitAutograd in
// ATen: einsum, tensordot, cosine_similarity, the losses, ...), each lowered by decomposition
// into Edge ops, following ATen's own formula so that results agree to float rounding. Ops
// whose arguments mean the same as another accepted op's are aliases of its rule.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "compiler/dialect/shape_rules.h"
#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {
namespace {

using dialect::AtenCall;
using ir::AttrValue;
using ir::DType;

// Builds a chain of Edge ops, keeping the first error: each step returns nullptr once one has
// failed, and Result() reports it. Keeps long decompositions readable.
class Chain {
 public:
  explicit Chain(EdgeBuilder& builder) : builder_(builder) {}

  ir::Value* Op(std::string_view op, const std::vector<ir::Value*>& inputs, Attrs attrs = {}) {
    if (!status_.ok()) return nullptr;
    for (ir::Value* input : inputs) {
      if (input == nullptr) return Fail(absl::InternalError("a decomposition lost a value"));
    }
    return Take(builder_.Emit1(op, inputs, std::move(attrs)));
  }
  ir::Value* Scalar(double value, DType dtype) {
    if (!status_.ok()) return nullptr;
    return Take(builder_.Scalar(value, dtype));
  }
  ir::Value* Cast(ir::Value* x, DType dtype) {
    if (!status_.ok() || x == nullptr) return nullptr;
    return Take(builder_.CastTo(x, dtype));
  }
  ir::Value* Reshape(ir::Value* x, const std::vector<int64_t>& sizes) {
    if (!status_.ok() || x == nullptr) return nullptr;
    return Take(builder_.ReshapeTo(x, sizes));
  }
  ir::Value* Expand(ir::Value* x, const std::vector<int64_t>& sizes) {
    if (x != nullptr && x->sizes() == sizes) return x;
    return Op("edge.expand", {x}, {{"sizes", AttrValue::IntList(sizes)}});
  }
  ir::Value* Permute(ir::Value* x, const std::vector<int64_t>& dims) {
    bool identity = true;
    for (size_t i = 0; i < dims.size(); ++i) identity = identity && dims[i] == int64_t(i);
    if (identity) return x;
    return Op("edge.permute", {x}, {{"dims", AttrValue::IntList(dims)}});
  }
  ir::Value* Slice(ir::Value* x, int64_t dim, int64_t start, int64_t end) {
    return Op("edge.slice", {x},
              {{"dim", AttrValue::Int(dim)}, {"start", AttrValue::Int(start)},
               {"end", AttrValue::Int(end)}, {"step", AttrValue::Int(1)}});
  }
  ir::Value* Reduce(const char* op, ir::Value* x, const std::vector<int64_t>& dims,
                    bool keepdim) {
    return Op(op, {x}, {{"dims", AttrValue::IntList(dims)}, {"keepdim", AttrValue::Bool(keepdim)}});
  }
  // x op scalar, the scalar a 0-d constant of x's dtype.
  ir::Value* WithScalar(const char* op, ir::Value* x, double value) {
    if (x == nullptr) return nullptr;
    return Op(op, {x, Scalar(value, x->dtype())});
  }

  absl::Status status() const { return status_; }
  Results Result(ir::Value* value) {
    if (!status_.ok()) return status_;
    return std::vector<ir::Value*>{value};
  }
  Results Results_(std::vector<ir::Value*> values) {
    if (!status_.ok()) return status_;
    return values;
  }

 private:
  ir::Value* Take(absl::StatusOr<ir::Value*> value) {
    if (!value.ok()) return Fail(value.status());
    return *value;
  }
  ir::Value* Fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
    return nullptr;
  }

  EdgeBuilder& builder_;
  absl::Status status_;
};

absl::StatusOr<int64_t> NormDim(int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    return absl::InvalidArgumentError(absl::StrCat("dim ", dim, " is out of range for rank ", rank));
  }
  return dim < 0 ? dim + r : dim;
}

std::vector<int64_t> AllDims(int64_t rank) {
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  std::iota(dims.begin(), dims.end(), 0);
  return dims;
}

// A Scalar argument as a number; an error (not a silent default) when it holds none.
absl::StatusOr<double> ScalarArg(const AtenCall& call, std::string_view name) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar(name));
  std::optional<double> number = value.ToDouble();
  if (!number.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(name), " = ", value.ToString(),
                                                   " is not a number"));
  }
  return *number;
}

// The float dtype a float-only decomposition computes in: the output's when it is floating,
// else float32.
DType FloatOf(DType dtype) { return ir::IsFloatingPoint(dtype) ? dtype : DType::kFloat32; }

// ---- Aliases: the same arguments under another name -------------------------------------------

template <const char* kTarget>
Results Alias(LoweringContext& ctx, const AtenCall& call) {
  LoweringRule rule = LoweringRules().Find(kTarget);
  if (rule == nullptr) return absl::InternalError(absl::StrCat("no rule for ", kTarget));
  return rule(ctx, call);
}

constexpr char kClampDefault[] = "aten.clamp.default";
constexpr char kClampTensor[] = "aten.clamp.Tensor";
constexpr char kDivTensor[] = "aten.div.Tensor";
constexpr char kDivScalar[] = "aten.div.Scalar";
constexpr char kDivTensorInPlace[] = "aten.div_.Tensor";
constexpr char kReshapeToOutput[] = "aten.flatten.using_ints";  // reads self, takes the output
constexpr char kDropout[] = "aten.dropout.default";
constexpr char kSplit[] = "aten.split.Tensor";
constexpr char kSplitWithSizes[] = "aten.split_with_sizes.default";
constexpr char kChunk[] = "aten.chunk.default";

// ---- Elementwise -------------------------------------------------------------------------------

// rrelu in eval: leaky_relu with the mean slope (lower + upper) / 2, as ATen's eval path.
Results Rrelu(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(bool training, call.Bool("training"));
  if (training) return Unsupported("rrelu with training=True samples random slopes");
  TORCHIR_ASSIGN_OR_RETURN(double lower, ScalarArg(call, "lower"));
  TORCHIR_ASSIGN_OR_RETURN(double upper, ScalarArg(call, "upper"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  const double slope = (lower + upper) / 2.0;
  return Single(ctx.builder().Emit1("edge.leaky_relu", {x},
                                    {{"negative_slope", AttrValue::Double(slope)}}));
}

template <int kDegrees>  // 1: deg2rad, 0: rad2deg
Results AngleConversion(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  const double factor = kDegrees ? M_PI / 180.0 : 180.0 / M_PI;
  return c.Result(c.WithScalar("edge.mul", c.Cast(x, ctx.OutputType().dtype), factor));
}

// signbit: the sign bit, so -0.0 and -nan count (copysign reads it); integers: x < 0.
Results Signbit(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->dtype() == DType::kBool) return c.Result(c.Op("edge.ne", {x, x}));
  if (!ir::IsFloatingPoint(x->dtype())) return c.Result(c.WithScalar("edge.lt", x, 0.0));
  ir::Value* one = c.Scalar(1.0, x->dtype());
  return c.Result(c.WithScalar("edge.lt", c.Op("edge.copysign", {one, x}), 0.0));
}

// isfinite: x - x is 0 exactly when x is finite (inf - inf and nan give nan); integers: all.
Results Isfinite(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (!ir::IsFloatingPoint(x->dtype())) return c.Result(c.Op("edge.eq", {x, x}));
  return c.Result(c.WithScalar("edge.eq", c.Op("edge.sub", {x, x}), 0.0));
}

// sinc: sin(pi x) / (pi x), 1 at 0.
Results Sinc(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  x = c.Cast(x, ctx.OutputType().dtype);
  ir::Value* pix = c.WithScalar("edge.mul", x, M_PI);
  ir::Value* ratio = c.Op("edge.div", {c.Op("edge.sin", {pix}), pix});
  return c.Result(c.Op("edge.where", {c.WithScalar("edge.eq", x, 0.0),
                                      c.Scalar(1.0, ctx.OutputType().dtype), ratio}));
}

// heaviside(self, values): values where self == 0, else self > 0 as 0/1.
Results Heaviside(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * values, ctx.Tensor(call, "values"));
  x = c.Cast(x, dtype);
  ir::Value* step = c.Cast(c.WithScalar("edge.gt", x, 0.0), dtype);
  return c.Result(
      c.Op("edge.where", {c.WithScalar("edge.eq", x, 0.0), c.Cast(values, dtype), step}));
}

// xlogy(self, other): nan where other is nan, else 0 where self == 0, else self * log(other).
Results Xlogy(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * y, ctx.TensorOrScalar(call, "other", dtype));
  ir::Value* product = c.Op("edge.mul", {x, c.Op("edge.log", {y})});
  ir::Value* zeroed =
      c.Op("edge.where", {c.WithScalar("edge.eq", x, 0.0), c.Scalar(0.0, dtype), product});
  return c.Result(
      c.Op("edge.where", {c.Op("edge.ne", {y, y}), c.Scalar(NAN, dtype), zeroed}));
}

// isclose: equal, or both nan with equal_nan, or finitely |a - b| <= atol + |rtol * b|.
Results Isclose(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "other"));
  TORCHIR_ASSIGN_OR_RETURN(double rtol, call.Double("rtol"));
  TORCHIR_ASSIGN_OR_RETURN(double atol, call.Double("atol"));
  TORCHIR_ASSIGN_OR_RETURN(bool equal_nan, call.Bool("equal_nan"));
  const DType dtype = PromoteTypes(a->dtype(), b->dtype());
  a = c.Cast(a, dtype);
  b = c.Cast(b, dtype);
  ir::Value* close = c.Op("edge.eq", {a, b});
  if (!ir::IsFloatingPoint(dtype)) return c.Result(close);
  if (equal_nan) {
    ir::Value* both_nan = c.Op("edge.bitwise_and", {c.Op("edge.ne", {a, a}), c.Op("edge.ne", {b, b})});
    close = c.Op("edge.bitwise_or", {close, both_nan});
  }
  ir::Value* allowed =
      c.WithScalar("edge.add", c.Op("edge.abs", {c.WithScalar("edge.mul", b, rtol)}), atol);
  ir::Value* actual = c.Op("edge.abs", {c.Op("edge.sub", {a, b})});
  ir::Value* finite = c.WithScalar("edge.eq", c.Op("edge.sub", {actual, actual}), 0.0);
  ir::Value* within = c.Op("edge.bitwise_and", {finite, c.Op("edge.le", {actual, allowed})});
  return c.Result(c.Op("edge.bitwise_or", {close, within}));
}

// float_power: both operands in float64 (the output's dtype), then pow.
Results FloatPower(LoweringContext& ctx, const AtenCall& call) {
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * base, ctx.TensorOrScalar(call, "self", dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * exponent, ctx.TensorOrScalar(call, "exponent", dtype));
  return Single(ctx.builder().Emit1("edge.pow", {base, exponent}));
}

// ---- Products -----------------------------------------------------------------------------------

// outer(self, vec2): self[:, None] * vec2[None, :].
Results Outer(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "vec2"));
  if (a->type().rank() != 1 || b->type().rank() != 1) return Unsupported("outer of non-vectors");
  ir::Value* column = c.Reshape(c.Cast(a, dtype), {a->sizes()[0], 1});
  return c.Result(c.Op("edge.mul", {column, c.Cast(b, dtype)}));
}

// dot(self, tensor): the sum of the products (the sum kernel accumulates floats in double).
Results Dot(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "tensor"));
  if (a->type().rank() != 1 || a->type() != b->type()) {
    return Unsupported("dot of tensors that are not vectors of one size and dtype");
  }
  return c.Result(c.Reduce("edge.sum", c.Op("edge.mul", {c.Cast(a, dtype), c.Cast(b, dtype)}),
                           {0}, false));
}

// mv(self [M, K], vec [K]): a matmul with vec as a column.
Results Mv(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * m, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * v, ctx.Tensor(call, "vec"));
  if (m->type().rank() != 2 || v->type().rank() != 1) return Unsupported("mv of a non-matrix");
  ir::Value* product = c.Op("edge.matmul", {m, c.Reshape(v, {v->sizes()[0], 1})});
  return c.Result(c.Reshape(product, ctx.OutputType().sizes));
}

// baddbmm(self, batch1, batch2, beta, alpha): beta * self + alpha * (batch1 @ batch2); self is
// not read when beta is 0 (so its nans do not propagate), as in ATen.
Results Baddbmm(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * self, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b1, ctx.Tensor(call, "batch1"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b2, ctx.Tensor(call, "batch2"));
  TORCHIR_ASSIGN_OR_RETURN(double beta, ScalarArg(call, "beta"));
  TORCHIR_ASSIGN_OR_RETURN(double alpha, ScalarArg(call, "alpha"));
  ir::Value* product = c.Op("edge.matmul", {b1, b2});
  if (alpha != 1.0) product = c.WithScalar("edge.mul", product, alpha);
  if (beta == 0.0) return c.Result(c.Expand(product, ctx.OutputType().sizes));
  if (beta != 1.0) self = c.WithScalar("edge.mul", self, beta);
  return c.Result(c.Op("edge.add", {self, product}));
}

// tensordot(self, other, dims_self, dims_other): both operands permuted and flattened into
// [free, contracted] @ [contracted, free], reshaped to the free dims.
Results Tensordot(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "other"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims_a, call.IntList("dims_self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims_b, call.IntList("dims_other"));
  if (dims_a.size() != dims_b.size()) return Unsupported("tensordot with unequal dim lists");
  const int64_t rank_a = a->type().rank(), rank_b = b->type().rank();
  std::vector<bool> contracted_a(rank_a, false), contracted_b(rank_b, false);
  int64_t k = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    TORCHIR_ASSIGN_OR_RETURN(dims_a[i], NormDim(dims_a[i], rank_a));
    TORCHIR_ASSIGN_OR_RETURN(dims_b[i], NormDim(dims_b[i], rank_b));
    if (a->sizes()[dims_a[i]] != b->sizes()[dims_b[i]] || contracted_a[dims_a[i]] ||
        contracted_b[dims_b[i]]) {
      return absl::InvalidArgumentError("tensordot: contracted dims differ in size or repeat");
    }
    contracted_a[dims_a[i]] = contracted_b[dims_b[i]] = true;
    k *= a->sizes()[dims_a[i]];
  }
  std::vector<int64_t> order_a, order_b;
  int64_t free_a = 1, free_b = 1;
  for (int64_t d = 0; d < rank_a; ++d) {
    if (!contracted_a[d]) order_a.push_back(d), free_a *= a->sizes()[d];
  }
  order_a.insert(order_a.end(), dims_a.begin(), dims_a.end());
  order_b = dims_b;
  for (int64_t d = 0; d < rank_b; ++d) {
    if (!contracted_b[d]) order_b.push_back(d), free_b *= b->sizes()[d];
  }
  const DType dtype = ctx.OutputType().dtype;
  ir::Value* left = c.Reshape(c.Permute(c.Cast(a, dtype), order_a), {free_a, k});
  ir::Value* right = c.Reshape(c.Permute(c.Cast(b, dtype), order_b), {k, free_b});
  return c.Result(c.Reshape(c.Op("edge.matmul", {left, right}), ctx.OutputType().sizes));
}

// trace: the sum of the main diagonal, through a constant diagonal mask.
Results Trace(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() != 2) return Unsupported("trace of a tensor that is not 2-d");
  const int64_t rows = x->sizes()[0], cols = x->sizes()[1];
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{DType::kBool, {rows, cols}}));
  std::vector<uint8_t> diagonal(static_cast<size_t>(rows * cols), 0);
  for (int64_t i = 0; i < std::min(rows, cols); ++i) diagonal[i * cols + i] = 1;
  ir::Value* mask = ctx.builder().Constant(ir::TensorType{DType::kBool, {rows, cols}},
                                           ir::TensorData::Copy(diagonal.data(), diagonal.size()));
  const DType dtype = ctx.OutputType().dtype;
  ir::Value* kept = c.Op("edge.where", {mask, c.Cast(x, dtype), c.Scalar(0.0, dtype)});
  return c.Result(c.Reduce("edge.sum", kept, {}, false));
}

// kron(a, b): a [..., i, ...] interleaved with b [..., j, ...] as [..., i * bj + j, ...]: a and b
// reshaped to alternate their dims, multiplied, merged pairwise.
Results Kron(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "other"));
  const size_t rank = std::max(a->sizes().size(), b->sizes().size());
  std::vector<int64_t> sa = a->sizes(), sb = b->sizes();
  sa.insert(sa.begin(), rank - sa.size(), 1);
  sb.insert(sb.begin(), rank - sb.size(), 1);
  std::vector<int64_t> interleaved_a, interleaved_b;
  for (size_t d = 0; d < rank; ++d) {
    interleaved_a.insert(interleaved_a.end(), {sa[d], 1});
    interleaved_b.insert(interleaved_b.end(), {1, sb[d]});
  }
  ir::Value* product = c.Op("edge.mul", {c.Reshape(c.Cast(a, dtype), interleaved_a),
                                         c.Reshape(c.Cast(b, dtype), interleaved_b)});
  return c.Result(c.Reshape(product, ctx.OutputType().sizes));
}

// ---- einsum -----------------------------------------------------------------------------------

// One operand's subscripts: a letter per dim ('.' stands for each dim of an ellipsis).
struct Operand {
  ir::Value* value;
  std::string letters;
};

// Sums `x` over the letters that occur in it alone and not in `keep`, and takes a diagonal for
// a letter that repeats (i in "ii").
absl::StatusOr<Operand> SumOwnLetters(Chain& c, Operand x, const std::string& keep) {
  // Repeated letters: the diagonal, as a mask then a sum over the second occurrence.
  for (size_t i = 0; i < x.letters.size(); ++i) {
    for (size_t j = i + 1; j < x.letters.size(); ++j) {
      if (x.letters[i] != x.letters[j]) continue;
      return Unsupported("einsum with a repeated subscript in one operand (a diagonal)");
    }
  }
  std::vector<int64_t> dims;
  std::string kept;
  for (size_t i = 0; i < x.letters.size(); ++i) {
    if (keep.find(x.letters[i]) == std::string::npos) {
      dims.push_back(static_cast<int64_t>(i));
    } else {
      kept += x.letters[i];
    }
  }
  if (dims.empty()) return x;
  return Operand{c.Reduce("edge.sum", x.value, dims, false), kept};
}

// einsum with one or two operands (more: contracted left to right), an optional "->" output
// and ellipses. Two operands contract as one batched matmul: each is permuted into [batch
// letters, own letters, contracted letters] and flattened to 3-d.
Results Einsum(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::string equation, call.String("equation"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> tensors, call.TensorList("tensors"));
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> inputs;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (inputs.size() != tensors.size() || tensors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("einsum '", equation, "': ", inputs.size(),
                                                   " subscripts for ", tensors.size(), " tensors"));
  }
  Chain c(ctx.builder());
  const DType dtype = ctx.OutputType().dtype;
  // Expand each ellipsis into letters of its own (upper-case letters from 'A' reserved: einsum
  // subscripts are letters, and ellipsis dims align from the right).
  size_t ellipsis_rank = 0;
  std::vector<Operand> operands;
  for (size_t i = 0; i < tensors.size(); ++i) {
    ir::Value* value = c.Cast(ctx.Map(tensors[i]), dtype);
    const int64_t rank = tensors[i]->type().rank();
    std::string letters = inputs[i];
    const size_t dots = letters.find("...");
    if (dots != std::string::npos) {
      const int64_t named = static_cast<int64_t>(letters.size()) - 3;
      if (rank < named) return absl::InvalidArgumentError("einsum: too many subscripts");
      ellipsis_rank = std::max<size_t>(ellipsis_rank, static_cast<size_t>(rank - named));
      std::string fill;
      for (int64_t d = 0; d < rank - named; ++d) fill += static_cast<char>('0' + (rank - named - 1 - d));
      letters.replace(dots, 3, fill);
    }
    if (static_cast<int64_t>(letters.size()) != rank) {
      return absl::InvalidArgumentError(absl::StrCat("einsum '", equation, "': operand ", i,
                                                     " has rank ", rank));
    }
    operands.push_back({value, letters});
  }
  // Ellipsis dims are letters '0' (innermost) upward; missing leading ones broadcast as 1.
  std::string ellipsis;
  for (size_t d = ellipsis_rank; d-- > 0;) ellipsis += static_cast<char>('0' + d);
  std::string output;
  if (arrow != std::string::npos) {
    output = equation.substr(arrow + 2);
    const size_t dots = output.find("...");
    if (dots != std::string::npos) output.replace(dots, 3, ellipsis);
  } else {
    // Implicit output: the ellipsis, then letters seen once, in alphabetical order.
    std::map<char, int> count;
    for (const Operand& op : operands) {
      for (char l : op.letters) ++count[l];
    }
    output = ellipsis;
    for (const auto& [letter, n] : count) {
      if (n == 1 && std::isalpha(static_cast<unsigned char>(letter))) output += letter;
    }
  }
  // The size of each letter.
  std::map<char, int64_t> size;
  for (const Operand& op : operands) {
    for (size_t d = 0; d < op.letters.size(); ++d) {
      const int64_t s = op.value->sizes()[d];
      auto [it, inserted] = size.emplace(op.letters[d], s);
      if (!inserted && it->second != s) {
        if (it->second == 1) {
          it->second = s;
        } else if (s != 1) {
          return absl::InvalidArgumentError(absl::StrCat("einsum: subscript '", std::string(1, op.letters[d]),
                                                         "' has sizes ", it->second, " and ", s));
        }
      }
    }
  }
  // Contract left to right.
  Operand acc = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    Operand next = operands[i];
    // Letters needed later: the output's and the remaining operands'.
    std::string later = output;
    for (size_t j = i + 1; j < operands.size(); ++j) later += operands[j].letters;
    TORCHIR_ASSIGN_OR_RETURN(acc, SumOwnLetters(c, acc, later + next.letters));
    TORCHIR_ASSIGN_OR_RETURN(next, SumOwnLetters(c, next, later + acc.letters));
    std::string batch, own_a, own_b, contracted;
    for (char l : acc.letters) {
      const bool in_b = next.letters.find(l) != std::string::npos;
      const bool kept = later.find(l) != std::string::npos;
      (in_b ? (kept ? batch : contracted) : own_a) += l;
    }
    for (char l : next.letters) {
      if (acc.letters.find(l) == std::string::npos) own_b += l;
    }
    auto arrange = [&](const Operand& op, const std::string& order,
                       const std::vector<std::string>& groups) -> ir::Value* {
      std::vector<int64_t> perm, expanded, merged;
      for (char l : order) perm.push_back(static_cast<int64_t>(op.letters.find(l)));
      ir::Value* v = c.Permute(op.value, perm);
      for (char l : order) expanded.push_back(size[l]);
      v = c.Expand(v, expanded);  // broadcast size-1 batch dims
      for (const std::string& group : groups) {
        int64_t n = 1;
        for (char l : group) n *= size[l];
        merged.push_back(n);
      }
      return c.Reshape(v, merged);
    };
    ir::Value* a = arrange(acc, batch + own_a + contracted, {batch, own_a, contracted});
    ir::Value* b = arrange(next, batch + contracted + own_b, {batch, contracted, own_b});
    std::vector<int64_t> result_sizes;
    for (char l : batch + own_a + own_b) result_sizes.push_back(size[l]);
    acc = {c.Reshape(c.Op("edge.matmul", {a, b}), result_sizes), batch + own_a + own_b};
  }
  TORCHIR_ASSIGN_OR_RETURN(acc, SumOwnLetters(c, acc, output));
  std::vector<int64_t> perm;
  for (char l : output) {
    const size_t at = acc.letters.find(l);
    if (at == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("einsum '", equation,
                                                     "': output subscript '", std::string(1, l), "' is unknown"));
    }
    perm.push_back(static_cast<int64_t>(at));
  }
  return c.Result(c.Permute(acc.value, perm));
}

// ---- Norms, distances, normalisation -------------------------------------------------------------

// The p-norm of `x` over `dims` (ATen's linalg_vector_norm special cases: 0, 1, 2, inf, -inf).
ir::Value* PNorm(Chain& c, ir::Value* x, double p, const std::vector<int64_t>& dims, bool keepdim) {
  ir::Value* magnitude = c.Op("edge.abs", {x});
  if (p == 2.0) {
    return c.Op("edge.sqrt", {c.Reduce("edge.sum", c.Op("edge.mul", {x, x}), dims, keepdim)});
  }
  if (p == 1.0) return c.Reduce("edge.sum", magnitude, dims, keepdim);
  if (std::isinf(p)) return c.Reduce(p > 0 ? "edge.amax" : "edge.amin", magnitude, dims, keepdim);
  if (p == 0.0) {
    ir::Value* nonzero = c.Cast(c.WithScalar("edge.ne", x, 0.0), x->dtype());
    return c.Reduce("edge.sum", nonzero, dims, keepdim);
  }
  ir::Value* powered = c.WithScalar("edge.pow", magnitude, p);
  return c.WithScalar("edge.pow", c.Reduce("edge.sum", powered, dims, keepdim), 1.0 / p);
}

// cosine_similarity(x1, x2, dim, eps): broadcast, each divided by its norm clamped to eps, the
// products summed (ATen's order, which keeps large inputs from overflowing).
Results CosineSimilarity(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = FloatOf(ctx.OutputType().dtype);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "x1"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "x2"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                           dialect::shape_rules::BroadcastShapes(a->sizes(), b->sizes()));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, static_cast<int64_t>(shape.size())));
  a = c.Expand(c.Cast(a, dtype), shape);
  b = c.Expand(c.Cast(b, dtype), shape);
  auto normalized = [&](ir::Value* x) {
    ir::Value* norm = c.Op("edge.clamp", {PNorm(c, x, 2.0, {dim}, true)},
                           {{"min", AttrValue::Double(eps)}, {"max", AttrValue::Double(kInfinity)}});
    return c.Op("edge.div", {x, norm});
  };
  return c.Result(
      c.Reduce("edge.sum", c.Op("edge.mul", {normalized(a), normalized(b)}), {dim}, false));
}

// pairwise_distance(x1, x2, p, eps, keepdim): the p-norm of x1 - x2 + eps over the last dim.
Results PairwiseDistance(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = FloatOf(ctx.OutputType().dtype);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "x1"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "x2"));
  TORCHIR_ASSIGN_OR_RETURN(double p, call.Double("p"));
  TORCHIR_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  ir::Value* difference = c.WithScalar("edge.add", c.Op("edge.sub", {c.Cast(a, dtype), c.Cast(b, dtype)}), eps);
  const int64_t rank = std::max(a->type().rank(), b->type().rank());
  return c.Result(c.Reshape(PNorm(c, difference, p, {rank - 1}, keepdim), ctx.OutputType().sizes));
}

// dist(self, other, p): the p-norm of self - other over every element.
Results Dist(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = FloatOf(ctx.OutputType().dtype);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "other"));
  TORCHIR_ASSIGN_OR_RETURN(double p, ScalarArg(call, "p"));
  ir::Value* difference = c.Op("edge.sub", {c.Cast(a, dtype), c.Cast(b, dtype)});
  return c.Result(PNorm(c, difference, p, {}, false));
}

// instance_norm: each (sample, channel) normalised over its spatial dims with its own mean and
// biased variance (use_input_stats), or with the running statistics; then weight and bias per
// channel.
Results InstanceNorm(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * running_mean, ctx.OptionalTensor(call, "running_mean"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * running_var, ctx.OptionalTensor(call, "running_var"));
  TORCHIR_ASSIGN_OR_RETURN(bool use_input_stats, call.Bool("use_input_stats"));
  TORCHIR_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  const int64_t rank = x->type().rank();
  if (rank < 3) return Unsupported("instance_norm of a tensor without spatial dims");
  const int64_t channels = x->sizes()[1];
  std::vector<int64_t> per_channel(static_cast<size_t>(rank), 1);
  per_channel[1] = channels;
  ir::Value *mean = nullptr, *var = nullptr;
  if (use_input_stats) {
    std::vector<int64_t> spatial;
    for (int64_t d = 2; d < rank; ++d) spatial.push_back(d);
    mean = c.Reduce("edge.mean", x, spatial, true);
    ir::Value* centred = c.Op("edge.sub", {x, mean});
    var = c.Reduce("edge.mean", c.Op("edge.mul", {centred, centred}), spatial, true);
  } else {
    if (running_mean == nullptr || running_var == nullptr) {
      return Unsupported("instance_norm without input statistics or running statistics");
    }
    mean = c.Reshape(running_mean, per_channel);
    var = c.Reshape(running_var, per_channel);
  }
  ir::Value* y = c.Op("edge.mul", {c.Op("edge.sub", {x, mean}),
                                   c.Op("edge.rsqrt", {c.WithScalar("edge.add", var, eps)})});
  if (weight != nullptr) y = c.Op("edge.mul", {y, c.Reshape(weight, per_channel)});
  if (bias != nullptr) y = c.Op("edge.add", {y, c.Reshape(bias, per_channel)});
  return c.Result(y);
}

// rms_norm(input, normalized_shape, weight, eps): x * rsqrt(mean(x^2) + eps) over the trailing
// normalized_shape dims, times weight; eps None is the dtype's machine epsilon.
Results RmsNorm(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, call.IntList("normalized_shape"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<double> eps, call.OptionalDouble("eps"));
  const int64_t rank = x->type().rank();
  if (static_cast<int64_t>(shape.size()) > rank) return Unsupported("rms_norm over too many dims");
  std::vector<int64_t> dims;
  for (int64_t d = rank - static_cast<int64_t>(shape.size()); d < rank; ++d) dims.push_back(d);
  const double epsilon = eps.value_or(x->dtype() == DType::kFloat64 ? 2.220446049250313e-16
                                                                    : 1.1920928955078125e-07);
  ir::Value* mean_square = c.Reduce("edge.mean", c.Op("edge.mul", {x, x}), dims, true);
  ir::Value* y = c.Op("edge.mul", {x, c.Op("edge.rsqrt", {c.WithScalar("edge.add", mean_square, epsilon)})});
  if (weight != nullptr) y = c.Op("edge.mul", {y, weight});
  return c.Result(y);
}

// ---- Data movement -----------------------------------------------------------------------------

// one_hot(self, num_classes): self[..., None] == arange(num_classes), as int64. A class count
// read from the data (-1) would make the shape data-dependent.
Results OneHot(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t classes, call.Int("num_classes"));
  if (classes < 0) {
    classes = ctx.OutputType().sizes.empty() ? -1 : ctx.OutputType().sizes.back();
    if (classes < 0) return Unsupported("one_hot with num_classes=-1 and no recorded size");
  }
  std::vector<int64_t> values(static_cast<size_t>(classes));
  std::iota(values.begin(), values.end(), 0);
  ir::Value* range = ctx.builder().Constant(
      ir::TensorType{DType::kInt64, {classes}},
      ir::TensorData::Copy(values.data(), values.size() * sizeof(int64_t)));
  std::vector<int64_t> column = x->sizes();
  column.push_back(1);
  ir::Value* hit = c.Op("edge.eq", {c.Reshape(c.Cast(x, DType::kInt64), column), range});
  return c.Result(c.Cast(hit, DType::kInt64));
}

// channel_shuffle(self, groups): [N, g, C/g, ...] with the two channel dims swapped.
Results ChannelShuffle(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t groups, call.Int("groups"));
  const std::vector<int64_t>& sizes = x->sizes();
  if (sizes.size() < 2 || groups <= 0 || sizes[1] % groups != 0) {
    return absl::InvalidArgumentError("channel_shuffle: groups must divide the channels");
  }
  std::vector<int64_t> split = {sizes[0], groups, sizes[1] / groups};
  split.insert(split.end(), sizes.begin() + 2, sizes.end());
  std::vector<int64_t> perm = AllDims(static_cast<int64_t>(split.size()));
  std::swap(perm[1], perm[2]);
  return c.Result(c.Reshape(c.Permute(c.Reshape(x, split), perm), sizes));
}

// diff(self, n, dim, prepend, append): prepend and append joined on, then n times the
// difference of neighbours (!= for bool).
Results Diff(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t n, call.Int("n"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * prepend, ctx.OptionalTensor(call, "prepend"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * append, ctx.OptionalTensor(call, "append"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, x->type().rank()));
  const DType dtype = ctx.OutputType().dtype;
  std::vector<ir::Value*> parts;
  if (prepend != nullptr) parts.push_back(c.Cast(prepend, dtype));
  parts.push_back(c.Cast(x, dtype));
  if (append != nullptr) parts.push_back(c.Cast(append, dtype));
  if (parts.size() > 1) x = c.Op("edge.concatenate", parts, {{"dim", AttrValue::Int(dim)}});
  for (int64_t i = 0; i < n && x != nullptr; ++i) {
    const int64_t length = x->sizes()[dim];
    if (length == 0) break;
    ir::Value* later = c.Slice(x, dim, 1, length);
    ir::Value* earlier = c.Slice(x, dim, 0, length - 1);
    x = c.Op(dtype == DType::kBool ? "edge.ne" : "edge.sub", {later, earlier});
  }
  return c.Result(x);
}

// Pieces of `size` cut at `bounds` (ascending, clamped), as slices along dim.
Results SplitAt(LoweringContext& ctx, ir::Value* x, int64_t dim, std::vector<int64_t> bounds) {
  Chain c(ctx.builder());
  const int64_t size = x->sizes()[dim];
  std::vector<ir::Value*> pieces;
  int64_t start = 0;
  bounds.push_back(size);
  for (int64_t bound : bounds) {
    const int64_t end = std::clamp<int64_t>(bound, start, size);
    pieces.push_back(c.Slice(x, dim, start, end));
    start = end;
  }
  return c.Results_(pieces);
}

// tensor_split.sections: the first size % sections pieces one longer.
Results TensorSplitSections(LoweringContext& ctx, const AtenCall& call, int64_t dim,
                            int64_t sections) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, x->type().rank()));
  if (sections <= 0) return absl::InvalidArgumentError("tensor_split: sections must be >= 1");
  const int64_t size = x->sizes()[dim];
  std::vector<int64_t> bounds;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < sections; ++i) {
    at += size / sections + (i < size % sections ? 1 : 0);
    bounds.push_back(at);
  }
  return SplitAt(ctx, x, dim, bounds);
}

Results TensorSplit(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(int64_t sections, call.Int("sections"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  return TensorSplitSections(ctx, call, dim, sections);
}

Results TensorSplitIndices(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> indices, call.IntList("indices"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, x->type().rank()));
  const int64_t size = x->sizes()[dim];
  for (int64_t& index : indices) {
    if (index < 0) index = std::max<int64_t>(index + size, 0);
  }
  return SplitAt(ctx, x, dim, indices);
}

// hsplit / vsplit / dsplit with a section count that divides the dim (dim 1, 0, 2; hsplit of
// a 1-d tensor splits dim 0).
template <int kDim>
Results DirectionalSplit(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t sections, call.Int("sections"));
  const int64_t dim = (kDim == 1 && x->type().rank() == 1) ? 0 : kDim;
  if (dim >= x->type().rank() || sections <= 0 || x->sizes()[dim] % sections != 0) {
    return absl::InvalidArgumentError("split: sections must divide the dim");
  }
  return TensorSplitSections(ctx, call, dim, sections);
}

// meshgrid(tensors, indexing): each 1-d tensor along its own dim, expanded to every size; "xy"
// swaps the first two dims.
Results Meshgrid(LoweringContext& ctx, const AtenCall& call, bool xy) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> tensors, call.TensorList("tensors"));
  std::vector<int64_t> sizes;
  for (ir::Value* t : tensors) {
    if (t == nullptr || t->type().rank() > 1) return Unsupported("meshgrid of a tensor not 0/1-d");
    sizes.push_back(t->type().numel());
  }
  std::vector<int64_t> order = AllDims(static_cast<int64_t>(tensors.size()));
  if (xy && tensors.size() >= 2) std::swap(order[0], order[1]);
  std::vector<int64_t> grid;
  for (int64_t d : order) grid.push_back(sizes[d]);
  std::vector<ir::Value*> results;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::vector<int64_t> shape(tensors.size(), 1);
    const size_t at = static_cast<size_t>(std::find(order.begin(), order.end(), int64_t(i)) - order.begin());
    shape[at] = sizes[i];
    results.push_back(c.Expand(c.Reshape(ctx.Map(tensors[i]), shape), grid));
  }
  return c.Results_(results);
}
Results MeshgridIndexing(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::string indexing, call.String("indexing"));
  if (indexing != "ij" && indexing != "xy") return Unsupported("meshgrid indexing " + indexing);
  return Meshgrid(ctx, call, indexing == "xy");
}
Results MeshgridIj(LoweringContext& ctx, const AtenCall& call) { return Meshgrid(ctx, call, false); }

// repeat_interleave(self, repeats: int, dim): each element repeated in place: a unit dim after
// dim, expanded to repeats, merged (dim None: the flattened tensor).
Results RepeatInterleave(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t repeats, call.Int("repeats"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> dim_arg, call.OptionalInt("dim"));
  if (repeats < 0) return absl::InvalidArgumentError("repeat_interleave: repeats < 0");
  if (!dim_arg.has_value()) {
    x = c.Reshape(x, {x->type().numel()});
    dim_arg = 0;
  }
  if (x == nullptr) return c.status();
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, NormDim(*dim_arg, x->type().rank()));
  std::vector<int64_t> sizes = x->sizes();
  sizes.insert(sizes.begin() + dim + 1, 1);
  ir::Value* unit = c.Reshape(x, sizes);
  sizes[dim + 1] = repeats;
  return c.Result(c.Reshape(c.Expand(unit, sizes), ctx.OutputType().sizes));
}

// Tensor.unfold(dimension, size, step): windows along dimension as a new trailing dim, by one
// index_select of the windows' positions.
Results Unfold(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dimension"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t size, call.Int("size"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t step, call.Int("step"));
  const int64_t rank = x->type().rank();
  TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, rank));
  const int64_t length = rank == 0 ? 1 : x->sizes()[dim];
  if (rank == 0 || size < 0 || size > length || step <= 0) {
    return Unsupported("unfold of a 0-d tensor or with a window that does not fit");
  }
  const int64_t windows = (length - size) / step + 1;
  std::vector<int64_t> positions;
  for (int64_t w = 0; w < windows; ++w) {
    for (int64_t k = 0; k < size; ++k) positions.push_back(w * step + k);
  }
  ir::Value* index = ctx.builder().Constant(
      ir::TensorType{DType::kInt64, {windows * size}},
      ir::TensorData::Copy(positions.data(), positions.size() * sizeof(int64_t)));
  ir::Value* picked = c.Op("edge.index_select", {x, index}, {{"dim", AttrValue::Int(dim)}});
  std::vector<int64_t> split = x->sizes();
  split[dim] = windows;
  split.insert(split.begin() + dim + 1, size);
  std::vector<int64_t> perm;
  for (int64_t d = 0; d <= rank; ++d) {
    if (d != dim + 1) perm.push_back(d);
  }
  perm.push_back(dim + 1);
  return c.Result(c.Permute(c.Reshape(picked, split), perm));
}

// upsample_linear1d: the 2-d bilinear op on [N, C, 1, L] (a height of 1 resizes nothing).
Results UpsampleLinear1d(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  ir::Value* x = nullptr;
  if (call.Find("self").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(x, ctx.Tensor(call, "self"));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(x, ctx.Tensor(call, "input"));
  }
  TORCHIR_ASSIGN_OR_RETURN(bool align_corners, call.Bool("align_corners"));
  double scale = 0.0;
  if (call.Find("scale_factors").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(AttrValue factors, call.Value("scale_factors"));
    if (factors.kind() == AttrValue::Kind::kDoubleList && factors.as_double_list().size() == 1) {
      scale = factors.as_double_list()[0];
    }
  } else {
    TORCHIR_ASSIGN_OR_RETURN(std::optional<double> given, call.OptionalDouble("scales"));
    scale = given.value_or(0.0);
  }
  const std::vector<int64_t>& out = ctx.OutputType().sizes;
  if (x->type().rank() != 3 || out.size() != 3 || x->sizes()[2] == 0) {
    return Unsupported("1-d upsampling of an input that is not [N, C, L]");
  }
  ir::Value* image = c.Reshape(x, {x->sizes()[0], x->sizes()[1], 1, x->sizes()[2]});
  ir::Value* resized = c.Op("edge.upsample_bilinear2d", {image},
                            {{"output_size", AttrValue::IntList({1, out[2]})},
                             {"align_corners", AttrValue::Bool(align_corners)},
                             {"scales_h", AttrValue::Double(0.0)},
                             {"scales_w", AttrValue::Double(scale)}});
  return c.Result(c.Reshape(resized, out));
}

// ---- Losses --------------------------------------------------------------------------------------

// reduction 0 none, 1 mean, 2 sum.
Results Reduced(Chain& c, ir::Value* loss, int64_t reduction) {
  if (reduction == 0) return c.Result(loss);
  if (loss == nullptr) return c.Result(loss);
  return c.Result(c.Reduce(reduction == 1 ? "edge.mean" : "edge.sum", loss, {}, false));
}

// A loss's input and target in the float dtype it computes in, and its reduction (0 none,
// 1 mean, 2 sum).
struct LossArgs {
  ir::Value* x;
  ir::Value* t;
  int64_t reduction;
  DType dtype;
};
absl::StatusOr<LossArgs> LossInputs(Chain& c, LoweringContext& ctx, const AtenCall& call) {
  LossArgs args;
  args.dtype = FloatOf(ctx.OutputType().dtype);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * t, ctx.Tensor(call, "target"));
  TORCHIR_ASSIGN_OR_RETURN(args.reduction, call.Int("reduction"));
  if (args.reduction < 0 || args.reduction > 2) {
    return absl::InvalidArgumentError("loss: reduction not 0-2");
  }
  args.x = c.Cast(x, args.dtype);
  args.t = c.Cast(t, args.dtype);
  if (args.x == nullptr || args.t == nullptr) return c.status();
  return args;
}

// mse (0), l1 (1), smooth_l1 (2, beta) and huber (3, delta) losses of self - target.
template <int kKind>
Results PointwiseLoss(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(LossArgs args, LossInputs(c, ctx, call));
  const int64_t reduction = args.reduction;
  ir::Value* d = c.Op("edge.sub", {args.x, args.t});
  ir::Value* loss = nullptr;
  if (kKind == 0) {
    loss = c.Op("edge.mul", {d, d});
  } else if (kKind == 1) {
    loss = c.Op("edge.abs", {d});
  } else {
    TORCHIR_ASSIGN_OR_RETURN(double t, call.Double(kKind == 2 ? "beta" : "delta"));
    ir::Value* a = c.Op("edge.abs", {d});
    // smooth_l1: |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta (beta 0: l1).
    // huber:     |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta).
    ir::Value* square = c.WithScalar("edge.mul", c.Op("edge.mul", {d, d}), 0.5);
    ir::Value* linear = c.WithScalar("edge.sub", a, 0.5 * t);
    if (kKind == 2) {
      if (t == 0.0) return Reduced(c, a, reduction);
      square = c.WithScalar("edge.div", square, t);
    } else {
      linear = c.WithScalar("edge.mul", linear, t);
    }
    loss = c.Op("edge.where", {c.WithScalar("edge.lt", a, t), square, linear});
  }
  return Reduced(c, loss, reduction);
}

// nansum / nanmean: nans count as 0 (nanmean: and are not counted).
template <bool kMean>
Results NanReduce(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims_arg,
                           call.OptionalIntList("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  const DType dtype = ctx.OutputType().dtype;
  std::vector<int64_t> dims = dims_arg.value_or(std::vector<int64_t>{});
  for (int64_t& d : dims) {
    TORCHIR_ASSIGN_OR_RETURN(d, NormDim(d, x->type().rank()));
  }
  x = c.Cast(x, dtype);
  if (!ir::IsFloatingPoint(dtype)) return c.Result(c.Reduce(kMean ? "edge.mean" : "edge.sum", x, dims, keepdim));
  ir::Value* is_nan = c.Op("edge.ne", {x, x});
  ir::Value* zeroed = c.Op("edge.where", {is_nan, c.Scalar(0.0, dtype), x});
  ir::Value* total = c.Reduce("edge.sum", zeroed, dims, keepdim);
  if (!kMean) return c.Result(total);
  ir::Value* counted = c.Cast(c.Op("edge.bitwise_not", {is_nan}), dtype);
  return c.Result(c.Op("edge.div", {total, c.Reduce("edge.sum", counted, dims, keepdim)}));
}

// kl_div(self: log-probabilities, target, reduction, log_target): target * (log target - self)
// (0 where target is 0, as xlogy), or exp(target) * (target - self) for log targets.
Results KlDiv(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(LossArgs args, LossInputs(c, ctx, call));
  TORCHIR_ASSIGN_OR_RETURN(bool log_target, call.Bool("log_target"));
  ir::Value *x = args.x, *t = args.t;
  const DType dtype = args.dtype;
  const int64_t reduction = args.reduction;
  ir::Value* loss = nullptr;
  if (log_target) {
    loss = c.Op("edge.mul", {c.Op("edge.exp", {t}), c.Op("edge.sub", {t, x})});
  } else {
    ir::Value* t_log_t = c.Op("edge.where", {c.WithScalar("edge.eq", t, 0.0), c.Scalar(0.0, dtype),
                                             c.Op("edge.mul", {t, c.Op("edge.log", {t})})});
    loss = c.Op("edge.sub", {t_log_t, c.Op("edge.mul", {t, x})});
  }
  return Reduced(c, loss, reduction);
}

// binary_cross_entropy(self: probabilities, target, weight, reduction):
// -weight (t log x + (1 - t) log(1 - x)), each log clamped at -100 as ATen does.
Results BinaryCrossEntropy(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(LossArgs args, LossInputs(c, ctx, call));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  ir::Value *x = args.x, *t = args.t;
  const DType dtype = args.dtype;
  const int64_t reduction = args.reduction;
  const Attrs clamp = {{"min", AttrValue::Double(-100.0)}, {"max", AttrValue::Double(kInfinity)}};
  ir::Value* log_x = c.Op("edge.clamp", {c.Op("edge.log", {x})}, clamp);
  ir::Value* one_minus_x = c.Op("edge.sub", {c.Scalar(1.0, dtype), x});
  ir::Value* log_1mx = c.Op("edge.clamp", {c.Op("edge.log", {one_minus_x})}, clamp);
  ir::Value* one_minus_t = c.Op("edge.sub", {c.Scalar(1.0, dtype), t});
  ir::Value* likelihood = c.Op("edge.add", {c.Op("edge.mul", {one_minus_t, log_1mx}),
                                            c.Op("edge.mul", {t, log_x})});
  ir::Value* loss = c.Op("edge.neg", {likelihood});
  if (weight != nullptr) loss = c.Op("edge.mul", {loss, c.Cast(weight, dtype)});
  return Reduced(c, loss, reduction);
}

// binary_cross_entropy_with_logits(self: logits, target, weight, pos_weight, reduction):
// (1 - t) x + lw (log1p(exp(-|x|)) + max(-x, 0)), lw = (pos_weight - 1) t + 1 (1 without).
Results BinaryCrossEntropyWithLogits(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(LossArgs args, LossInputs(c, ctx, call));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * pos_weight, ctx.OptionalTensor(call, "pos_weight"));
  ir::Value *x = args.x, *t = args.t;
  const DType dtype = args.dtype;
  const int64_t reduction = args.reduction;
  ir::Value* softplus_neg = c.Op(
      "edge.add",
      {c.Op("edge.log1p", {c.Op("edge.exp", {c.Op("edge.neg", {c.Op("edge.abs", {x})})})}),
       c.Op("edge.clamp", {c.Op("edge.neg", {x})},
            {{"min", AttrValue::Double(0.0)}, {"max", AttrValue::Double(kInfinity)}})});
  if (pos_weight != nullptr) {
    ir::Value* log_weight = c.WithScalar(
        "edge.add", c.Op("edge.mul", {c.WithScalar("edge.sub", c.Cast(pos_weight, dtype), 1.0), t}),
        1.0);
    softplus_neg = c.Op("edge.mul", {log_weight, softplus_neg});
  }
  ir::Value* loss = c.Op("edge.add", {c.Op("edge.mul", {c.Op("edge.sub", {c.Scalar(1.0, dtype), t}), x}),
                                      softplus_neg});
  if (weight != nullptr) loss = c.Op("edge.mul", {loss, c.Cast(weight, dtype)});
  return Reduced(c, loss, reduction);
}

// nll_loss(self: log-probabilities [N, C, ...] or [C], target: class indices, weight,
// reduction, ignore_index): -w[t] * self[t] per sample through a one-hot mask of the target
// along the class dim; ignored samples count 0, and the mean divides by the weights of the
// samples not ignored, as ATen's.
absl::StatusOr<ir::Value*> NllLoss(Chain& c, LoweringContext& ctx, ir::Value* logp,
                                   ir::Value* target, ir::Value* weight, int64_t reduction,
                                   int64_t ignore_index) {
  const int64_t rank = logp->type().rank();
  const int64_t class_dim = rank == 1 ? 0 : 1;
  const int64_t classes = logp->sizes()[class_dim];
  if (target->type().rank() != rank - 1) {
    return Unsupported("nll_loss with a target that is not class indices of the input's batch");
  }
  const DType dtype = logp->dtype();
  target = c.Cast(target, DType::kInt64);
  ir::Value* valid = c.WithScalar("edge.ne", target, static_cast<double>(ignore_index));
  std::vector<int64_t> classes_shape(static_cast<size_t>(rank), 1);
  classes_shape[class_dim] = classes;
  std::vector<int64_t> values(static_cast<size_t>(classes));
  std::iota(values.begin(), values.end(), 0);
  ir::Value* range = c.Reshape(
      ctx.builder().Constant(ir::TensorType{DType::kInt64, {classes}},
                             ir::TensorData::Copy(values.data(), values.size() * sizeof(int64_t))),
      classes_shape);
  std::vector<int64_t> with_class = target->sizes();
  with_class.insert(with_class.begin() + class_dim, 1);
  ir::Value* onehot = c.Op("edge.eq", {c.Reshape(target, with_class), range});
  ir::Value* zero = c.Scalar(0.0, dtype);
  ir::Value* picked = c.Reduce("edge.sum", c.Op("edge.where", {onehot, logp, zero}), {class_dim}, false);
  ir::Value* w = c.Cast(valid, dtype);
  if (weight != nullptr) {
    ir::Value* class_weight = c.Reshape(c.Cast(weight, dtype), classes_shape);
    ir::Value* picked_weight =
        c.Reduce("edge.sum", c.Op("edge.where", {onehot, c.Expand(class_weight, logp->sizes()), zero}),
                 {class_dim}, false);
    w = c.Op("edge.mul", {w, picked_weight});
  }
  ir::Value* loss = c.Op("edge.neg", {c.Op("edge.mul", {picked, w})});
  if (reduction == 0) return loss;
  ir::Value* total = c.Reduce("edge.sum", loss, {}, false);
  if (reduction == 2) return total;
  return c.Op("edge.div", {total, c.Reduce("edge.sum", w, {}, false)});
}

Results NllLossRule(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * logp, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * target, ctx.Tensor(call, "target"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t reduction, call.Int("reduction"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t ignore_index, call.Int("ignore_index"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * loss,
                           NllLoss(c, ctx, logp, target, weight, reduction, ignore_index));
  return c.Result(loss);
}

// cross_entropy_loss with class-index targets: nll_loss of log_softmax over the class dim.
// Probability targets and label smoothing are refused.
Results CrossEntropyLoss(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * target, ctx.Tensor(call, "target"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t reduction, call.Int("reduction"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t ignore_index, call.Int("ignore_index"));
  TORCHIR_ASSIGN_OR_RETURN(double label_smoothing, call.Double("label_smoothing"));
  if (label_smoothing != 0.0 || ir::IsFloatingPoint(target->dtype())) {
    return Unsupported("cross_entropy with label smoothing or probability targets");
  }
  const int64_t class_dim = x->type().rank() == 1 ? 0 : 1;
  ir::Value* logp = c.Op("edge.log_softmax", {c.Cast(x, FloatOf(x->dtype()))},
                         {{"dim", AttrValue::Int(class_dim)}});
  if (logp == nullptr) return c.status();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * loss,
                           NllLoss(c, ctx, logp, target, weight, reduction, ignore_index));
  return c.Result(loss);
}

// broadcast_tensors: each tensor expanded to the shape they broadcast to.
Results BroadcastTensors(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> tensors, call.TensorList("tensors"));
  std::vector<int64_t> shape;
  for (ir::Value* t : tensors) {
    if (t == nullptr) return Unsupported("broadcast_tensors of a None");
    TORCHIR_ASSIGN_OR_RETURN(shape, dialect::shape_rules::BroadcastShapes(shape, t->sizes()));
  }
  std::vector<ir::Value*> results;
  for (ir::Value* t : tensors) {
    std::vector<int64_t> aligned = t->sizes();  // leading unit dims up to the common rank
    aligned.insert(aligned.begin(), shape.size() - aligned.size(), 1);
    results.push_back(c.Expand(c.Reshape(ctx.Map(t), aligned), shape));
  }
  return c.Results_(results);
}

// bilinear(x1 [..., I], x2 [..., J], weight [O, I, J], bias [O]): x1 @ weight viewed as
// [I, O * J], times x2 per output, summed over J.
Results Bilinear(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x1, ctx.Tensor(call, "input1"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x2, ctx.Tensor(call, "input2"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.Tensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  if (weight->type().rank() != 3 || x1->type().rank() < 1 || x2->type().rank() < 1) {
    return Unsupported("bilinear with a weight that is not [O, I, J]");
  }
  const int64_t o = weight->sizes()[0], i = weight->sizes()[1], j = weight->sizes()[2];
  const int64_t rows = x1->type().numel() / std::max<int64_t>(i, 1);
  ir::Value* w = c.Reshape(c.Permute(weight, {1, 0, 2}), {i, o * j});
  ir::Value* left = c.Reshape(c.Op("edge.matmul", {c.Reshape(x1, {rows, i}), w}), {rows, o, j});
  ir::Value* right = c.Reshape(x2, {rows, 1, j});
  ir::Value* y = c.Reduce("edge.sum", c.Op("edge.mul", {left, right}), {2}, false);
  if (bias != nullptr) y = c.Op("edge.add", {y, bias});
  return c.Result(c.Reshape(y, ctx.OutputType().sizes));
}

// linalg_cross(self, other, dim): a x b along a dim of size 3, as a rotated one way times b
// rotated the other, minus the reverse.
Results LinalgCross(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  const DType dtype = ctx.OutputType().dtype;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "other"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  const std::vector<int64_t>& shape = ctx.OutputType().sizes;
  TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, static_cast<int64_t>(shape.size())));
  if (shape.empty() || shape[dim] != 3) return Unsupported("cross product along a dim not of size 3");
  a = c.Expand(c.Cast(a, dtype), shape);
  b = c.Expand(c.Cast(b, dtype), shape);
  auto rotate = [&](ir::Value* x, std::vector<int64_t> order) {
    ir::Value* index = ctx.builder().Constant(
        ir::TensorType{DType::kInt64, {3}},
        ir::TensorData::Copy(order.data(), order.size() * sizeof(int64_t)));
    return c.Op("edge.index_select", {x, index}, {{"dim", AttrValue::Int(dim)}});
  };
  ir::Value* first = c.Op("edge.mul", {rotate(a, {1, 2, 0}), rotate(b, {2, 0, 1})});
  ir::Value* second = c.Op("edge.mul", {rotate(a, {2, 0, 1}), rotate(b, {1, 2, 0})});
  return c.Result(c.Op("edge.sub", {first, second}));
}

// median.dim / median: the lower median, the ((n - 1) / 2 + 1)-th smallest along dim, as the
// last of edge.topk's k smallest (in order, ties in index order). NaNs are not propagated as
// ATen does (it returns NaN when the slice holds one).
Results Median(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  const bool whole = !call.Find("dim").ok();
  int64_t dim = 0;
  bool keepdim = false;
  if (whole) {
    x = c.Reshape(x, {x->type().numel()});
    if (x == nullptr) return c.status();
  } else {
    TORCHIR_ASSIGN_OR_RETURN(dim, call.Int("dim"));
    TORCHIR_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
    TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, x->type().rank()));
  }
  if (x->type().rank() == 0) return std::vector<ir::Value*>{x, nullptr};
  const int64_t n = x->sizes()[dim];
  if (n == 0) return Unsupported("median of an empty dim");
  const int64_t k = (n - 1) / 2 + 1;
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> picked,
                           ctx.builder().Emit("edge.topk", {x},
                                              {{"k", AttrValue::Int(k)},
                                               {"dim", AttrValue::Int(dim)},
                                               {"largest", AttrValue::Bool(false)}}));
  ir::Value* values = c.Slice(picked[0], dim, k - 1, k);
  ir::Value* indices = c.Slice(picked[1], dim, k - 1, k);
  std::vector<int64_t> out = x->sizes();
  if (keepdim) {
    out[dim] = 1;
  } else {
    out.erase(out.begin() + dim);
  }
  if (whole) return c.Result(c.Reshape(values, {}));
  return c.Results_({c.Reshape(values, out), c.Reshape(indices, out)});
}

// upsample_trilinear3d: bilinear over (H, W) of [N, C·D, H, W], then over (D, 1) of
// [N, C, D, OH·OW] (a width that does not change samples every column exactly, weight 1).
Results UpsampleTrilinear3d(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  ir::Value* x = nullptr;
  if (call.Find("self").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(x, ctx.Tensor(call, "self"));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(x, ctx.Tensor(call, "input"));
  }
  TORCHIR_ASSIGN_OR_RETURN(bool align_corners, call.Bool("align_corners"));
  std::vector<double> scales(3, 0.0);
  if (call.Find("scale_factors").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(AttrValue factors, call.Value("scale_factors"));
    if (factors.kind() == AttrValue::Kind::kDoubleList && factors.as_double_list().size() == 3) {
      scales = factors.as_double_list();
    }
  } else {
    const char* names[] = {"scales_d", "scales_h", "scales_w"};
    for (int i = 0; i < 3; ++i) {
      TORCHIR_ASSIGN_OR_RETURN(std::optional<double> given, call.OptionalDouble(names[i]));
      scales[i] = given.value_or(0.0);
    }
  }
  const std::vector<int64_t>& out = ctx.OutputType().sizes;
  const std::vector<int64_t>& in = x->sizes();
  if (in.size() != 5 || out.size() != 5 || in[2] == 0 || in[3] == 0 || in[4] == 0) {
    return Unsupported("3-d upsampling of an input that is not [N, C, D, H, W]");
  }
  auto bilinear = [&](ir::Value* v, int64_t oh, int64_t ow, double sh, double sw) {
    return c.Op("edge.upsample_bilinear2d", {v},
                {{"output_size", AttrValue::IntList({oh, ow})},
                 {"align_corners", AttrValue::Bool(align_corners)},
                 {"scales_h", AttrValue::Double(sh)},
                 {"scales_w", AttrValue::Double(sw)}});
  };
  ir::Value* planes = bilinear(c.Reshape(x, {in[0], in[1] * in[2], in[3], in[4]}), out[3], out[4],
                               scales[1], scales[2]);
  ir::Value* depth = bilinear(c.Reshape(planes, {in[0], in[1], in[2], out[3] * out[4]}), out[2],
                              out[3] * out[4], scales[0], 0.0);
  return c.Result(c.Reshape(depth, out));
}

// linalg_matrix_norm over two dims: 'fro' (the 2-norm of the entries), 1 / -1 (the largest /
// smallest column sum of |x|), inf / -inf (row sums). 2, -2 and 'nuc' need singular values.
Results MatrixNorm(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  TORCHIR_ASSIGN_OR_RETURN(AttrValue ord, call.Value("ord"));
  const int64_t rank = x->type().rank();
  if (dims.size() != 2) return Unsupported("matrix_norm over other than two dims");
  for (int64_t& d : dims) {
    TORCHIR_ASSIGN_OR_RETURN(d, NormDim(d, rank));
  }
  x = c.Cast(x, FloatOf(ctx.OutputType().dtype));
  if (ord.kind() == AttrValue::Kind::kString) {
    if (ord.as_string() != "fro") return Unsupported("matrix_norm ord='" + ord.as_string() + "'");
    return c.Result(c.Reshape(PNorm(c, x, 2.0, dims, keepdim), ctx.OutputType().sizes));
  }
  TORCHIR_ASSIGN_OR_RETURN(double p, ScalarArg(call, "ord"));
  if (std::abs(p) != 1.0 && !std::isinf(p)) {
    return Unsupported(absl::StrCat("matrix_norm ord=", p, " (needs singular values)"));
  }
  // 1: sum over rows (dim 0 of the matrix), extremum over columns; inf the other way round.
  const int64_t summed = std::abs(p) == 1.0 ? dims[0] : dims[1];
  const int64_t extremum = std::abs(p) == 1.0 ? dims[1] : dims[0];
  ir::Value* sums = c.Reduce("edge.sum", c.Op("edge.abs", {x}), {summed}, true);
  ir::Value* norm = c.Reduce(p > 0 ? "edge.amax" : "edge.amin", sums, {extremum}, true);
  return c.Result(c.Reshape(norm, ctx.OutputType().sizes));
}

// renorm(self, p, dim, maxnorm): each slice along dim scaled by maxnorm / (norm + 1e-7) where
// its p-norm exceeds maxnorm, as ATen.
Results Renorm(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(double p, ScalarArg(call, "p"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(double maxnorm, ScalarArg(call, "maxnorm"));
  const int64_t rank = x->type().rank();
  TORCHIR_ASSIGN_OR_RETURN(dim, NormDim(dim, rank));
  std::vector<int64_t> others;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != dim) others.push_back(d);
  }
  ir::Value* norm = PNorm(c, x, p, others, true);
  ir::Value* factor = c.Op("edge.div", {c.Scalar(maxnorm, x->dtype()),
                                        c.WithScalar("edge.add", norm, 1e-7)});
  ir::Value* scale = c.Op("edge.where", {c.WithScalar("edge.gt", norm, maxnorm), factor,
                                         c.Scalar(1.0, x->dtype())});
  return c.Result(c.Op("edge.mul", {x, scale}));
}

// ---- Recurrent layers ------------------------------------------------------------------------

enum class Cell { kLstm, kGru, kRnnTanh, kRnnRelu };

// lstm / gru / rnn_tanh / rnn_relu (.input overloads), unrolled over time as ATen's CPU path
// computes them: per layer and direction, the input projection of every step at once
// (x W_ih^T + b_ih), then per step the hidden projection (h W_hh^T + b_hh) and the gates. The
// program grows with the sequence length (about ten Edge nodes per step and direction), which
// the static shapes fix anyway. Dropout between layers is the identity in eval; a projection
// (proj_size) is refused.
template <Cell kCell>
Results Recurrent(LoweringContext& ctx, const AtenCall& call) {
  Chain c(ctx.builder());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> params_aten, call.TensorList("params"));
  TORCHIR_ASSIGN_OR_RETURN(bool has_biases, call.Bool("has_biases"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t layers, call.Int("num_layers"));
  TORCHIR_ASSIGN_OR_RETURN(double dropout, call.Double("dropout"));
  TORCHIR_ASSIGN_OR_RETURN(bool train, call.Bool("train"));
  TORCHIR_ASSIGN_OR_RETURN(bool bidirectional, call.Bool("bidirectional"));
  TORCHIR_ASSIGN_OR_RETURN(bool batch_first, call.Bool("batch_first"));
  std::vector<ir::Value*> hx;
  if (kCell == Cell::kLstm) {
    TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> states, call.TensorList("hx"));
    for (ir::Value* state : states) hx.push_back(state == nullptr ? nullptr : ctx.Map(state));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * h0, ctx.Tensor(call, "hx"));
    hx.push_back(h0);
  }
  if (train && dropout > 0.0 && layers > 1) {
    return Unsupported("a recurrent layer with dropout in training mode samples random masks");
  }
  const int64_t directions = bidirectional ? 2 : 1;
  const size_t per_cell = has_biases ? 4 : 2;
  if (input->type().rank() != 3 || layers < 1 ||
      params_aten.size() != per_cell * static_cast<size_t>(layers * directions) ||
      hx.size() != (kCell == Cell::kLstm ? 2u : 1u) || hx[0] == nullptr ||
      hx[0]->type().rank() != 3) {
    return Unsupported("a recurrent layer other than batched, without projections");
  }
  std::vector<ir::Value*> params;
  for (ir::Value* p : params_aten) params.push_back(ctx.Map(p));
  const int64_t gates = kCell == Cell::kLstm ? 4 : (kCell == Cell::kGru ? 3 : 1);
  const int64_t hidden = hx[0]->sizes()[2];
  const Attrs open = {{"output_min", AttrValue::Double(-kInfinity)},
                      {"output_max", AttrValue::Double(kInfinity)}};
  ir::Value* x = batch_first ? c.Permute(input, {1, 0, 2}) : input;  // [T, B, I]
  if (x == nullptr) return c.status();
  const int64_t steps = x->sizes()[0], batch = x->sizes()[1];
  auto linear = [&](ir::Value* v, ir::Value* w, ir::Value* b) {
    std::vector<ir::Value*> operands = {v, w};
    if (b != nullptr) operands.push_back(b);
    return c.Op("edge.linear", operands, open);
  };
  auto gate = [&](ir::Value* v, int64_t g) { return c.Slice(v, 1, g * hidden, (g + 1) * hidden); };
  std::vector<ir::Value*> final_h, final_c;
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<ir::Value*> direction_outputs;
    for (int64_t d = 0; d < directions; ++d) {
      const size_t at = per_cell * static_cast<size_t>(layer * directions + d);
      ir::Value* w_ih = params[at];
      ir::Value* w_hh = params[at + 1];
      ir::Value* b_ih = has_biases ? params[at + 2] : nullptr;
      ir::Value* b_hh = has_biases ? params[at + 3] : nullptr;
      if (w_hh->type().rank() != 2 || w_hh->sizes()[0] != gates * hidden ||
          w_hh->sizes()[1] != hidden) {
        return Unsupported("a recurrent layer whose weights are not [gates * hidden, hidden]");
      }
      const int64_t state = layer * directions + d;
      ir::Value* h = c.Reshape(c.Slice(hx[0], 0, state, state + 1), {batch, hidden});
      ir::Value* cell =
          kCell == Cell::kLstm ? c.Reshape(c.Slice(hx[1], 0, state, state + 1), {batch, hidden})
                               : nullptr;
      // The input projection of every step at once: [T, B, gates * hidden].
      ir::Value* projected = linear(x, w_ih, b_ih);
      std::vector<ir::Value*> outputs(static_cast<size_t>(steps));
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = d == 0 ? s : steps - 1 - s;
        ir::Value* xg = c.Reshape(c.Slice(projected, 0, t, t + 1), {batch, gates * hidden});
        ir::Value* hg = linear(h, w_hh, b_hh);
        if (kCell == Cell::kLstm) {
          ir::Value* g = c.Op("edge.add", {xg, hg});
          ir::Value* i = c.Op("edge.sigmoid", {gate(g, 0)});
          ir::Value* f = c.Op("edge.sigmoid", {gate(g, 1)});
          ir::Value* candidate = c.Op("edge.tanh", {gate(g, 2)});
          ir::Value* o = c.Op("edge.sigmoid", {gate(g, 3)});
          cell = c.Op("edge.add", {c.Op("edge.mul", {f, cell}), c.Op("edge.mul", {i, candidate})});
          h = c.Op("edge.mul", {o, c.Op("edge.tanh", {cell})});
        } else if (kCell == Cell::kGru) {
          ir::Value* r = c.Op("edge.sigmoid", {c.Op("edge.add", {gate(xg, 0), gate(hg, 0)})});
          ir::Value* z = c.Op("edge.sigmoid", {c.Op("edge.add", {gate(xg, 1), gate(hg, 1)})});
          ir::Value* n = c.Op("edge.tanh", {c.Op("edge.add", {gate(xg, 2),
                                                              c.Op("edge.mul", {r, gate(hg, 2)})})});
          // (1 - z) n + z h, as n + z (h - n).
          h = c.Op("edge.add", {n, c.Op("edge.mul", {z, c.Op("edge.sub", {h, n})})});
        } else {
          ir::Value* sum = c.Op("edge.add", {xg, hg});
          h = kCell == Cell::kRnnTanh
                  ? c.Op("edge.tanh", {sum})
                  : c.Op("edge.clamp", {sum}, {{"min", AttrValue::Double(0.0)},
                                               {"max", AttrValue::Double(kInfinity)}});
        }
        outputs[static_cast<size_t>(t)] = c.Reshape(h, {1, batch, hidden});
      }
      direction_outputs.push_back(
          steps == 1 ? outputs[0] : c.Op("edge.concatenate", outputs, {{"dim", AttrValue::Int(0)}}));
      final_h.push_back(c.Reshape(h, {1, batch, hidden}));
      if (cell != nullptr) final_c.push_back(c.Reshape(cell, {1, batch, hidden}));
    }
    x = directions == 1 ? direction_outputs[0]
                        : c.Op("edge.concatenate", direction_outputs, {{"dim", AttrValue::Int(2)}});
    if (x == nullptr) return c.status();
  }
  auto joined = [&](std::vector<ir::Value*>& states) {
    return states.size() == 1 ? states[0]
                              : c.Op("edge.concatenate", states, {{"dim", AttrValue::Int(0)}});
  };
  std::vector<ir::Value*> results = {batch_first ? c.Permute(x, {1, 0, 2}) : x, joined(final_h)};
  if (kCell == Cell::kLstm) results.push_back(joined(final_c));
  return c.Results_(results);
}

}  // namespace

void AddCompositeRules(RuleTable& table) {
  table.Add("aten.clip.default", Alias<kClampDefault>);
  table.Add("aten.clip.Tensor", Alias<kClampTensor>);
  table.Add("aten.true_divide.Tensor", Alias<kDivTensor>);
  table.Add("aten.true_divide.Scalar", Alias<kDivScalar>);
  table.Add("aten.true_divide_.Tensor", Alias<kDivTensorInPlace>);
  table.Add("aten.view_as.default", Alias<kReshapeToOutput>);
  table.Add("aten.feature_dropout.default", Alias<kDropout>);
  table.Add("aten.alpha_dropout.default", Alias<kDropout>);
  table.Add("aten.feature_alpha_dropout.default", Alias<kDropout>);
  // The unsafe_ forms (torch 1.13's RNN decompositions) differ only in autograd aliasing.
  table.Add("aten.unsafe_split.Tensor", Alias<kSplit>);
  table.Add("aten.unsafe_split_with_sizes.default", Alias<kSplitWithSizes>);
  table.Add("aten.unsafe_chunk.default", Alias<kChunk>);
  table.Add("aten.rrelu.default", Rrelu);
  table.Add("aten.deg2rad.default", AngleConversion<1>);
  table.Add("aten.rad2deg.default", AngleConversion<0>);
  table.Add("aten.signbit.default", Signbit);
  table.Add("aten.isfinite.default", Isfinite);
  table.Add("aten.sinc.default", Sinc);
  table.Add("aten.heaviside.default", Heaviside);
  table.Add("aten.xlogy.Tensor", Xlogy);
  table.Add("aten.xlogy.Scalar_Other", Xlogy);
  table.Add("aten.isclose.default", Isclose);
  table.Add("aten.outer.default", Outer);
  table.Add("aten.ger.default", Outer);
  table.Add("aten.dot.default", Dot);
  table.Add("aten.mv.default", Mv);
  table.Add("aten.baddbmm.default", Baddbmm);
  table.Add("aten.tensordot.default", Tensordot);
  table.Add("aten.trace.default", Trace);
  table.Add("aten.kron.default", Kron);
  table.Add("aten.einsum.default", Einsum);
  table.Add("aten.cosine_similarity.default", CosineSimilarity);
  table.Add("aten.pairwise_distance.default", PairwiseDistance);
  table.Add("aten.dist.default", Dist);
  table.Add("aten.instance_norm.default", InstanceNorm);
  table.Add("aten.rms_norm.default", RmsNorm);
  table.Add("aten.one_hot.default", OneHot);
  table.Add("aten.channel_shuffle.default", ChannelShuffle);
  table.Add("aten.native_channel_shuffle.default", ChannelShuffle);
  table.Add("aten.diff.default", Diff);
  table.Add("aten.tensor_split.sections", TensorSplit);
  table.Add("aten.tensor_split.indices", TensorSplitIndices);
  table.Add("aten.hsplit.int", DirectionalSplit<1>);
  table.Add("aten.vsplit.int", DirectionalSplit<0>);
  table.Add("aten.dsplit.int", DirectionalSplit<2>);
  table.Add("aten.meshgrid.default", MeshgridIj);
  table.Add("aten.meshgrid.indexing", MeshgridIndexing);
  table.Add("aten.repeat_interleave.self_int", RepeatInterleave);
  table.Add("aten.unfold.default", Unfold);
  table.Add("aten.upsample_linear1d.default", UpsampleLinear1d);
  table.Add("aten.upsample_linear1d.vec", UpsampleLinear1d);
  table.Add("aten.mse_loss.default", PointwiseLoss<0>);
  table.Add("aten.l1_loss.default", PointwiseLoss<1>);
  table.Add("aten.smooth_l1_loss.default", PointwiseLoss<2>);
  table.Add("aten.huber_loss.default", PointwiseLoss<3>);
  table.Add("aten.nansum.default", NanReduce<false>);
  table.Add("aten.nanmean.default", NanReduce<true>);
  table.Add("aten.kl_div.default", KlDiv);
  table.Add("aten.binary_cross_entropy.default", BinaryCrossEntropy);
  table.Add("aten.binary_cross_entropy_with_logits.default", BinaryCrossEntropyWithLogits);
  table.Add("aten.nll_loss.default", NllLossRule);
  table.Add("aten.nll_loss_nd.default", NllLossRule);
  table.Add("aten.cross_entropy_loss.default", CrossEntropyLoss);
  table.Add("aten.broadcast_tensors.default", BroadcastTensors);
  table.Add("aten.bilinear.default", Bilinear);
  table.Add("aten.linalg_cross.default", LinalgCross);
  table.Add("aten.float_power.Tensor_Scalar", FloatPower);
  table.Add("aten.float_power.Tensor_Tensor", FloatPower);
  table.Add("aten.float_power.Scalar", FloatPower);
  table.Add("aten.median.dim", Median);
  table.Add("aten.median.default", Median);
  table.Add("aten.upsample_trilinear3d.default", UpsampleTrilinear3d);
  table.Add("aten.upsample_trilinear3d.vec", UpsampleTrilinear3d);
  table.Add("aten.linalg_matrix_norm.default", MatrixNorm);
  table.Add("aten.linalg_matrix_norm.str_ord", MatrixNorm);
  table.Add("aten.renorm.default", Renorm);
  table.Add("aten.lstm.input", Recurrent<Cell::kLstm>);
  table.Add("aten.gru.input", Recurrent<Cell::kGru>);
  table.Add("aten.rnn_tanh.input", Recurrent<Cell::kRnnTanh>);
  table.Add("aten.rnn_relu.input", Recurrent<Cell::kRnnRelu>);
}

}  // namespace torchir::lowering
