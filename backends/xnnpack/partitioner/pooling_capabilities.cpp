// Pooling, bilinear resizing and spatial reductions: max_pool2d, avg_pool2d,
// upsample_bilinear2d, and mean / amax / max_dim over spatial dims (global_average_pooling_2d, or a
// pooling window as large as the reduced dims).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/partitioner/capability_helpers.h"
#include "backends/xnnpack/partitioner/op_capability.h"
#include "backends/xnnpack/serialization/node_params.h"
#include "compiler/backend/pooling_window.h"

namespace torchir::xnnpack {
namespace {

const std::vector<double> kUnbounded = {-kInfinity, kInfinity};

// XNNPACK's output length for an explicitly padded window (no ceil mode).
int64_t XnnpackWindowOutput(int64_t length, int64_t before, int64_t after, int64_t kernel,
                            int64_t stride, int64_t dilation) {
  const int64_t span = dilation * (kernel - 1) + 1;
  const int64_t padded = length + before + after;
  return padded < span ? 0 : (padded - span) / stride + 1;
}

// The window of one pooling node in XNNPACK's terms.
struct Window {
  int64_t pad_top, pad_right, pad_bottom, pad_left;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
};

// PyTorch's pooling (symmetric padding, optional ceil mode) as XNNPACK's: ceil mode becomes
// extra padding at the bottom and right, which XNNPACK never reads (max) or counts
// (average), when that reproduces PyTorch's output size. Sets `problem` otherwise.
std::optional<Window> PoolingWindow(const ir::Node& node, std::string* problem) {
  const std::vector<int64_t>& in = node.input(0)->sizes();
  const std::vector<int64_t>& out = node.output(0)->sizes();
  if (in.size() != 4) {
    *problem = absl::StrCat("input ", ShapeText(in),
                            " is not 4-d: XNNPACK pools [N, H, W, C] tensors only");
    return std::nullopt;
  }
  const auto [kernel, stride, padding, dilation] = backend::PoolingWindowAttrsOf(node);
  if (std::string range = WindowRangeProblem(kernel, stride, padding, dilation); !range.empty()) {
    *problem = range;
    return std::nullopt;
  }
  if (kernel[0] * kernel[1] == 1) {
    *problem = "1x1 pooling window: XNNPACK rejects it (it only subsamples)";
    return std::nullopt;
  }
  int64_t extra[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t length = in[2 + i];
    const int64_t span = dilation[i] * (kernel[i] - 1) + 1;
    // Padding that makes XNNPACK's floor formula produce PyTorch's (ceil) output length.
    extra[i] = std::max<int64_t>(0, (out[2 + i] - 1) * stride[i] + span - length - 2 * padding[i]);
    if (XnnpackWindowOutput(length, padding[i], padding[i] + extra[i], kernel[i], stride[i],
                            dilation[i]) != out[2 + i]) {
      *problem = absl::StrCat("ceil_mode output length ", out[2 + i],
                              " cannot be reproduced with extra padding");
      return std::nullopt;
    }
  }
  if (padding[0] + extra[0] > node_params::kMaxWindowParam ||
      padding[1] + extra[1] > node_params::kMaxWindowParam) {
    *problem = "ceil_mode padding is beyond 2^24 - 1: XNNPACK computes windows in 32 bits";
    return std::nullopt;
  }
  const bool padded = padding[0] + padding[1] + extra[0] + extra[1] > 0;
  if (padded && (dilation[0] > 1 || dilation[1] > 1)) {
    // XNNPACK reads a padded tap as the nearest edge pixel, which a dilated window skips.
    *problem = absl::StrCat("dilation ", ShapeText(dilation),
                            " with padding: XNNPACK replaces padded taps by the edge pixel, "
                            "which a dilated window does not cover");
    return std::nullopt;
  }
  return Window{padding[0],
                padding[1] + extra[1],
                padding[0] + extra[0],
                padding[1],
                kernel[0],
                kernel[1],
                stride[0],
                stride[1],
                dilation[0],
                dilation[1]};
}

Support CheckMaxPool(const ir::Node& node) {
  std::string problem;
  std::optional<Window> w = PoolingWindow(node, &problem);
  if (!w) return Support::No(problem);
  // The delegate's max pooling refuses padding beyond half the dilated window (this XNNPACK
  // gets windows wholly in the padding wrong), and ceil_mode's extra padding counts: a 3x3/2
  // pool with padding 1 over 6 rows needs 2 rows at the bottom.
  const int64_t window_h = (w->kernel_h - 1) * w->dilation_h + 1;
  const int64_t window_w = (w->kernel_w - 1) * w->dilation_w + 1;
  if (2 * std::max(w->pad_top, w->pad_bottom) > window_h ||
      2 * std::max(w->pad_left, w->pad_right) > window_w) {
    return Support::No(absl::StrCat("padding with ceil_mode's extra (", w->pad_top, ", ",
                                    w->pad_right, ", ", w->pad_bottom, ", ", w->pad_left,
                                    ") exceeds half the ", window_h, "x", window_w,
                                    " window, which XNNPACK max pooling refuses"));
  }
  return Support::Yes(LayoutNeed::kChannelsLast);
}

// The padding, pool and stride slots max_pooling_2d and average_pooling_2d share.
template <typename Op>
std::vector<int64_t> PoolingInts(const Window& w) {
  std::vector<int64_t> ints(Op::kNumInts);
  ints[Op::kPadTop] = w.pad_top;
  ints[Op::kPadRight] = w.pad_right;
  ints[Op::kPadBottom] = w.pad_bottom;
  ints[Op::kPadLeft] = w.pad_left;
  ints[Op::kPoolH] = w.kernel_h;
  ints[Op::kPoolW] = w.kernel_w;
  ints[Op::kStrideH] = w.stride_h;
  ints[Op::kStrideW] = w.stride_w;
  return ints;
}

absl::Status SerializeMaxPool(const ir::Node& node, SubgraphSerializer& subgraph) {
  std::string problem;
  std::optional<Window> w = PoolingWindow(node, &problem);
  if (!w) return absl::InternalError(problem);
  const uint32_t x = subgraph.Operand(node.input(0));
  using Op = node_params::MaxPooling2d;
  std::vector<int64_t> ints = PoolingInts<Op>(*w);
  ints[Op::kDilationH] = w->dilation_h;
  ints[Op::kDilationW] = w->dilation_w;
  subgraph.AddNode<Op>({x}, subgraph.Output(node.output(0)), ints, kUnbounded);
  return absl::OkStatus();
}

// XNNPACK divides each window by the input pixels it covers (padding excluded, whether
// explicit or the extra of ceil mode). PyTorch does too when count_include_pad is false,
// and when there is no padding (its divisor is clipped to the padded input, i.e. the input).
Support CheckAvgPool(const ir::Node& node) {
  std::string problem;
  if (!PoolingWindow(node, &problem)) return Support::No(problem);
  const std::vector<int64_t>& padding = IntsAttr(node, "padding");
  if (BoolAttr(node, "count_include_pad") && (padding[0] > 0 || padding[1] > 0)) {
    return Support::No(absl::StrCat("count_include_pad=True with padding ", ShapeText(padding),
                                    ": XNNPACK divides by the input pixels in the window, never "
                                    "counting padding"));
  }
  return Support::Yes(LayoutNeed::kChannelsLast);
}

absl::Status SerializeAvgPool(const ir::Node& node, SubgraphSerializer& subgraph) {
  std::string problem;
  std::optional<Window> w = PoolingWindow(node, &problem);
  if (!w) return absl::InternalError(problem);
  const uint32_t x = subgraph.Operand(node.input(0));
  using Op = node_params::AveragePooling2d;
  const std::vector<int64_t> ints = PoolingInts<Op>(*w);
  subgraph.AddNode<Op>({x}, subgraph.Output(node.output(0)), ints, kUnbounded);
  return absl::OkStatus();
}

// --- resizing --------------------------------------------------------------------------------

// XNNPACK's bilinear resize places its samples as PyTorch does (corners, or pixel centres
// clamped at the edges), but always from the size ratio: a scale given to PyTorch must give the
// same source step, in float, as the sizes do.
Support CheckResizeBilinear(const ir::Node& node) {
  const std::vector<int64_t>& in = node.input(0)->sizes();
  const std::vector<int64_t>& out = node.output(0)->sizes();
  if (in.size() != 4) {
    return Support::No(absl::StrCat("input ", ShapeText(in),
                                    " is not 4-d: XNNPACK resizes [N, H, W, C] tensors only"));
  }
  if (!BoolAttr(node, "align_corners")) {
    const char* names[] = {"scales_h", "scales_w"};
    for (int i = 0; i < 2; ++i) {
      const double scale = node.FindAttr(names[i])->as_double();
      if (scale > 0.0 && static_cast<float>(1.0 / scale) !=
                             static_cast<float>(in[2 + i]) / static_cast<float>(out[2 + i])) {
        return Support::No(absl::StrCat(names[i], " = ", scale,
                                        " gives a source step other than the sizes' ratio, "
                                        "which XNNPACK always uses"));
      }
    }
  }
  for (int i = 2; i < 4; ++i) {
    if (out[i] > node_params::kMaxWindowParam) {
      return Support::No(absl::StrCat("output ", ShapeText(out), " is too large for XNNPACK"));
    }
  }
  return Support::Yes(LayoutNeed::kChannelsLast);
}

absl::Status SerializeResizeBilinear(const ir::Node& node, SubgraphSerializer& subgraph) {
  using Op = node_params::StaticResizeBilinear2d;
  const std::vector<int64_t>& out = node.output(0)->sizes();
  std::vector<int64_t> ints(Op::kNumInts);
  ints[Op::kNewHeight] = out[2];
  ints[Op::kNewWidth] = out[3];
  ints[Op::kAlignCorners] = BoolAttr(node, "align_corners") ? 1 : 0;
  subgraph.AddNode<Op>({subgraph.Operand(node.input(0))}, subgraph.Output(node.output(0)), ints);
  return absl::OkStatus();
}

// --- spatial reductions ---------------------------------------------------------------------

// The reduced dims of a mean / amax / max_dim node, normalised.
std::optional<std::vector<int64_t>> ReducedDims(const ir::Node& node) {
  const int64_t rank = static_cast<int64_t>(node.input(0)->sizes().size());
  if (node.op() == "edge.max_dim") return NormalizedDims({IntAttr(node, "dim")}, rank);
  const std::vector<int64_t>& dims = IntsAttr(node, "dims");
  if (dims.empty()) {  // empty: every dim
    std::vector<int64_t> all(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) all[static_cast<size_t>(d)] = d;
    return all;
  }
  return NormalizedDims(dims, rank);
}

// A reduction over spatial dims of a channels-last 3-d / 4-d tensor is a pooling window as
// large as those dims (1 over the others) on the [N, H, W, C] view ([N, 1, L, C] for 3-d).
Support CheckSpatialReduction(const ir::Node& node) {
  const std::vector<int64_t>& in = node.input(0)->sizes();
  std::optional<std::vector<int64_t>> dims = ReducedDims(node);
  const bool spatial = dims.has_value() && !dims->empty() && (in.size() == 3 || in.size() == 4) &&
                       dims->front() >= 2;
  if (!spatial) {
    return Support::No(absl::StrCat(
        "reduces dims ", dims ? ShapeText(*dims) : "(invalid)", " of a rank-", in.size(),
        " tensor: XNNPACK reduces only the spatial dims (2 and up) of a 3-d or 4-d tensor, by "
        "pooling"));
  }
  if (node.op() == "edge.max_dim" && node.output(1)->has_uses()) {
    return Support::No(absl::StrCat("its indices '", node.output(1)->name(),
                                    "' are read: XNNPACK computes the maximum only"));
  }
  if (node.op() == "edge.max_dim" && node.output(1)->is_graph_output()) {
    return Support::No("its indices are a graph output: XNNPACK computes the maximum only");
  }
  int64_t window = 1;
  for (int64_t d : *dims) window *= in[static_cast<size_t>(d)];
  const bool global_mean = node.op() == "edge.mean" && static_cast<int64_t>(dims->size()) ==
                                                           static_cast<int64_t>(in.size()) - 2;
  if (window == 1 && !global_mean) {
    return Support::No(
        "the reduced dims have size 1: a 1x1 pooling window, which XNNPACK "
        "rejects");
  }
  return Support::Yes(LayoutNeed::kChannelsLast);
}

absl::Status SerializeSpatialReduction(const ir::Node& node, SubgraphSerializer& subgraph) {
  ir::Value* input = node.input(0);
  const std::vector<int64_t>& in = input->sizes();
  const std::vector<int64_t> dims = *ReducedDims(node);
  // The [N, H, W, C] view: a 3-d [N, C, L] is stored [N, L, C], the bytes of [N, 1, L, C].
  const std::vector<int64_t> stored = subgraph.Dims(input);
  const std::vector<int64_t> nhwc =
      in.size() == 4 ? stored : std::vector<int64_t>{stored[0], 1, stored[1], stored[2]};
  uint32_t x = subgraph.Operand(input);
  if (in.size() == 3) {
    const uint32_t view = subgraph.Internal(nhwc);
    subgraph.AddNode<node_params::StaticReshape>({x}, view, nhwc);
    x = view;
  }
  auto reduced = [&](int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  const int64_t first_spatial = in.size() == 4 ? 2 : -1;  // 3-d: H is the added 1
  const int64_t pool_h = reduced(first_spatial) ? nhwc[1] : 1;
  const int64_t pool_w = reduced(static_cast<int64_t>(in.size()) - 1) ? nhwc[2] : 1;
  const std::vector<int64_t> pooled = {nhwc[0], nhwc[1] / pool_h, nhwc[2] / pool_w, nhwc[3]};
  const std::vector<int64_t> out_dims = subgraph.Dims(node.output(0));
  // The pooled [N, H', W', C] holds the output's bytes; it is the output when the dims agree.
  const bool direct = pooled == out_dims;
  const uint32_t result = direct ? subgraph.Output(node.output(0)) : subgraph.Internal(pooled);
  // A window over the whole reduced extent, stride 1, no padding.
  auto whole_window = [&](auto op) {
    using Op = decltype(op);
    std::vector<int64_t> ints(Op::kNumInts, 1);
    ints[Op::kPadTop] = ints[Op::kPadRight] = ints[Op::kPadBottom] = ints[Op::kPadLeft] = 0;
    ints[Op::kPoolH] = pool_h;
    ints[Op::kPoolW] = pool_w;
    return ints;
  };
  if (node.op() == "edge.mean" && pool_h == nhwc[1] && pool_w == nhwc[2]) {
    subgraph.AddNode<node_params::GlobalAveragePooling2d>({x}, result, {}, kUnbounded);
  } else if (node.op() == "edge.mean") {
    subgraph.AddNode<node_params::AveragePooling2d>(
        {x}, result, whole_window(node_params::AveragePooling2d()), kUnbounded);
  } else {
    subgraph.AddNode<node_params::MaxPooling2d>(
        {x}, result, whole_window(node_params::MaxPooling2d()), kUnbounded);
  }
  if (!direct) {
    subgraph.AddNode<node_params::StaticReshape>({result}, subgraph.Output(node.output(0)),
                                                 out_dims);
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<OpCapability> PoolingCapabilities() {
  return {
      {"edge.max_pool2d", CheckMaxPool, SerializeMaxPool},
      {"edge.avg_pool2d", CheckAvgPool, SerializeAvgPool},
      {"edge.upsample_bilinear2d", CheckResizeBilinear, SerializeResizeBilinear},
      {"edge.mean", CheckSpatialReduction, SerializeSpatialReduction},
      {"edge.amax", CheckSpatialReduction, SerializeSpatialReduction},
      {"edge.max_dim", CheckSpatialReduction, SerializeSpatialReduction},
  };
}

}  // namespace torchir::xnnpack
