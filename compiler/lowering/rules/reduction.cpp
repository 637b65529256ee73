// Lowering of reductions (mean, sum, max), softmax, pooling and scaled dot-product attention.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {
namespace {

using dialect::AtenCall;
using ir::AttrValue;

// `dim` in [0, rank) (a 0-d tensor takes dims 0 and -1).
absl::StatusOr<int64_t> NormalizeDim(int64_t dim, int64_t rank) {
  const int64_t bound = rank > 0 ? rank : 1;
  if (dim < -bound || dim >= bound) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim ", dim, " is out of range for a tensor of rank ", rank));
  }
  return dim < 0 ? dim + bound : dim;
}

absl::StatusOr<std::vector<int64_t>> NormalizeDims(const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> normalized;
  for (int64_t dim : dims) {
    TORCHIR_ASSIGN_OR_RETURN(int64_t d, NormalizeDim(dim, rank));
    normalized.push_back(d);
  }
  return normalized;
}

// --- Softmax -------------------------------------------------------------------------------------

// softmax.int / log_softmax.int: an optional dtype casts the input first.
Results SoftmaxWithDType(LoweringContext& ctx, const AtenCall& call, const char* op) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(x, ctx.builder().CastTo(x, ctx.OutputType().dtype));
  return Single(ctx.builder().Emit1(op, {x}, {{"dim", AttrValue::Int(dim)}}));
}

// _softmax / _log_softmax: half_to_float is a CUDA-only option.
Results SoftmaxHalfToFloat(LoweringContext& ctx, const AtenCall& call, const char* op) {
  TORCHIR_ASSIGN_OR_RETURN(bool half_to_float, call.Bool("half_to_float"));
  if (half_to_float) return Unsupported("half_to_float=true");
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  return Single(ctx.builder().Emit1(op, {x}, {{"dim", AttrValue::Int(dim)}}));
}

Results Softmax(LoweringContext& ctx, const AtenCall& call) {
  return SoftmaxWithDType(ctx, call, "edge.softmax");
}
Results LogSoftmax(LoweringContext& ctx, const AtenCall& call) {
  return SoftmaxWithDType(ctx, call, "edge.log_softmax");
}
Results CoreSoftmax(LoweringContext& ctx, const AtenCall& call) {
  return SoftmaxHalfToFloat(ctx, call, "edge.softmax");
}
Results CoreLogSoftmax(LoweringContext& ctx, const AtenCall& call) {
  return SoftmaxHalfToFloat(ctx, call, "edge.log_softmax");
}

// --- Reductions ----------------------------------------------------------------------------------

// edge.<op>(self cast to the recorded output dtype) over `dims` (empty: all). The cast covers both
// an explicit dtype argument and PyTorch's promotion of integer sums to int64.
absl::StatusOr<ir::Value*> Reduce(LoweringContext& ctx, const char* op, ir::Value* x,
                                  const std::vector<int64_t>& dims, bool keepdim) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> normalized, NormalizeDims(dims, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(x, ctx.builder().CastTo(x, ctx.OutputType().dtype));
  return ctx.builder().Emit1(
      op, {x}, {{"dims", AttrValue::IntList(normalized)}, {"keepdim", AttrValue::Bool(keepdim)}});
}

// mean.dim / sum.dim_IntList: dim is int[1]? (None or [] reduce everything).
Results ReduceDims(LoweringContext& ctx, const AtenCall& call, const char* op) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, call.OptionalIntList("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  return Single(Reduce(ctx, op, x, dims.value_or(std::vector<int64_t>{}), keepdim));
}

// mean.default / sum.default / max.default: everything to a 0-d tensor.
Results ReduceAll(LoweringContext& ctx, const AtenCall& call, const char* op) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  return Single(Reduce(ctx, op, x, {}, false));
}

Results MeanDim(LoweringContext& ctx, const AtenCall& call) {
  return ReduceDims(ctx, call, "edge.mean");
}
Results Mean(LoweringContext& ctx, const AtenCall& call) {
  return ReduceAll(ctx, call, "edge.mean");
}
Results SumDim(LoweringContext& ctx, const AtenCall& call) {
  return ReduceDims(ctx, call, "edge.sum");
}
Results Sum(LoweringContext& ctx, const AtenCall& call) { return ReduceAll(ctx, call, "edge.sum"); }
Results MaxAll(LoweringContext& ctx, const AtenCall& call) {
  return ReduceAll(ctx, call, "edge.amax");
}

Results Amax(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  return Single(Reduce(ctx, "edge.amax", x, dims, keepdim));
}

// max.dim: (values, indices).
Results MaxDim(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  return ctx.builder().Emit("edge.max_dim", {x},
                            {{"dim", AttrValue::Int(dim)}, {"keepdim", AttrValue::Bool(keepdim)}});
}

// --- Reductions written with other Edge ops ------------------------------------------------------

// `dims` normalised, every dim when empty or None (the "all when empty" of the Edge reductions,
// spelled out for decompositions that need the reduced element count).
absl::StatusOr<std::vector<int64_t>> ReducedDims(const std::optional<std::vector<int64_t>>& dims,
                                                 int64_t rank) {
  std::vector<int64_t> normalized;
  if (dims.has_value() && !dims->empty()) {
    TORCHIR_ASSIGN_OR_RETURN(normalized, NormalizeDims(*dims, rank));
    if (rank == 0) normalized.clear();
    return normalized;
  }
  for (int64_t d = 0; d < rank; ++d) normalized.push_back(d);
  return normalized;
}

// The number of elements the reduction over `dims` (normalised) folds into one.
int64_t ReducedCount(const ir::Value* x, const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= x->sizes()[d];
  return count;
}

// An Edge reduction of `x` as it is (no cast) over normalised `dims`, which must not be empty
// unless `x` is 0-d (an empty dims attribute means every dim).
absl::StatusOr<ir::Value*> EmitReduce(EdgeBuilder& builder, const char* op, ir::Value* x,
                                      const std::vector<int64_t>& dims, bool keepdim) {
  return builder.Emit1(
      op, {x}, {{"dims", AttrValue::IntList(dims)}, {"keepdim", AttrValue::Bool(keepdim)}});
}

// True elements of `x` as 0/1 of `dtype` (x != 0; a NaN counts as true, as in PyTorch).
absl::StatusOr<ir::Value*> NonZero(EdgeBuilder& builder, ir::Value* x, ir::DType dtype) {
  if (x->dtype() != ir::DType::kBool) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * zero, builder.Scalar(0.0, x->dtype()));
    TORCHIR_ASSIGN_OR_RETURN(x, builder.Emit1("edge.ne", {x, zero}));
  }
  return builder.CastTo(x, dtype);
}

Results Amin(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  return Single(Reduce(ctx, "edge.amin", x, dims, keepdim));
}
Results MinAll(LoweringContext& ctx, const AtenCall& call) {
  return ReduceAll(ctx, call, "edge.amin");
}

// min.dim: (values, indices).
Results MinDim(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  return ctx.builder().Emit("edge.min_dim", {x},
                            {{"dim", AttrValue::Int(dim)}, {"keepdim", AttrValue::Bool(keepdim)}});
}

// argmax / argmin: the indices of edge.max_dim / edge.min_dim. Without a dim the input is
// flattened first, and keepdim gives a shape of ones (the recorded output).
Results ArgExtremum(LoweringContext& ctx, const AtenCall& call, const char* op) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> dim, call.OptionalInt("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  EdgeBuilder& builder = ctx.builder();
  if (!dim.has_value()) {
    int64_t numel = 1;
    for (int64_t size : x->sizes()) numel *= size;
    TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, {numel}));
    dim = 0;
    keepdim = false;
  }
  TORCHIR_ASSIGN_OR_RETURN(int64_t d, NormalizeDim(*dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> outs,
                           builder.Emit(op, {x},
                                        {{"dim", AttrValue::Int(d)},
                                         {"keepdim", AttrValue::Bool(keepdim)}}));
  return Single(builder.ReshapeTo(outs[1], ctx.OutputType().sizes));
}
Results Argmax(LoweringContext& ctx, const AtenCall& call) {
  return ArgExtremum(ctx, call, "edge.max_dim");
}
Results Argmin(LoweringContext& ctx, const AtenCall& call) {
  return ArgExtremum(ctx, call, "edge.min_dim");
}

