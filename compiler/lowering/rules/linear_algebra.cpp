// Lowering of convolutions and matrix products.
#include <algorithm>

#include "compiler/dialect/shape_rules.h"
#include "compiler/ir/checked_math.h"
#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {
namespace {

using dialect::AtenCall;
using ir::AttrValue;

Attrs NoClamp() {
  return {{"output_min", AttrValue::Double(-kInfinity)},
          {"output_max", AttrValue::Double(kInfinity)}};
}

// conv1d/2d/3d and convolution share this: `spatial` dims, stride/padding/dilation lists.
// `input` replaces the call's input when given (already padded).
Results Convolution(LoweringContext& ctx, const AtenCall& call, int spatial,
                    std::vector<int64_t> padding, ir::Value* input = nullptr) {
  if (input == nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(input, ctx.Tensor(call, "input"));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.Tensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.IntList("stride", spatial));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, call.IntList("dilation", spatial));
  TORCHIR_ASSIGN_OR_RETURN(int64_t groups, call.Int("groups"));
  std::vector<ir::Value*> inputs = {input, weight};
  if (bias != nullptr) inputs.push_back(bias);
  Attrs attrs = {{"stride", AttrValue::IntList(stride)},
                 {"padding", AttrValue::IntList(padding)},
                 {"dilation", AttrValue::IntList(dilation)},
                 {"groups", AttrValue::Int(groups)}};
  for (auto& clamp : NoClamp()) attrs.push_back(clamp);
  return Single(ctx.builder().Emit1("edge.convolution", inputs, attrs));
}

// conv1d/conv2d/conv3d.default: a padding list (one element broadcast to every dim).
template <int kSpatial>
Results ConvNd(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> padding, call.IntList("padding", kSpatial));
  return Convolution(ctx, call, kSpatial, padding);
}

// conv*.padding overloads: padding is "valid" or "same". "same" pads dilation * (k - 1) in all;
// when that is odd, the extra element goes after the end, as PyTorch's F.pad of the input does.
template <int kSpatial>
Results ConvStringPadding(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(std::string mode, call.String("padding"));
  std::vector<int64_t> padding(kSpatial, 0);
  ir::Value* input = nullptr;
  if (mode == "same") {
    TORCHIR_ASSIGN_OR_RETURN(input, ctx.Tensor(call, "input"));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.Tensor(call, "weight"));
    TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, call.IntList("dilation", kSpatial));
    // constant_pad's pairs run innermost dim first (batched or not).
    std::vector<int64_t> extra(2 * kSpatial, 0);
    bool asymmetric = false;
    for (int i = 0; i < kSpatial; ++i) {
      int64_t total = 0;
      if (weight->type().rank() != kSpatial + 2 || dilation[i] <= 0 ||
          weight->sizes()[2 + i] < 1 ||
          !ir::CheckedMul(dilation[i], weight->sizes()[2 + i] - 1, &total)) {
        return absl::InvalidArgumentError(
            absl::StrCat("padding='same' with dilation[", i, "] = ", dilation[i], " and weight ",
                         weight->type().ToString(), " has no valid padding"));
      }
      padding[i] = total / 2;
      if (total % 2 != 0) {
        extra[2 * (kSpatial - 1 - i) + 1] = 1;
        asymmetric = true;
      }
    }
    if (asymmetric) {
      TORCHIR_ASSIGN_OR_RETURN(input, ctx.builder().Emit1("edge.constant_pad", {input},
                                                          {{"pad", AttrValue::IntList(extra)},
                                                           {"value", AttrValue::Double(0.0)}}));
    }
  } else if (mode != "valid") {
    return Unsupported(absl::StrCat("padding='", mode, "'"));
  }
  return Convolution(ctx, call, kSpatial, padding, input);
}

// --- Transposed convolution ----------------------------------------------------------------------

