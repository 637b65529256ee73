// Lowering of views, permutes, slices, concatenation, splits, gathers, padding
// and factory ops. Shape ops take fully normalised Edge attributes (no -1, no
// negative dim, clamped slice bounds); a view that changes nothing emits no
// node.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>

#include "absl/strings/str_join.h"
#include "compiler/dialect/aten_call.h"
#include "compiler/dialect/shape_rules.h"
#include "compiler/ir/checked_math.h"
#include "compiler/ir/scalar_encoding.h"
#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/padding.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {
namespace {

using dialect::AtenCall;
using ir::AttrValue;

// A dim index made non-negative against `rank` (a 0-d tensor wraps like a 1-d
// one, as in PyTorch).
absl::StatusOr<int64_t> Dim(int64_t dim, int64_t rank) {
  return dialect::shape_rules::NormalizeDim(dim, std::max<int64_t>(rank, 1));
}

// --- Reshapes
// -------------------------------------------------------------------------------

// Every reshape-like op (view, reshape, flatten, squeeze, unsqueeze, unflatten)
// has its result shape recorded on the node, fully specified; reshaping to it
// covers them all (the edge.reshape shape rule checks the element count).
Results ReshapeToOutput(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  return Single(ctx.builder().ReshapeTo(x, ctx.OutputType().sizes));
}

// The shape a view's size argument asks for, its one -1 inferred, as ATen's
// infer_size computes it for `numel` elements.
absl::StatusOr<std::vector<int64_t>> InferViewShape(std::string_view argument,
                                                    std::vector<int64_t> size, int64_t numel) {
  const std::string shown =
      absl::StrCat(std::string(argument), " [", absl::StrJoin(size, ", "), "]");
  int64_t inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (inferred != -1) return absl::InvalidArgumentError(shown + ": more than one -1");
      inferred = static_cast<int64_t>(i);
    } else if (size[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(shown, ": size ", size[i], " of dim ", i, " is negative"));
    } else if (!ir::CheckedMul(known, size[i], &known)) {
      return absl::InvalidArgumentError(shown + ": element count overflows");
    }
  }
  if (inferred != -1) {
    if (known == 0 || numel % known != 0) {
      return absl::InvalidArgumentError(absl::StrCat(shown, " does not fit ", numel, " elements"));
    }
    size[static_cast<size_t>(inferred)] = numel / known;
  } else if (known != numel) {
    return absl::InvalidArgumentError(
        absl::StrCat(shown, " holds ", known, " elements, the input ", numel));
  }
  return size;
}

// view / reshape / _unsafe_view / view_copy / _reshape_alias: the size argument
// must describe the input's elements and agree with the recorded output type,
// so a file cannot pass one shape to the runtime and another to the reader.
Results ViewToSize(LoweringContext &ctx, const AtenCall &call, std::string_view argument) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.IntList(argument));
  int64_t numel = 0;
  if (!ir::CheckedProduct(x->sizes(), &numel)) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", x->type().ToString(), " has no valid element count"));
  }
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, InferViewShape(argument, size, numel));
  if (shape != ctx.OutputType().sizes) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(argument), " [", absl::StrJoin(size, ", "), "] gives [",
                     absl::StrJoin(shape, ", "), "] but the output is recorded as ",
                     ctx.OutputType().ToString()));
  }
  return Single(ctx.builder().ReshapeTo(x, shape));
}
Results ViewSize(LoweringContext &ctx, const AtenCall &call) {
  return ViewToSize(ctx, call, "size");
}
Results ReshapeShape(LoweringContext &ctx, const AtenCall &call) {
  return ViewToSize(ctx, call, "shape");
}

// --- Permutes
// -------------------------------------------------------------------------------

absl::StatusOr<ir::Value *> PermuteBy(EdgeBuilder &builder, ir::Value *x,
                                      const std::vector<int64_t> &dims) {
  bool identity = true;
  for (size_t i = 0; i < dims.size(); ++i) identity = identity && dims[i] == int64_t(i);
  if (identity) return x;
  return builder.Emit1("edge.permute", {x}, {{"dims", AttrValue::IntList(dims)}});
}

std::vector<int64_t> IdentityPermutation(int64_t rank) {
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) dims[i] = i;
  return dims;
}

Results Permute(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dims"));
  for (int64_t &dim : dims) {
    TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  }
  return Single(PermuteBy(ctx.builder(), x, dims));
}

// transpose.int(self, dim0, dim1) and swapaxes(self, axis0, axis1).
Results SwapDims(LoweringContext &ctx, const AtenCall &call, std::string_view first,
                 std::string_view second) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  const int64_t rank = x->type().rank();
  TORCHIR_ASSIGN_OR_RETURN(int64_t a, call.Int(first));
  TORCHIR_ASSIGN_OR_RETURN(int64_t b, call.Int(second));
  TORCHIR_ASSIGN_OR_RETURN(a, Dim(a, rank));
  TORCHIR_ASSIGN_OR_RETURN(b, Dim(b, rank));
  if (rank < 2) return std::vector<ir::Value *>{x};
  std::vector<int64_t> dims = IdentityPermutation(rank);
  std::swap(dims[a], dims[b]);
  return Single(PermuteBy(ctx.builder(), x, dims));
}

Results Transpose(LoweringContext &ctx, const AtenCall &call) {
  return SwapDims(ctx, call, "dim0", "dim1");
}
Results Swapaxes(LoweringContext &ctx, const AtenCall &call) {
  return SwapDims(ctx, call, "axis0", "axis1");
}

// movedim: the source dims land at the destination positions; the other dims
// keep their order in the remaining positions.
Results MoveDims(LoweringContext &ctx, ir::Value *x, std::vector<int64_t> source,
                 std::vector<int64_t> destination) {
  const int64_t rank = x->type().rank();
  if (source.size() != destination.size()) {
    return Unsupported("movedim: source and destination differ in length");
  }
  std::vector<int64_t> dims(static_cast<size_t>(rank), -1);
  std::vector<bool> moved(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < source.size(); ++i) {
    TORCHIR_ASSIGN_OR_RETURN(int64_t src, Dim(source[i], rank));
    TORCHIR_ASSIGN_OR_RETURN(int64_t dst, Dim(destination[i], rank));
    if (rank == 0) continue;
    if (moved[src] || dims[dst] != -1) return Unsupported("movedim: repeated dims");
    dims[dst] = src;
    moved[src] = true;
  }
  int64_t next = 0;
  for (int64_t &dim : dims) {
    if (dim != -1) continue;
    while (moved[next]) ++next;
    dim = next++;
  }
  return Single(PermuteBy(ctx.builder(), x, dims));
}

Results MovedimInt(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t source, call.Int("source"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t destination, call.Int("destination"));
  return MoveDims(ctx, x, {source}, {destination});
}

Results MovedimIntList(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> source, call.IntList("source"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> destination, call.IntList("destination"));
  return MoveDims(ctx, x, source, destination);
}

// --- Expand
// ---------------------------------------------------------------------------------

// `x` broadcast to `sizes`, where -1 keeps the size of the aligned (trailing)
// input dim.
absl::StatusOr<ir::Value *> ExpandTo(EdgeBuilder &builder, ir::Value *x,
                                     std::vector<int64_t> sizes) {
  const int64_t rank = x->type().rank();
  const int64_t leading = static_cast<int64_t>(sizes.size()) - rank;
  if (leading < 0) {
    return Unsupported(
        absl::StrCat("cannot expand a rank-", rank, " tensor to ", sizes.size(), " dims"));
  }
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    if (sizes[i] != -1) continue;
    if (i < leading) return Unsupported("expand: -1 for a new leading dim");
    sizes[i] = x->sizes()[i - leading];
  }
  if (sizes == x->sizes()) return x;
  return builder.Emit1("edge.expand", {x}, {{"sizes", AttrValue::IntList(sizes)}});
}

Results Expand(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, call.IntList("size"));
  return Single(ExpandTo(ctx.builder(), x, sizes));
}

Results ExpandAs(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * other, ctx.Tensor(call, "other"));
  return Single(ExpandTo(ctx.builder(), x, other->sizes()));
}

// --- Slices
// ---------------------------------------------------------------------------------

// Elements [start, end) of dim `dim` (non-negative) every `step`, bounds
// already clamped; no node for the whole dim.
absl::StatusOr<ir::Value *> SliceDim(EdgeBuilder &builder, ir::Value *x, int64_t dim, int64_t start,
                                     int64_t end, int64_t step = 1) {
  if (start == 0 && end == x->sizes()[dim] && step == 1) return x;
  return builder.Emit1("edge.slice", {x},
                       {{"dim", AttrValue::Int(dim)},
                        {"start", AttrValue::Int(start)},
                        {"end", AttrValue::Int(end)},
                        {"step", AttrValue::Int(step)}});
}

// slice.Tensor clamps as PyTorch does: negative bounds count from the end, then
// both are clamped into [0, size] with end >= start (so INT64_MAX means "to the
// end").
Results Slice(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() == 0) return Unsupported("slice of a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> start_arg, call.OptionalInt("start"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> end_arg, call.OptionalInt("end"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t step, call.Int("step"));
  if (step < 1) return Unsupported(absl::StrCat("slice step ", step, " (must be positive)"));
  const int64_t size = x->sizes()[dim];
  int64_t start = start_arg.value_or(0);
  int64_t end = end_arg.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  return Single(SliceDim(ctx.builder(), x, dim, start, end, step));
}

// Entry `index` of dim `dim` with that dim dropped: a slice and a reshape.
absl::StatusOr<ir::Value *> SelectIndex(EdgeBuilder &builder, ir::Value *x, int64_t dim,
                                        int64_t index) {
  const int64_t size = x->sizes()[dim];
  if (index < -size || index >= size) {
    return Unsupported(
        absl::StrCat("index ", index, " is out of range for dim ", dim, " of size ", size));
  }
  if (index < 0) index += size;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * row, SliceDim(builder, x, dim, index, index + 1));
  std::vector<int64_t> sizes = x->sizes();
  sizes.erase(sizes.begin() + dim);
  return builder.ReshapeTo(row, sizes);
}

Results Select(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() == 0) return Unsupported("select on a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(int64_t index, call.Int("index"));
  return Single(SelectIndex(ctx.builder(), x, dim, index));
}

// --- Concatenation and splits
// ---------------------------------------------------------------

// cat promotes its inputs to the output dtype and, like PyTorch, skips 1-d
// empty tensors (legacy behaviour that lets `torch.cat([torch.tensor([]), x])`
// work for any x).
Results Cat(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value *> tensors, call.TensorList("tensors"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  const ir::DType dtype = ctx.OutputType().dtype;
  std::vector<ir::Value *> inputs;
  for (ir::Value *tensor : tensors) {
    if (tensor == nullptr) return Unsupported("cat of a None tensor");
    ir::Value *value = ctx.Map(tensor);
    if (value->sizes() == std::vector<int64_t>{0}) continue;
    TORCHIR_ASSIGN_OR_RETURN(value, ctx.builder().CastTo(value, dtype));
    inputs.push_back(value);
  }
  if (inputs.empty()) {
    if (tensors.empty()) return Unsupported("cat of no tensors");
    return Single(ctx.builder().CastTo(ctx.Map(tensors.front()), dtype));
  }
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, inputs.front()->type().rank()));
  if (inputs.size() == 1) return std::vector<ir::Value *>{inputs.front()};
  return Single(ctx.builder().Emit1("edge.concatenate", inputs, {{"dim", AttrValue::Int(dim)}}));
}