Results ProdAll(LoweringContext& ctx, const AtenCall& call) {
  return ReduceAll(ctx, call, "edge.prod");
}
Results ProdDim(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  if (x->type().rank() == 0) {
    TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, 0));
    return Single(Reduce(ctx, "edge.prod", x, {}, keepdim));
  }
  return Single(Reduce(ctx, "edge.prod", x, {dim}, keepdim));
}

// cumsum: integers and bools sum in int64 unless a dtype says otherwise (the recorded output).
Results Cumsum(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(x, ctx.builder().CastTo(x, ctx.OutputType().dtype));
  return Single(ctx.builder().Emit1("edge.cumsum", {x}, {{"dim", AttrValue::Int(dim)}}));
}

// edge.topk of x along `dim` (normalised here), (values, indices).
absl::StatusOr<std::vector<ir::Value*>> TopKOf(EdgeBuilder& builder, ir::Value* x, int64_t k,
                                               int64_t dim, bool largest) {
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  return builder.Emit("edge.topk", {x},
                      {{"k", AttrValue::Int(k)},
                       {"dim", AttrValue::Int(dim)},
                       {"largest", AttrValue::Bool(largest)}});
}

// The size of `dim` of x (1 for a 0-d tensor).
absl::StatusOr<int64_t> DimSize(ir::Value* x, int64_t dim) {
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  return x->type().rank() == 0 ? 1 : x->sizes()[dim];
}

// topk(self, k, dim, largest, sorted): sorted=False leaves the order open in PyTorch; Edge
// returns it sorted, which is one of the orders allowed.
Results TopK(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t k, call.Int("k"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool largest, call.Bool("largest"));
  return TopKOf(ctx.builder(), x, k, dim, largest);
}

// sort / sort.stable / argsort / argsort.stable: topk of the whole dim (always stable).
absl::StatusOr<std::vector<ir::Value*>> SortOf(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool descending, call.Bool("descending"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t size, DimSize(x, dim));
  return TopKOf(ctx.builder(), x, size, dim, descending);
}
Results Sort(LoweringContext& ctx, const AtenCall& call) { return SortOf(ctx, call); }
Results Argsort(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> outs, SortOf(ctx, call));
  return std::vector<ir::Value*>{outs[1]};
}
Results Msort(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t size, DimSize(x, 0));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> outs, TopKOf(ctx.builder(), x, size, 0, false));
  return std::vector<ir::Value*>{outs[0]};
}

// kthvalue(self, k, dim, keepdim): entry k - 1 of the k smallest (edge.topk), values and indices.
Results Kthvalue(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t k, call.Int("k"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, NormalizeDim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(int64_t size, DimSize(x, dim));
  if (k < 1 || k > size) {
    return absl::InvalidArgumentError(absl::StrCat("kthvalue: k ", k, " is out of range for ", size));
  }
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value*> outs, TopKOf(builder, x, k, dim, false));
  for (size_t i = 0; i < 2; ++i) {
    if (x->type().rank() > 0 && k > 1) {
      TORCHIR_ASSIGN_OR_RETURN(outs[i], builder.Emit1("edge.slice", {outs[i]},
                                                      {{"dim", AttrValue::Int(dim)},
                                                       {"start", AttrValue::Int(k - 1)},
                                                       {"end", AttrValue::Int(k)},
                                                       {"step", AttrValue::Int(1)}}));
    }
    TORCHIR_ASSIGN_OR_RETURN(outs[i], builder.ReshapeTo(outs[i], ctx.OutputType(i).sizes));
  }
  return outs;
}

// aminmax(self, dim?, keepdim): edge.amin and edge.amax over dim (every dim when None).
Results Aminmax(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> dim, call.OptionalInt("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  std::vector<int64_t> dims;
  if (dim.has_value()) {
    TORCHIR_ASSIGN_OR_RETURN(int64_t d, NormalizeDim(*dim, x->type().rank()));
    if (x->type().rank() > 0) dims.push_back(d);
  }
  std::vector<ir::Value*> outs;
  for (const char* op : {"edge.amin", "edge.amax"}) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * out, EmitReduce(ctx.builder(), op, x, dims, keepdim));
    TORCHIR_ASSIGN_OR_RETURN(out, ctx.builder().ReshapeTo(out, ctx.OutputType(outs.size()).sizes));
    outs.push_back(out);
  }
  return outs;
}

// The variance and mean of `x` over normalised `dims`: sum((x - mean)^2) / max(N - correction,
// 0), both with keepdim as given. Two passes, as ATen's CPU kernel does for float32.
struct Moments {
  ir::Value* variance;
  ir::Value* mean;
};

absl::StatusOr<Moments> VarianceOf(EdgeBuilder& builder, ir::Value* x,
                                   const std::vector<int64_t>& dims, double correction,
                                   bool keepdim) {
  if (x->dtype() != ir::DType::kFloat32 && x->dtype() != ir::DType::kFloat64) {
    return Unsupported(absl::StrCat("variance of a ", std::string(ir::DTypeName(x->dtype())),
                                    " tensor (float32 and float64 only)"));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mean, EmitReduce(builder, "edge.mean", x, dims, true));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * centered, builder.Emit1("edge.sub", {x, mean}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * squares, builder.Emit1("edge.mul", {centered, centered}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * sum, EmitReduce(builder, "edge.sum", squares, dims, keepdim));
  const double divisor = std::max(0.0, static_cast<double>(ReducedCount(x, dims)) - correction);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * divisor_value, builder.Scalar(divisor, x->dtype()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * variance, builder.Emit1("edge.div", {sum, divisor_value}));
  if (!keepdim) {
    TORCHIR_ASSIGN_OR_RETURN(mean, builder.ReshapeTo(mean, variance->sizes()));
  }
  return Moments{variance, mean};
}

// The correction of var/std and var_mean/std_mean in each overload's spelling: `correction`
// (Scalar?, default 1), `unbiased` (bool: 1 or 0).
absl::StatusOr<double> Correction(const AtenCall& call) {
  if (call.Find("correction").ok()) {
    if (call.IsNone("correction")) return 1.0;
    TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar("correction"));
    std::optional<double> correction = value.ToDouble();
    if (!correction.has_value()) return absl::InvalidArgumentError("correction is not a number");
    return *correction;
  }
  TORCHIR_ASSIGN_OR_RETURN(bool unbiased, call.Bool("unbiased"));
  return unbiased ? 1.0 : 0.0;
}

// var / std / var_mean / std_mean in every overload: dim (absent in .default) and keepdim
// (absent in .default: false).
absl::StatusOr<Moments> MomentsOf(LoweringContext& ctx, const AtenCall& call, bool root) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  if (call.Find("dim").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(dims, call.OptionalIntList("dim"));
    TORCHIR_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  TORCHIR_ASSIGN_OR_RETURN(double correction, Correction(call));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> reduced, ReducedDims(dims, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(Moments moments,
                           VarianceOf(ctx.builder(), x, reduced, correction, keepdim));
  if (root) {
    TORCHIR_ASSIGN_OR_RETURN(moments.variance,
                             ctx.builder().Emit1("edge.sqrt", {moments.variance}));
  }
  return moments;
}

Results Var(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(Moments moments, MomentsOf(ctx, call, /*root=*/false));
  return std::vector<ir::Value*>{moments.variance};
}
Results Std(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(Moments moments, MomentsOf(ctx, call, /*root=*/true));
  return std::vector<ir::Value*>{moments.variance};
}
Results VarMean(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(Moments moments, MomentsOf(ctx, call, /*root=*/false));
  return std::vector<ir::Value*>{moments.variance, moments.mean};
}
Results StdMean(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(Moments moments, MomentsOf(ctx, call, /*root=*/true));
  return std::vector<ir::Value*>{moments.variance, moments.mean};
}

// any / all: the count of true elements (int64 sums) compared with 0 or with the element count;
// an empty reduction gives false / true as in PyTorch. The result takes the recorded dtype
// (bool, or uint8 for a uint8 input).
Results AnyAll(LoweringContext& ctx, ir::Value* x, const std::optional<std::vector<int64_t>>& dims,
               bool keepdim, bool all) {
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> reduced, ReducedDims(dims, x->type().rank()));
  const int64_t count = ReducedCount(x, reduced);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flags, NonZero(builder, x, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * trues,
                           EmitReduce(builder, "edge.sum", flags, reduced, keepdim));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bound,
                           builder.Scalar(all ? static_cast<double>(count) : 0.0,
                                          ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * result,
                           builder.Emit1(all ? "edge.eq" : "edge.gt", {trues, bound}));
  return Single(builder.CastTo(result, ctx.OutputType().dtype));
}