// `x` with stride - 1 zeros between neighbours along dim `dim`: a size-1 dim inserted after it,
// padded to `stride`, merged back and the trailing zeros cut.
absl::StatusOr<ir::Value*> Dilate(EdgeBuilder& builder, ir::Value* x, int64_t dim,
                                  int64_t stride) {
  const int64_t length = x->sizes()[dim];
  if (stride == 1 || length == 0) return x;
  std::vector<int64_t> sizes = x->sizes();
  sizes.insert(sizes.begin() + dim + 1, 1);
  TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, sizes));
  // Pad pairs run innermost dim first: the new dim's pair is number rank - 1 - (dim + 1).
  const int64_t pair = static_cast<int64_t>(sizes.size()) - 2 - dim;
  std::vector<int64_t> pad(static_cast<size_t>(2 * (pair + 1)), 0);
  pad[2 * pair + 1] = stride - 1;
  TORCHIR_ASSIGN_OR_RETURN(x, builder.Emit1("edge.constant_pad", {x},
                                            {{"pad", AttrValue::IntList(pad)},
                                             {"value", AttrValue::Double(0.0)}}));
  sizes.erase(sizes.begin() + dim + 1);
  sizes[dim] = length * stride;
  TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, sizes));
  return builder.Emit1("edge.slice", {x},
                       {{"dim", AttrValue::Int(dim)},
                        {"start", AttrValue::Int(0)},
                        {"end", AttrValue::Int((length - 1) * stride + 1)},
                        {"step", AttrValue::Int(1)}});
}

// A transposed convolution as the direct convolution it equals:
//   1. the input dilated by the stride (stride - 1 zeros between neighbours);
//   2. padded by dilation * (k - 1) - padding on each side, plus output_padding at the end
//      (a negative amount crops);
//   3. convolved (stride 1, no padding, the same dilation and groups) with the weight
//      [C_in, C_out / groups, k...] regrouped to [C_out, C_in / groups, k...] and flipped in
//      every spatial dim.
// The weight steps are reshapes, a permute, slices and concatenations, which constant folding
// evaluates for a constant weight.
Results TransposedConvolution(LoweringContext& ctx, const AtenCall& call, int spatial) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.Tensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.IntList("stride", spatial));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> padding, call.IntList("padding", spatial));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> output_padding,
                           call.IntList("output_padding", spatial));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, call.IntList("dilation", spatial));
  TORCHIR_ASSIGN_OR_RETURN(int64_t groups, call.Int("groups"));
  const int64_t rank = spatial + 2;
  if (input->type().rank() != rank || weight->type().rank() != rank) {
    return Unsupported(absl::StrCat("transposed convolution of a rank-", input->type().rank(),
                                    " input with a rank-", weight->type().rank(), " weight"));
  }
  const int64_t in_channels = weight->sizes()[0];
  if (groups < 1 || in_channels % groups != 0 || input->sizes()[1] != in_channels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "transposed convolution: weight ", weight->type().ToString(), " with groups ", groups,
        " does not fit input ", input->type().ToString()));
  }
  for (int i = 0; i < spatial; ++i) {
    if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0 || output_padding[i] < 0) {
      return absl::InvalidArgumentError("transposed convolution: invalid stride, dilation or padding");
    }
  }
  EdgeBuilder& builder = ctx.builder();
  // 1 and 2: the input.
  ir::Value* x = input;
  std::vector<int64_t> pad;
  for (int i = spatial; i-- > 0;) {
    TORCHIR_ASSIGN_OR_RETURN(x, Dilate(builder, x, 2 + i, stride[i]));
    const int64_t reach = dilation[i] * (weight->sizes()[2 + i] - 1);
    pad.push_back(reach - padding[i]);
    pad.push_back(reach - padding[i] + output_padding[i]);
  }
  if (std::any_of(pad.begin(), pad.end(), [](int64_t p) { return p != 0; })) {
    TORCHIR_ASSIGN_OR_RETURN(x, builder.Emit1("edge.constant_pad", {x},
                                              {{"pad", AttrValue::IntList(pad)},
                                               {"value", AttrValue::Double(0.0)}}));
  }
  // 3: the weight, regrouped and flipped.
  const int64_t out_per_group = weight->sizes()[1];
  std::vector<int64_t> kernel(weight->sizes().begin() + 2, weight->sizes().end());
  std::vector<int64_t> grouped = {groups, in_channels / groups, out_per_group};
  grouped.insert(grouped.end(), kernel.begin(), kernel.end());
  ir::Value* w = weight;
  if (groups > 1 || in_channels > 1 || out_per_group > 1) {
    TORCHIR_ASSIGN_OR_RETURN(w, builder.ReshapeTo(w, grouped));
    std::vector<int64_t> order = {0, 2, 1};
    for (int i = 0; i < spatial; ++i) order.push_back(3 + i);
    TORCHIR_ASSIGN_OR_RETURN(w, builder.Emit1("edge.permute", {w},
                                              {{"dims", AttrValue::IntList(order)}}));
  }
  std::vector<int64_t> regrouped = {groups * out_per_group, in_channels / groups};
  regrouped.insert(regrouped.end(), kernel.begin(), kernel.end());
  TORCHIR_ASSIGN_OR_RETURN(w, builder.ReshapeTo(w, regrouped));
  for (int i = 0; i < spatial; ++i) {
    if (kernel[i] <= 1) continue;
    // Reversed as single-entry slices concatenated backwards: both fold on constants.
    std::vector<ir::Value*> taps;
    for (int64_t k = kernel[i]; k-- > 0;) {
      TORCHIR_ASSIGN_OR_RETURN(ir::Value * tap, builder.Emit1("edge.slice", {w},
                                                              {{"dim", AttrValue::Int(2 + i)},
                                                               {"start", AttrValue::Int(k)},
                                                               {"end", AttrValue::Int(k + 1)},
                                                               {"step", AttrValue::Int(1)}}));
      taps.push_back(tap);
    }
    TORCHIR_ASSIGN_OR_RETURN(w, builder.Emit1("edge.concatenate", taps,
                                              {{"dim", AttrValue::Int(2 + i)}}));
  }
  std::vector<ir::Value*> inputs = {x, w};
  if (bias != nullptr) inputs.push_back(bias);
  Attrs attrs = {{"stride", AttrValue::IntList(std::vector<int64_t>(spatial, 1))},
                 {"padding", AttrValue::IntList(std::vector<int64_t>(spatial, 0))},
                 {"dilation", AttrValue::IntList(dilation)},
                 {"groups", AttrValue::Int(groups)}};
  for (auto& clamp : NoClamp()) attrs.push_back(clamp);
  return Single(builder.Emit1("edge.convolution", inputs, attrs));
}

