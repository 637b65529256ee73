// Lowering of reductions (mean, sum, max), softmax, pooling and scaled dot-product attention.
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

// True when something reads `value`: the graph returns it, an op takes it, or a getitem picks it
// (every getitem of a multi-output node lists all the outputs as inputs, picked or not).
bool IsRead(const ir::Value& value) {
  if (value.is_graph_output()) return true;
  for (const ir::Use& use : value.uses()) {
    if (use.user->op() != "getitem") return true;
    const ir::AttrValue* index = use.user->FindAttr("index");
    if (index == nullptr || index->as_int() == value.producer_index()) return true;
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

Results AvgPool2d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(Window window, PoolWindow(call));
  TORCHIR_ASSIGN_OR_RETURN(bool ceil_mode, call.Bool("ceil_mode"));
  TORCHIR_ASSIGN_OR_RETURN(bool count_include_pad, call.Bool("count_include_pad"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> divisor, call.OptionalInt("divisor_override"));
  if (divisor.has_value()) return Unsupported("avg_pool2d with divisor_override");
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
  table.Add("aten.max_pool2d.default", MaxPool2d);
  table.Add("aten.max_pool2d_with_indices.default", MaxPool2dWithIndices);
  table.Add("aten.avg_pool2d.default", AvgPool2d);
  table.Add("aten.adaptive_avg_pool2d.default", AdaptiveAvgPool2d);
  table.Add("aten._adaptive_avg_pool2d.default", AdaptiveAvgPool2d);
  table.Add("aten.scaled_dot_product_attention.default", ScaledDotProductAttention);
}

}  // namespace torchir::lowering