Results AnyAllDefault(LoweringContext& ctx, const AtenCall& call, bool all) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  return AnyAll(ctx, x, std::nullopt, false, all);
}
Results AnyAllDim(LoweringContext& ctx, const AtenCall& call, bool all) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  if (x->type().rank() == 0) {
    TORCHIR_RETURN_IF_ERROR(NormalizeDim(dim, 0).status());
    return AnyAll(ctx, x, std::nullopt, keepdim, all);
  }
  return AnyAll(ctx, x, std::vector<int64_t>{dim}, keepdim, all);
}
Results AnyAllDims(LoweringContext& ctx, const AtenCall& call, bool all) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, call.OptionalIntList("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  return AnyAll(ctx, x, dims, keepdim, all);
}
Results Any(LoweringContext& ctx, const AtenCall& call) { return AnyAllDefault(ctx, call, false); }
Results All(LoweringContext& ctx, const AtenCall& call) { return AnyAllDefault(ctx, call, true); }
Results AnyDim(LoweringContext& ctx, const AtenCall& call) { return AnyAllDim(ctx, call, false); }
Results AllDim(LoweringContext& ctx, const AtenCall& call) { return AnyAllDim(ctx, call, true); }
Results AnyDims(LoweringContext& ctx, const AtenCall& call) {
  return AnyAllDims(ctx, call, false);
}
Results AllDims(LoweringContext& ctx, const AtenCall& call) { return AnyAllDims(ctx, call, true); }

// count_nonzero(self, dim?) / count_nonzero.dim_IntList(self, dim): an int64 sum of x != 0.
Results CountNonzero(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  std::optional<std::vector<int64_t>> dims;
  TORCHIR_ASSIGN_OR_RETURN(AttrValue dim, call.Value("dim"));
  if (dim.kind() == AttrValue::Kind::kInt) {
    dims = std::vector<int64_t>{dim.as_int()};
  } else if (dim.kind() == AttrValue::Kind::kIntList) {
    dims = dim.as_int_list();
  }
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> reduced, ReducedDims(dims, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flags, NonZero(ctx.builder(), x, ir::DType::kInt64));
  return Single(EmitReduce(ctx.builder(), "edge.sum", flags, reduced, false));
}

// logsumexp: max + log(sum(exp(x - max))), the max replaced by 0 where it is infinite (as ATen
// does, so that all -inf gives -inf and an inf gives inf rather than NaN). Integers promote to
// the recorded float dtype.
Results Logsumexp(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dim_list, call.IntList("dim"));
  TORCHIR_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(x, builder.CastTo(x, ctx.OutputType().dtype));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReducedDims(dim_list, x->type().rank()));
  for (int64_t d : dims) {
    if (x->sizes()[d] == 0) return Unsupported("logsumexp over an empty dim");
  }
  const ir::DType dtype = x->dtype();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * max, EmitReduce(builder, "edge.amax", x, dims, true));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * magnitude, builder.Emit1("edge.abs", {max}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * inf, builder.Scalar(kInfinity, dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * infinite, builder.Emit1("edge.eq", {magnitude, inf}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * zero, builder.Scalar(0.0, dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * shift, builder.Emit1("edge.where", {infinite, zero, max}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * shifted, builder.Emit1("edge.sub", {x, shift}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * exps, builder.Emit1("edge.exp", {shifted}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * sum, EmitReduce(builder, "edge.sum", exps, dims, keepdim));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * log, builder.Emit1("edge.log", {sum}));
  TORCHIR_ASSIGN_OR_RETURN(shift, builder.ReshapeTo(shift, log->sizes()));
  return Single(builder.Emit1("edge.add", {log, shift}));
}

// The p-norm of x over normalised `dims`: p = 2 sqrt(sum(x*x)), 1 sum(|x|), +-inf max/min |x|,
// 0 the count of non-zeros, otherwise sum(|x|^p)^(1/p).
absl::StatusOr<ir::Value*> VectorNorm(EdgeBuilder& builder, ir::Value* x, double p,
                                      const std::vector<int64_t>& dims, bool keepdim) {
  if (x->dtype() != ir::DType::kFloat32 && x->dtype() != ir::DType::kFloat64) {
    return Unsupported(absl::StrCat("norm of a ", std::string(ir::DTypeName(x->dtype())),
                                    " tensor (float32 and float64 only)"));
  }
  if (std::isinf(p)) {
    for (int64_t d : dims) {
      if (x->sizes()[d] == 0) return Unsupported("an infinity norm over an empty dim");
    }
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * magnitude, builder.Emit1("edge.abs", {x}));
    return EmitReduce(builder, p > 0 ? "edge.amax" : "edge.amin", magnitude, dims, keepdim);
  }
  if (p == 0.0) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * flags, NonZero(builder, x, x->dtype()));
    return EmitReduce(builder, "edge.sum", flags, dims, keepdim);
  }
  if (p == 1.0) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * magnitude, builder.Emit1("edge.abs", {x}));
    return EmitReduce(builder, "edge.sum", magnitude, dims, keepdim);
  }
  if (p == 2.0) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * squares, builder.Emit1("edge.mul", {x, x}));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * sum,
                             EmitReduce(builder, "edge.sum", squares, dims, keepdim));
    return builder.Emit1("edge.sqrt", {sum});
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * magnitude, builder.Emit1("edge.abs", {x}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * exponent, builder.Scalar(p, x->dtype()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * powers, builder.Emit1("edge.pow", {magnitude, exponent}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * sum, EmitReduce(builder, "edge.sum", powers, dims, keepdim));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * root, builder.Scalar(1.0 / p, x->dtype()));
  return builder.Emit1("edge.pow", {sum, root});
}

// A Scalar (or Scalar?) norm order; None is 2.
absl::StatusOr<double> NormOrder(const AtenCall& call, std::string_view name) {
  if (call.IsNone(name)) return 2.0;
  TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar(name));
  std::optional<double> p = value.ToDouble();
  if (!p.has_value()) return absl::InvalidArgumentError(absl::StrCat(std::string(name), " is not a number"));
  return *p;
}

// linalg_vector_norm(self, ord, dim?, keepdim, dtype?) and the norm.* overloads (p, dim, keepdim,
// dtype where present). A dtype casts the input first (the recorded output dtype).
Results Norm(LoweringContext& ctx, const AtenCall& call, std::string_view order) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(double p, NormOrder(call, order));
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  if (call.Find("dim").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(dims, call.OptionalIntList("dim"));
    TORCHIR_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  TORCHIR_ASSIGN_OR_RETURN(x, ctx.builder().CastTo(x, ctx.OutputType().dtype));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> reduced, ReducedDims(dims, x->type().rank()));
  return Single(VectorNorm(ctx.builder(), x, p, reduced, keepdim));
}
Results LinalgVectorNorm(LoweringContext& ctx, const AtenCall& call) {
  return Norm(ctx, call, "ord");
}
Results NormP(LoweringContext& ctx, const AtenCall& call) { return Norm(ctx, call, "p"); }

// ---- Pairwise distances (cdist, pdist) ----