template <int kSpatial>
Results ConvTransposeNd(LoweringContext& ctx, const AtenCall& call) {
  return TransposedConvolution(ctx, call, kSpatial);
}

Results CoreConvolution(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(bool transposed, call.Bool("transposed"));
  if (transposed) {
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "input"));
    return TransposedConvolution(ctx, call, static_cast<int>(x->type().rank()) - 2);
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  const int spatial = static_cast<int>(input->type().rank()) - 2;
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> padding, call.IntList("padding", spatial));
  return Convolution(ctx, call, spatial, padding);
}

// --- im2col / col2im (F.unfold / F.fold) ---------------------------------------------------------
//
// Both are data movement over the kernel taps, so they lower to exact pads, slices, concatenations
// and additions (no convolution with a one-hot weight, whose 0 * inf would turn an infinity
// anywhere in a window into NaN).

struct Patches {
  std::vector<int64_t> kernel, dilation, padding, stride;
};

absl::StatusOr<Patches> PatchArguments(const AtenCall& call) {
  Patches p;
  TORCHIR_ASSIGN_OR_RETURN(p.kernel, call.IntList("kernel_size", 2));
  TORCHIR_ASSIGN_OR_RETURN(p.dilation, call.IntList("dilation", 2));
  TORCHIR_ASSIGN_OR_RETURN(p.padding, call.IntList("padding", 2));
  TORCHIR_ASSIGN_OR_RETURN(p.stride, call.IntList("stride", 2));
  for (int i = 0; i < 2; ++i) {
    if (p.kernel[i] < 1 || p.dilation[i] < 1 || p.padding[i] < 0 || p.stride[i] < 1) {
      return absl::InvalidArgumentError(
          "kernel_size, dilation and stride must be positive and padding non-negative");
    }
  }
  return p;
}

// The number of patch positions along a dim of `length` (PyTorch's formula); an error when the
// padded length is shorter than one dilated kernel.
absl::StatusOr<int64_t> PatchCount(int64_t length, const Patches& p, int i) {
  const int64_t span = p.dilation[i] * (p.kernel[i] - 1) + 1;
  const int64_t padded = length + 2 * p.padding[i];
  if (padded < span) {
    return absl::InvalidArgumentError(
        absl::StrCat("a padded length of ", padded, " is shorter than the dilated kernel ", span));
  }
  return (padded - span) / p.stride[i] + 1;
}