// Consecutive pieces of dim `dim` with the given lengths; one per output of the
// node.
Results SplitInto(LoweringContext &ctx, ir::Value *x, int64_t dim,
                  const std::vector<int64_t> &lengths) {
  if (lengths.size() != ctx.node().num_outputs()) {
    return Unsupported(absl::StrCat("split into ", lengths.size(), " pieces, but the node has ",
                                    ctx.node().num_outputs(), " outputs"));
  }
  std::vector<ir::Value *> pieces;
  int64_t start = 0;
  for (int64_t length : lengths) {
    if (length < 0 || length > x->sizes()[dim] - start) {
      return Unsupported(
          absl::StrCat("split lengths do not fit dim ", dim, " of size ", x->sizes()[dim]));
    }
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * piece,
                             SliceDim(ctx.builder(), x, dim, start, start + length));
    pieces.push_back(piece);
    start += length;
  }
  return pieces;
}

// Pieces of `split_size` along a dim of `size`, the last one shorter (one empty
// piece for an empty dim), as split.Tensor and chunk cut.
std::vector<int64_t> EvenPieces(int64_t size, int64_t split_size) {
  if (size == 0 || split_size <= 0) return {size};
  std::vector<int64_t> lengths;
  // start + split_size may not fit int64: step by what is left instead.
  for (int64_t start = 0; start < size;) {
    const int64_t length = std::min(split_size, size - start);
    lengths.push_back(length);
    start += length;
  }
  return lengths;
}

// The tensor and normalised dim every split-like op starts from.
absl::StatusOr<std::pair<ir::Value *, int64_t>> SplitOperand(LoweringContext &ctx,
                                                             const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() == 0) return Unsupported("split of a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  return std::make_pair(x, dim);
}

Results Split(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(auto operand, SplitOperand(ctx, call));
  auto [x, dim] = operand;
  TORCHIR_ASSIGN_OR_RETURN(int64_t split_size, call.Int("split_size"));
  return SplitInto(ctx, x, dim, EvenPieces(x->sizes()[dim], split_size));
}

// split_with_sizes and split.default name the list `split_sizes`, split.sizes
// `split_size`.
Results SplitBySizes(LoweringContext &ctx, const AtenCall &call, std::string_view argument) {
  TORCHIR_ASSIGN_OR_RETURN(auto operand, SplitOperand(ctx, call));
  auto [x, dim] = operand;
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, call.IntList(argument));
  return SplitInto(ctx, x, dim, sizes);
}
Results SplitWithSizes(LoweringContext &ctx, const AtenCall &call) {
  return SplitBySizes(ctx, call, "split_sizes");
}
Results SplitSizes(LoweringContext &ctx, const AtenCall &call) {
  return SplitBySizes(ctx, call, "split_size");
}

Results Chunk(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(auto operand, SplitOperand(ctx, call));
  auto [x, dim] = operand;
  TORCHIR_ASSIGN_OR_RETURN(int64_t chunks, call.Int("chunks"));
  if (chunks <= 0) return Unsupported(absl::StrCat("chunk into ", chunks, " pieces"));
  const int64_t size = x->sizes()[dim];
  return SplitInto(ctx, x, dim, EvenPieces(size, size / chunks + (size % chunks != 0 ? 1 : 0)));
}

Results Unbind(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(auto operand, SplitOperand(ctx, call));
  auto [x, dim] = operand;
  if (x->sizes()[dim] != static_cast<int64_t>(ctx.node().num_outputs())) {
    return Unsupported(absl::StrCat("unbind of a dim of size ", x->sizes()[dim], " into ",
                                    ctx.node().num_outputs(), " outputs"));
  }
  std::vector<ir::Value *> pieces;
  for (int64_t i = 0; i < x->sizes()[dim]; ++i) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * piece, SelectIndex(ctx.builder(), x, dim, i));
    pieces.push_back(piece);
  }
  return pieces;
}

// --- Gathers
// --------------------------------------------------------------------------------

// x gathered along `dim` by an int index of any rank: the index flattened to
// 1-d, an index_select, and a reshape to `out_sizes`.
absl::StatusOr<ir::Value *> Gather(EdgeBuilder &builder, ir::Value *x, int64_t dim,
                                   ir::Value *index, const std::vector<int64_t> &out_sizes) {
  if (index->dtype() != ir::DType::kInt64 && index->dtype() != ir::DType::kInt32) {
    return Unsupported(absl::StrCat("index of dtype ", std::string(ir::DTypeName(index->dtype())),
                                    " (int64 or int32 needed)"));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flat, builder.ReshapeTo(index, {index->type().numel()}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * gathered, builder.Emit1("edge.index_select", {x, flat},
                                                               {{"dim", AttrValue::Int(dim)}}));
  return builder.ReshapeTo(gathered, out_sizes);
}

// x[None, ..., None, idx]: one integer index tensor after leading Nones.
// index + size where index < 0: advanced indexing counts negative indices from the end.
absl::StatusOr<ir::Value *> WrapNegative(EdgeBuilder &builder, ir::Value *index, int64_t size) {
  TORCHIR_ASSIGN_OR_RETURN(index, builder.CastTo(index, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * zero, builder.Scalar(0.0, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * size_value,
                           builder.Scalar(static_cast<double>(size), ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * negative, builder.Emit1("edge.lt", {index, zero}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * wrapped, builder.Emit1("edge.add", {index, size_value}));
  return builder.Emit1("edge.where", {negative, wrapped, index});
}

Results Index(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value *> indices, call.TensorList("indices"));
  int64_t dim = -1;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] == nullptr) continue;
    if (dim != -1) return Unsupported("index.Tensor with more than one index tensor");
    dim = static_cast<int64_t>(i);
  }
  if (dim == -1) return Unsupported("index.Tensor without an index tensor");
  if (dim >= x->type().rank()) return Unsupported("index.Tensor with too many indices");
  ir::Value *index = ctx.Map(indices[dim]);
  if (index->dtype() == ir::DType::kBool || index->dtype() == ir::DType::kUInt8) {
    return Unsupported("index.Tensor with a boolean mask index (data-dependent output shape)");
  }
  TORCHIR_ASSIGN_OR_RETURN(index, WrapNegative(ctx.builder(), index, x->sizes()[dim]));
  return Single(Gather(ctx.builder(), x, dim, index, ctx.OutputType().sizes));
}

Results IndexSelect(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * index, ctx.Tensor(call, "index"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  if (index->type().rank() > 1) return Unsupported("index_select with a multi-dim index");
  return Single(Gather(ctx.builder(), x, dim, index, ctx.OutputType().sizes));
}

// embedding(weight [V, D], ids): rows of the weight; padding_idx only affects
// gradients.
Results Embedding(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.Tensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * ids, ctx.Tensor(call, "indices"));
  if (weight->type().rank() != 2) return Unsupported("embedding with a weight that is not 2-d");
  return Single(Gather(ctx.builder(), weight, 0, ids, ctx.OutputType().sizes));
}

// --- Padding
// --------------------------------------------------------------------------------

absl::StatusOr<ir::Value *> ConstantPad(EdgeBuilder &builder, ir::Value *x,
                                        const std::vector<int64_t> &pad, double value) {
  if (std::all_of(pad.begin(), pad.end(), [](int64_t p) { return p == 0; })) return x;
  return builder.Emit1("edge.constant_pad", {x},
                       {{"pad", AttrValue::IntList(pad)}, {"value", AttrValue::Double(value)}});
}

Results ConstantPadNd(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> pad, call.IntList("pad"));
  TORCHIR_ASSIGN_OR_RETURN(ir::AttrValue value, call.Scalar("value"));
  return Single(ConstantPad(ctx.builder(), x, pad, value.ToDouble().value_or(0.0)));
}

Results Pad(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(std::string mode, call.String("mode"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> pad, call.IntList("pad"));
  if (mode == "reflect" || mode == "replicate" || mode == "circular") {
    return Single(ModePad(ctx.builder(), x, pad, mode));
  }
  if (mode != "constant") return Unsupported(absl::StrCat("pad mode '", mode, "'"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<double> value, call.OptionalDouble("value"));
  return Single(ConstantPad(ctx.builder(), x, pad, value.value_or(0.0)));
}

// --- Factories
// ------------------------------------------------------------------------------

// A Scalar attribute as a number that keeps 64-bit integers exact.
ir::Number ToNumber(const AttrValue &value) {
  ir::Number number;
  if (value.kind() == AttrValue::Kind::kDouble) {
    number.real = value.as_double();
  } else {
    number.is_integer = true;
    number.integer = value.ToInt().value_or(0);
  }
  return number;
}

// A constant of the recorded output type whose element i is `element(i)`;
// PyTorch casts a non-integral value to an integer dtype by truncation, and so
// does this.
Results FactoryConstant(LoweringContext &ctx, const std::function<ir::Number(int64_t)> &element) {
  const ir::TensorType &type = ctx.OutputType();
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(type));
  const bool integral = ir::IsIntegral(type.dtype);
  std::vector<uint8_t> bytes;
  bytes.reserve(type.nbytes());
  for (int64_t i = 0; i < type.numel(); ++i) {
    ir::Number number = element(i);
    // Truncation as PyTorch does it, for the values int64 holds (the cast of any other
    // double is undefined behaviour; AppendScalar then refuses the value).
    if (integral && !number.is_integer && std::isfinite(number.real) &&
        std::fabs(number.real) < 9.2e18) {
      number = ir::Number{true, static_cast<int64_t>(number.real), 0.0};
    }
    if (!ir::AppendScalar(type.dtype, number, &bytes)) {
      return Unsupported(absl::StrCat("value ", number.AsDouble(), " cannot be stored as ",
                                      std::string(ir::DTypeName(type.dtype))));
    }
  }
  return std::vector<ir::Value *>{
      ctx.builder().Constant(type, ir::TensorData::Copy(bytes.data(), bytes.size()))};
}

Results FillWith(LoweringContext &ctx, ir::Number value) {
  return FactoryConstant(ctx, [value](int64_t) { return value; });
}

Results Full(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar("fill_value"));
  return FillWith(ctx, ToNumber(value));
}
Results ScalarTensor(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar("s"));
  return FillWith(ctx, ToNumber(value));
}
Results Zeros(LoweringContext &ctx, const AtenCall &) {
  return FillWith(ctx, ir::Number{true, 0, 0.0});
}
Results Ones(LoweringContext &ctx, const AtenCall &) {
  return FillWith(ctx, ir::Number{true, 1, 0.0});
}

// arange: start + i * step, in int64 when all three are integers, else in
// double.
Results Arange(LoweringContext &ctx, const AtenCall &call, bool has_start, bool has_step) {
  ir::Number start{true, 0, 0.0};
  ir::Number step{true, 1, 0.0};
  if (has_start) {
    TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar("start"));
    start = ToNumber(value);
  }
  if (has_step) {
    TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar("step"));
    step = ToNumber(value);
  }
  if (start.is_integer && step.is_integer) {
    // The last element must fit int64 (PyTorch computes it in int64 too).
    const int64_t count = ctx.OutputType().numel();
    int64_t last = 0;
    if (count > 0 && (!ir::CheckedMul(count - 1, step.integer, &last) ||
                      !ir::CheckedAdd(start.integer, last, &last))) {
      return absl::InvalidArgumentError(absl::StrCat("arange from ", start.integer, " by ",
                                                     step.integer, " over ", count,
                                                     " elements overflows int64"));
    }
    return FactoryConstant(ctx, [start, step](int64_t i) {
      return ir::Number{true, start.integer + i * step.integer, 0.0};
    });
  }
  return FactoryConstant(ctx, [start, step](int64_t i) {
    return ir::Number{false, 0, start.AsDouble() + static_cast<double>(i) * step.AsDouble()};
  });
}

Results ArangeEnd(LoweringContext &ctx, const AtenCall &call) {
  return Arange(ctx, call, false, false);
}
Results ArangeStart(LoweringContext &ctx, const AtenCall &call) {
  return Arange(ctx, call, true, false);
}
Results ArangeStartStep(LoweringContext &ctx, const AtenCall &call) {
  return Arange(ctx, call, true, true);
}

// --- Structural ops written with other Edge ops
// ------------------------------------------------------------