// ATen's _euclidean_dist(x1 [.., P, M], x2 [.., R, M]): the distances through one matrix product,
// sqrt(clamp_min([-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T, 0)), written as ATen writes it so the
// cancellation it suffers rounds the same way.
absl::StatusOr<ir::Value*> EuclideanDistance(EdgeBuilder& builder, ir::Value* x1, ir::Value* x2) {
  const int64_t last = x1->type().rank() - 1;
  auto padded = [&](ir::Value* x, bool first) -> absl::StatusOr<ir::Value*> {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * squares, builder.Emit1("edge.mul", {x, x}));
    TORCHIR_ASSIGN_OR_RETURN(
        ir::Value * norm, EmitReduce(builder, "edge.sum", squares, {x->type().rank() - 1}, true));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * one, builder.Scalar(1.0, x->dtype()));
    TORCHIR_ASSIGN_OR_RETURN(one,
                             builder.ReshapeTo(one, std::vector<int64_t>(norm->sizes().size(), 1)));
    TORCHIR_ASSIGN_OR_RETURN(
        ir::Value * ones,
        builder.Emit1("edge.expand", {one}, {{"sizes", AttrValue::IntList(norm->sizes())}}));
    const Attrs along_last = {{"dim", AttrValue::Int(x->type().rank() - 1)}};
    if (first) {
      TORCHIR_ASSIGN_OR_RETURN(ir::Value * minus_two, builder.Scalar(-2.0, x->dtype()));
      TORCHIR_ASSIGN_OR_RETURN(ir::Value * scaled, builder.Emit1("edge.mul", {x, minus_two}));
      return builder.Emit1("edge.concatenate", {scaled, norm, ones}, along_last);
    }
    return builder.Emit1("edge.concatenate", {x, ones, norm}, along_last);
  };
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, padded(x1, true));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, padded(x2, false));
  std::vector<int64_t> swap(static_cast<size_t>(last + 1));
  for (int64_t d = 0; d <= last; ++d) swap[d] = d;
  std::swap(swap[last - 1], swap[last]);
  TORCHIR_ASSIGN_OR_RETURN(
      b, builder.Emit1("edge.permute", {b}, {{"dims", AttrValue::IntList(swap)}}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * product, builder.Emit1("edge.matmul", {a, b}));
  TORCHIR_ASSIGN_OR_RETURN(product, builder.Emit1("edge.clamp", {product},
                                                  {{"min", AttrValue::Double(0.0)},
                                                   {"max", AttrValue::Double(kInfinity)}}));
  return builder.Emit1("edge.sqrt", {product});
}

// cdist(x1 [.., P, M], x2 [.., R, M], p, compute_mode) and _cdist_forward: [.., P, R] p-norms of
// every row difference (batch dims broadcast). As ATen, p = 2 goes through the matrix product of
// _euclidean_dist with compute_mode 1 ('use_mm_for_euclid_dist'), or with the default (None,
// 0) when P or R exceeds 25; otherwise the difference tensor [.., P, R, M] is reduced directly.
Results Cdist(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x1, ctx.Tensor(call, "x1"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x2, ctx.Tensor(call, "x2"));
  TORCHIR_ASSIGN_OR_RETURN(double p, call.Double("p"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> mode, call.OptionalInt("compute_mode"));
  const int64_t rank1 = x1->type().rank(), rank2 = x2->type().rank();
  if (rank1 < 2 || rank2 < 2 || x1->sizes()[rank1 - 1] != x2->sizes()[rank2 - 1]) {
    return Unsupported(absl::StrCat("cdist of ", x1->type().ToString(), " and ",
                                    x2->type().ToString(), " (rank >= 2, equal last dims)"));
  }
  if (p < 0 || std::isnan(p)) return Unsupported(absl::StrCat("cdist with p = ", p));
  EdgeBuilder& builder = ctx.builder();
  const int64_t rows1 = x1->sizes()[rank1 - 2], rows2 = x2->sizes()[rank2 - 2];
  const int64_t compute_mode = mode.value_or(0);
  if (p == 2.0 && (compute_mode == 1 || (compute_mode == 0 && (rows1 > 25 || rows2 > 25)))) {
    return Single(EuclideanDistance(builder, x1, x2));
  }
  std::vector<int64_t> a_sizes = x1->sizes();
  a_sizes.insert(a_sizes.end() - 1, 1);
  std::vector<int64_t> b_sizes = x2->sizes();
  b_sizes.insert(b_sizes.end() - 2, 1);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, builder.ReshapeTo(x1, a_sizes));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, builder.ReshapeTo(x2, b_sizes));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * diff, builder.Emit1("edge.sub", {a, b}));
  return Single(VectorNorm(builder, diff, p, {diff->type().rank() - 1}, false));
}

Results EuclideanDist(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x1, ctx.Tensor(call, "x1"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x2, ctx.Tensor(call, "x2"));
  if (x1->type().rank() < 2 || x1->type().rank() != x2->type().rank()) {
    return Unsupported("_euclidean_dist of tensors of other ranks than two equal ones >= 2");
  }
  return Single(EuclideanDistance(ctx.builder(), x1, x2));
}

// pdist(x [N, M], p) and _pdist_forward: the p-norms of row i - row j for every i < j in row-major
// order, [N (N - 1) / 2]: both rows picked by constant index lists, then reduced like cdist.
Results Pdist(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(double p, call.Double("p"));
  if (x->type().rank() != 2) return Unsupported("pdist of a tensor that is not 2-d");
  if (p < 0 || std::isnan(p)) return Unsupported(absl::StrCat("pdist with p = ", p));
  const int64_t n = x->sizes()[0];
  if (n < 2) return Unsupported("pdist of fewer than two rows (an empty result)");
  const int64_t pairs = n * (n - 1) / 2;
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{ir::DType::kInt64, {pairs}}));
  std::vector<int64_t> first, second;
  first.reserve(static_cast<size_t>(pairs));
  second.reserve(static_cast<size_t>(pairs));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      first.push_back(i);
      second.push_back(j);
    }
  }
  EdgeBuilder& builder = ctx.builder();
  auto rows = [&](const std::vector<int64_t>& picks) -> absl::StatusOr<ir::Value*> {
    ir::Value* index =
        builder.Constant(ir::TensorType{ir::DType::kInt64, {pairs}},
                         ir::TensorData::Copy(reinterpret_cast<const uint8_t*>(picks.data()),
                                              picks.size() * sizeof(int64_t)));
    return builder.Emit1("edge.index_select", {x, index}, {{"dim", AttrValue::Int(0)}});
  };
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, rows(first));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, rows(second));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * diff, builder.Emit1("edge.sub", {a, b}));
  return Single(VectorNorm(builder, diff, p, {1}, false));
}

// --- Pooling -------------------------------------------------------------------------------------

// kernel_size, stride (empty: the kernel) and padding of a 2-d pooling op, each 2 long.
struct Window {
  std::vector<int64_t> kernel, stride, padding;
};

absl::StatusOr<Window> PoolWindow(const AtenCall& call) {
  Window window;
  TORCHIR_ASSIGN_OR_RETURN(window.kernel, call.IntList("kernel_size", 2));
  TORCHIR_ASSIGN_OR_RETURN(window.stride, call.IntList("stride"));
  if (window.stride.empty()) window.stride = window.kernel;
  if (window.stride.size() != 2) {
    return absl::InvalidArgumentError("stride must have 2 entries (or none)");
  }
  TORCHIR_ASSIGN_OR_RETURN(window.padding, call.IntList("padding", 2));
  return window;
}

absl::StatusOr<ir::Value*> MaxPool2dImpl(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(Window window, PoolWindow(call));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, call.IntList("dilation", 2));
  TORCHIR_ASSIGN_OR_RETURN(bool ceil_mode, call.Bool("ceil_mode"));
  return ctx.builder().Emit1("edge.max_pool2d", {x},
                             {{"kernel_size", AttrValue::IntList(window.kernel)},
                              {"stride", AttrValue::IntList(window.stride)},
                              {"padding", AttrValue::IntList(window.padding)},
                              {"dilation", AttrValue::IntList(dilation)},
                              {"ceil_mode", AttrValue::Bool(ceil_mode)}});
}

Results MaxPool2d(LoweringContext& ctx, const AtenCall& call) {
  return Single(MaxPool2dImpl(ctx, call));
}