// ATen's im2col / col2im take floating tensors only; the float32 ones lower (the Edge ops used
// would take integers too, but ATen refuses them).
absl::Status CheckPatchDType(const ir::Value& x, const char* op) {
  if (x.dtype() == ir::DType::kFloat32) return absl::OkStatus();
  return Unsupported(absl::StrCat(op, " of a tensor of dtype ",
                                  std::string(ir::DTypeName(x.dtype())), " (float32 only)"));
}

absl::StatusOr<ir::Value*> SliceOf(EdgeBuilder& builder, ir::Value* x, int64_t dim, int64_t start,
                                   int64_t end, int64_t step) {
  return builder.Emit1("edge.slice", {x},
                       {{"dim", AttrValue::Int(dim)},
                        {"start", AttrValue::Int(start)},
                        {"end", AttrValue::Int(end)},
                        {"step", AttrValue::Int(step)}});
}

absl::StatusOr<ir::Value*> PadLastTwo(EdgeBuilder& builder, ir::Value* x, int64_t top,
                                      int64_t bottom, int64_t left, int64_t right) {
  if (top == 0 && bottom == 0 && left == 0 && right == 0) return x;
  return builder.Emit1(
      "edge.constant_pad", {x},
      {{"pad", AttrValue::IntList({left, right, top, bottom})}, {"value", AttrValue::Double(0.0)}});
}

// im2col(self [N, C, H, W] or [C, H, W]) -> [N, C * kh * kw, L]: the zero-padded input sliced
// once per tap (a strided [OH, OW] grid), the taps concatenated in row-major tap order behind
// each channel.
Results Im2col(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(Patches p, PatchArguments(call));
  const int64_t rank = x->type().rank();
  if (rank != 3 && rank != 4) return Unsupported(absl::StrCat("im2col of a rank-", rank, " input"));
  TORCHIR_RETURN_IF_ERROR(CheckPatchDType(*x, "im2col"));
  EdgeBuilder& builder = ctx.builder();
  if (rank == 3) {
    std::vector<int64_t> batched = x->sizes();
    batched.insert(batched.begin(), 1);
    TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, batched));
  }
  const int64_t batch = x->sizes()[0];
  const int64_t channels = x->sizes()[1];
  TORCHIR_ASSIGN_OR_RETURN(int64_t rows, PatchCount(x->sizes()[2], p, 0));
  TORCHIR_ASSIGN_OR_RETURN(int64_t cols, PatchCount(x->sizes()[3], p, 1));
  TORCHIR_ASSIGN_OR_RETURN(
      x, PadLastTwo(builder, x, p.padding[0], p.padding[0], p.padding[1], p.padding[1]));
  std::vector<ir::Value*> taps;
  for (int64_t a = 0; a < p.kernel[0]; ++a) {
    for (int64_t b = 0; b < p.kernel[1]; ++b) {
      const int64_t top = a * p.dilation[0];
      const int64_t left = b * p.dilation[1];
      TORCHIR_ASSIGN_OR_RETURN(
          ir::Value * tap,
          SliceOf(builder, x, 2, top, top + (rows - 1) * p.stride[0] + 1, p.stride[0]));
      TORCHIR_ASSIGN_OR_RETURN(
          tap, SliceOf(builder, tap, 3, left, left + (cols - 1) * p.stride[1] + 1, p.stride[1]));
      TORCHIR_ASSIGN_OR_RETURN(tap, builder.ReshapeTo(tap, {batch, channels, 1, rows * cols}));
      taps.push_back(tap);
    }
  }
  ir::Value* out = taps.front();
  if (taps.size() > 1) {
    TORCHIR_ASSIGN_OR_RETURN(out,
                             builder.Emit1("edge.concatenate", taps, {{"dim", AttrValue::Int(2)}}));
  }
  return Single(builder.ReshapeTo(out, ctx.OutputType().sizes));
}