// An int64 constant of `sizes` holding `values`.
ir::Value *Int64Constant(EdgeBuilder &builder, const std::vector<int64_t> &sizes,
                         const std::vector<int64_t> &values) {
  return builder.Constant(
      ir::TensorType{ir::DType::kInt64, sizes},
      ir::TensorData::Copy(reinterpret_cast<const uint8_t *>(values.data()),
                           values.size() * sizeof(int64_t)));
}

// `x` with the entries of dim `dim` picked by the constant `index` (any length).
absl::StatusOr<ir::Value *> PickAlong(EdgeBuilder &builder, ir::Value *x, int64_t dim,
                                      const std::vector<int64_t> &index) {
  ir::Value *indices = Int64Constant(builder, {static_cast<int64_t>(index.size())}, index);
  return builder.Emit1("edge.index_select", {x, indices}, {{"dim", AttrValue::Int(dim)}});
}

// stack(tensors, dim): each tensor (cast to the output dtype) with a size-1 dim inserted at
// `dim` (in [-rank-1, rank]), then concatenated there.
Results Stack(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value *> tensors, call.TensorList("tensors"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  if (tensors.empty()) return Unsupported("stack of no tensors");
  const ir::DType dtype = ctx.OutputType().dtype;
  std::vector<ir::Value *> inputs;
  for (ir::Value *tensor : tensors) {
    if (tensor == nullptr) return Unsupported("stack of a None tensor");
    ir::Value *value = ctx.Map(tensor);
    TORCHIR_ASSIGN_OR_RETURN(int64_t d, dialect::shape_rules::NormalizeDim(
                                            dim, value->type().rank() + 1));
    std::vector<int64_t> sizes = value->sizes();
    sizes.insert(sizes.begin() + d, 1);
    TORCHIR_ASSIGN_OR_RETURN(value, ctx.builder().CastTo(value, dtype));
    TORCHIR_ASSIGN_OR_RETURN(value, ctx.builder().ReshapeTo(value, sizes));
    inputs.push_back(value);
    dim = d;
  }
  if (inputs.size() == 1) return inputs;
  return Single(ctx.builder().Emit1("edge.concatenate", inputs, {{"dim", AttrValue::Int(dim)}}));
}

// hstack / vstack / dstack / column_stack: each tensor (cast to the output dtype) reshaped as
// PyTorch's atleast_*d / column rule does, then concatenated.
Results StackAlong(LoweringContext &ctx, const AtenCall &call, int kind) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value *> tensors, call.TensorList("tensors"));
  if (tensors.empty()) return Unsupported("stacking no tensors");
  const ir::DType dtype = ctx.OutputType().dtype;
  EdgeBuilder &builder = ctx.builder();
  std::vector<ir::Value *> inputs;
  int64_t dim = 0;
  for (ir::Value *tensor : tensors) {
    if (tensor == nullptr) return Unsupported("stacking a None tensor");
    ir::Value *value = ctx.Map(tensor);
    std::vector<int64_t> sizes = value->sizes();
    const size_t rank = sizes.size();
    switch (kind) {
      case 0:  // hstack: atleast_1d, dim 0 for 1-d tensors, else 1
        if (rank == 0) sizes = {1};
        dim = sizes.size() == 1 ? 0 : 1;
        break;
      case 1:  // vstack: atleast_2d, dim 0
        if (rank == 0) sizes = {1, 1};
        if (rank == 1) sizes = {1, sizes[0]};
        dim = 0;
        break;
      case 2:  // dstack: atleast_3d, dim 2
        if (rank == 0) sizes = {1, 1, 1};
        if (rank == 1) sizes = {1, sizes[0], 1};
        if (rank == 2) sizes = {sizes[0], sizes[1], 1};
        dim = 2;
        break;
      default:  // column_stack: 0-d and 1-d as columns, dim 1
        if (rank == 0) sizes = {1, 1};
        if (rank == 1) sizes = {sizes[0], 1};
        dim = 1;
        break;
    }
    TORCHIR_ASSIGN_OR_RETURN(value, builder.CastTo(value, dtype));
    TORCHIR_ASSIGN_OR_RETURN(value, builder.ReshapeTo(value, sizes));
    inputs.push_back(value);
  }
  if (inputs.size() == 1) return inputs;
  return Single(builder.Emit1("edge.concatenate", inputs, {{"dim", AttrValue::Int(dim)}}));
}
Results Hstack(LoweringContext &ctx, const AtenCall &call) { return StackAlong(ctx, call, 0); }
Results Vstack(LoweringContext &ctx, const AtenCall &call) { return StackAlong(ctx, call, 1); }
Results Dstack(LoweringContext &ctx, const AtenCall &call) { return StackAlong(ctx, call, 2); }
Results ColumnStack(LoweringContext &ctx, const AtenCall &call) {
  return StackAlong(ctx, call, 3);
}

// narrow(self, dim, start, length): a slice; a negative start counts from the end.
Results Narrow(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() == 0) return Unsupported("narrow of a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(int64_t start, call.Int("start"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t length, call.Int("length"));
  const int64_t size = x->sizes()[dim];
  if (start < 0) start += size;
  if (start < 0 || length < 0 || start > size || length > size - start) {
    return absl::InvalidArgumentError(absl::StrCat("narrow of ", length, " from ", start,
                                                   " is out of range for size ", size));
  }
  return Single(SliceDim(ctx.builder(), x, dim, start, start + length));
}

// flip(self, dims): each listed dim reversed, an index_select with a constant descending index.
absl::StatusOr<ir::Value *> FlipDims(EdgeBuilder &builder, ir::Value *x,
                                     const std::vector<int64_t> &dims) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(x->type().rank(), 1)), false);
  for (int64_t dim : dims) {
    TORCHIR_ASSIGN_OR_RETURN(int64_t d, Dim(dim, x->type().rank()));
    if (seen[d]) return absl::InvalidArgumentError(absl::StrCat("flip: dim ", d, " repeated"));
    seen[d] = true;
    if (x->type().rank() == 0 || x->sizes()[d] <= 1) continue;
    std::vector<int64_t> index;
    for (int64_t i = x->sizes()[d]; i-- > 0;) index.push_back(i);
    TORCHIR_ASSIGN_OR_RETURN(x, PickAlong(builder, x, d, index));
  }
  return x;
}

Results Flip(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dims"));
  return Single(FlipDims(ctx.builder(), x, dims));
}
Results Fliplr(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() < 2) return Unsupported("fliplr of a tensor with fewer than 2 dims");
  return Single(FlipDims(ctx.builder(), x, {1}));
}
Results Flipud(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() < 1) return Unsupported("flipud of a 0-d tensor");
  return Single(FlipDims(ctx.builder(), x, {0}));
}

// rot90(self, k, dims): k mod 4 quarter turns from dims[0] towards dims[1], as PyTorch composes
// them: flip dims[1] then swap (1), flip both (2), flip dims[0] then swap (3).
Results Rot90(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t k, call.Int("k"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dims"));
  const int64_t rank = x->type().rank();
  if (dims.size() != 2 || rank < 2) return Unsupported("rot90 needs two dims of a rank >= 2 tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t a, Dim(dims[0], rank));
  TORCHIR_ASSIGN_OR_RETURN(int64_t b, Dim(dims[1], rank));
  if (a == b) return absl::InvalidArgumentError("rot90: the two dims are the same");
  EdgeBuilder &builder = ctx.builder();
  std::vector<int64_t> swap = IdentityPermutation(rank);
  std::swap(swap[a], swap[b]);
  switch (((k % 4) + 4) % 4) {
    case 1: {
      TORCHIR_ASSIGN_OR_RETURN(x, FlipDims(builder, x, {b}));
      return Single(PermuteBy(builder, x, swap));
    }
    case 2:
      return Single(FlipDims(builder, x, {a, b}));
    case 3: {
      TORCHIR_ASSIGN_OR_RETURN(x, FlipDims(builder, x, {a}));
      return Single(PermuteBy(builder, x, swap));
    }
    default:
      return std::vector<ir::Value *>{x};
  }
}

// roll(self, shifts, dims): per (shift, dim) the last `shift` entries moved to the front (two
// slices concatenated); without dims the flattened tensor rolls and is reshaped back.
Results Roll(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> shifts, call.IntList("shifts"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dims"));
  EdgeBuilder &builder = ctx.builder();
  const std::vector<int64_t> sizes = x->sizes();
  if (dims.empty()) {
    if (shifts.size() != 1) return Unsupported("roll without dims takes one shift");
    TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, {x->type().numel()}));
    dims = {0};
  } else if (dims.size() != shifts.size()) {
    return absl::InvalidArgumentError("roll: shifts and dims differ in length");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    TORCHIR_ASSIGN_OR_RETURN(int64_t d, Dim(dims[i], x->type().rank()));
    if (x->type().rank() == 0) continue;
    const int64_t size = x->sizes()[d];
    if (size == 0) continue;
    const int64_t shift = ((shifts[i] % size) + size) % size;
    if (shift == 0) continue;
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * tail, SliceDim(builder, x, d, size - shift, size));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * head, SliceDim(builder, x, d, 0, size - shift));
    TORCHIR_ASSIGN_OR_RETURN(
        x, builder.Emit1("edge.concatenate", {tail, head}, {{"dim", AttrValue::Int(d)}}));
  }
  return Single(builder.ReshapeTo(x, sizes));
}

// repeat(self, repeats): the input (leading dims of size 1 added up to len(repeats)) viewed as
// [1, s0, 1, s1, ...], expanded to [r0, s0, r1, s1, ...] and merged pairwise.
absl::StatusOr<ir::Value *> RepeatBy(EdgeBuilder &builder, ir::Value *x,
                                     const std::vector<int64_t> &repeats) {
  const int64_t rank = x->type().rank();
  if (static_cast<int64_t>(repeats.size()) < rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "repeat: ", repeats.size(), " repeats for a tensor of rank ", rank, " (at least as many needed)"));
  }
  std::vector<int64_t> sizes(repeats.size() - rank, 1);
  sizes.insert(sizes.end(), x->sizes().begin(), x->sizes().end());
  std::vector<int64_t> interleaved, expanded, merged;
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] < 0) return absl::InvalidArgumentError("repeat: a negative repeat count");
    interleaved.insert(interleaved.end(), {1, sizes[i]});
    expanded.insert(expanded.end(), {repeats[i], sizes[i]});
    merged.push_back(repeats[i] * sizes[i]);
  }
  if (std::all_of(repeats.begin(), repeats.end(), [](int64_t r) { return r == 1; })) {
    return builder.ReshapeTo(x, merged);
  }
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{x->dtype(), merged}));
  TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, interleaved));
  TORCHIR_ASSIGN_OR_RETURN(x, ExpandTo(builder, x, expanded));
  return builder.ReshapeTo(x, merged);
}

Results Repeat(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, call.IntList("repeats"));
  return Single(RepeatBy(ctx.builder(), x, repeats));
}

// tile(self, dims): repeat with dims padded by leading ones up to the input's rank.
Results Tile(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.IntList("dims"));
  const size_t rank = static_cast<size_t>(x->type().rank());
  if (dims.size() < rank) dims.insert(dims.begin(), rank - dims.size(), 1);
  return Single(RepeatBy(ctx.builder(), x, dims));
}

// new_empty / empty / empty_like: uninitialised memory in PyTorch, zeros here (a program that
// reads it before writing has no defined result either way).
Results Empty(LoweringContext &ctx, const AtenCall &call) { return Zeros(ctx, call); }
Results NewFull(LoweringContext &ctx, const AtenCall &call) { return Full(ctx, call); }