// True when something reads `value`: the graph returns it, an op takes it, or a getitem that is
// read itself picks it (every getitem of a multi-output node lists all the outputs as inputs,
// picked or not, and pytorch-ir writes one getitem per output, used or not).
bool IsRead(const ir::Value& value) {
  if (value.is_graph_output()) return true;
  for (const ir::Use& use : value.uses()) {
    if (use.user->op() != "getitem") return true;
    const ir::AttrValue* index = use.user->FindAttr("index");
    if (index == nullptr) return true;
    if (index->as_int() == value.producer_index() && IsRead(*use.user->output())) return true;
  }
  return false;
}

// max_pool2d_with_indices: the Edge op has no indices; only graphs that drop them lower.
Results MaxPool2dWithIndices(LoweringContext& ctx, const AtenCall& call) {
  const ir::Value* indices = ctx.node().output(1);
  if (IsRead(*indices)) {
    return Unsupported(absl::StrCat("the indices output '", indices->name(),
                                    "' is used; edge.max_pool2d computes no indices"));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * out, MaxPool2dImpl(ctx, call));
  return std::vector<ir::Value*>{out, nullptr};
}

absl::StatusOr<ir::Value*> AvgPool2dOf(EdgeBuilder& builder, ir::Value* x, const Window& window,
                                       bool ceil_mode, bool count_include_pad) {
  return builder.Emit1("edge.avg_pool2d", {x},
                       {{"kernel_size", AttrValue::IntList(window.kernel)},
                        {"stride", AttrValue::IntList(window.stride)},
                        {"padding", AttrValue::IntList(window.padding)},
                        {"ceil_mode", AttrValue::Bool(ceil_mode)},
                        {"count_include_pad", AttrValue::Bool(count_include_pad)}});
}

absl::StatusOr<ir::Value*> AvgPoolWithDivisor(LoweringContext& ctx, ir::Value* x,
                                              const Window& window, bool ceil_mode,
                                              int64_t divisor);

Results AvgPool2d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(Window window, PoolWindow(call));
  TORCHIR_ASSIGN_OR_RETURN(bool ceil_mode, call.Bool("ceil_mode"));
  TORCHIR_ASSIGN_OR_RETURN(bool count_include_pad, call.Bool("count_include_pad"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> divisor, call.OptionalInt("divisor_override"));
  if (divisor.has_value()) return Single(AvgPoolWithDivisor(ctx, x, window, ceil_mode, *divisor));
  return Single(AvgPool2dOf(ctx.builder(), x, window, ceil_mode, count_include_pad));
}

// A 1x1 output is a mean over H and W; an output dividing the input evenly is a plain average pool
// with kernel = stride = in / out; anything else stays adaptive.
Results AdaptiveAvgPool2d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> output_size, call.IntList("output_size", 2));
  EdgeBuilder& builder = ctx.builder();
  const int64_t rank = x->type().rank();
  if (rank != 3 && rank != 4) {
    return Unsupported(absl::StrCat("adaptive_avg_pool2d of a rank-", rank, " input"));
  }
  const int64_t height = x->sizes()[rank - 2];
  const int64_t width = x->sizes()[rank - 1];
  if (output_size == std::vector<int64_t>{1, 1}) {
    return Single(builder.Emit1(
        "edge.mean", {x},
        {{"dims", AttrValue::IntList({rank - 2, rank - 1})}, {"keepdim", AttrValue::Bool(true)}}));
  }
  if (output_size[0] > 0 && output_size[1] > 0 && height % output_size[0] == 0 &&
      width % output_size[1] == 0) {
    Window window;
    window.kernel = {height / output_size[0], width / output_size[1]};
    window.stride = window.kernel;
    window.padding = {0, 0};
    return Single(AvgPool2dOf(builder, x, window, false, true));
  }
  return Single(builder.Emit1("edge.adaptive_avg_pool2d", {x},
                              {{"output_size", AttrValue::IntList(output_size)}}));
}

// --- 1-d pooling, divisor_override, adaptive max pooling ---------------------------------------

// The indices output of a *_with_indices / adaptive max pooling node must be unread: Edge's
// max pooling computes none.
absl::Status CheckIndicesUnread(const LoweringContext& ctx) {
  const ir::Value* indices = ctx.node().output(1);
  if (IsRead(*indices)) {
    return Unsupported(absl::StrCat("the indices output '", indices->name(),
                                    "' is used; edge.max_pool2d computes no indices"));
  }
  return absl::OkStatus();
}

// [N, C, L] or [C, L] as [N, C, 1, L] / [C, 1, L], for the 2-d pooling ops.
absl::StatusOr<ir::Value*> AsOneRow(EdgeBuilder& builder, ir::Value* x) {
  const int64_t rank = x->type().rank();
  if (rank != 2 && rank != 3) {
    return Unsupported(absl::StrCat("1-d pooling of a rank-", rank, " input"));
  }
  std::vector<int64_t> sizes = x->sizes();
  sizes.insert(sizes.end() - 1, 1);
  return builder.ReshapeTo(x, sizes);
}

// max_pool1d / max_pool1d_with_indices / avg_pool1d: the 2-d ops over one row, window [1, k].
absl::StatusOr<ir::Value*> Pool1d(LoweringContext& ctx, const AtenCall& call, bool max) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, call.IntList("kernel_size", 1));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.IntList("stride"));
  if (stride.empty()) stride = kernel;
  if (stride.size() != 1) return absl::InvalidArgumentError("stride must have 1 entry (or none)");
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> padding, call.IntList("padding", 1));
  TORCHIR_ASSIGN_OR_RETURN(bool ceil_mode, call.Bool("ceil_mode"));
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(x, AsOneRow(builder, x));
  Attrs attrs = {{"kernel_size", AttrValue::IntList({1, kernel[0]})},
                 {"stride", AttrValue::IntList({1, stride[0]})},
                 {"padding", AttrValue::IntList({0, padding[0]})}};
  ir::Value* out = nullptr;
  if (max) {
    TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, call.IntList("dilation", 1));
    attrs.push_back({"dilation", AttrValue::IntList({1, dilation[0]})});
    attrs.push_back({"ceil_mode", AttrValue::Bool(ceil_mode)});
    TORCHIR_ASSIGN_OR_RETURN(out, builder.Emit1("edge.max_pool2d", {x}, attrs));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(bool count_include_pad, call.Bool("count_include_pad"));
    attrs.push_back({"ceil_mode", AttrValue::Bool(ceil_mode)});
    attrs.push_back({"count_include_pad", AttrValue::Bool(count_include_pad)});
    TORCHIR_ASSIGN_OR_RETURN(out, builder.Emit1("edge.avg_pool2d", {x}, attrs));
  }
  return builder.ReshapeTo(out, ctx.OutputType().sizes);
}

Results MaxPool1d(LoweringContext& ctx, const AtenCall& call) {
  return Single(Pool1d(ctx, call, /*max=*/true));
}
Results MaxPool1dWithIndices(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_RETURN_IF_ERROR(CheckIndicesUnread(ctx));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * out, Pool1d(ctx, call, /*max=*/true));
  return std::vector<ir::Value*>{out, nullptr};
}
Results AvgPool1d(LoweringContext& ctx, const AtenCall& call) {
  return Single(Pool1d(ctx, call, /*max=*/false));
}

// The window sizes avg_pool2d divides by with count_include_pad (windows clipped to the padded
// input only), one per output position along one dim, as ATen computes them.
std::vector<int64_t> PaddedWindowSizes(int64_t input, int64_t outputs, int64_t kernel,
                                       int64_t stride, int64_t padding) {
  std::vector<int64_t> sizes;
  for (int64_t o = 0; o < outputs; ++o) {
    const int64_t start = o * stride - padding;
    const int64_t end = std::min(start + kernel, input + padding);
    sizes.push_back(end - start);
  }
  return sizes;
}