// col2im(self [N, C * kh * kw, L] or [C * kh * kw, L], output_size) -> [N, C, H, W]: every tap's
// [OH, OW] grid spread out by the stride (Dilate), shifted to its offset in the zero-padded
// output and summed in tap order (ATen's order, so the sums round alike), the padding then cut.
Results Col2im(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> output_size, call.IntList("output_size", 2));
  TORCHIR_ASSIGN_OR_RETURN(Patches p, PatchArguments(call));
  const int64_t rank = x->type().rank();
  if (rank != 2 && rank != 3) return Unsupported(absl::StrCat("col2im of a rank-", rank, " input"));
  TORCHIR_RETURN_IF_ERROR(CheckPatchDType(*x, "col2im"));
  EdgeBuilder& builder = ctx.builder();
  if (rank == 2) {
    TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, {1, x->sizes()[0], x->sizes()[1]}));
  }
  const int64_t taps = p.kernel[0] * p.kernel[1];
  const int64_t batch = x->sizes()[0];
  TORCHIR_ASSIGN_OR_RETURN(int64_t rows, PatchCount(output_size[0], p, 0));
  TORCHIR_ASSIGN_OR_RETURN(int64_t cols, PatchCount(output_size[1], p, 1));
  if (x->sizes()[1] % taps != 0 || x->sizes()[2] != rows * cols) {
    return absl::InvalidArgumentError(
        absl::StrCat("col2im input ", x->type().ToString(), " does not hold ", taps,
                     " taps per channel over ", rows, "x", cols, " positions"));
  }
  const int64_t channels = x->sizes()[1] / taps;
  if (batch == 0 || channels == 0 || rows * cols == 0) {
    return Unsupported("col2im of an empty input");
  }
  TORCHIR_ASSIGN_OR_RETURN(x, builder.ReshapeTo(x, {batch, channels, taps, rows, cols}));
  TORCHIR_ASSIGN_OR_RETURN(x, Dilate(builder, x, 3, p.stride[0]));
  TORCHIR_ASSIGN_OR_RETURN(x, Dilate(builder, x, 4, p.stride[1]));
  const int64_t spread_rows = (rows - 1) * p.stride[0] + 1;
  const int64_t spread_cols = (cols - 1) * p.stride[1] + 1;
  const int64_t padded_rows = output_size[0] + 2 * p.padding[0];
  const int64_t padded_cols = output_size[1] + 2 * p.padding[1];
  ir::Value* sum = nullptr;
  for (int64_t a = 0; a < p.kernel[0]; ++a) {
    for (int64_t b = 0; b < p.kernel[1]; ++b) {
      const int64_t tap_index = a * p.kernel[1] + b;
      TORCHIR_ASSIGN_OR_RETURN(ir::Value * tap,
                               SliceOf(builder, x, 2, tap_index, tap_index + 1, 1));
      TORCHIR_ASSIGN_OR_RETURN(tap,
                               builder.ReshapeTo(tap, {batch, channels, spread_rows, spread_cols}));
      const int64_t top = a * p.dilation[0];
      const int64_t left = b * p.dilation[1];
      TORCHIR_ASSIGN_OR_RETURN(tap, PadLastTwo(builder, tap, top, padded_rows - top - spread_rows,
                                               left, padded_cols - left - spread_cols));
      if (sum == nullptr) {
        sum = tap;
      } else {
        TORCHIR_ASSIGN_OR_RETURN(sum, builder.Emit1("edge.add", {sum, tap}));
      }
    }
  }
  if (p.padding[0] > 0) {
    TORCHIR_ASSIGN_OR_RETURN(
        sum, SliceOf(builder, sum, 2, p.padding[0], p.padding[0] + output_size[0], 1));
  }
  if (p.padding[1] > 0) {
    TORCHIR_ASSIGN_OR_RETURN(
        sum, SliceOf(builder, sum, 3, p.padding[1], p.padding[1] + output_size[1], 1));
  }
  return Single(builder.ReshapeTo(sum, ctx.OutputType().sizes));
}

Results Linear(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.Tensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  std::vector<ir::Value*> inputs = {input, weight};
  if (bias != nullptr) inputs.push_back(bias);
  return Single(ctx.builder().Emit1("edge.linear", inputs, NoClamp()));
}

// When `value` is the transpose of a 2-d weight or constant (core ATen's
// `t(weight)` feeding addmm/mm), the weight itself; else nullptr.
ir::Value* TransposedWeight(ir::Value* value) {
  const ir::Node* producer = value->producer();
  if (producer == nullptr || producer->op() != "edge.permute") return nullptr;
  if (producer->FindAttr("dims")->as_int_list() != std::vector<int64_t>{1, 0}) return nullptr;
  ir::Value* source = producer->input(0);
  return source->is_constant_like() ? source : nullptr;
}

