// Lowering of views, permutes, slices, concatenation, splits, gathers, padding
// and factory ops. Shape ops take fully normalised Edge attributes (no -1, no
// negative dim, clamped slice bounds); a view that changes nothing emits no
// node.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "absl/strings/str_join.h"
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

}  // namespace

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
}

}  // namespace torchir::lowering