// avg_pool2d with divisor_override: the average with count_include_pad times the window size
// it divided by, over the divisor; a constant [OH, OW] factor when windows differ (ceil_mode).
absl::StatusOr<ir::Value*> AvgPoolWithDivisor(LoweringContext& ctx, ir::Value* x,
                                              const Window& window, bool ceil_mode,
                                              int64_t divisor) {
  if (divisor == 0) return absl::InvalidArgumentError("divisor_override must not be 0");
  if (x->dtype() != ir::DType::kFloat32) return Unsupported("avg_pool2d of a non-float tensor");
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * average, AvgPool2dOf(builder, x, window, ceil_mode, true));
  const int64_t rank = average->type().rank();
  const int64_t out_h = average->sizes()[rank - 2];
  const int64_t out_w = average->sizes()[rank - 1];
  const std::vector<int64_t> rows = PaddedWindowSizes(
      x->sizes()[rank - 2], out_h, window.kernel[0], window.stride[0], window.padding[0]);
  const std::vector<int64_t> cols = PaddedWindowSizes(
      x->sizes()[rank - 1], out_w, window.kernel[1], window.stride[1], window.padding[1]);
  std::vector<float> factor;
  bool uniform = true;
  for (int64_t r : rows) {
    for (int64_t c : cols) {
      factor.push_back(static_cast<float>(r * c) / static_cast<float>(divisor));
      uniform = uniform && factor.back() == factor.front();
    }
  }
  if (factor.empty()) return average;
  ir::Value* scale = nullptr;
  if (uniform) {
    TORCHIR_ASSIGN_OR_RETURN(scale, builder.Scalar(factor.front(), ir::DType::kFloat32));
  } else {
    scale = builder.Constant(ir::TensorType{ir::DType::kFloat32, {out_h, out_w}},
                             ir::TensorData::Copy(reinterpret_cast<const uint8_t*>(factor.data()),
                                                  factor.size() * sizeof(float)));
  }
  return builder.Emit1("edge.mul", {average, scale});
}

// adaptive_max_pool2d: a max over H and W for a 1x1 output, a max pool with kernel = stride =
// in / out when the output divides the input; the indices output must be unread.
Results AdaptiveMaxPool2d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_RETURN_IF_ERROR(CheckIndicesUnread(ctx));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> output_size, call.IntList("output_size", 2));
  EdgeBuilder& builder = ctx.builder();
  const int64_t rank = x->type().rank();
  if (rank != 3 && rank != 4) {
    return Unsupported(absl::StrCat("adaptive_max_pool2d of a rank-", rank, " input"));
  }
  const int64_t height = x->sizes()[rank - 2];
  const int64_t width = x->sizes()[rank - 1];
  ir::Value* out = nullptr;
  if (output_size == std::vector<int64_t>{1, 1} && height > 0 && width > 0) {
    TORCHIR_ASSIGN_OR_RETURN(out, EmitReduce(builder, "edge.amax", x, {rank - 2, rank - 1}, true));
  } else if (output_size[0] > 0 && output_size[1] > 0 && height % output_size[0] == 0 &&
             width % output_size[1] == 0) {
    const std::vector<int64_t> kernel = {height / output_size[0], width / output_size[1]};
    TORCHIR_ASSIGN_OR_RETURN(out, builder.Emit1("edge.max_pool2d", {x},
                                                {{"kernel_size", AttrValue::IntList(kernel)},
                                                 {"stride", AttrValue::IntList(kernel)},
                                                 {"padding", AttrValue::IntList({0, 0})},
                                                 {"dilation", AttrValue::IntList({1, 1})},
                                                 {"ceil_mode", AttrValue::Bool(false)}}));
  } else {
    return Unsupported(absl::StrCat("adaptive_max_pool2d to ", output_size[0], "x",
                                    output_size[1], " of a ", height, "x", width,
                                    " input (only 1x1 or an output dividing the input)"));
  }
  return std::vector<ir::Value*>{out, nullptr};
}

// adaptive_avg_pool1d: the 2-d forms over one row ([1, L] to [1, out]).
Results AdaptiveAvgPool1d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> output_size, call.IntList("output_size", 1));
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(x, AsOneRow(builder, x));
  const int64_t length = x->sizes().back();
  ir::Value* out = nullptr;
  if (output_size[0] > 0 && length % output_size[0] == 0) {
    Window window;
    window.kernel = {1, length / output_size[0]};
    window.stride = window.kernel;
    window.padding = {0, 0};
    TORCHIR_ASSIGN_OR_RETURN(out, AvgPool2dOf(builder, x, window, false, true));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(out, builder.Emit1("edge.adaptive_avg_pool2d", {x},
                                                {{"output_size",
                                                  AttrValue::IntList({1, output_size[0]})}}));
  }
  return Single(builder.ReshapeTo(out, ctx.OutputType().sizes));
}

// --- 3-d pooling ---------------------------------------------------------------------------------
//
// Max and average pooling over a box are separable: a window is the product of one tap set per
// dim, and every divisor ATen uses (with or without the padding, with ceil_mode) is the product
// of one count per dim. So a 3-d pool of [N, C, D, H, W] is the 2-d pool over (H, W) of
// [N, C*D, H, W] followed by the 2-d pool with window [kd, 1] over (D, Ho*Wo) of
// [N, C, D, Ho*Wo]: only reshapes between them, no transposes and no 3-d Edge op.

struct Window3d {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

// kernel_size, stride (empty: the kernel), padding, dilation (1 without one) and ceil_mode of a
// 3-d pooling op, each list 3 long (a single entry broadcasts).
absl::StatusOr<Window3d> Pool3dWindow(const AtenCall& call, bool has_dilation) {
  Window3d window;
  TORCHIR_ASSIGN_OR_RETURN(window.kernel, call.IntList("kernel_size", 3));
  TORCHIR_ASSIGN_OR_RETURN(window.stride, call.IntList("stride"));
  if (window.stride.empty()) window.stride = window.kernel;
  if (window.stride.size() != 3) {
    return absl::InvalidArgumentError("stride must have 3 entries (or none)");
  }
  TORCHIR_ASSIGN_OR_RETURN(window.padding, call.IntList("padding", 3));
  window.dilation = {1, 1, 1};
  if (has_dilation) {
    TORCHIR_ASSIGN_OR_RETURN(window.dilation, call.IntList("dilation", 3));
  }
  TORCHIR_ASSIGN_OR_RETURN(window.ceil_mode, call.Bool("ceil_mode"));
  return window;
}

// One 2-d pool; nothing when the window is a single tap at every position (the output is x).
absl::StatusOr<ir::Value*> Pool2dPass(EdgeBuilder& builder, ir::Value* x, bool max,
                                      const std::vector<int64_t>& kernel,
                                      const std::vector<int64_t>& stride,
                                      const std::vector<int64_t>& padding,
                                      const std::vector<int64_t>& dilation, bool ceil_mode,
                                      bool count_include_pad) {
  if (kernel == std::vector<int64_t>{1, 1} && stride == std::vector<int64_t>{1, 1} &&
      padding == std::vector<int64_t>{0, 0}) {
    return x;
  }
  Attrs attrs = {{"kernel_size", AttrValue::IntList(kernel)},
                 {"stride", AttrValue::IntList(stride)},
                 {"padding", AttrValue::IntList(padding)}};
  if (max) {
    attrs.push_back({"dilation", AttrValue::IntList(dilation)});
    attrs.push_back({"ceil_mode", AttrValue::Bool(ceil_mode)});
    return builder.Emit1("edge.max_pool2d", {x}, attrs);
  }
  attrs.push_back({"ceil_mode", AttrValue::Bool(ceil_mode)});
  attrs.push_back({"count_include_pad", AttrValue::Bool(count_include_pad)});
  return builder.Emit1("edge.avg_pool2d", {x}, attrs);
}

// The leading dims ([N, C] or [C]) of a 3-d pooling input, which must be 4-d or 5-d.
absl::StatusOr<std::vector<int64_t>> Pool3dLeadingDims(const ir::Value& x, std::string_view op) {
  const int64_t rank = x.type().rank();
  if (rank != 4 && rank != 5) {
    return Unsupported(absl::StrCat(std::string(op), " of a rank-", rank, " input"));
  }
  return std::vector<int64_t>(x.sizes().begin(), x.sizes().end() - 3);
}

// [lead..., D, H, W] as [lead[:-1]..., lead[-1] * D, H, W]: the (H, W) planes of every depth.
absl::StatusOr<ir::Value*> AsDepthPlanes(EdgeBuilder& builder, ir::Value* x,
                                         const std::vector<int64_t>& lead) {
  const int64_t rank = x->type().rank();
  std::vector<int64_t> planes = lead;
  planes.back() *= x->sizes()[rank - 3];
  planes.push_back(x->sizes()[rank - 2]);
  planes.push_back(x->sizes()[rank - 1]);
  return builder.ReshapeTo(x, planes);
}

// A max pool (max) or an average pool over the last three dims of a 4-d or 5-d x.
absl::StatusOr<ir::Value*> Pool3dOf(EdgeBuilder& builder, ir::Value* x, const Window3d& w, bool max,
                                    bool count_include_pad, std::string_view op) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> lead, Pool3dLeadingDims(*x, op));
  const int64_t depth = x->sizes()[x->type().rank() - 3];
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * y, AsDepthPlanes(builder, x, lead));
  TORCHIR_ASSIGN_OR_RETURN(
      y, Pool2dPass(builder, y, max, {w.kernel[1], w.kernel[2]}, {w.stride[1], w.stride[2]},
                    {w.padding[1], w.padding[2]}, {w.dilation[1], w.dilation[2]}, w.ceil_mode,
                    count_include_pad));
  const int64_t out_h = y->sizes()[y->type().rank() - 2];
  const int64_t out_w = y->sizes()[y->type().rank() - 1];
  std::vector<int64_t> columns = lead;
  columns.push_back(depth);
  columns.push_back(out_h * out_w);
  TORCHIR_ASSIGN_OR_RETURN(y, builder.ReshapeTo(y, columns));
  TORCHIR_ASSIGN_OR_RETURN(
      y, Pool2dPass(builder, y, max, {w.kernel[0], 1}, {w.stride[0], 1}, {w.padding[0], 0},
                    {w.dilation[0], 1}, w.ceil_mode, count_include_pad));
  std::vector<int64_t> out = lead;
  out.push_back(y->sizes()[y->type().rank() - 2]);
  out.push_back(out_h);
  out.push_back(out_w);
  return builder.ReshapeTo(y, out);
}