// x @ b (+ bias), as edge.linear when b is a transposed weight, else edge.matmul.
absl::StatusOr<ir::Value*> MatrixProduct(LoweringContext& ctx, ir::Value* x, ir::Value* b,
                                         ir::Value* bias) {
  EdgeBuilder& builder = ctx.builder();
  if (ir::Value* weight = TransposedWeight(b)) {
    bool bias_fits = bias == nullptr || bias->sizes() == std::vector<int64_t>{weight->sizes()[0]};
    if (bias_fits) {
      std::vector<ir::Value*> inputs = {x, weight};
      if (bias != nullptr) inputs.push_back(bias);
      return builder.Emit1("edge.linear", inputs, NoClamp());
    }
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * product, builder.Emit1("edge.matmul", {x, b}));
  if (bias == nullptr) return product;
  return builder.Emit1("edge.add", {product, bias});
}

Results Addmm(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mat1, ctx.Tensor(call, "mat1"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mat2, ctx.Tensor(call, "mat2"));
  TORCHIR_ASSIGN_OR_RETURN(ir::AttrValue beta, call.Scalar("beta"));
  TORCHIR_ASSIGN_OR_RETURN(ir::AttrValue alpha, call.Scalar("alpha"));
  if (beta.ToDouble() != 1.0 || alpha.ToDouble() != 1.0) {
    // out = beta * self + alpha * (mat1 @ mat2)
    EdgeBuilder& builder = ctx.builder();
    const ir::DType dtype = ctx.OutputType().dtype;
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * product, MatrixProduct(ctx, mat1, mat2, nullptr));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, builder.Scalar(*alpha.ToDouble(), dtype));
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, builder.Scalar(*beta.ToDouble(), dtype));
    TORCHIR_ASSIGN_OR_RETURN(product, builder.Emit1("edge.mul", {product, a}));
    TORCHIR_ASSIGN_OR_RETURN(bias, builder.Emit1("edge.mul", {bias, b}));
    return Single(builder.Emit1("edge.add", {product, bias}));
  }
  return Single(MatrixProduct(ctx, mat1, mat2, bias));
}

Results Mm(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "mat2"));
  return Single(MatrixProduct(ctx, a, b, nullptr));
}

Results Bmm(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "mat2"));
  return Single(ctx.builder().Emit1("edge.matmul", {a, b}));
}

// torch.matmul: 1-d operands get a unit dim added for the product and removed after.
Results Matmul(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Tensor(call, "self"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Tensor(call, "other"));
  EdgeBuilder& builder = ctx.builder();
  if (a->type().rank() == 1) {
    TORCHIR_ASSIGN_OR_RETURN(a, builder.ReshapeTo(a, {1, a->sizes()[0]}));
  }
  if (b->type().rank() == 1) {
    TORCHIR_ASSIGN_OR_RETURN(b, builder.ReshapeTo(b, {b->sizes()[0], 1}));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * product, builder.Emit1("edge.matmul", {a, b}));
  return Single(builder.ReshapeTo(product, ctx.OutputType().sizes));
}

Results Transpose2d(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Tensor(call, "self"));
  if (x->type().rank() < 2) return std::vector<ir::Value*>{x};
  return Single(ctx.builder().Emit1("edge.permute", {x}, {{"dims", AttrValue::IntList({1, 0})}}));
}

}  // namespace

void AddLinearAlgebraRules(RuleTable& table) {
  table.Add("aten.conv1d.default", ConvNd<1>);
  table.Add("aten.conv2d.default", ConvNd<2>);
  table.Add("aten.conv3d.default", ConvNd<3>);
  table.Add("aten.conv1d.padding", ConvStringPadding<1>);
  table.Add("aten.conv2d.padding", ConvStringPadding<2>);
  table.Add("aten.conv3d.padding", ConvStringPadding<3>);
  table.Add("aten.convolution.default", CoreConvolution);
  table.Add("aten.conv_transpose1d.default", ConvTransposeNd<1>);
  table.Add("aten.conv_transpose2d.input", ConvTransposeNd<2>);
  table.Add("aten.conv_transpose3d.input", ConvTransposeNd<3>);
  table.Add("aten.im2col.default", Im2col);
  table.Add("aten.col2im.default", Col2im);
  table.Add("aten.linear.default", Linear);
  table.Add("aten.addmm.default", Addmm);
  table.Add("aten.mm.default", Mm);
  table.Add("aten.bmm.default", Bmm);
  table.Add("aten.matmul.default", Matmul);
  table.Add("aten.t.default", Transpose2d);
}

}  // namespace torchir::lowering