// empty_strided / new_empty_strided: as empty. torchir tensors are dense and row-major, so only
// the contiguous strides of `size` can be honoured (a dim of size 1 may have any stride, as in
// PyTorch's own contiguity test); any other layout would show through an as_strided view of it.
Results EmptyStrided(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.IntList("size"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.IntList("stride"));
  if (stride.size() != size.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty_strided: ", stride.size(), " strides for ", size.size(), " dims"));
  }
  bool empty = false;
  for (int64_t s : size) empty = empty || s == 0;
  int64_t expected = 1;
  for (size_t d = size.size(); d-- > 0 && !empty;) {
    if (size[d] != 1 && stride[d] != expected) {
      return Unsupported(absl::StrCat(
          "empty_strided with strides [", absl::StrJoin(stride, ", "), "] for size [",
          absl::StrJoin(size, ", "),
          "], which are not contiguous; torchir tensors are dense row-major (make it with "
          "contiguous strides, or empty + permute)"));
    }
    expected *= size[d];
  }
  return Zeros(ctx, call);
}

// fill.Scalar / fill_.Scalar: a constant of self's type; fill.Tensor: the 0-d value broadcast.
Results FillScalar(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar("value"));
  return FillWith(ctx, ToNumber(value));
}
Results FillTensor(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * value, ctx.Tensor(call, "value"));
  if (value->type().rank() != 0) return Unsupported("fill with a value that is not 0-d");
  TORCHIR_ASSIGN_OR_RETURN(value, ctx.builder().CastTo(value, ctx.OutputType().dtype));
  return Single(ExpandTo(ctx.builder(), value, ctx.OutputType().sizes));
}

// copy_(self, src) / copy(self, src): src cast to self's dtype and broadcast to its shape; the
// driver makes later readers of self see it.
Results Copy(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * src, ctx.Tensor(call, "src"));
  TORCHIR_ASSIGN_OR_RETURN(src, ctx.builder().CastTo(src, ctx.OutputType().dtype));
  return Single(ExpandTo(ctx.builder(), src, ctx.OutputType().sizes));
}

// tril / triu: where(mask, x, 0) with a constant bool mask over the last two dims (kept: j - i <=
// diagonal for tril, >= for triu).
Results Triangle(LoweringContext &ctx, const AtenCall &call, bool lower) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t diagonal, call.Int("diagonal"));
  const int64_t rank = x->type().rank();
  if (rank < 2) return Unsupported(absl::StrCat(lower ? "tril" : "triu", " of a rank-", rank, " tensor"));
  const int64_t rows = x->sizes()[rank - 2];
  const int64_t cols = x->sizes()[rank - 1];
  EdgeBuilder &builder = ctx.builder();
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{ir::DType::kBool, {rows, cols}}));
  std::vector<uint8_t> mask(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      mask[static_cast<size_t>(i * cols + j)] = lower ? j - i <= diagonal : j - i >= diagonal;
    }
  }
  ir::Value *keep = builder.Constant(ir::TensorType{ir::DType::kBool, {rows, cols}},
                                     ir::TensorData::Copy(mask.data(), mask.size()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * zero, builder.Scalar(0.0, x->dtype()));
  return Single(builder.Emit1("edge.where", {keep, x, zero}));
}
Results Tril(LoweringContext &ctx, const AtenCall &call) { return Triangle(ctx, call, true); }
Results Triu(LoweringContext &ctx, const AtenCall &call) { return Triangle(ctx, call, false); }

// diagonal(self, offset, dim1, dim2): dim1 and dim2 moved last and merged; the diagonal is then
// every (cols + 1)-th element from the offset's start.
Results Diagonal(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t offset, call.Int("offset"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim1, call.Int("dim1"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim2, call.Int("dim2"));
  const int64_t rank = x->type().rank();
  if (rank < 2) return Unsupported("diagonal of a tensor with fewer than 2 dims");
  TORCHIR_ASSIGN_OR_RETURN(dim1, Dim(dim1, rank));
  TORCHIR_ASSIGN_OR_RETURN(dim2, Dim(dim2, rank));
  if (dim1 == dim2) return absl::InvalidArgumentError("diagonal: dim1 and dim2 are the same");
  EdgeBuilder &builder = ctx.builder();
  std::vector<int64_t> order, sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == dim1 || d == dim2) continue;
    order.push_back(d);
    sizes.push_back(x->sizes()[d]);
  }
  order.insert(order.end(), {dim1, dim2});
  const int64_t rows = x->sizes()[dim1];
  const int64_t cols = x->sizes()[dim2];
  TORCHIR_ASSIGN_OR_RETURN(x, PermuteBy(builder, x, order));
  sizes.push_back(rows * cols);
  TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, sizes));
  const int64_t length = std::max<int64_t>(
      0, offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols));
  const int64_t start = length == 0 ? 0 : (offset >= 0 ? offset : -offset * cols);
  const int64_t end = length == 0 ? 0 : start + (length - 1) * (cols + 1) + 1;
  TORCHIR_ASSIGN_OR_RETURN(x, SliceDim(builder, x, static_cast<int64_t>(sizes.size()) - 1, start,
                                       end, cols + 1));
  return Single(builder.ReshapeTo(x, ctx.OutputType().sizes));
}

// pixel_shuffle(self [*, C r r, H, W], r) -> [*, C, H r, W r] and pixel_unshuffle, its inverse:
// a reshape that splits the factor out, a permute and a reshape.
Results PixelShuffle(LoweringContext &ctx, const AtenCall &call, bool shuffle) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t r,
                           call.Int(shuffle ? "upscale_factor" : "downscale_factor"));
  const int64_t rank = x->type().rank();
  if (rank < 3) return Unsupported("pixel (un)shuffle of a tensor with fewer than 3 dims");
  if (r <= 0) return absl::InvalidArgumentError("pixel (un)shuffle: factor must be positive");
  int64_t batch = 1;
  for (int64_t d = 0; d < rank - 3; ++d) batch *= x->sizes()[d];
  const int64_t c = x->sizes()[rank - 3], h = x->sizes()[rank - 2], w = x->sizes()[rank - 1];
  EdgeBuilder &builder = ctx.builder();
  if (shuffle) {
    if (c % (r * r) != 0) return absl::InvalidArgumentError("pixel_shuffle: channels not divisible");
    TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, {batch, c / (r * r), r, r, h, w}));
    TORCHIR_ASSIGN_OR_RETURN(x, PermuteBy(builder, x, {0, 1, 4, 2, 5, 3}));
  } else {
    if (h % r != 0 || w % r != 0) {
      return absl::InvalidArgumentError("pixel_unshuffle: height or width not divisible");
    }
    TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, {batch, c, h / r, r, w / r, r}));
    TORCHIR_ASSIGN_OR_RETURN(x, PermuteBy(builder, x, {0, 1, 3, 5, 2, 4}));
  }
  return Single(builder.ReshapeTo(x, ctx.OutputType().sizes));
}
Results PixelShuffleRule(LoweringContext &ctx, const AtenCall &call) {
  return PixelShuffle(ctx, call, true);
}
Results PixelUnshuffleRule(LoweringContext &ctx, const AtenCall &call) {
  return PixelShuffle(ctx, call, false);
}

// The attributes of an edge.scatter along `dim` that writes (reduce "none") or combines
// (reduce "sum", "prod", "amax", "amin") src into self's entries.
Attrs ScatterAttrs(int64_t dim, const char *reduce, bool include_self = true) {
  return {{"dim", AttrValue::Int(dim)},
          {"reduce", AttrValue::String(reduce)},
          {"include_self", AttrValue::Bool(include_self)}};
}

// slice_scatter(self, src, dim, start, end) with step 1: the untouched head and tail of self
// around src, concatenated; select_scatter is the one-entry case.
absl::StatusOr<ir::Value *> ScatterSlice(EdgeBuilder &builder, ir::Value *x, ir::Value *src,
                                         int64_t dim, int64_t start, int64_t end) {
  TORCHIR_ASSIGN_OR_RETURN(src, builder.CastTo(src, x->dtype()));
  std::vector<int64_t> src_sizes = x->sizes();
  src_sizes[dim] = end - start;
  if (src->type().numel() != ir::TensorType{x->dtype(), src_sizes}.numel()) {
    return absl::InvalidArgumentError(absl::StrCat("scatter: src ", src->type().ToString(),
                                                   " does not fill the slice"));
  }
  TORCHIR_ASSIGN_OR_RETURN(src, builder.ReshapeTo(src, src_sizes));
  std::vector<ir::Value *> parts;
  if (start > 0) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * head, SliceDim(builder, x, dim, 0, start));
    parts.push_back(head);
  }
  if (end > start) parts.push_back(src);
  if (end < x->sizes()[dim]) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * tail, SliceDim(builder, x, dim, end, x->sizes()[dim]));
    parts.push_back(tail);
  }
  if (parts.size() == 1) return parts[0];
  return builder.Emit1("edge.concatenate", parts, {{"dim", AttrValue::Int(dim)}});
}

// The strided case: src written at start, start + step, ... (< end) along dim, by edge.scatter
// with a constant index of those positions broadcast over src.
absl::StatusOr<ir::Value *> ScatterSliceStepped(EdgeBuilder &builder, ir::Value *x, ir::Value *src,
                                                int64_t dim, int64_t start, int64_t end,
                                                int64_t step) {
  if (step == 1) return ScatterSlice(builder, x, src, dim, start, end);
  if (step < 1) return absl::InvalidArgumentError(absl::StrCat("slice step ", step, " < 1"));
  const int64_t count = end > start ? (end - start + step - 1) / step : 0;
  std::vector<int64_t> src_sizes = x->sizes();
  src_sizes[dim] = count;
  if (src->type().numel() != ir::TensorType{x->dtype(), src_sizes}.numel()) {
    return absl::InvalidArgumentError(absl::StrCat("scatter: src ", src->type().ToString(),
                                                   " does not fill the slice"));
  }
  if (count == 0) return x;
  TORCHIR_ASSIGN_OR_RETURN(src, builder.CastTo(src, x->dtype()));
  TORCHIR_ASSIGN_OR_RETURN(src, builder.ReshapeTo(src, src_sizes));
  std::vector<int64_t> positions(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) positions[i] = start + i * step;
  std::vector<int64_t> index_sizes(src_sizes.size(), 1);
  index_sizes[dim] = count;
  ir::Value *index = Int64Constant(builder, index_sizes, positions);
  TORCHIR_ASSIGN_OR_RETURN(index, ExpandTo(builder, index, src_sizes));
  return builder.Emit1("edge.scatter", {x, index, src}, ScatterAttrs(dim, "none"));
}

Results SliceScatter(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * src, ctx.Tensor(call, "src"));
  if (x->type().rank() == 0) return Unsupported("slice_scatter into a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> start_arg, call.OptionalInt("start"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> end_arg, call.OptionalInt("end"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t step, call.Int("step"));
  const int64_t size = x->sizes()[dim];
  int64_t start = start_arg.value_or(0);
  int64_t end = end_arg.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  return Single(ScatterSliceStepped(ctx.builder(), x, src, dim, start, end, step));
}

Results SelectScatter(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * src, ctx.Tensor(call, "src"));
  if (x->type().rank() == 0) return Unsupported("select_scatter into a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(int64_t index, call.Int("index"));
  const int64_t size = x->sizes()[dim];
  if (index < -size || index >= size) {
    return absl::InvalidArgumentError(
        absl::StrCat("select_scatter: index ", index, " is out of range for size ", size));
  }
  if (index < 0) index += size;
  return Single(ScatterSlice(ctx.builder(), x, src, dim, index, index + 1));
}