absl::StatusOr<ir::Value*> MaxPool3dImpl(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(Window3d window, Pool3dWindow(call, /*has_dilation=*/true));
  return Pool3dOf(ctx.builder(), x, window, /*max=*/true, false, "max_pool3d");
}

Results MaxPool3d(LoweringContext& ctx, const AtenCall& call) {
  return Single(MaxPool3dImpl(ctx, call));
}

// max_pool3d_with_indices: like the 2-d form, only graphs that drop the indices lower.
Results MaxPool3dWithIndices(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_RETURN_IF_ERROR(CheckIndicesUnread(ctx));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * out, MaxPool3dImpl(ctx, call));
  return std::vector<ir::Value*>{out, nullptr};
}

// avg_pool3d; with divisor_override, the average with count_include_pad times the window size it
// divided by, over the divisor (a constant [Do, Ho, Wo] factor when windows differ).
Results AvgPool3d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(Window3d window, Pool3dWindow(call, /*has_dilation=*/false));
  TORCHIR_ASSIGN_OR_RETURN(bool count_include_pad, call.Bool("count_include_pad"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> divisor, call.OptionalInt("divisor_override"));
  EdgeBuilder& builder = ctx.builder();
  if (!divisor.has_value()) {
    return Single(Pool3dOf(builder, x, window, /*max=*/false, count_include_pad, "avg_pool3d"));
  }
  if (*divisor == 0) return absl::InvalidArgumentError("divisor_override must not be 0");
  if (x->dtype() != ir::DType::kFloat32) return Unsupported("avg_pool3d of a non-float tensor");
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * average,
                           Pool3dOf(builder, x, window, /*max=*/false, true, "avg_pool3d"));
  const int64_t rank = average->type().rank();
  std::vector<std::vector<int64_t>> counts;
  for (int i = 0; i < 3; ++i) {
    counts.push_back(PaddedWindowSizes(x->sizes()[rank - 3 + i], average->sizes()[rank - 3 + i],
                                       window.kernel[i], window.stride[i], window.padding[i]));
  }
  std::vector<float> factor;
  bool uniform = true;
  for (int64_t d : counts[0]) {
    for (int64_t h : counts[1]) {
      for (int64_t w : counts[2]) {
        factor.push_back(static_cast<float>(d * h * w) / static_cast<float>(*divisor));
        uniform = uniform && factor.back() == factor.front();
      }
    }
  }
  if (factor.empty()) return Single(average);
  ir::Value* scale = nullptr;
  if (uniform) {
    TORCHIR_ASSIGN_OR_RETURN(scale, builder.Scalar(factor.front(), ir::DType::kFloat32));
  } else {
    const std::vector<int64_t> sizes(average->sizes().end() - 3, average->sizes().end());
    scale = builder.Constant(ir::TensorType{ir::DType::kFloat32, sizes},
                             ir::TensorData::Copy(reinterpret_cast<const uint8_t*>(factor.data()),
                                                  factor.size() * sizeof(float)));
  }
  return Single(builder.Emit1("edge.mul", {average, scale}));
}

// Adaptive average pooling of the last two dims of a 3-d or 4-d x to `output_size`: a mean for
// 1x1, a plain average pool when the output divides the input, else edge.adaptive_avg_pool2d.
absl::StatusOr<ir::Value*> AdaptiveAvgPool2dOf(EdgeBuilder& builder, ir::Value* x,
                                               const std::vector<int64_t>& output_size) {
  const int64_t rank = x->type().rank();
  const int64_t height = x->sizes()[rank - 2];
  const int64_t width = x->sizes()[rank - 1];
  if (height == output_size[0] && width == output_size[1]) return x;
  if (output_size == std::vector<int64_t>{1, 1}) {
    return builder.Emit1(
        "edge.mean", {x},
        {{"dims", AttrValue::IntList({rank - 2, rank - 1})}, {"keepdim", AttrValue::Bool(true)}});
  }
  if (output_size[0] > 0 && output_size[1] > 0 && height % output_size[0] == 0 &&
      width % output_size[1] == 0) {
    Window window;
    window.kernel = {height / output_size[0], width / output_size[1]};
    window.stride = window.kernel;
    window.padding = {0, 0};
    return AvgPool2dOf(builder, x, window, false, true);
  }
  return builder.Emit1("edge.adaptive_avg_pool2d", {x},
                       {{"output_size", AttrValue::IntList(output_size)}});
}

// adaptive_avg_pool3d / _adaptive_avg_pool3d: separable like the fixed windows (PyTorch's
// adaptive bounds are per dim too), (H, W) first, then D over the Ho*Wo columns.
Results AdaptiveAvgPool3d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> output_size, call.IntList("output_size", 3));
  for (int64_t size : output_size) {
    if (size < 0) return absl::InvalidArgumentError("output_size must not be negative");
  }
  EdgeBuilder& builder = ctx.builder();
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> lead, Pool3dLeadingDims(*x, "adaptive_avg_pool3d"));
  const int64_t depth = x->sizes()[x->type().rank() - 3];
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * y, AsDepthPlanes(builder, x, lead));
  TORCHIR_ASSIGN_OR_RETURN(y, AdaptiveAvgPool2dOf(builder, y, {output_size[1], output_size[2]}));
  std::vector<int64_t> columns = lead;
  columns.push_back(depth);
  columns.push_back(output_size[1] * output_size[2]);
  TORCHIR_ASSIGN_OR_RETURN(y, builder.ReshapeTo(y, columns));
  TORCHIR_ASSIGN_OR_RETURN(
      y, AdaptiveAvgPool2dOf(builder, y, {output_size[0], output_size[1] * output_size[2]}));
  return Single(builder.ReshapeTo(y, ctx.OutputType().sizes));
}

// --- Attention -----------------------------------------------------------------------------------

// A bool [rows, cols] constant, true on and below the diagonal (torch.ones(L, S).tril()).
absl::StatusOr<ir::Value*> CausalMask(EdgeBuilder& builder, int64_t rows, int64_t cols) {
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{ir::DType::kBool, {rows, cols}}));
  std::vector<uint8_t> mask(static_cast<size_t>(rows * cols), 0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j <= i && j < cols; ++j) mask[static_cast<size_t>(i * cols + j)] = 1;
  }
  return builder.Constant(ir::TensorType{ir::DType::kBool, {rows, cols}},
                          ir::TensorData::Copy(mask.data(), mask.size()));
}