// A bool tensor: 0 <= index < size, elementwise (an index out of its own dim's range).
absl::StatusOr<ir::Value *> InRange(EdgeBuilder &builder, ir::Value *index, int64_t size) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * zero, builder.Scalar(0.0, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * limit,
                           builder.Scalar(static_cast<double>(size), ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * above, builder.Emit1("edge.ge", {index, zero}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * below, builder.Emit1("edge.lt", {index, limit}));
  return builder.Emit1("edge.bitwise_and", {above, below});
}

// `flat` where `valid`, else `poison`: a flat index that is in range for the flattened tensor
// although one of its coordinates is not for its own dim becomes one the kernel refuses.
absl::StatusOr<ir::Value *> PoisonUnless(EdgeBuilder &builder, ir::Value *valid, ir::Value *flat,
                                         int64_t poison) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bad,
                           builder.Scalar(static_cast<double>(poison), ir::DType::kInt64));
  return builder.Emit1("edge.where", {valid, flat, bad});
}

// gather(self, dim, index): self flattened and picked at index * stride(dim) + the offset of
// each index position with its `dim` coordinate zeroed (a constant), one index_select. The
// kernel checks the flat index against self's size; an index out of range for `dim` alone
// but inside the tensor is not caught.
Results GatherRule(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * index, ctx.Tensor(call, "index"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  const int64_t rank = x->type().rank();
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, rank));
  if (index->type().rank() != rank || rank == 0) {
    return Unsupported("gather with an index whose rank differs from self's (or 0-d)");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (d != dim && index->sizes()[d] > x->sizes()[d]) {
      return absl::InvalidArgumentError("gather: index is larger than self outside dim");
    }
  }
  EdgeBuilder &builder = ctx.builder();
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int64_t d = rank - 1; d > 0; --d) strides[d - 1] = strides[d] * x->sizes()[d];
  const int64_t count = index->type().numel();
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{ir::DType::kInt64, index->sizes()}));
  std::vector<int64_t> base(static_cast<size_t>(count), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % index->sizes()[d];
      rest /= index->sizes()[d];
      if (d != dim) base[i] += coordinate * strides[d];
    }
  }
  TORCHIR_ASSIGN_OR_RETURN(index, builder.CastTo(index, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * stride, builder.Scalar(static_cast<double>(strides[dim]),
                                                                ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * scaled, builder.Emit1("edge.mul", {index, stride}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flat_index,
                           builder.Emit1("edge.add", {scaled, Int64Constant(builder,
                                                                            index->sizes(), base)}));
  // gather takes no negative index; one out of range for dim but inside the flattened tensor
  // would otherwise read a neighbour.
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * valid, InRange(builder, index, x->sizes()[dim]));
  TORCHIR_ASSIGN_OR_RETURN(flat_index,
                           PoisonUnless(builder, valid, flat_index, x->type().numel()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flat, builder.ReshapeTo(x, {x->type().numel()}));
  return Single(Gather(builder, flat, 0, flat_index, ctx.OutputType().sizes));
}

// --- Scatter and index_put
// ------------------------------------------------------------------------------

// x with src combined in by scatter_reduce's `reduce` ("sum", "prod", "amax", "amin" map to
// edge.scatter; "mean" is the sum divided by each target's count, itself a scatter of ones into
// ones (include_self) or zeros, at least 1 as ATen makes it; integers divide rounding down).
absl::StatusOr<ir::Value *> ScatterReduceValue(EdgeBuilder &builder, ir::Value *x, ir::Value *index,
                                               ir::Value *src, int64_t dim,
                                               const std::string &reduce, bool include_self) {
  if (reduce == "sum" || reduce == "prod" || reduce == "amax" || reduce == "amin") {
    return builder.Emit1("edge.scatter", {x, index, src},
                         ScatterAttrs(dim, reduce.c_str(), include_self));
  }
  if (reduce != "mean")
    return Unsupported(absl::StrCat("scatter_reduce with reduce='", reduce, "'"));
  const ir::DType dtype = x->dtype();
  if (!ir::IsFloatingPoint(dtype) && dtype != ir::DType::kInt32 && dtype != ir::DType::kInt64) {
    return Unsupported(
        absl::StrCat("scatter_reduce mean of ", std::string(ir::DTypeName(dtype)), " values"));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * sum, builder.Emit1("edge.scatter", {x, index, src},
                                                          ScatterAttrs(dim, "sum", include_self)));
  const size_t rank = x->sizes().size();
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * one, builder.Scalar(1.0, dtype));
  TORCHIR_ASSIGN_OR_RETURN(one, builder.ReshapeTo(one, std::vector<int64_t>(rank, 1)));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * start, builder.Scalar(include_self ? 1.0 : 0.0, dtype));
  TORCHIR_ASSIGN_OR_RETURN(start, builder.ReshapeTo(start, std::vector<int64_t>(rank, 1)));
  TORCHIR_ASSIGN_OR_RETURN(start, ExpandTo(builder, start, x->sizes()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * ones, ExpandTo(builder, one, index->sizes()));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * count, builder.Emit1("edge.scatter", {start, index, ones},
                                                            ScatterAttrs(dim, "sum")));
  TORCHIR_ASSIGN_OR_RETURN(count, builder.Emit1("edge.maximum", {count, one}));
  return builder.Emit1(ir::IsFloatingPoint(dtype) ? "edge.div" : "edge.floor_divide", {sum, count});
}

// scatter.src / scatter.value (and their in-place forms): edge.scatter with src cast to self's
// dtype, or the value broadcast to the index's shape; with reduce ('add', 'multiply': the
// scatter.reduce forms), combined into self as scatter_reduce's sum and prod.
Results ScatterRule(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * index, ctx.Tensor(call, "index"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  if (x->type().rank() == 0) return Unsupported("scatter into a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  std::string reduce = "none";
  if (call.Find("reduce").ok() && !call.IsNone("reduce")) {
    TORCHIR_ASSIGN_OR_RETURN(AttrValue mode, call.Value("reduce"));
    if (mode.kind() == AttrValue::Kind::kString && mode.as_string() == "add") {
      reduce = "sum";
    } else if (mode.kind() == AttrValue::Kind::kString && mode.as_string() == "multiply") {
      reduce = "prod";
    } else {
      return Unsupported(absl::StrCat("scatter with reduce=", mode.ToString()));
    }
  }
  EdgeBuilder &builder = ctx.builder();
  ir::Value *src = nullptr;
  if (call.Find("src").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(src, ctx.Tensor(call, "src"));
    TORCHIR_ASSIGN_OR_RETURN(src, builder.CastTo(src, x->dtype()));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Scalar("value"));
    TORCHIR_ASSIGN_OR_RETURN(src, builder.Scalar(value.ToDouble().value_or(0.0), x->dtype()));
    TORCHIR_ASSIGN_OR_RETURN(src, builder.ReshapeTo(src, std::vector<int64_t>(
                                                             index->sizes().size(), 1)));
    TORCHIR_ASSIGN_OR_RETURN(src, ExpandTo(builder, src, index->sizes()));
  }
  if (reduce != "none") {
    return Single(ScatterReduceValue(builder, x, index, src, dim, reduce, true));
  }
  return Single(builder.Emit1("edge.scatter", {x, index, src}, ScatterAttrs(dim, "none")));
}

// scatter_reduce.two(self, dim, index, src, reduce, include_self) (and in place).
Results ScatterReduce(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * index, ctx.Tensor(call, "index"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * src, ctx.Tensor(call, "src"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(AttrValue reduce, call.Value("reduce"));
  TORCHIR_ASSIGN_OR_RETURN(bool include_self, call.Bool("include_self"));
  if (x->type().rank() == 0) return Unsupported("scatter_reduce into a 0-d tensor");
  if (reduce.kind() != AttrValue::Kind::kString) {
    return Unsupported(absl::StrCat("scatter_reduce with reduce=", reduce.ToString()));
  }
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(src, ctx.builder().CastTo(src, x->dtype()));
  return Single(
      ScatterReduceValue(ctx.builder(), x, index, src, dim, reduce.as_string(), include_self));
}

// scatter_add(self, dim, index, src) (and in place): edge.scatter summing.
Results ScatterAdd(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * index, ctx.Tensor(call, "index"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * src, ctx.Tensor(call, "src"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  if (x->type().rank() == 0) return Unsupported("scatter_add into a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, x->type().rank()));
  TORCHIR_ASSIGN_OR_RETURN(src, ctx.builder().CastTo(src, x->dtype()));
  return Single(ctx.builder().Emit1("edge.scatter", {x, index, src}, ScatterAttrs(dim, "sum")));
}

// index_put with integer index tensors for self's leading `picks.size()` dims: the entries they
// pick, as one flat index over those dims (negative indices wrap; an index out of range for its
// own dim makes the flat index out of range, which edge.scatter refuses at run time), written
// by edge.scatter along dim 0 of self viewed as [picked dims merged, rest...]. `values`
// broadcasts to [index shape..., rest...].
absl::StatusOr<ir::Value *> IndexPutLeading(EdgeBuilder &builder, ir::Value *x,
                                            const std::vector<ir::Value *> &picks,
                                            const std::vector<int64_t> &shape, ir::Value *values,
                                            bool accumulate) {
  const size_t picked = picks.size();
  std::vector<int64_t> rest(x->sizes().begin() + picked, x->sizes().end());
  int64_t merged = 1;
  for (size_t d = 0; d < picked; ++d) merged *= x->sizes()[d];
  ir::Value *flat = nullptr;
  ir::Value *valid = nullptr;
  int64_t stride = merged;
  for (size_t d = 0; d < picked; ++d) {
    const int64_t size = x->sizes()[d];
    stride /= size;
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * pick, WrapNegative(builder, picks[d], size));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * in_range, InRange(builder, pick, size));
    if (valid == nullptr) {
      valid = in_range;
    } else {
      TORCHIR_ASSIGN_OR_RETURN(valid, builder.Emit1("edge.bitwise_and", {valid, in_range}));
    }
    if (stride != 1) {
      TORCHIR_ASSIGN_OR_RETURN(ir::Value * scale,
                               builder.Scalar(static_cast<double>(stride), ir::DType::kInt64));
      TORCHIR_ASSIGN_OR_RETURN(pick, builder.Emit1("edge.mul", {pick, scale}));
    }
    if (flat == nullptr) {
      flat = pick;
    } else {
      TORCHIR_ASSIGN_OR_RETURN(flat, builder.Emit1("edge.add", {flat, pick}));
    }
  }
  TORCHIR_ASSIGN_OR_RETURN(flat, PoisonUnless(builder, valid, flat, merged));
  TORCHIR_ASSIGN_OR_RETURN(flat, ExpandTo(builder, flat, shape));
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  // index [count, 1, ...] expanded over the rest; values broadcast to [shape..., rest...].
  std::vector<int64_t> target = shape;
  target.insert(target.end(), rest.begin(), rest.end());
  std::vector<int64_t> index_sizes = {count};
  index_sizes.resize(1 + rest.size(), 1);
  std::vector<int64_t> flat_sizes = {count};
  flat_sizes.insert(flat_sizes.end(), rest.begin(), rest.end());
  TORCHIR_ASSIGN_OR_RETURN(flat, builder.ReshapeTo(flat, index_sizes));
  TORCHIR_ASSIGN_OR_RETURN(flat, ExpandTo(builder, flat, flat_sizes));
  if (values->type().rank() > static_cast<int64_t>(target.size())) {
    return Unsupported("index_put with values of a higher rank than the indexed result");
  }
  TORCHIR_ASSIGN_OR_RETURN(values, ExpandTo(builder, values, target));
  TORCHIR_ASSIGN_OR_RETURN(values, builder.ReshapeTo(values, flat_sizes));
  std::vector<int64_t> view_sizes = {merged};
  view_sizes.insert(view_sizes.end(), rest.begin(), rest.end());
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * view, builder.ReshapeTo(x, view_sizes));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * written,
                           builder.Emit1("edge.scatter", {view, flat, values},
                                         ScatterAttrs(0, accumulate ? "sum" : "none")));
  return builder.ReshapeTo(written, x->sizes());
}

// index_put(self, indices, values, accumulate) and index_put_, in two forms:
//   - one bool mask over self's leading dims with a single value: where(mask, value, self)
//     (not with accumulate);
//   - integer index tensors for consecutive dims: IndexPutLeading.
// Leading Nones (x[:, idx] = v) leave dims whole: those dims move behind the indexed ones and
// back; trailing Nones are dims left whole anyway. A None between index tensors, where PyTorch
// moves the indexed result's dims to the front, is not supported.
Results IndexPut(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<ir::Value *> indices, call.TensorList("indices"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * values, ctx.Tensor(call, "values"));
  TORCHIR_ASSIGN_OR_RETURN(bool accumulate, call.Bool("accumulate"));
  EdgeBuilder &builder = ctx.builder();
  const int64_t rank = x->type().rank();
  size_t lead = 0;
  while (lead < indices.size() && indices[lead] == nullptr) ++lead;
  size_t end = indices.size();
  while (end > lead && indices[end - 1] == nullptr) --end;
  std::vector<ir::Value *> picks;
  for (size_t i = lead; i < end; ++i) {
    if (indices[i] == nullptr) {
      return Unsupported("index_put with a None index between index tensors (x[idx, :, idx])");
    }
    picks.push_back(ctx.Map(indices[i]));
  }
  if (picks.empty() || static_cast<int64_t>(lead + picks.size()) > rank) {
    return Unsupported("index_put with no index or more indices than dims");
  }
  TORCHIR_ASSIGN_OR_RETURN(values, builder.CastTo(values, x->dtype()));
  // The picked dims first: [lead, lead + k), then [0, lead), then the rest.
  const int64_t k = static_cast<int64_t>(picks.size());
  std::vector<int64_t> to_front;
  for (int64_t d = 0; d < k; ++d) to_front.push_back(static_cast<int64_t>(lead) + d);
  for (int64_t d = 0; d < static_cast<int64_t>(lead); ++d) to_front.push_back(d);
  for (int64_t d = static_cast<int64_t>(lead) + k; d < rank; ++d) to_front.push_back(d);
  std::vector<int64_t> back(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) back[static_cast<size_t>(to_front[d])] = d;
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * front, PermuteBy(builder, x, to_front));
  if (picks[0]->dtype() == ir::DType::kBool) {
    ir::Value *mask = picks[0];
    const std::vector<int64_t> &mask_sizes = mask->sizes();
    if (accumulate) return Unsupported("index_put with a bool mask and accumulate=True");
    if (picks.size() != 1 || values->type().numel() != 1 ||
        static_cast<int64_t>(lead + mask_sizes.size()) > rank ||
        !std::equal(mask_sizes.begin(), mask_sizes.end(), front->sizes().begin())) {
      return Unsupported("index_put with a bool mask needs one mask over consecutive dims and "
                         "one value (a data-dependent count of values otherwise)");
    }
    std::vector<int64_t> sizes = mask_sizes;
    sizes.resize(static_cast<size_t>(rank), 1);
    TORCHIR_ASSIGN_OR_RETURN(mask, builder.ReshapeTo(mask, sizes));
    TORCHIR_ASSIGN_OR_RETURN(values, builder.ReshapeTo(values, {}));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * written, builder.Emit1("edge.where", {mask, values, front}));
    return Single(PermuteBy(builder, written, back));
  }
  // The picked positions: index tensors broadcast together.
  std::vector<int64_t> shape;
  for (ir::Value *pick : picks) {
    if (pick->dtype() != ir::DType::kInt64 && pick->dtype() != ir::DType::kInt32) {
      return Unsupported("index_put with an index that is neither bool nor int");
    }
    TORCHIR_ASSIGN_OR_RETURN(shape, dialect::shape_rules::BroadcastShapes(shape, pick->sizes()));
  }
  if (lead > 0) {
    // values broadcast to x[indices]'s shape [leading dims, shape..., rest...]; reorder them as
    // [shape..., leading dims, rest...] to match the permuted self.
    std::vector<int64_t> target(x->sizes().begin(), x->sizes().begin() + lead);
    target.insert(target.end(), shape.begin(), shape.end());
    target.insert(target.end(), x->sizes().begin() + lead + k, x->sizes().end());
    if (values->type().rank() > static_cast<int64_t>(target.size())) {
      return Unsupported("index_put with values of a higher rank than the indexed result");
    }
    TORCHIR_ASSIGN_OR_RETURN(values, ExpandTo(builder, values, target));
    const int64_t s = static_cast<int64_t>(shape.size());
    std::vector<int64_t> order;
    for (int64_t d = 0; d < s; ++d) order.push_back(static_cast<int64_t>(lead) + d);
    for (int64_t d = 0; d < static_cast<int64_t>(lead); ++d) order.push_back(d);
    for (int64_t d = static_cast<int64_t>(lead) + s; d < static_cast<int64_t>(target.size());
         ++d) {
      order.push_back(d);
    }
    TORCHIR_ASSIGN_OR_RETURN(values, PermuteBy(builder, values, order));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * written,
                           IndexPutLeading(builder, front, picks, shape, values, accumulate));
  return Single(PermuteBy(builder, written, back));
}

// --- masked_scatter, as_strided, embedding_bag
// ------------------------------------------------------------------------------

// A constant int64 vector.
ir::Value *Int64Vector(EdgeBuilder &builder, const std::vector<int64_t> &values) {
  return builder.Constant(ir::TensorType{ir::DType::kInt64, {static_cast<int64_t>(values.size())}},
                          ir::TensorData::Copy(reinterpret_cast<const uint8_t *>(values.data()),
                                               values.size() * sizeof(int64_t)));
}

// `value` (a number) as a tensor of `dtype` broadcast to `sizes`.
absl::StatusOr<ir::Value *> Filled(EdgeBuilder &builder, double value, ir::DType dtype,
                                   const std::vector<int64_t> &sizes) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * scalar, builder.Scalar(value, dtype));
  TORCHIR_ASSIGN_OR_RETURN(scalar,
                           builder.ReshapeTo(scalar, std::vector<int64_t>(sizes.size(), 1)));
  return builder.Emit1("edge.expand", {scalar}, {{"sizes", AttrValue::IntList(sizes)}});
}

// masked_scatter(self, mask, source) (and in place): the k-th true entry of the mask (row-major,
// self and mask broadcast together) takes source's k-th element, the others keep self. k is the
// running count of trues minus one (an edge.cumsum), the element an index_select of the
// flattened source; the index_select kernel refuses, at run, a mask with more trues than source
// has elements, where PyTorch raises too.
Results MaskedScatter(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mask, ctx.Tensor(call, "mask"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * source, ctx.Tensor(call, "source"));
  EdgeBuilder &builder = ctx.builder();
  const std::vector<int64_t> &sizes = ctx.OutputType().sizes;
  TORCHIR_ASSIGN_OR_RETURN(x, builder.CastTo(x, ctx.OutputType().dtype));
  TORCHIR_ASSIGN_OR_RETURN(x, ExpandTo(builder, x, sizes));
  TORCHIR_ASSIGN_OR_RETURN(mask, builder.CastTo(mask, ir::DType::kBool));
  TORCHIR_ASSIGN_OR_RETURN(mask, ExpandTo(builder, mask, sizes));
  const int64_t numel = ctx.OutputType().numel();
  const int64_t available = source->type().numel();
  if (numel == 0 || available == 0) {
    // Nothing to read: PyTorch leaves self (or raises when a mask entry is true).
    if (available == 0 && numel > 0) {
      return Unsupported(
          "masked_scatter from an empty source (an error unless the mask is all "
          "false)");
    }
    return Single(x);
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flat_mask, builder.ReshapeTo(mask, {numel}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * counts, builder.CastTo(flat_mask, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(counts,
                           builder.Emit1("edge.cumsum", {counts}, {{"dim", AttrValue::Int(0)}}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * one, builder.Scalar(1.0, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * picks, builder.Emit1("edge.sub", {counts, one}));
  // Before the first true the count is 0: those positions read element 0 and are not kept.
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * zero, builder.Scalar(0.0, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(picks, builder.Emit1("edge.maximum", {picks, zero}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flat_source, builder.ReshapeTo(source, {available}));
  TORCHIR_ASSIGN_OR_RETURN(flat_source, builder.CastTo(flat_source, x->dtype()));
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * picked,
      builder.Emit1("edge.index_select", {flat_source, picks}, {{"dim", AttrValue::Int(0)}}));
  TORCHIR_ASSIGN_OR_RETURN(picked, builder.ReshapeTo(picked, sizes));
  return Single(builder.Emit1("edge.where", {mask, picked, x}));
}

// ATen view ops whose result is not the contiguous, offset-0 layout of their input's storage.
bool IsStridedView(const std::string &op) {
  static const char *const kViews[] = {
      "aten.permute.",      "aten.transpose.", "aten.t.",        "aten.expand.",
      "aten.slice.",        "aten.select.",    "aten.diagonal.", "aten.as_strided.",
      "aten.unfold.",       "aten.narrow.",    "aten.split.",    "aten.split_with_sizes.",
      "aten.chunk.",        "aten.unbind.",    "aten.movedim.",  "aten.swapaxes.",
      "aten.swapdims.",     "aten.numpy_T.",   "aten.mT.",       "aten.expand_as.",
      "aten.tensor_split.", "aten.alias."};
  for (const char *view : kViews) {
    if (op.rfind(view, 0) == 0) return true;
  }
  return false;
}

// Fails unless the ATen value `x` is surely dense and row-major in eager PyTorch, the layout
// as_strided reads: no strided view may be upstream of it, since eager elementwise ops and
// clones keep their input's strides. The search stops at ops whose result is always a fresh
// contiguous tensor; a reshape that copied is refused too (conservatively: whether it copied
// depends on the strides).
absl::Status CheckDenseStorage(const ir::Value *x) {
  static const char *const kFresh[] = {"aten.contiguous.", "aten.mm.",           "aten.bmm.",
                                       "aten.addmm.",      "aten.matmul.",       "aten.linear.",
                                       "aten.cat.",        "aten.index_select.", "aten.embedding."};
  std::vector<const ir::Value *> pending = {x};
  std::set<const ir::Node *> seen;
  while (!pending.empty()) {
    const ir::Node *producer = pending.back()->producer();
    pending.pop_back();
    if (producer == nullptr || !seen.insert(producer).second) continue;
    const std::string &op = producer->op();
    if (IsStridedView(op)) {
      return Unsupported(absl::StrCat(
          "as_strided of a tensor computed from ", op, " ('", producer->name(),
          "'), a strided view: eager PyTorch may lay it out other than row-major, and torchir "
          "tensors carry no strides (make it .contiguous() first)"));
    }
    bool fresh = false;
    for (const char *prefix : kFresh) fresh = fresh || op.rfind(prefix, 0) == 0;
    if (fresh) continue;
    for (size_t i = 0; i < producer->num_inputs(); ++i) pending.push_back(producer->input(i));
  }
  return absl::OkStatus();
}

// as_strided(self, size, stride, storage_offset) and as_strided_copy: out[i...] =
// storage[offset + sum(i_d * stride_d)], read from self's storage, which torchir knows as self's
// elements in row-major order: so self must be dense there (CheckDenseStorage). The positions are
// computed at compile time and checked against the storage's size; an index_select of the
// flattened input reads them (overlapping windows included).
Results AsStrided(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * aten_self, call.Tensor("self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.IntList("size"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.IntList("stride"));
  TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> storage_offset,
                           call.OptionalInt("storage_offset"));
  TORCHIR_RETURN_IF_ERROR(CheckDenseStorage(aten_self));
  if (stride.size() != size.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("as_strided: ", stride.size(), " strides for ", size.size(), " dims"));
  }
  const int64_t offset = storage_offset.value_or(0);
  const int64_t storage = x->type().numel();
  int64_t numel = 1;
  int64_t last = offset;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0 || stride[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("as_strided: negative size or stride in size [", absl::StrJoin(size, ", "),
                       "], stride [", absl::StrJoin(stride, ", "), "]"));
    }
    numel *= size[d];
    if (size[d] > 0) last += (size[d] - 1) * stride[d];
  }
  if (offset < 0 || (numel > 0 && last >= storage)) {
    return absl::InvalidArgumentError(
        absl::StrCat("as_strided: size [", absl::StrJoin(size, ", "), "], stride [",
                     absl::StrJoin(stride, ", "), "] and storage offset ", offset,
                     " reach element ", last, " of a storage of ", storage, " elements"));
  }
  EdgeBuilder &builder = ctx.builder();
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{ir::DType::kInt64, {numel}}));
  std::vector<int64_t> positions;
  positions.reserve(static_cast<size_t>(numel));
  std::vector<int64_t> coordinate(size.size(), 0);
  for (int64_t i = 0; i < numel; ++i) {
    int64_t position = offset;
    for (size_t d = 0; d < size.size(); ++d) position += coordinate[d] * stride[d];
    positions.push_back(position);
    for (size_t d = size.size(); d-- > 0;) {
      if (++coordinate[d] < size[d]) break;
      coordinate[d] = 0;
    }
  }
  if (numel == 0) return FillWith(ctx, ir::Number{true, 0, 0.0});
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * flat, builder.ReshapeTo(x, {storage}));
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * picked,
      builder.Emit1("edge.index_select", {flat, Int64Vector(builder, positions)},
                    {{"dim", AttrValue::Int(0)}}));
  return Single(builder.ReshapeTo(picked, size));
}