// softmax(q @ k^T * scale + mask) @ v, as PyTorch's reference implementation computes it.
Results ScaledDotProductAttention(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * q, ctx.Tensor(call, "query"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * k, ctx.Tensor(call, "key"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * v, ctx.Tensor(call, "value"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mask, ctx.OptionalTensor(call, "attn_mask"));
  TORCHIR_ASSIGN_OR_RETURN(double dropout_p, call.Double("dropout_p"));
  TORCHIR_ASSIGN_OR_RETURN(bool is_causal, call.Bool("is_causal"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<double> scale, call.OptionalDouble("scale"));
  TORCHIR_ASSIGN_OR_RETURN(bool enable_gqa, call.Bool("enable_gqa"));
  if (dropout_p != 0.0) return Unsupported("scaled_dot_product_attention with dropout_p != 0");
  if (enable_gqa) return Unsupported("scaled_dot_product_attention with enable_gqa=true");
  if (is_causal && mask != nullptr) {
    return Unsupported("scaled_dot_product_attention with both attn_mask and is_causal");
  }
  const int64_t rank = q->type().rank();
  if (rank < 2 || k->type().rank() < 2 || v->type().rank() < 2) {
    return Unsupported("scaled_dot_product_attention needs query, key and value of rank >= 2");
  }
  EdgeBuilder& builder = ctx.builder();
  const ir::DType dtype = q->dtype();

  // k^T: swap the last two dims.
  const int64_t k_rank = k->type().rank();
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < k_rank; ++i) perm.push_back(i);
  std::swap(perm[k_rank - 2], perm[k_rank - 1]);
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * k_t, builder.Emit1("edge.permute", {k}, {{"dims", AttrValue::IntList(perm)}}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * scores, builder.Emit1("edge.matmul", {q, k_t}));

  const double embed = static_cast<double>(q->sizes()[rank - 1]);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * scale_value,
                           builder.Scalar(scale.value_or(1.0 / std::sqrt(embed)), dtype));
  TORCHIR_ASSIGN_OR_RETURN(scores, builder.Emit1("edge.mul", {scores, scale_value}));

  if (is_causal) {
    const int64_t rows = q->sizes()[rank - 2];
    const int64_t cols = k->sizes()[k_rank - 2];
    TORCHIR_ASSIGN_OR_RETURN(mask, CausalMask(builder, rows, cols));
  }
  if (mask != nullptr) {
    if (mask->dtype() == ir::DType::kBool) {
      TORCHIR_ASSIGN_OR_RETURN(ir::Value * minus_inf, builder.Scalar(-kInfinity, dtype));
      TORCHIR_ASSIGN_OR_RETURN(scores, builder.Emit1("edge.where", {mask, scores, minus_inf}));
    } else {
      TORCHIR_ASSIGN_OR_RETURN(mask, builder.CastTo(mask, dtype));
      TORCHIR_ASSIGN_OR_RETURN(scores, builder.Emit1("edge.add", {scores, mask}));
    }
  }
  const int64_t last = scores->type().rank() - 1;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weights, builder.Emit1("edge.softmax", {scores},
                                                              {{"dim", AttrValue::Int(last)}}));
  return Single(builder.Emit1("edge.matmul", {weights, v}));
}

}  // namespace

void AddReductionRules(RuleTable& table) {
  table.Add("aten.softmax.int", Softmax);
  table.Add("aten._softmax.default", CoreSoftmax);
  table.Add("aten.log_softmax.int", LogSoftmax);
  table.Add("aten._log_softmax.default", CoreLogSoftmax);
  table.Add("aten.mean.dim", MeanDim);
  table.Add("aten.mean.default", Mean);
  table.Add("aten.sum.dim_IntList", SumDim);
  table.Add("aten.sum.default", Sum);
  table.Add("aten.amax.default", Amax);
  table.Add("aten.max.dim", MaxDim);
  table.Add("aten.max.default", MaxAll);
  table.Add("aten.amin.default", Amin);
  table.Add("aten.min.default", MinAll);
  table.Add("aten.min.dim", MinDim);
  table.Add("aten.argmax.default", Argmax);
  table.Add("aten.argmin.default", Argmin);
  table.Add("aten.prod.default", ProdAll);
  table.Add("aten.prod.dim_int", ProdDim);
  table.Add("aten.cumsum.default", Cumsum);
  table.Add("aten.topk.default", TopK);
  table.Add("aten.sort.default", Sort);
  table.Add("aten.sort.stable", Sort);
  table.Add("aten.argsort.default", Argsort);
  table.Add("aten.argsort.stable", Argsort);
  table.Add("aten.msort.default", Msort);
  table.Add("aten.kthvalue.default", Kthvalue);
  table.Add("aten.aminmax.default", Aminmax);
  for (const char* op : {"aten.var.default", "aten.var.dim", "aten.var.correction"}) {
    table.Add(op, Var);
  }
  for (const char* op : {"aten.std.default", "aten.std.dim", "aten.std.correction"}) {
    table.Add(op, Std);
  }
  for (const char* op :
       {"aten.var_mean.default", "aten.var_mean.dim", "aten.var_mean.correction"}) {
    table.Add(op, VarMean);
  }
  for (const char* op :
       {"aten.std_mean.default", "aten.std_mean.dim", "aten.std_mean.correction"}) {
    table.Add(op, StdMean);
  }
  table.Add("aten.any.default", Any);
  table.Add("aten.any.dim", AnyDim);
  table.Add("aten.any.dims", AnyDims);
  table.Add("aten.all.default", All);
  table.Add("aten.all.dim", AllDim);
  table.Add("aten.all.dims", AllDims);
  table.Add("aten.count_nonzero.default", CountNonzero);
  table.Add("aten.count_nonzero.dim_IntList", CountNonzero);
  table.Add("aten.logsumexp.default", Logsumexp);
  table.Add("aten.linalg_vector_norm.default", LinalgVectorNorm);
  table.Add("aten.cdist.default", Cdist);
  table.Add("aten._cdist_forward.default", Cdist);
  table.Add("aten._euclidean_dist.default", EuclideanDist);
  table.Add("aten.pdist.default", Pdist);
  table.Add("aten._pdist_forward.default", Pdist);
  for (const char* op : {"aten.norm.Scalar", "aten.norm.ScalarOpt_dim",
                         "aten.norm.ScalarOpt_dim_dtype", "aten.norm.ScalarOpt_dtype"}) {
    table.Add(op, NormP);
  }
  table.Add("aten.max_pool2d.default", MaxPool2d);
  table.Add("aten.max_pool2d_with_indices.default", MaxPool2dWithIndices);
  table.Add("aten.avg_pool2d.default", AvgPool2d);
  table.Add("aten.adaptive_avg_pool2d.default", AdaptiveAvgPool2d);
  table.Add("aten._adaptive_avg_pool2d.default", AdaptiveAvgPool2d);
  table.Add("aten.scaled_dot_product_attention.default", ScaledDotProductAttention);
  table.Add("aten.max_pool1d.default", MaxPool1d);
  table.Add("aten.max_pool1d_with_indices.default", MaxPool1dWithIndices);
  table.Add("aten.avg_pool1d.default", AvgPool1d);
  table.Add("aten.adaptive_max_pool2d.default", AdaptiveMaxPool2d);
  table.Add("aten.adaptive_avg_pool1d.default", AdaptiveAvgPool1d);
  table.Add("aten.max_pool3d.default", MaxPool3d);
  table.Add("aten.max_pool3d_with_indices.default", MaxPool3dWithIndices);
  table.Add("aten.avg_pool3d.default", AvgPool3d);
  table.Add("aten.adaptive_avg_pool3d.default", AdaptiveAvgPool3d);
  table.Add("aten._adaptive_avg_pool3d.default", AdaptiveAvgPool3d);
}

}  // namespace torchir::lowering