// _embedding_bag / _embedding_bag_forward_only / embedding_bag(.padding_idx)(weight [V, D],
// indices [n], offsets, ..., mode, ..., per_sample_weights, include_last_offset, padding_idx):
// output 0, [B, D], a sum (mode 0), mean (1) or max (2) of the weight rows of each bag; the
// other outputs (offset2bag, bag sizes, max indices) only serve the backward pass. The offsets
// are run-time values, so each index position's bag is computed in the graph: bag[j] = (number
// of bag starts <= j) - 1 over a [B, n] comparison. Rows are gathered, weighted, and combined
// into [B + 1, D] by an edge.scatter; positions that must not count (padding_idx entries, and
// for sums those past the last offset with include_last_offset) go to the spare row B, cut off
// at the end. Mean divides by the count of non-padding entries (at least 1); max starts every
// bag it reaches from the identity and leaves empty bags 0. As ATen's CPU kernels (checked in
// aten_edge_agreement_test): with include_last_offset and a last offset short of the end, the
// last bag's max and mean count run to the end of the indices, and so do its sum and mean
// numerator except on ATen's fast path, which stops them at the last offset.
Results EmbeddingBag(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.Tensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * ids, ctx.Tensor(call, "indices"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * offsets, ctx.Tensor(call, "offsets"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t mode, call.Int("mode"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * sample_weights,
                           ctx.OptionalTensor(call, "per_sample_weights"));
  TORCHIR_ASSIGN_OR_RETURN(bool include_last_offset, call.Bool("include_last_offset"));
  int64_t padding_idx = -1;
  if (call.Find("padding_idx").ok() && !call.IsNone("padding_idx")) {
    TORCHIR_ASSIGN_OR_RETURN(padding_idx, call.Int("padding_idx"));
  }
  if (weight->type().rank() != 2 || ids->type().rank() != 1 || offsets->type().rank() != 1) {
    return Unsupported(absl::StrCat(
        "embedding_bag of weight ", weight->type().ToString(), ", indices ", ids->type().ToString(),
        ", offsets ", offsets->type().ToString(), " (2-d weight, 1-d indices and offsets)"));
  }
  if (mode < 0 || mode > 2) return Unsupported(absl::StrCat("embedding_bag mode ", mode));
  if (sample_weights != nullptr && mode != 0) {
    return absl::InvalidArgumentError("embedding_bag: per_sample_weights need mode 'sum'");
  }
  EdgeBuilder &builder = ctx.builder();
  const int64_t n = ids->sizes()[0];
  const int64_t dim = weight->sizes()[1];
  const int64_t bags = offsets->sizes()[0] - (include_last_offset ? 1 : 0);
  if (bags <= 0 || n == 0) return Unsupported("embedding_bag with no bags or no indices");
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(ir::TensorType{ir::DType::kBool, {bags, n}}));
  std::vector<int64_t> positions(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) positions[static_cast<size_t>(j)] = j;
  ir::Value *position = Int64Vector(builder, positions);
  TORCHIR_ASSIGN_OR_RETURN(offsets, builder.CastTo(offsets, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * starts, SliceDim(builder, offsets, 0, 0, bags));
  TORCHIR_ASSIGN_OR_RETURN(starts, builder.ReshapeTo(starts, {bags, 1}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * row, builder.ReshapeTo(position, {1, n}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * started, builder.Emit1("edge.le", {starts, row}));
  TORCHIR_ASSIGN_OR_RETURN(started, builder.CastTo(started, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bag, builder.Emit1("edge.sum", {started},
                                                          {{"dims", AttrValue::IntList({0})},
                                                           {"keepdim", AttrValue::Bool(false)}}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * one, builder.Scalar(1.0, ir::DType::kInt64));
  TORCHIR_ASSIGN_OR_RETURN(bag, builder.Emit1("edge.sub", {bag, one}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * spare,
                           builder.Scalar(static_cast<double>(bags), ir::DType::kInt64));
  // Bag of each position with the excluded ones sent to the spare row.
  auto redirect = [&](ir::Value *excluded, ir::Value *to) -> absl::StatusOr<ir::Value *> {
    if (excluded == nullptr) return to;
    return builder.Emit1("edge.where", {excluded, spare, to});
  };
  ir::Value *padding = nullptr;
  if (padding_idx >= 0) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * pad_id,
                             builder.Scalar(static_cast<double>(padding_idx), ids->dtype()));
    TORCHIR_ASSIGN_OR_RETURN(padding, builder.Emit1("edge.eq", {ids, pad_id}));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * kept_bag, redirect(padding, bag));
  ir::Value *summed_bag = kept_bag;
  const ir::DType dtype = ctx.OutputType().dtype;
  // Only ATen's fast path (float32/float16/bfloat16 sums and means without a padding_idx)
  // stops the last bag at the last offset; its other paths run on to the end of the indices.
  const bool fast_path =
      padding_idx < 0 && (dtype == ir::DType::kFloat32 || dtype == ir::DType::kFloat16 ||
                          dtype == ir::DType::kBFloat16);
  if (include_last_offset && mode != 2 && fast_path) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * end, SliceDim(builder, offsets, 0, bags, bags + 1));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * past, builder.Emit1("edge.ge", {position, end}));
    TORCHIR_ASSIGN_OR_RETURN(summed_bag, redirect(past, kept_bag));
  }
  TORCHIR_ASSIGN_OR_RETURN(weight, builder.CastTo(weight, dtype));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * rows, builder.Emit1("edge.index_select", {weight, ids},
                                                           {{"dim", AttrValue::Int(0)}}));
  if (sample_weights != nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(sample_weights, builder.CastTo(sample_weights, dtype));
    TORCHIR_ASSIGN_OR_RETURN(sample_weights, builder.ReshapeTo(sample_weights, {n, 1}));
    TORCHIR_ASSIGN_OR_RETURN(rows, builder.Emit1("edge.mul", {rows, sample_weights}));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * zeros, Filled(builder, 0.0, dtype, {bags + 1, dim}));
  auto into_bags = [&](ir::Value *targets, const char *reduce,
                       bool include_self) -> absl::StatusOr<ir::Value *> {
    TORCHIR_ASSIGN_OR_RETURN(targets, builder.ReshapeTo(targets, {n, 1}));
    TORCHIR_ASSIGN_OR_RETURN(targets, ExpandTo(builder, targets, {n, dim}));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * combined,
                             builder.Emit1("edge.scatter", {zeros, targets, rows},
                                           ScatterAttrs(0, reduce, include_self)));
    return SliceDim(builder, combined, 0, 0, bags);
  };
  // Only output 0 has a value; the driver refuses a graph that reads the others.
  auto first_of_four = [](absl::StatusOr<ir::Value *> out) -> Results {
    if (!out.ok()) return out.status();
    return std::vector<ir::Value *>{*out, nullptr, nullptr, nullptr};
  };
  if (mode == 2) return first_of_four(into_bags(kept_bag, "amax", false));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * sums, into_bags(summed_bag, "sum", true));
  if (mode == 0) return first_of_four(sums);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * no_counts, Filled(builder, 0.0, dtype, {bags + 1}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * ones, Filled(builder, 1.0, dtype, {n}));
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * counts,
      builder.Emit1("edge.scatter", {no_counts, kept_bag, ones}, ScatterAttrs(0, "sum")));
  TORCHIR_ASSIGN_OR_RETURN(counts, SliceDim(builder, counts, 0, 0, bags));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * at_least, builder.Scalar(1.0, dtype));
  TORCHIR_ASSIGN_OR_RETURN(counts, builder.Emit1("edge.maximum", {counts, at_least}));
  TORCHIR_ASSIGN_OR_RETURN(counts, builder.ReshapeTo(counts, {bags, 1}));
  return first_of_four(builder.Emit1("edge.div", {sums, counts}));
}

// --- Upsampling
// ------------------------------------------------------------------------------

// The scale factors an upsample_*.vec call gives (None: none), and the per-dim `scales_*` of the
// plain overloads, as the source-to-destination ratios ATen uses: 1 / scale when a positive
// scale is given, else input / output (in float, as ATen's float kernels compute it).
float SourceScale(std::optional<double> scale, int64_t input, int64_t output) {
  if (scale.has_value() && *scale > 0.0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(input) / static_cast<float>(output);
}

// The scales of the two spatial dims: `scales_h`/`scales_w` (plain overloads) or
// `scale_factors` (.vec overloads).
absl::StatusOr<std::vector<std::optional<double>>> UpsampleScales(const AtenCall &call) {
  std::vector<std::optional<double>> scales(2);
  if (call.Find("scale_factors").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(AttrValue value, call.Value("scale_factors"));
    if (value.kind() == AttrValue::Kind::kDoubleList) {
      const std::vector<double> &factors = value.as_double_list();
      if (factors.size() != 2) return Unsupported("upsampling with scale_factors not 2 long");
      scales = {factors[0], factors[1]};
    }
    return scales;
  }
  TORCHIR_ASSIGN_OR_RETURN(scales[0], call.OptionalDouble("scales_h"));
  TORCHIR_ASSIGN_OR_RETURN(scales[1], call.OptionalDouble("scales_w"));
  return scales;
}

// The input of a 2-d upsampling op ("self" or "input"), which must be [N, C, H, W].
absl::StatusOr<ir::Value *> UpsampleInput(LoweringContext &ctx, const AtenCall &call) {
  ir::Value *x = nullptr;
  if (call.Find("self").ok()) {
    TORCHIR_ASSIGN_OR_RETURN(x, ctx.Tensor(call, "self"));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(x, ctx.Tensor(call, "input"));
  }
  if (x->type().rank() != 4 || ctx.OutputType().rank() != 4) {
    return Unsupported("2-d upsampling of an input that is not [N, C, H, W]");
  }
  return x;
}

// upsample_nearest2d (exact = false) and _upsample_nearest_exact2d (true), both overloads: per
// spatial dim an index_select with ATen's source indices, floor(dst * scale) or
// floor((dst + 0.5) * scale), clamped to the input; no node where the size is unchanged.
Results UpsampleNearest(LoweringContext &ctx, const AtenCall &call, bool exact) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, UpsampleInput(ctx, call));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<std::optional<double>> scales, UpsampleScales(call));
  for (int i = 0; i < 2; ++i) {
    const int64_t dim = 2 + i;
    const int64_t input = x->sizes()[dim];
    const int64_t output = ctx.OutputType().sizes[dim];
    if (input == output && !exact) continue;
    if (input == 0) return Unsupported("upsampling of an empty input");
    const float scale = SourceScale(scales[i], input, output);
    std::vector<int64_t> index;
    for (int64_t o = 0; o < output; ++o) {
      const float source = exact ? (static_cast<float>(o) + 0.5f) * scale
                                 : static_cast<float>(o) * scale;
      index.push_back(std::min(static_cast<int64_t>(std::floor(source)), input - 1));
    }
    TORCHIR_ASSIGN_OR_RETURN(x, PickAlong(ctx.builder(), x, dim, index));
  }
  return std::vector<ir::Value *>{x};
}
Results UpsampleNearest2d(LoweringContext &ctx, const AtenCall &call) {
  return UpsampleNearest(ctx, call, false);
}
Results UpsampleNearestExact2d(LoweringContext &ctx, const AtenCall &call) {
  return UpsampleNearest(ctx, call, true);
}

// upsample_bilinear2d, both overloads: edge.upsample_bilinear2d (the scales only matter when
// given: 0 stands for none).
Results UpsampleBilinear2d(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, UpsampleInput(ctx, call));
  TORCHIR_ASSIGN_OR_RETURN(bool align_corners, call.Bool("align_corners"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<std::optional<double>> scales, UpsampleScales(call));
  if (x->sizes()[2] == 0 || x->sizes()[3] == 0) return Unsupported("upsampling of an empty input");
  const std::vector<int64_t> &out = ctx.OutputType().sizes;
  return Single(ctx.builder().Emit1(
      "edge.upsample_bilinear2d", {x},
      {{"output_size", AttrValue::IntList({out[2], out[3]})},
       {"align_corners", AttrValue::Bool(align_corners)},
       {"scales_h", AttrValue::Double(scales[0].value_or(0.0))},
       {"scales_w", AttrValue::Double(scales[1].value_or(0.0))}}));
}

// --- Grid sampling --------------------------------------------------------------------------

// grid_sampler_2d (F.grid_sample of a 4-d input) and grid_sampler of a 4-d input, which
// dispatches to it: edge.grid_sampler_2d, float32 only. The mode integers are ATen's.
Results GridSampler2d(LoweringContext &ctx, const AtenCall &call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * grid, ctx.Tensor(call, "grid"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t interpolation, call.Int("interpolation_mode"));
  TORCHIR_ASSIGN_OR_RETURN(int64_t padding, call.Int("padding_mode"));
  TORCHIR_ASSIGN_OR_RETURN(bool align_corners, call.Bool("align_corners"));
  if (x->type().rank() != 4) {
    return Unsupported(absl::StrCat("grid sampling of a rank-", x->type().rank(),
                                    " input (only 4-d, grid_sampler_2d)"));
  }
  if (x->dtype() != ir::DType::kFloat32 || grid->dtype() != ir::DType::kFloat32) {
    return Unsupported("grid sampling of a non-float32 input or grid");
  }
  if (interpolation < 0 || interpolation > 2 || padding < 0 || padding > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "interpolation_mode ", interpolation, " or padding_mode ", padding, " is not 0, 1 or 2"));
  }
  return Single(ctx.builder().Emit1("edge.grid_sampler_2d", {x, grid},
                                    {{"interpolation_mode", AttrValue::Int(interpolation)},
                                     {"padding_mode", AttrValue::Int(padding)},
                                     {"align_corners", AttrValue::Bool(align_corners)}}));
}

}  // namespace

absl::StatusOr<ir::Value *> WriteThroughView(EdgeBuilder &builder, const ir::Node &view_node,
                                             ir::Value *base, ir::Value *updated) {
  const bool is_slice = view_node.op() == "aten.slice.Tensor";
  if (!is_slice && view_node.op() != "aten.select.int") return nullptr;
  TORCHIR_ASSIGN_OR_RETURN(AtenCall call, dialect::BindAtenCall(view_node));
  if (base->type().rank() == 0) return Unsupported("a write through a view of a 0-d tensor");
  TORCHIR_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  TORCHIR_ASSIGN_OR_RETURN(dim, Dim(dim, base->type().rank()));
  const int64_t size = base->sizes()[dim];
  int64_t start = 0, end = 0, step = 1;
  if (is_slice) {
    TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> start_arg, call.OptionalInt("start"));
    TORCHIR_ASSIGN_OR_RETURN(std::optional<int64_t> end_arg, call.OptionalInt("end"));
    TORCHIR_ASSIGN_OR_RETURN(step, call.Int("step"));
    start = start_arg.value_or(0);
    end = end_arg.value_or(size);
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
  } else {
    TORCHIR_ASSIGN_OR_RETURN(start, call.Int("index"));
    if (start < -size || start >= size) {
      return absl::InvalidArgumentError(
          absl::StrCat("index ", start, " is out of range for size ", size));
    }
    if (start < 0) start += size;
    end = start + 1;
  }
  return ScatterSliceStepped(builder, base, updated, dim, start, end, step);
}

void AddDataMovementRules(RuleTable &table) {
  for (const char *op : {"aten.view.default", "aten._unsafe_view.default", "aten.view_copy.default",
                         "aten._reshape_alias.default"}) {
    table.Add(op, ViewSize);
  }
  table.Add("aten.reshape.default", ReshapeShape);
  for (const char *op : {"aten.flatten.using_ints", "aten.squeeze.dim", "aten.squeeze.dims",
                         "aten.squeeze.default", "aten.unsqueeze.default", "aten.unflatten.int"}) {
    table.Add(op, ReshapeToOutput);
  }
  table.Add("aten.permute.default", Permute);
  table.Add("aten.transpose.int", Transpose);
  table.Add("aten.swapaxes.default", Swapaxes);
  table.Add("aten.movedim.int", MovedimInt);
  table.Add("aten.movedim.intlist", MovedimIntList);
  table.Add("aten.expand.default", Expand);
  table.Add("aten.broadcast_to.default", Expand);
  table.Add("aten.expand_as.default", ExpandAs);
  table.Add("aten.slice.Tensor", Slice);
  table.Add("aten.select.int", Select);
  table.Add("aten.cat.default", Cat);
  table.Add("aten.split.Tensor", Split);
  table.Add("aten.split_with_sizes.default", SplitWithSizes);
  table.Add("aten.split.sizes", SplitSizes);
  table.Add("aten.split.default", SplitWithSizes);
  table.Add("aten.chunk.default", Chunk);
  table.Add("aten.unbind.int", Unbind);
  table.Add("aten.index.Tensor", Index);
  table.Add("aten.index_select.default", IndexSelect);
  table.Add("aten.embedding.default", Embedding);
  for (const char *op : {"aten._embedding_bag.default", "aten._embedding_bag_forward_only.default",
                         "aten.embedding_bag.default", "aten.embedding_bag.padding_idx"}) {
    table.Add(op, EmbeddingBag);
  }
  table.Add("aten.masked_scatter.default", MaskedScatter);
  table.Add("aten.masked_scatter_.default", MaskedScatter);
  table.Add("aten.as_strided.default", AsStrided);
  table.Add("aten.as_strided_copy.default", AsStrided);
  table.Add("aten.constant_pad_nd.default", ConstantPadNd);
  table.Add("aten.pad.default", Pad);
  table.Add("aten.arange.default", ArangeEnd);
  table.Add("aten.arange.start", ArangeStart);
  table.Add("aten.arange.start_step", ArangeStartStep);
  table.Add("aten.full.default", Full);
  table.Add("aten.full_like.default", Full);
  table.Add("aten.scalar_tensor.default", ScalarTensor);
  table.Add("aten.zeros.default", Zeros);
  table.Add("aten.zeros_like.default", Zeros);
  table.Add("aten.ones.default", Ones);
  table.Add("aten.ones_like.default", Ones);
  table.Add("aten.stack.default", Stack);
  table.Add("aten.hstack.default", Hstack);
  table.Add("aten.vstack.default", Vstack);
  table.Add("aten.dstack.default", Dstack);
  table.Add("aten.column_stack.default", ColumnStack);
  table.Add("aten.atleast_1d.default", ReshapeToOutput);
  table.Add("aten.atleast_2d.default", ReshapeToOutput);
  table.Add("aten.rot90.default", Rot90);
  table.Add("aten.narrow.default", Narrow);
  table.Add("aten.flip.default", Flip);
  table.Add("aten.fliplr.default", Fliplr);
  table.Add("aten.flipud.default", Flipud);
  table.Add("aten.roll.default", Roll);
  table.Add("aten.repeat.default", Repeat);
  table.Add("aten.tile.default", Tile);
  table.Add("aten.new_zeros.default", Zeros);
  table.Add("aten.new_ones.default", Ones);
  table.Add("aten.new_full.default", NewFull);
  table.Add("aten.new_empty.default", Empty);
  table.Add("aten.empty.memory_format", Empty);
  table.Add("aten.empty_like.default", Empty);
  table.Add("aten.empty_strided.default", EmptyStrided);
  table.Add("aten.new_empty_strided.default", EmptyStrided);
  table.Add("aten.fill.Scalar", FillScalar);
  table.Add("aten.fill_.Scalar", FillScalar);
  table.Add("aten.fill.Tensor", FillTensor);
  table.Add("aten.fill_.Tensor", FillTensor);
  table.Add("aten.copy.default", Copy);
  table.Add("aten.copy_.default", Copy);
  table.Add("aten.tril.default", Tril);
  table.Add("aten.triu.default", Triu);
  table.Add("aten.diagonal.default", Diagonal);
  table.Add("aten.pixel_shuffle.default", PixelShuffleRule);
  table.Add("aten.pixel_unshuffle.default", PixelUnshuffleRule);
  table.Add("aten.slice_scatter.default", SliceScatter);
  table.Add("aten.select_scatter.default", SelectScatter);
  table.Add("aten.gather.default", GatherRule);
  for (const char *op : {"aten.scatter.src", "aten.scatter.value", "aten.scatter_.src",
                         "aten.scatter_.value"}) {
    table.Add(op, ScatterRule);
  }
  for (const char *op : {"aten.scatter.reduce", "aten.scatter.value_reduce", "aten.scatter_.reduce",
                         "aten.scatter_.value_reduce"}) {
    table.Add(op, ScatterRule);
  }
  table.Add("aten.scatter_reduce.two", ScatterReduce);
  table.Add("aten.scatter_reduce_.two", ScatterReduce);
  table.Add("aten.scatter_add.default", ScatterAdd);
  table.Add("aten.scatter_add_.default", ScatterAdd);
  table.Add("aten.index_put.default", IndexPut);
  table.Add("aten.index_put_.default", IndexPut);
  table.Add("aten.upsample_nearest2d.default", UpsampleNearest2d);
  table.Add("aten.upsample_nearest2d.vec", UpsampleNearest2d);
  table.Add("aten._upsample_nearest_exact2d.default", UpsampleNearestExact2d);
  table.Add("aten._upsample_nearest_exact2d.vec", UpsampleNearestExact2d);
  table.Add("aten.upsample_bilinear2d.default", UpsampleBilinear2d);
  table.Add("aten.upsample_bilinear2d.vec", UpsampleBilinear2d);
  table.Add("aten.grid_sampler_2d.default", GridSampler2d);
  table.Add("aten.grid_sampler.default", GridSampler2d);
  // The *_copy forms functionalisation writes for views (copy_ into a view gives expand_copy).
  table.Add("aten.expand_copy.default", Expand);
  table.Add("aten.permute_copy.default", Permute);
  table.Add("aten.transpose_copy.int", Transpose);
  table.Add("aten.slice_copy.Tensor", Slice);
  table.Add("aten.select_copy.int", Select);
  table.Add("aten.unsqueeze_copy.default", ReshapeToOutput);
  table.Add("aten.diagonal_copy.default", Diagonal);
}

}  // namespace torchir::lowering
