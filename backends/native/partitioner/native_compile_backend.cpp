#include "backends/native/partitioner/native_compile_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/native/convolution.h"
#include "backends/native/depthwise.h"
#include "backends/native/direct_convolution.h"
#include "backends/native/expand_depthwise.h"
#include "backends/native/packed_weights.h"
#include "backends/native/pooling.h"
#include "backends/native/serialization/delegate_scratch.h"
#include "backends/native/serialization/native_blob_generated.h"
#include "backends/native/winograd.h"
#include "compiler/backend/delegate_rewriter.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/pooling_window.h"
#include "compiler/backend/scalar_constant.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/dialect/node_macs.h"

namespace torchir::native {
namespace {

constexpr uint32_t kBlobVersion = 1;
constexpr double kInf = std::numeric_limits<double>::infinity();

int64_t IntAttr(const ir::Node& node, const char* name) { return node.FindAttr(name)->as_int(); }
double DoubleAttr(const ir::Node& node, const char* name) {
  return node.FindAttr(name)->as_double();
}
const std::vector<int64_t>& IntsAttr(const ir::Node& node, const char* name) {
  return node.FindAttr(name)->as_int_list();
}

// Why `value` cannot be packed at compile time, or "".
std::string NotPackableReason(const ir::Value* value, const char* role) {
  if (!value->is_constant_like()) {
    return absl::StrCat("its ", role, " '", value->name(),
                        "' is computed at run time: the native backend packs weights when the "
                        "program is compiled");
  }
  if (value->data().empty()) {
    return absl::StrCat("its ", role, " '", value->name(),
                        "' has no bytes (compiled without --weights): the native backend packs "
                        "weights when the program is compiled");
  }
  return "";
}

bool IsFloat32(const ir::Value* value) { return value->dtype() == ir::DType::kFloat32; }

// The node as the kernels see it: a convolution over NHWC, a linear layer as its 1x1 case
// (rows as the batch).
Convolution2dShape ShapeOf(const ir::Node& node) {
  const std::vector<int64_t>& input = node.input(0)->sizes();
  const std::vector<int64_t>& weight = node.input(1)->sizes();
  auto u = [](int64_t v) { return static_cast<size_t>(v); };
  Convolution2dShape shape{};
  shape.kernel_height = shape.kernel_width = 1;
  shape.stride_height = shape.stride_width = 1;
  shape.dilation_height = shape.dilation_width = 1;
  shape.input_height = shape.input_width = 1;
  shape.output_channels = u(weight[0]);
  if (node.op() == "edge.convolution") {
    const std::vector<int64_t>& stride = IntsAttr(node, "stride");
    const std::vector<int64_t>& padding = IntsAttr(node, "padding");
    const std::vector<int64_t>& dilation = IntsAttr(node, "dilation");
    shape.batch = u(input[0]);
    shape.input_channels = u(input[1]);
    shape.input_height = u(input[2]);
    shape.input_width = u(input[3]);
    shape.kernel_height = u(weight[2]);
    shape.kernel_width = u(weight[3]);
    shape.stride_height = u(stride[0]);
    shape.stride_width = u(stride[1]);
    shape.dilation_height = u(dilation[0]);
    shape.dilation_width = u(dilation[1]);
    shape.padding_top = shape.padding_bottom = u(padding[0]);
    shape.padding_left = shape.padding_right = u(padding[1]);
  } else {
    shape.input_channels = u(input.back());
    shape.batch = u(node.input(0)->type().numel()) / shape.input_channels;
  }
  return shape;
}

// Depthwise with channel multiplier 1: one group per channel, as many outputs as inputs.
bool IsDepthwise(const ir::Node& node) {
  if (node.op() != "edge.convolution") return false;
  const int64_t groups = IntAttr(node, "groups");
  return groups > 1 && groups == node.input(0)->sizes()[1] && groups == node.input(1)->sizes()[0];
}

// The GEMM's groups of a convolution: 1 for an ungrouped or depthwise one (the direct kernel),
// else its groups (one implicit GEMM per group).
size_t GemmGroups(const ir::Node& node) {
  if (node.op() != "edge.convolution" || IsDepthwise(node)) return 1;
  return static_cast<size_t>(IntAttr(node, "groups"));
}

std::string ConvolutionProblem(const ir::Node& node) {
  const std::vector<int64_t>& input = node.input(0)->sizes();
  if (input.size() != 4) {
    return absl::StrCat(input.size() - 2, "-d convolution: the native kernels run 2-d ones");
  }
  const int64_t groups = IntAttr(node, "groups");
  if (groups < 1 || input[1] % groups != 0 || node.input(1)->sizes()[0] % groups != 0) {
    return absl::StrCat("groups = ", groups, " does not divide ", input[1], " input and ",
                        node.input(1)->sizes()[0], " output channels");
  }
  return "";
}

// A matrix product of run-time operands: batch dims equal, or one B for every batch.
std::string MatmulProblem(const ir::Node& node) {
  const std::vector<int64_t>& a = node.input(0)->sizes();
  const std::vector<int64_t>& b = node.input(1)->sizes();
  if (b.size() == 2) return "";
  if (a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin())) {
    return absl::StrCat("batch dims broadcast (", a.size(), "-d @ ", b.size(),
                        "-d): the native kernels take equal batch dims or a 2-d right operand");
  }
  return "";
}

// A layer norm over the last dim (the kernel's rows x cols).
std::string LayerNormProblem(const ir::Node& node) {
  const std::vector<int64_t>& normalized = IntsAttr(node, "normalized_shape");
  if (normalized.size() != 1) {
    return absl::StrCat("layer norm over ", normalized.size(),
                        " trailing dims: the native kernel normalises the last dim");
  }
  return "";
}

// The pooling of a 4-d NCHW edge.max_pool2d or spatial edge.mean as the kernels see it over
// NHWC (pooling.h); a mean's window fields are 0.
struct PoolingGeometry {
  bool global_average;
  Pool2dShape shape;
};

// The reduced dims of an edge.mean over a `rank`-d input, normalised and sorted.
std::vector<int64_t> MeanDims(const ir::Node& node, size_t rank) {
  std::vector<int64_t> dims = IntsAttr(node, "dims");
  for (int64_t& dim : dims) dim = dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
  std::sort(dims.begin(), dims.end());
  return dims;
}

// Why the native kernels do not pool `node` (edge.max_pool2d or edge.mean), or "" with *out set.
std::string PoolingProblem(const ir::Node& node, PoolingGeometry* out) {
  const std::vector<int64_t>& in = node.input(0)->sizes();
  const std::vector<int64_t>& result = node.output(0)->sizes();
  if (in.size() != 4) {
    return absl::StrCat(in.size(), "-d input: the native kernels pool 4-d NCHW tensors");
  }
  PoolingGeometry geometry{};
  Pool2dShape& shape = geometry.shape;
  shape = GlobalPool2dShape(static_cast<size_t>(in[0]), static_cast<size_t>(in[2]),
                            static_cast<size_t>(in[3]), static_cast<size_t>(in[1]));
  if (node.op() == "edge.mean") {
    if (MeanDims(node, in.size()) != std::vector<int64_t>{2, 3}) {
      return "a mean over other dims than height and width: the native kernels pool the whole "
             "image (global average pooling)";
    }
    geometry.global_average = true;
  } else {
    const auto [kernel, stride, padding, dilation] = backend::PoolingWindowAttrsOf(node);
    auto pair = [](const std::vector<int64_t>& v, int64_t least) {
      return v.size() == 2 && v[0] >= least && v[1] >= least;
    };
    if (!pair(kernel, 1) || !pair(stride, 1) || !pair(padding, 0) || !pair(dilation, 1) ||
        result.size() != 4 || result[0] != in[0] || result[1] != in[1]) {
      return "a window the native kernels do not take (two sizes each: kernel, stride and "
             "dilation >= 1, padding >= 0)";
    }
    shape.output_height = static_cast<size_t>(result[2]);
    shape.output_width = static_cast<size_t>(result[3]);
    shape.kernel_height = static_cast<size_t>(kernel[0]);
    shape.kernel_width = static_cast<size_t>(kernel[1]);
    shape.stride_height = static_cast<size_t>(stride[0]);
    shape.stride_width = static_cast<size_t>(stride[1]);
    shape.dilation_height = static_cast<size_t>(dilation[0]);
    shape.dilation_width = static_cast<size_t>(dilation[1]);
    shape.padding_top = static_cast<size_t>(padding[0]);
    shape.padding_left = static_cast<size_t>(padding[1]);
  }
  if (CheckPool2dShape(shape) != runtime::Error::kOk) {
    return "its sizes overflow what the native kernels index";
  }
  if (out != nullptr) *out = geometry;
  return "";
}

// A squeeze-and-excitation's multiply as the kernel sees it (channel_scale.h): `input` NCHW
// [N, C, H, W] times `scale` [N, C, 1, 1] (or [1, C, 1, 1]: shared by every image).
struct ChannelScaleGeometry {
  ir::Value* input;
  ir::Value* scale;
  uint64_t batch, pixels, channels;
  bool shared_scale;
};

std::optional<fb::Activation> FusedActivationOf(const ir::Node& node);

// Whether a channel scaling of `input` whose result is `output` sits next to a convolution: its
// input a convolution's output (or that of the activation after one), or its output read by
// one. Elsewhere (a batch norm decomposed into a multiply between a subtract and an add) the
// layout permutes around a channels-last delegate would cost more than the multiply saves.
bool NextToConvolution(const ir::Value* input, const ir::Value* output) {
  const ir::Node* producer = input->producer();
  if (producer != nullptr && producer->num_inputs() == 1 &&
      (producer->op() == "edge.clamp" || FusedActivationOf(*producer).has_value())) {
    producer = producer->input(0)->producer();
  }
  if (producer != nullptr && producer->op() == "edge.convolution") return true;
  for (const ir::Use& use : output->uses()) {
    if (use.user->op() == "edge.convolution" && use.index == 0) return true;
  }
  return false;
}

// Why the native kernels do not run `node` (an edge.mul), or "" with *out set.
std::string ChannelScaleProblem(const ir::Node& node, ChannelScaleGeometry* out) {
  constexpr const char* kWhat =
      "an elementwise product other than a 4-d NCHW tensor times one value per channel ([N, C, "
      "1, 1] or [1, C, 1, 1], a squeeze-and-excitation's scale): the native kernels scale "
      "channels";
  if (node.num_inputs() != 2 || node.input(0) == nullptr || node.input(1) == nullptr) return kWhat;
  const std::vector<int64_t>& result = node.output(0)->sizes();
  for (int which = 0; which < 2; ++which) {
    ir::Value* input = node.input(which);
    ir::Value* scale = node.input(1 - which);
    const std::vector<int64_t>& x = input->sizes();
    const std::vector<int64_t>& s = scale->sizes();
    if (x != result || x.size() != 4 || s.size() != 4 || s == x || input->is_constant_like()) {
      continue;
    }
    if ((s[0] != 1 && s[0] != x[0]) || s[1] != x[1] || s[2] != 1 || s[3] != 1) continue;
    if (!NextToConvolution(input, node.output(0))) {
      return "a per-channel multiply with no convolution before or after it: the native "
             "kernels take it where the channels-last layout flows through (a "
             "squeeze-and-excitation block), so no layout permutes surround it";
    }
    if (out != nullptr) {
      *out = ChannelScaleGeometry{input,
                                  scale,
                                  static_cast<uint64_t>(x[0]),
                                  static_cast<uint64_t>(x[2]) * static_cast<uint64_t>(x[3]),
                                  static_cast<uint64_t>(x[1]),
                                  s[0] != x[0] || x[0] == 1};
    }
    return "";
  }
  return kWhat;
}

// The generic checks, then the op's own; "" when the native kernels run the node.
std::string Refusal(const ir::Node& node) {
  const std::string& op = node.op();
  if (op != "edge.convolution" && op != "edge.linear" && op != "edge.matmul" &&
      op != "edge.layer_norm" && op != "edge.max_pool2d" && op != "edge.mean" && op != "edge.mul") {
    return "the native backend runs convolutions, linear layers (with a residual add and an "
           "activation fused after them), matrix products (a scale, a mask and a softmax fused "
           "after them), layer norms, 2-d max pooling, global average pooling and the "
           "per-channel multiply of a squeeze-and-excitation block";
  }
  for (const ir::Value* value : node.inputs()) {
    if (!IsFloat32(value)) {
      return absl::StrCat("'", value->name(), "' is ", std::string(ir::DTypeName(value->dtype())),
                          ": the native kernels are float32");
    }
  }
  for (const ir::Value* value : node.inputs()) {
    for (int64_t size : value->sizes()) {
      if (size == 0) return absl::StrCat("'", value->name(), "' is empty");
    }
  }
  if (op == "edge.matmul") return MatmulProblem(node);
  if (op == "edge.layer_norm") return LayerNormProblem(node);
  if (op == "edge.max_pool2d" || op == "edge.mean") return PoolingProblem(node, nullptr);
  if (op == "edge.mul") return ChannelScaleProblem(node, nullptr);
  if (std::string reason = NotPackableReason(node.input(1), "weight"); !reason.empty()) {
    return reason;
  }
  if (node.num_inputs() > 2) {
    if (std::string reason = NotPackableReason(node.input(2), "bias"); !reason.empty()) {
      return reason;
    }
  }
  if (DoubleAttr(node, "output_min") > DoubleAttr(node, "output_max")) {
    return "its fused clamp is empty (output_min > output_max)";
  }
  if (op == "edge.convolution") {
    if (std::string problem = ConvolutionProblem(node); !problem.empty()) return problem;
  } else if (node.input(0)->sizes().empty()) {
    return "a 0-d input has no feature dim";
  }
  if (CheckConvolution2dShape(ShapeOf(node)) != runtime::Error::kOk) {
    return "its sizes overflow what the native kernels index";
  }
  return "";
}

// The single reader of `value` when it has exactly one and is not a graph output.
ir::Node* OnlyReader(const ir::Value* value) {
  if (value->is_graph_output() || value->uses().size() != 1) return nullptr;
  return value->uses()[0].user;
}

// One delegate: a convolution or linear layer and what is fused after it, a matrix product and
// the softmax fused after it, or a layer norm.
struct Region {
  ir::Node* compute = nullptr;
  ir::Node* residual_add = nullptr;  // edge.add(compute output, residual)
  ir::Value* residual = nullptr;
  ir::Node* clamp = nullptr;  // edge.clamp or a fused activation of the last node's output
  // After a 1x1 expansion (and its clamp): the depthwise convolution that is the only reader of
  // its output, and that convolution's own fused activation; the two run fused
  // (backends/native/expand_depthwise.h).
  ir::Node* depthwise = nullptr;
  ir::Node* depthwise_clamp = nullptr;
  // After a matrix product (attention's scores), each optional but the softmax:
  ir::Node* scale = nullptr;    // edge.mul or edge.div by a float32 scalar constant
  ir::Node* mask = nullptr;     // edge.where(mask, float32 scalar constant, scores)
  ir::Node* softmax = nullptr;  // edge.softmax over the last dim
  // A matrix product's operands and output read and written through strides instead of these
  // edge.permute copies (attention's heads): ViewsOf, GrowMatmulPermutes.
  ir::Node* a_permute = nullptr;
  ir::Node* b_permute = nullptr;
  ir::Node* output_permute = nullptr;
  // Members before the compute node first (the rewriter wants graph order).
  std::vector<ir::Node*> Members() const {
    std::vector<ir::Node*> members;
    for (ir::Node* node : {a_permute, b_permute}) {
      if (node != nullptr) members.push_back(node);
    }
    members.push_back(compute);
    for (ir::Node* node :
         {residual_add, clamp, depthwise, depthwise_clamp, scale, mask, softmax, output_permute}) {
      if (node != nullptr) members.push_back(node);
    }
    return members;
  }
  ir::Value* Output() const { return Members().back()->output(0); }
};

bool IsUnclamped(const ir::Node& node) {
  return DoubleAttr(node, "output_min") == -kInf && DoubleAttr(node, "output_max") == kInf;
}

// The activations the kernels apply to each tile they have just computed (activation-inl.h)
// besides a clamp, by Edge op.
struct FusedActivation {
  const char* op;
  fb::Activation activation;
};
constexpr FusedActivation kFusedActivations[] = {
    {"edge.hardswish", fb::Activation::Hardswish},
    {"edge.silu", fb::Activation::Silu},
    {"edge.sigmoid", fb::Activation::Sigmoid},
    {"edge.hardsigmoid", fb::Activation::Hardsigmoid},
};

// The fused activation `node` is, if it is one of kFusedActivations or GELU (either form).
std::optional<fb::Activation> FusedActivationOf(const ir::Node& node) {
  if (node.op() == "edge.gelu") {
    const std::string& approximate = node.FindAttr("approximate")->as_string();
    if (approximate == "none") return fb::Activation::Gelu;
    if (approximate == "tanh") return fb::Activation::GeluTanh;
    return std::nullopt;
  }
  for (const FusedActivation& entry : kFusedActivations) {
    if (node.op() == entry.op) return entry.activation;
  }
  return std::nullopt;
}

// An activation the kernels apply to the tile they computed: a clamp with a non-empty range
// (in registers), GELU, hardswish, silu, sigmoid or hardsigmoid (on the block just stored).
bool IsFusableActivation(const ir::Node& activation) {
  if (activation.op() == "edge.clamp") {
    return DoubleAttr(activation, "min") <= DoubleAttr(activation, "max");
  }
  return FusedActivationOf(activation).has_value();
}

// The scalar a matrix product's output is multiplied by when `node` is edge.mul by a float32
// scalar constant (1 / c for edge.div by c: within an ulp of the division), or nullopt.
std::optional<float> ScoresScale(const ir::Node& node, const ir::Value* scores) {
  if (node.op() != "edge.mul" && node.op() != "edge.div") return std::nullopt;
  if (node.num_inputs() != 2 || node.input(0) == node.input(1)) return std::nullopt;
  const ir::Value* other = node.input(0) == scores ? node.input(1) : node.input(0);
  if (node.op() == "edge.div" && node.input(0) != scores) return std::nullopt;
  std::optional<float> scalar = backend::ScalarConstant(other);
  if (!scalar.has_value() || node.output(0)->sizes() != scores->sizes() ||
      !IsFloat32(node.output(0))) {
    return std::nullopt;
  }
  return node.op() == "edge.div" ? 1.0f / *scalar : *scalar;
}

// Whether `node` is edge.where(mask, fill, scores) with a scalar constant fill and a bool mask of
// the scores' last two dims (leading dims 1: every batch's) or their whole shape.
bool IsScoresMask(const ir::Node& node, const ir::Value* scores) {
  if (node.op() != "edge.where" || node.num_inputs() != 3 || node.input(2) != scores ||
      node.input(0) == scores || node.input(1) == scores ||
      !backend::ScalarConstant(node.input(1)).has_value() ||
      node.output(0)->sizes() != scores->sizes() || !IsFloat32(node.output(0))) {
    return false;
  }
  const std::vector<int64_t>& mask = node.input(0)->sizes();
  const std::vector<int64_t>& sizes = scores->sizes();
  if (node.input(0)->dtype() != ir::DType::kBool || mask.size() != sizes.size()) return false;
  if (mask == sizes) return true;
  for (size_t d = 0; d + 2 < mask.size(); ++d) {
    if (mask[d] != 1) return false;
  }
  return mask[mask.size() - 2] == sizes[sizes.size() - 2] && mask.back() == sizes.back();
}

// Whether `node` is a float32 softmax of `scores` over their last dim.
bool IsScoresSoftmax(const ir::Node& node, const ir::Value* scores) {
  if (node.op() != "edge.softmax" || node.input(0) != scores || !IsFloat32(node.output(0))) {
    return false;
  }
  const int64_t rank = static_cast<int64_t>(scores->sizes().size());
  const int64_t dim = IntAttr(node, "dim");
  return dim == rank - 1 || dim == -1;
}

// The offset d when `where` (IsScoresMask) masks with -inf above a diagonal: a constant mask of
// the scores' last two dims (m x n, every batch's) true exactly where column j > row i + d,
// d >= 0 so every row keeps column 0 (GPT's causal mask: d = 0). -inf makes the softmax exactly
// 0 there, so the native kernels may skip those scores and, in the product of the softmax with
// V, those terms (native_blob.fbs, MatrixMultiply.causal).
std::optional<uint64_t> CausalMaskOffset(const ir::Node& where) {
  const ir::Value* mask = where.input(0);
  const std::optional<float> fill = backend::ScalarConstant(where.input(1));
  if (!fill.has_value() || *fill != -std::numeric_limits<float>::infinity() ||
      !mask->is_constant_like() || mask->data().size() != mask->type().nbytes()) {
    return std::nullopt;
  }
  const std::vector<int64_t>& sizes = mask->sizes();
  const size_t m = static_cast<size_t>(sizes[sizes.size() - 2]);
  const size_t n = static_cast<size_t>(sizes.back());
  if (static_cast<size_t>(mask->type().numel()) != m * n || m == 0 || n == 0) return std::nullopt;
  const uint8_t* bytes = mask->data().data();
  size_t visible = 0;  // row 0's unmasked prefix: d + 1
  while (visible < n && bytes[visible] == 0) ++visible;
  if (visible == 0 || visible == n) return std::nullopt;  // row 0 all masked, or no mask
  const size_t d = visible - 1;
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if ((bytes[i * n + j] != 0) != (j > i + d)) return std::nullopt;
    }
  }
  return d;
}

// The causal offset of a product whose A operand is the softmax of scores masked causally
// (CausalMaskOffset): A's row i is zero past column i + d. Only for A read as it is (no permute).
std::optional<uint64_t> CausalOperandOffset(const Region& region) {
  if (region.a_permute != nullptr) return std::nullopt;
  const ir::Node* softmax = region.compute->input(0)->producer();
  if (softmax == nullptr || softmax->op() != "edge.softmax" ||
      !IsScoresSoftmax(*softmax, softmax->input(0))) {
    return std::nullopt;
  }
  const ir::Node* where = softmax->input(0)->producer();
  if (where == nullptr || where->op() != "edge.where" || where->num_inputs() != 3 ||
      !IsScoresMask(*where, where->input(2))) {
    return std::nullopt;
  }
  return CausalMaskOffset(*where);
}

// A matrix product's causal offset: its scores' mask (CausalMaskOffset) or its A operand's
// (CausalOperandOffset).
std::optional<uint64_t> CausalOffsetOf(const Region& region) {
  if (region.compute->op() != "edge.matmul") return std::nullopt;
  if (region.softmax == nullptr) return CausalOperandOffset(region);
  return region.mask != nullptr ? CausalMaskOffset(*region.mask) : std::nullopt;
}

// Grows a matrix product's region: an optional scale, an optional mask, then a softmax over the
// last dim, each the only reader of what comes before it; none of them without the softmax.
void GrowSoftmax(Region* region, const std::unordered_map<const ir::Node*, size_t>& taken) {
  ir::Value* last = region->compute->output(0);
  auto next = [&]() -> ir::Node* {
    ir::Node* reader = OnlyReader(last);
    return reader != nullptr && taken.count(reader) == 0 ? reader : nullptr;
  };
  ir::Node* scale = next();
  if (scale != nullptr && ScoresScale(*scale, last).has_value()) {
    last = scale->output(0);
  } else {
    scale = nullptr;
  }
  ir::Node* mask = next();
  if (mask != nullptr && IsScoresMask(*mask, last)) {
    last = mask->output(0);
  } else {
    mask = nullptr;
  }
  ir::Node* softmax = next();
  if (softmax == nullptr || !IsScoresSoftmax(*softmax, last)) return;
  region->scale = scale;
  region->mask = mask;
  region->softmax = softmax;
}

// How a matrix product's operand or output sits in memory: element (p, i, j) of its batched
// matrix view at p batch + i row + j col floats from the start of `tensor`.
struct MatmulView {
  ir::Value* tensor = nullptr;
  int64_t batch = 0, row = 0, col = 0;
};

// The view of `value` (sizes [batch dims..., rows, cols]) when it is laid out with `strides`
// (floats per step of each dim) in `tensor`: nullopt when its batch dims do not collapse into
// one stride (steps of consecutive non-1 dims must nest).
std::optional<MatmulView> ViewOf(ir::Value* tensor, const std::vector<int64_t>& sizes,
                                 const std::vector<int64_t>& strides) {
  const size_t rank = sizes.size();
  if (rank < 2) return std::nullopt;
  MatmulView view;
  view.tensor = tensor;
  view.row = strides[rank - 2];
  view.col = strides[rank - 1];
  view.batch = sizes[rank - 2] * strides[rank - 2];  // no batch dims: unused
  int64_t inner = -1;                                // the last non-1 batch dim seen
  for (size_t d = rank - 2; d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (inner >= 0 && strides[d] != strides[inner] * sizes[inner]) return std::nullopt;
    if (inner < 0) view.batch = strides[d];
    inner = static_cast<int64_t>(d);
  }
  return view;
}

// Row-major strides of a contiguous tensor of `sizes`.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  return strides;
}

// The edge.permute that produces the product's operand `value` when the product is its only
// reader and the operand is a strided view of the permute's (contiguous) input: the product
// then reads that input in place.
ir::Node* OperandPermute(const ir::Value* value, const ir::Node& matmul,
                         const std::unordered_map<const ir::Node*, size_t>& taken) {
  ir::Node* permute = value->producer();
  if (permute == nullptr || permute->op() != "edge.permute" || taken.count(permute) != 0 ||
      OnlyReader(value) != &matmul || !IsFloat32(permute->input(0))) {
    return nullptr;
  }
  return permute;
}

// The views of a product's operands and output in the tensors its delegate passes: each
// operand's own (contiguous) or through its absorbed permute's input; the output through its
// absorbed permute's output. nullopt when a view's batch dims do not collapse.
struct MatmulViews {
  MatmulView a, b, output;
};

std::optional<MatmulViews> ViewsOf(const Region& region) {
  const ir::Node& matmul = *region.compute;
  auto operand = [](ir::Value* value, const ir::Node* permute) {
    if (permute == nullptr) return ViewOf(value, value->sizes(), ContiguousStrides(value->sizes()));
    ir::Value* input = permute->input(0);
    const std::vector<int64_t> in = ContiguousStrides(input->sizes());
    const std::vector<int64_t>& dims = IntsAttr(*permute, "dims");
    std::vector<int64_t> strides(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) strides[i] = in[static_cast<size_t>(dims[i])];
    return ViewOf(input, value->sizes(), strides);
  };
  std::optional<MatmulView> a = operand(matmul.input(0), region.a_permute);
  std::optional<MatmulView> b = operand(matmul.input(1), region.b_permute);
  ir::Value* output = matmul.output(0);
  std::optional<MatmulView> out;
  if (region.output_permute == nullptr) {
    out = ViewOf(output, output->sizes(), ContiguousStrides(output->sizes()));
  } else {
    // Output dim dims[i] is the permuted tensor's dim i.
    ir::Value* permuted = region.output_permute->output(0);
    const std::vector<int64_t> steps = ContiguousStrides(permuted->sizes());
    const std::vector<int64_t>& dims = IntsAttr(*region.output_permute, "dims");
    std::vector<int64_t> strides(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) strides[static_cast<size_t>(dims[i])] = steps[i];
    out = ViewOf(permuted, output->sizes(), strides);
  }
  if (!a.has_value() || !b.has_value() || !out.has_value()) return std::nullopt;
  return MatmulViews{*a, *b, *out};
}

// Whether the kernels read and write these views: A and the output with unit column steps, B
// with unit column steps (row-major) or unit row steps (transposed: k^T read from k's rows).
bool ViewsFit(const MatmulViews& views) {
  return views.a.col == 1 && views.output.col == 1 && (views.b.col == 1 || views.b.row == 1);
}

// Absorbs the permutes around a product when the kernels can read and write through strides
// instead: attention's q, k^T and v made of the linear layers' outputs by a view and a
// permute, and its context permuted back. Each is tried alone and kept when the views still
// fit. The output's permute only when nothing is fused after the product.
void GrowMatmulPermutes(Region* region, const std::unordered_map<const ir::Node*, size_t>& taken) {
  ir::Node& matmul = *region->compute;
  auto try_member = [&](ir::Node** slot, ir::Node* candidate) {
    if (candidate == nullptr) return;
    *slot = candidate;
    const std::optional<MatmulViews> views = ViewsOf(*region);
    if (!views.has_value() || !ViewsFit(*views)) *slot = nullptr;
  };
  try_member(&region->a_permute, OperandPermute(matmul.input(0), matmul, taken));
  if (matmul.input(1) != matmul.input(0)) {
    try_member(&region->b_permute, OperandPermute(matmul.input(1), matmul, taken));
  }
  if (region->softmax != nullptr) return;
  ir::Node* permute = OnlyReader(matmul.output(0));
  if (permute != nullptr && permute->op() == "edge.permute" && taken.count(permute) == 0) {
    try_member(&region->output_permute, permute);
  }
}

// The fusable activation that is the only reader of `value`, or null.
ir::Node* ActivationAfter(ir::Value* value,
                          const std::unordered_map<const ir::Node*, size_t>& taken) {
  ir::Node* activation = OnlyReader(value);
  if (activation != nullptr && taken.count(activation) == 0 && IsFloat32(activation->output(0)) &&
      IsFusableActivation(*activation)) {
    return activation;
  }
  return nullptr;
}

// An expanded tensor of at least this many bytes is handed to its depthwise or grouped layer in
// bands (ExpandDepthwise) rather than whole: past L2 it went to L3 or memory and back.
// mobilenet_v2's 112 x 112 and 56 x 56 blocks (4.8 and 1.8 MB) and regnet_x_400mf's first
// block (1.6 MB); smaller ones (0.8 MB and below) stay as they are (docs/native-kernels.md, "An
// expansion and its depthwise layer, in bands", "A 1x1 and its grouped layer, in bands").
constexpr size_t kExpandDepthwiseMinBytes = 1024 * 1024;

// After a region's 1x1 expansion and its activation, ending in `expanded`: the depthwise or
// grouped convolution that is its only reader, when the pair fuses.
ir::Node* FusedDepthwise(const ir::Node& compute, ir::Value* expanded,
                         const std::unordered_map<const ir::Node*, size_t>& taken) {
  ir::Node* next = OnlyReader(expanded);
  if (next == nullptr || next->op() != "edge.convolution" || taken.count(next) != 0 ||
      next->input(0) != expanded || (!IsDepthwise(*next) && GemmGroups(*next) == 1) ||
      !Refusal(*next).empty() || IsDepthwise(compute) || GemmGroups(compute) != 1) {
    return nullptr;
  }
  const Convolution2dShape e = ShapeOf(compute), d = ShapeOf(*next);
  const size_t groups = IsDepthwise(*next) ? 0 : GemmGroups(*next);
  const size_t bytes = e.batch * e.input_height * e.input_width * e.output_channels * sizeof(float);
  if (bytes < kExpandDepthwiseMinBytes ||
      CheckExpandDepthwise(e, d, groups) != runtime::Error::kOk) {
    return nullptr;
  }
  return next;
}

// Grows a region from its compute node: a residual add of a same-shaped float32 tensor
// (when the compute node has no clamp of its own, which would come before the add), then a
// clamp; after a 1x1 expansion without a residual, the depthwise layer over it and its
// activation (`fuse_depthwise`). Each fused node must be the only reader of what comes before
// it and in no other region (an add of two convolutions' outputs joins the first one's).
Region GrowRegion(ir::Node* compute, const std::unordered_map<const ir::Node*, size_t>& taken,
                  bool fuse_depthwise) {
  Region region;
  region.compute = compute;
  if (compute->op() == "edge.max_pool2d" || compute->op() == "edge.mean" ||
      compute->op() == "edge.mul") {
    return region;
  }
  if (compute->op() == "edge.matmul") {
    GrowSoftmax(&region, taken);
    GrowMatmulPermutes(&region, taken);
    return region;
  }
  ir::Value* last = compute->output(0);
  if (compute->op() != "edge.matmul" && compute->op() != "edge.layer_norm" &&
      IsUnclamped(*compute)) {
    ir::Node* add = OnlyReader(last);
    if (add != nullptr && add->op() == "edge.add" && taken.count(add) == 0 &&
        IsFloat32(add->output(0))) {
      ir::Value* other = add->input(0) == last ? add->input(1) : add->input(0);
      if (add->input(0) != add->input(1) && other->sizes() == last->sizes() &&
          add->output(0)->sizes() == last->sizes()) {
        region.residual_add = add;
        region.residual = other;
        last = add->output(0);
      }
    }
    region.clamp = ActivationAfter(last, taken);
    if (region.clamp != nullptr) last = region.clamp->output(0);
  }
  if (fuse_depthwise && compute->op() == "edge.convolution" && region.residual_add == nullptr) {
    region.depthwise = FusedDepthwise(*compute, last, taken);
    if (region.depthwise != nullptr && IsUnclamped(*region.depthwise)) {
      region.depthwise_clamp = ActivationAfter(region.depthwise->output(0), taken);
    }
  }
  return region;
}

// The fused activation after `compute`: its own clamp, the fused edge.clamp `clamp`, or
// another fused activation.
void ActivationOf(const ir::Node& compute, const ir::Node* clamp, fb::Activation* activation,
                  float* min, float* max) {
  double lo = DoubleAttr(compute, "output_min");
  double hi = DoubleAttr(compute, "output_max");
  if (clamp != nullptr && clamp->op() != "edge.clamp") {
    *activation = *FusedActivationOf(*clamp);
    *min = *max = 0.0f;
    return;
  }
  if (clamp != nullptr) {
    lo = DoubleAttr(*clamp, "min");
    hi = DoubleAttr(*clamp, "max");
  }
  *min = static_cast<float>(lo);
  *max = static_cast<float>(hi);
  if (lo == -kInf && hi == kInf) {
    *activation = fb::Activation::None;
  } else if (lo == 0.0 && hi == kInf) {
    *activation = fb::Activation::Relu;
  } else {
    *activation = fb::Activation::Clamp;
  }
}

// When 3x3 stride-1 convolutions run by Winograd (backends/native/winograd.h), from
// TORCHIR_NATIVE_WINOGRAD when the program is compiled: "auto" (unset: F(4x4, 3x3) or
// F(2x2, 3x3) where each pays), "off" (never: the A/B baseline), "all" (F(4x4) wherever it
// applies: for tests), "2x2" (F(2x2) wherever it applies: for tests and A/B runs).
enum class WinogradPolicy { kAuto, kOff, kAll, kAll2x2 };

absl::StatusOr<WinogradPolicy> WinogradPolicyFromEnvironment() {
  const char* value = std::getenv("TORCHIR_NATIVE_WINOGRAD");
  if (value == nullptr || std::strcmp(value, "auto") == 0 || value[0] == '\0') {
    return WinogradPolicy::kAuto;
  }
  if (std::strcmp(value, "off") == 0 || std::strcmp(value, "0") == 0) return WinogradPolicy::kOff;
  if (std::strcmp(value, "all") == 0) return WinogradPolicy::kAll;
  if (std::strcmp(value, "2x2") == 0) return WinogradPolicy::kAll2x2;
  return absl::InvalidArgumentError(
      absl::StrCat("TORCHIR_NATIVE_WINOGRAD='", value, "': expected auto, off, all or 2x2"));
}

// Whether 1x1 expansions and their depthwise layers fuse (GrowRegion), from
// TORCHIR_NATIVE_EXPAND_DEPTHWISE when the program is compiled: "on" (unset) or "off" (the A/B
// baseline).
absl::StatusOr<bool> FuseDepthwiseFromEnvironment() {
  const char* value = std::getenv("TORCHIR_NATIVE_EXPAND_DEPTHWISE");
  if (value == nullptr || value[0] == '\0' || std::strcmp(value, "on") == 0) return true;
  if (std::strcmp(value, "off") == 0) return false;
  return absl::InvalidArgumentError(
      absl::StrCat("TORCHIR_NATIVE_EXPAND_DEPTHWISE='", value, "': expected on or off"));
}

const char* WinogradPolicyName(WinogradPolicy policy) {
  switch (policy) {
    case WinogradPolicy::kOff:
      return "off";
    case WinogradPolicy::kAll:
      return "all";
    case WinogradPolicy::kAll2x2:
      return "2x2";
    case WinogradPolicy::kAuto:
      break;
  }
  return "auto";
}

// Where Winograd pays (measured with torchir_native_convolution_benchmark on an AVX-512 core,
// docs/native-kernels.md): F(4x4, 3x3) 2-2.9x the implicit GEMM with at least 16 input and output
// channels and 9 or more output tiles of 4x4 (10x10 and up); 0.8x with 4 tiles (7x7: 64 outputs
// computed for 49, and 36 x C x K weights streamed for 4 rows); slower with 8 input channels (the
// transforms outweigh the saved multiplies). Below 8 tiles of 4x4, F(2x2, 3x3) with at least 8
// tiles of 2x2 (7x7: 16 tiles) and kWinograd2x2MinChannels channels.
constexpr size_t kWinogradMinChannels = 16;
constexpr size_t kWinogradMinTiles = 8;
constexpr size_t kWinograd2x2MinChannels = 64;
// Grouped layers: F(4x4) with at least this many input and output channels a group and
// kWinogradMinTiles tiles. On regnet_x_400mf's 16-channel groups, alone, it took 0.42-0.55 of
// the direct kernel's time at 28 x 28, 14 x 14 and 7 x 7 (F(2x2): 0.65-0.89). In the network the
// 7 x 7 layers gained nothing (0.051 against 0.055 ms): their U, 4x the plain filter (922 KB),
// comes from memory for 4 tiles, so they stay direct.
constexpr size_t kWinogradGroupMinChannels = 8;

// The output tile Winograd runs the region's convolution with (4 or 2), 0 for none: it applies
// (3x3, stride 1, dilation 1; grouped or not, not depthwise) and the policy says so. The output
// transform applies every fused activation.
size_t WinogradTile(WinogradPolicy policy, const ir::Node& compute, const Convolution2dShape& shape,
                    bool depthwise, size_t groups) {
  if (policy == WinogradPolicy::kOff || compute.op() != "edge.convolution" || depthwise ||
      !WinogradGroupedApplies(shape, groups)) {
    return 0;
  }
  if (policy == WinogradPolicy::kAll) return 4;
  if (policy == WinogradPolicy::kAll2x2) return 2;
  if (groups > 1) {
    const size_t group_channels = std::min(shape.input_channels, shape.output_channels) / groups;
    return group_channels >= kWinogradGroupMinChannels &&
                   WinogradTiles(shape, 4) >= kWinogradMinTiles
               ? 4
               : 0;
  }
  const size_t channels = std::min(shape.input_channels, shape.output_channels);
  if (channels >= kWinogradMinChannels && WinogradTiles(shape, 4) >= kWinogradMinTiles) return 4;
  if (channels >= kWinograd2x2MinChannels && WinogradTiles(shape, 2) >= kWinogradMinTiles) {
    return 2;
  }
  return 0;
}

// The filter (OIHW; a linear layer's [N, K] weight is its 1x1 case) packed for `config` (one
// packed B per group when groups > 1; Winograd's transformed filter when `winograd`), or for the
// depthwise kernel (whose layout is the same on every CPU).
absl::StatusOr<ir::TensorData> PackedWeights(const ir::Value* weight,
                                             const Convolution2dShape& shape, bool depthwise,
                                             size_t groups, const GemmConfig& config,
                                             size_t winograd_tile = 0) {
  std::vector<float> filter(static_cast<size_t>(weight->type().numel()));
  std::memcpy(filter.data(), weight->data().data(), filter.size() * sizeof(float));
  const bool winograd = winograd_tile != 0;
  std::vector<uint8_t> packed(
      depthwise     ? DepthwisePackedWeightsBytes(shape)
      : winograd    ? WinogradPackedWeightsBytes(config, shape, winograd_tile, groups)
      : groups == 1 ? ConvolutionPackedWeightsBytes(config, shape)
                    : GroupedConvolutionPackedWeightsBytes(config, shape, groups));
  const runtime::Error error =
      packed.empty() ? runtime::Error::kInvalidArgument
      : winograd  ? PackWinogradWeights(config, shape, winograd_tile, filter.data(), packed.data(),
                                        packed.size(), groups)
      : depthwise ? PackDepthwiseWeights(shape, filter.data(), packed.data(), packed.size())
      : groups == 1
          ? PackConvolutionWeights(config, shape, filter.data(), packed.data(), packed.size())
          : PackGroupedConvolutionWeights(config, shape, groups, filter.data(), packed.data(),
                                          packed.size());
  if (error != runtime::Error::kOk) {
    return absl::InternalError(absl::StrCat("packing '", weight->name(), "' failed"));
  }
  return ir::TensorData::Copy(packed.data(), packed.size());
}

class NativeCompileBackend : public backend::Backend {
 public:
  explicit NativeCompileBackend(KernelTarget target) : target_(target) {
    GetGemmConfig(target, &config_);
  }

  std::string name() const override { return kNativeBackendName; }

  std::string description() const override {
    return absl::StrCat(
        "torchir's own kernels (Highway) run float32 convolutions, linear layers (a residual add "
        "and a clamp, GELU, hardswish, silu, sigmoid or hardsigmoid fused after them), matrix "
        "products (a scalar scale, a boolean mask and a softmax over the last dim fused after "
        "them), layer norms, 2-d max pooling, global average pooling and squeeze-and-excitation "
        "multiplies (a 1x1 expansion of 1 MiB or more and the depthwise layer after it run "
        "fused, in bands), weights packed at compile time for --target (",
        KernelTargetName(target_), " here)");
  }

  backend::Capability CheckNode(const ir::Node& node) const override {
    std::string reason = Refusal(node);
    if (reason.empty()) return backend::Capability::Yes();
    return backend::Capability::No(std::move(reason));
  }

  // What the runtime delegate asks at init on `max_threads` threads on a CPU of --target
  // (delegate_scratch.h, the function the runtime calls).
  absl::StatusOr<uint64_t> ScratchBytes(const emit::DelegatePayload& payload,
                                        uint32_t max_threads) const override {
    flatbuffers::Verifier verifier(payload.blob.data(), payload.blob.size());
    if (payload.backend_id != kNativeBackendId || max_threads == 0 ||
        !fb::VerifyBlobBuffer(verifier)) {
      return absl::InvalidArgumentError(
          absl::StrCat("native: cannot size the scratch of a ", payload.blob.size(),
                       "-byte payload for '", payload.backend_id, "' on ", max_threads,
                       " threads: not a native delegate blob, or no threads"));
    }
    return ComputeDelegateScratch(*fb::GetBlob(payload.blob.data()), config_, max_threads).total();
  }

  absl::StatusOr<backend::PartitionResult> Partition(ir::Graph& graph,
                                                     int64_t first_delegate_index) const override {
    absl::StatusOr<WinogradPolicy> winograd_policy = WinogradPolicyFromEnvironment();
    if (!winograd_policy.ok()) return winograd_policy.status();
    absl::StatusOr<bool> fuse_depthwise = FuseDepthwiseFromEnvironment();
    if (!fuse_depthwise.ok()) return fuse_depthwise.status();
    backend::PartitionResult result;
    std::vector<Region> regions;
    size_t winograd_count[2] = {0, 0}, winograd_candidates = 0;  // F(2x2), F(4x4)
    size_t matmuls = 0, causal_matmuls = 0;
    std::unordered_map<const ir::Node*, size_t> region_of;
    std::unordered_map<const ir::Node*, std::string> reasons;
    for (ir::Node* node : graph.NodeSnapshot()) {
      if (!dialect::IsEdgeOpName(node->op()) || region_of.count(node) != 0) continue;
      std::string reason = Refusal(*node);
      if (!reason.empty()) {
        reasons[node] = std::move(reason);
        continue;
      }
      regions.push_back(GrowRegion(node, region_of, *fuse_depthwise));
      for (ir::Node* member : regions.back().Members()) region_of[member] = regions.size() - 1;
    }

    std::vector<backend::RegionRewrite> rewrites;
    for (size_t r = 0; r < regions.size(); ++r) {
      const int64_t delegate_index = first_delegate_index + static_cast<int64_t>(r);
      size_t winograd = 0;
      bool channels_first = false;
      absl::StatusOr<backend::RegionRewrite> rewrite =
          Serialize(regions[r], delegate_index, *winograd_policy, &winograd, &channels_first);
      if (!rewrite.ok()) return rewrite.status();
      if (regions[r].compute->op() == "edge.convolution" && !IsDepthwise(*regions[r].compute) &&
          WinogradApplies(ShapeOf(*regions[r].compute))) {
        ++winograd_candidates;
      }
      if (winograd != 0) ++winograd_count[winograd == 4 ? 1 : 0];
      if (regions[r].compute->op() == "edge.matmul") {
        ++matmuls;
        if (CausalOffsetOf(regions[r]).has_value()) ++causal_matmuls;
      }
      backend::DelegateSummary summary;
      summary.delegate_index = delegate_index;
      for (ir::Node* member : rewrite->members) {
        summary.nodes.push_back(member->name());
        summary.ops.push_back(member->op());
        summary.macs += dialect::NodeMacs(*member);
      }
      summary.blob_bytes = rewrite->subgraph.blob.size();
      summary.detail = std::string(backend::LayoutName(LayoutOf(regions[r])));
      if (winograd != 0) {
        summary.detail += absl::StrCat(", winograd F(", winograd, "x", winograd, ",3x3)");
      }
      if (channels_first) summary.detail += ", input read NCHW";
      emit::DelegatePayload payload;
      payload.backend_id = kNativeBackendId;
      payload.blob = rewrite->subgraph.blob;
      payload.read_overrun_bytes = 0;
      result.payloads.push_back(std::move(payload));
      rewrite->attributes.push_back(
          {dialect::kDelegateMacsAttr,
           static_cast<int64_t>(std::min<uint64_t>(summary.macs, INT64_MAX))});
      result.delegates.push_back(std::move(summary));
      rewrites.push_back(std::move(*rewrite));
    }

    for (ir::Node* node : graph.NodeSnapshot()) {
      if (!dialect::IsEdgeOpName(node->op())) continue;
      backend::NodeDecision decision;
      decision.node = node->name();
      decision.op = node->op();
      decision.macs = dialect::NodeMacs(*node);
      if (auto it = region_of.find(node); it != region_of.end()) {
        decision.taken = true;
        decision.delegate_index = first_delegate_index + static_cast<int64_t>(it->second);
      } else {
        auto reason = reasons.find(node);
        decision.reason = reason != reasons.end() ? reason->second : "not taken";
        if (node->op() == "edge.add" || node->op() == "edge.clamp" ||
            FusedActivationOf(*node).has_value()) {
          decision.reason =
              "the native backend fuses an add, a clamp or an activation (GELU, hardswish, silu, "
              "sigmoid, hardsigmoid) only right after a convolution or linear layer whose only "
              "reader it is";
        }
        if (node->op() == "edge.softmax") {
          decision.reason =
              "the native backend runs a softmax only over the last dim of a matrix product's "
              "float32 output, fused after it (with a scalar multiply and a where-mask between), "
              "each node the only reader of the one before";
        }
      }
      result.decisions.push_back(std::move(decision));
    }

    absl::StatusOr<backend::RewriteStats> stats =
        backend::ReplaceRegionsWithDelegateCalls(graph, rewrites);
    if (!stats.ok()) return stats.status();
    for (size_t r = 0; r < result.delegates.size(); ++r) {
      result.delegates[r].call_node = stats->delegate_nodes[r];
    }
    result.notes.push_back(
        absl::StrCat("weights packed for ", KernelTargetName(target_), " (", config_.mr, "x",
                     config_.nr, " tiles, kc ", config_.kc, "); ", stats->permutes_inserted,
                     " layout permutes inserted, ", stats->permutes_cancelled, " avoided"));
    result.notes.push_back(absl::StrCat(
        "winograd F(4x4,3x3) for ", winograd_count[1], " and F(2x2,3x3) for ", winograd_count[0],
        " of ", winograd_candidates, " 3x3 stride-1 convolutions (TORCHIR_NATIVE_WINOGRAD=",
        WinogradPolicyName(*winograd_policy), "; auto: F(4x4) with >= ", kWinogradMinChannels,
        " input and output channels and >= ", kWinogradMinTiles,
        " 4x4 output tiles, else F(2x2) with >= ", kWinograd2x2MinChannels, " channels and >= ",
        kWinogradMinTiles, " 2x2 tiles; grouped: F(4x4) with >= ", kWinogradGroupMinChannels,
        " channels a group and >= ", kWinogradMinTiles, " tiles)"));
    if (matmuls > 0) {
      result.notes.push_back(absl::StrCat(
          causal_matmuls, " of ", matmuls,
          " matrix products causal (a constant mask of -inf above a diagonal, or the softmax of "
          "such scores times V): the tiles and terms it zeroes are skipped"));
    }
    return result;
  }

 private:
  static backend::Layout LayoutOf(const Region& region) {
    const std::string& op = region.compute->op();
    return op == "edge.convolution" || op == "edge.max_pool2d" || op == "edge.mean" ||
                   op == "edge.mul"
               ? backend::Layout::kChannelsLast
               : backend::Layout::kLogical;
  }

  // The rewrite of `region` into delegate `delegate_index`: its members, no arguments yet.
  static backend::RegionRewrite NewRewrite(const Region& region, int64_t delegate_index) {
    backend::RegionRewrite rewrite;
    rewrite.members = region.Members();
    rewrite.delegate_index = delegate_index;
    rewrite.tag = kNativeBackendName;
    return rewrite;
  }

  // kConstant for a value known at compile time, else kActivation.
  static backend::SubgraphArgument::Kind InputKind(const ir::Value* value) {
    return value->is_constant_like() ? backend::SubgraphArgument::Kind::kConstant
                                     : backend::SubgraphArgument::Kind::kActivation;
  }

  // `value` as a delegate argument of `kind` with its dims in `layout`: an activation or the
  // output is read or written through the layout's permutation, a constant is transformed into
  // it once at compile time.
  static backend::SubgraphArgument Argument(ir::Value* value, backend::Layout layout,
                                            backend::SubgraphArgument::Kind kind) {
    backend::SubgraphArgument argument;
    argument.kind = kind;
    argument.value = value;
    argument.dims = backend::PhysicalDims(value->sizes(), layout);
    std::vector<int64_t> perm = backend::PhysicalPermutation(layout, value->sizes().size());
    if (kind == backend::SubgraphArgument::Kind::kConstant) {
      argument.transform = {value->sizes(), std::move(perm)};
    } else {
      argument.perm = std::move(perm);
    }
    return argument;
  }

  // Whether a convolution region reads its input NCHW, as the caller supplied it: a stem on the
  // network's image (a graph input of at most kDirectMaxInputChannels channels, a k x k kernel
  // with K <= kc, ungrouped, no Winograd or fused depthwise layer), which DirectConvolution2d
  // reads in place. Else a permute to NHWC would run before the delegate, on the portable kernels
  // and one thread: mobilenet_v2's 3 x 224 x 224 image took about as long as a third of its
  // stem (docs/native-kernels.md).
  bool ReadsImageChannelsFirst(const Region& region, const Convolution2dShape& shape, size_t groups,
                               size_t winograd_tile) const {
    const ir::Node& compute = *region.compute;
    const ir::Value* input = compute.input(0);
    return input->kind() == ir::ValueKind::kGraphInput && input->sizes().size() == 4 &&
           LayoutOf(region) == backend::Layout::kChannelsLast && groups == 1 &&
           !IsDepthwise(compute) && winograd_tile == 0 && region.depthwise == nullptr &&
           region.residual != input && shape.input_channels <= kDirectMaxInputChannels &&
           shape.kernel_height * shape.kernel_width > 1 &&
           shape.kernel_height * shape.kernel_width * shape.input_channels <= config_.kc;
  }

  absl::StatusOr<backend::RegionRewrite> Serialize(const Region& region, int64_t delegate_index,
                                                   WinogradPolicy winograd_policy,
                                                   size_t* winograd_out,
                                                   bool* channels_first_out) const {
    *channels_first_out = false;
    if (region.compute->op() == "edge.matmul") return SerializeMatmul(region, delegate_index);
    if (region.compute->op() == "edge.layer_norm") {
      return SerializeLayerNorm(region, delegate_index);
    }
    if (region.compute->op() == "edge.max_pool2d" || region.compute->op() == "edge.mean") {
      return SerializePooling(region, delegate_index);
    }
    if (region.compute->op() == "edge.mul") return SerializeChannelScale(region, delegate_index);
    const ir::Node& compute = *region.compute;
    const backend::Layout layout = LayoutOf(region);
    ir::Value* input = compute.input(0);
    ir::Value* weight = compute.input(1);
    ir::Value* output = region.Output();
    Convolution2dShape shape = ShapeOf(compute);
    const bool depthwise = IsDepthwise(compute);
    const size_t groups = GemmGroups(compute);
    fb::Activation activation;
    float output_min, output_max;
    ActivationOf(compute, region.clamp, &activation, &output_min, &output_max);
    const size_t winograd_tile = WinogradTile(winograd_policy, compute, shape, depthwise, groups);
    *winograd_out = winograd_tile;
    absl::StatusOr<ir::TensorData> packed =
        PackedWeights(weight, shape, depthwise, groups, config_, winograd_tile);
    if (!packed.ok()) return packed.status();

    shape.input_channels_first = ReadsImageChannelsFirst(region, shape, groups, winograd_tile);
    *channels_first_out = shape.input_channels_first;

    backend::RegionRewrite rewrite = NewRewrite(region, delegate_index);
    std::vector<backend::SubgraphArgument>& arguments = rewrite.subgraph.arguments;
    arguments.push_back(Argument(input,
                                 shape.input_channels_first ? backend::Layout::kLogical : layout,
                                 backend::SubgraphArgument::Kind::kActivation));
    int32_t residual_index = -1;
    if (region.residual != nullptr) {
      residual_index = static_cast<int32_t>(arguments.size());
      arguments.push_back(
          Argument(region.residual, layout, backend::SubgraphArgument::Kind::kActivation));
      // Every kernel reads a residual element just before it writes the same output element
      // (the epilogue's contract), so the output may take over the residual's bytes when
      // nothing reads the residual later: the planner decides. Not when the residual is also
      // the convolution's input, which later tiles read after earlier ones wrote.
      if (region.residual != input) {
        rewrite.attributes.push_back({dialect::kDelegateInPlaceInputAttr, residual_index});
      }
    }
    // A node's packed weights and its bias (or -1), as constant arguments.
    auto add_weights = [&arguments](const ir::Node& node, const ir::TensorData& packed_weights,
                                    int32_t* weights_index, int32_t* bias_index) {
      *weights_index = static_cast<int32_t>(arguments.size());
      backend::SubgraphArgument weights;
      weights.kind = backend::SubgraphArgument::Kind::kConstant;
      weights.value = node.input(1);
      weights.encoded = backend::SubgraphArgument::Encoded{
          {ir::DType::kUInt8, {static_cast<int64_t>(packed_weights.size())}}, packed_weights};
      weights.dims = {static_cast<int64_t>(packed_weights.size())};
      arguments.push_back(std::move(weights));
      *bias_index = -1;
      if (node.num_inputs() > 2) {
        ir::Value* bias = node.input(2);
        *bias_index = static_cast<int32_t>(arguments.size());
        backend::SubgraphArgument argument;
        argument.kind = backend::SubgraphArgument::Kind::kConstant;
        argument.value = bias;
        argument.transform = {bias->sizes(), {0}};
        argument.dims = bias->sizes();
        arguments.push_back(std::move(argument));
      }
    };
    int32_t weights_index, bias_index;
    add_weights(compute, *packed, &weights_index, &bias_index);
    // The depthwise or grouped layer fused after a 1x1 expansion: its weights and bias follow.
    const ir::Node* fused = region.depthwise;
    int32_t fused_weights_index = -1, fused_bias_index = -1;
    Convolution2dShape fused_shape{};
    const bool fused_depthwise = fused != nullptr && IsDepthwise(*fused);
    const size_t fused_groups = fused != nullptr ? GemmGroups(*fused) : 1;
    if (fused != nullptr) {
      fused_shape = ShapeOf(*fused);
      absl::StatusOr<ir::TensorData> fused_packed =
          PackedWeights(fused->input(1), fused_shape, fused_depthwise, fused_groups, config_);
      if (!fused_packed.ok()) return fused_packed.status();
      add_weights(*fused, *fused_packed, &fused_weights_index, &fused_bias_index);
    }
    rewrite.subgraph.num_inputs = arguments.size();
    const int32_t output_index = static_cast<int32_t>(arguments.size());
    arguments.push_back(Argument(output, layout, backend::SubgraphArgument::Kind::kOutput));

    flatbuffers::FlatBufferBuilder builder;
    builder.ForceDefaults(true);
    std::vector<flatbuffers::Offset<fb::Convolution>> nodes;
    nodes.push_back(fb::CreateConvolution(
        builder, shape.batch, shape.input_height, shape.input_width, shape.input_channels,
        shape.output_channels, shape.kernel_height, shape.kernel_width, shape.stride_height,
        shape.stride_width, shape.dilation_height, shape.dilation_width, shape.padding_top,
        shape.padding_left, shape.padding_bottom, shape.padding_right,
        /*input=*/0, weights_index, bias_index, residual_index,
        fused != nullptr ? -1 : output_index, activation, output_min, output_max, depthwise,
        winograd_tile != 0, groups, static_cast<uint32_t>(winograd_tile == 0 ? 4 : winograd_tile),
        /*feeds_next=*/fused != nullptr, shape.input_channels_first));
    if (fused != nullptr) {
      const Convolution2dShape& d = fused_shape;
      ActivationOf(*fused, region.depthwise_clamp, &activation, &output_min, &output_max);
      nodes.push_back(fb::CreateConvolution(
          builder, d.batch, d.input_height, d.input_width, d.input_channels, d.output_channels,
          d.kernel_height, d.kernel_width, d.stride_height, d.stride_width, d.dilation_height,
          d.dilation_width, d.padding_top, d.padding_left, d.padding_bottom, d.padding_right,
          /*input=*/-1, fused_weights_index, fused_bias_index, /*residual=*/-1, output_index,
          activation, output_min, output_max, fused_depthwise, /*winograd=*/false,
          static_cast<uint32_t>(fused_groups), /*winograd_tile=*/4, /*feeds_next=*/false));
    }
    FinishBlob(builder, rewrite, builder.CreateVector(nodes), {});
    return rewrite;
  }

  // A matrix product: A and B are run-time operands, B packed into scratch on every call; then
  // the fused softmax, whose mask (a run-time or constant bool tensor) is the third argument.
  absl::StatusOr<backend::RegionRewrite> SerializeMatmul(const Region& region,
                                                         int64_t delegate_index) const {
    const ir::Node& matmul = *region.compute;
    const std::vector<int64_t>& a = matmul.input(0)->sizes();
    const std::vector<int64_t>& b = matmul.input(1)->sizes();
    const bool shared = b.size() == 2;
    uint64_t batch = 1;
    for (size_t d = 0; d + 2 < a.size(); ++d) batch *= static_cast<uint64_t>(a[d]);
    backend::RegionRewrite rewrite = NewRewrite(region, delegate_index);
    // Causal scores carry no mask argument: the kernels know the mask (and skip its tiles).
    const std::optional<uint64_t> causal = CausalOffsetOf(region);
    ir::Value* mask =
        region.mask != nullptr && !causal.has_value() ? region.mask->input(0) : nullptr;
    ir::Value* output = region.Output();
    // GrowMatmulPermutes kept only permutes whose views exist and fit.
    const MatmulViews views = *ViewsOf(region);
    const bool strided = region.a_permute != nullptr || region.b_permute != nullptr ||
                         region.output_permute != nullptr;
    for (ir::Value* value : {views.a.tensor, views.b.tensor, mask, output}) {
      if (value == nullptr) continue;
      rewrite.subgraph.arguments.push_back(
          Argument(value, backend::Layout::kLogical,
                   value == output ? backend::SubgraphArgument::Kind::kOutput : InputKind(value)));
    }
    rewrite.subgraph.num_inputs = rewrite.subgraph.arguments.size() - 1;
    const int32_t output_index = static_cast<int32_t>(rewrite.subgraph.num_inputs);
    const float scale =
        region.scale != nullptr ? *ScoresScale(*region.scale, matmul.output(0)) : 1.0f;
    const float fill =
        region.mask != nullptr ? *backend::ScalarConstant(region.mask->input(1)) : 0.0f;
    flatbuffers::FlatBufferBuilder builder;
    builder.ForceDefaults(true);
    const auto node = fb::CreateMatrixMultiply(
        builder, batch, static_cast<uint64_t>(a[a.size() - 2]), static_cast<uint64_t>(a.back()),
        static_cast<uint64_t>(b.back()), /*a=*/0, /*b=*/1, output_index, shared,
        region.softmax != nullptr, scale, /*softmax_mask=*/mask != nullptr ? 2 : -1, fill, strided,
        static_cast<uint64_t>(views.a.batch), static_cast<uint64_t>(views.a.row),
        static_cast<uint64_t>(views.b.batch),
        static_cast<uint64_t>(views.b.col == 1 ? views.b.row : views.b.col),
        /*b_transposed=*/views.b.col != 1, static_cast<uint64_t>(views.output.batch),
        static_cast<uint64_t>(views.output.row), causal.has_value(), causal.value_or(0));
    FinishBlob(builder, rewrite, {}, builder.CreateVector(&node, 1));
    return rewrite;
  }

  // A layer norm over the last dim; its weight and bias (constants or run-time tensors) are
  // arguments like the input.
  absl::StatusOr<backend::RegionRewrite> SerializeLayerNorm(const Region& region,
                                                            int64_t delegate_index) const {
    const ir::Node& norm = *region.compute;
    const std::vector<int64_t>& sizes = norm.input(0)->sizes();
    const uint64_t cols = static_cast<uint64_t>(sizes.back());
    const uint64_t rows = static_cast<uint64_t>(norm.input(0)->type().numel()) / cols;
    backend::RegionRewrite rewrite = NewRewrite(region, delegate_index);
    std::vector<backend::SubgraphArgument>& arguments = rewrite.subgraph.arguments;
    int32_t index[4] = {-1, -1, -1, -1};  // input, weight, bias, output
    for (size_t i = 0; i < 3; ++i) {
      if (i >= norm.num_inputs() || norm.input(i) == nullptr) continue;
      ir::Value* value = norm.input(i);
      index[i] = static_cast<int32_t>(arguments.size());
      arguments.push_back(Argument(value, backend::Layout::kLogical, InputKind(value)));
    }
    rewrite.subgraph.num_inputs = arguments.size();
    index[3] = static_cast<int32_t>(arguments.size());
    arguments.push_back(Argument(norm.output(0), backend::Layout::kLogical,
                                 backend::SubgraphArgument::Kind::kOutput));
    flatbuffers::FlatBufferBuilder builder;
    builder.ForceDefaults(true);
    const auto node = fb::CreateLayerNorm(builder, rows, cols, index[0], index[1], index[2],
                                          index[3], static_cast<float>(DoubleAttr(norm, "eps")));
    FinishBlob(builder, rewrite, {}, {}, builder.CreateVector(&node, 1));
    return rewrite;
  }

  // A pooling over NHWC: the input and the output, both channels-last (a mean's [N, C] output
  // is the same bytes as [N, 1, 1, C]).
  absl::StatusOr<backend::RegionRewrite> SerializePooling(const Region& region,
                                                          int64_t delegate_index) const {
    const ir::Node& pool = *region.compute;
    PoolingGeometry geometry;
    if (std::string problem = PoolingProblem(pool, &geometry); !problem.empty()) {
      return absl::InternalError(absl::StrCat("native: '", pool.name(), "': ", problem));
    }
    backend::RegionRewrite rewrite = NewRewrite(region, delegate_index);
    rewrite.subgraph.arguments.push_back(
        Argument(pool.input(0), LayoutOf(region), backend::SubgraphArgument::Kind::kActivation));
    rewrite.subgraph.arguments.push_back(
        Argument(pool.output(0), LayoutOf(region), backend::SubgraphArgument::Kind::kOutput));
    rewrite.subgraph.num_inputs = 1;
    const Pool2dShape& s = geometry.shape;
    const bool average = geometry.global_average;
    flatbuffers::FlatBufferBuilder builder;
    builder.ForceDefaults(true);
    const auto node = fb::CreatePooling(
        builder, average ? fb::PoolingKind::GlobalAverage : fb::PoolingKind::Max, s.batch,
        s.input_height, s.input_width, s.channels, average ? 0 : s.output_height,
        average ? 0 : s.output_width, average ? 0 : s.kernel_height, average ? 0 : s.kernel_width,
        average ? 0 : s.stride_height, average ? 0 : s.stride_width,
        average ? 0 : s.dilation_height, average ? 0 : s.dilation_width, s.padding_top,
        s.padding_left, /*input=*/0, /*output=*/1);
    FinishBlob(builder, rewrite, {}, {}, {}, builder.CreateVector(&node, 1));
    return rewrite;
  }

  // A channel scaling over NHWC: the input, the scale and the output, all channels-last (the
  // scale's [N, C, 1, 1] is the same bytes as [N, C]); a constant scale is an argument too.
  absl::StatusOr<backend::RegionRewrite> SerializeChannelScale(const Region& region,
                                                               int64_t delegate_index) const {
    const ir::Node& mul = *region.compute;
    ChannelScaleGeometry geometry;
    if (std::string problem = ChannelScaleProblem(mul, &geometry); !problem.empty()) {
      return absl::InternalError(absl::StrCat("native: '", mul.name(), "': ", problem));
    }
    backend::RegionRewrite rewrite = NewRewrite(region, delegate_index);
    for (ir::Value* value : {geometry.input, geometry.scale}) {
      rewrite.subgraph.arguments.push_back(Argument(value, LayoutOf(region), InputKind(value)));
    }
    rewrite.subgraph.arguments.push_back(
        Argument(mul.output(0), LayoutOf(region), backend::SubgraphArgument::Kind::kOutput));
    rewrite.subgraph.num_inputs = 2;
    // Each lane reads its input element and writes the same output element: the output may take
    // over the features' bytes when nothing reads them later (the planner decides).
    rewrite.attributes.push_back({dialect::kDelegateInPlaceInputAttr, 0});
    flatbuffers::FlatBufferBuilder builder;
    builder.ForceDefaults(true);
    const auto node = fb::CreateChannelScale(builder, geometry.batch, geometry.pixels,
                                             geometry.channels, geometry.shared_scale,
                                             /*input=*/0, /*scale=*/1, /*output=*/2);
    FinishBlob(builder, rewrite, {}, {}, {}, {}, builder.CreateVector(&node, 1));
    return rewrite;
  }

  // The blob of `rewrite` with these nodes, into rewrite.subgraph.blob.
  static void FinishBlob(
      flatbuffers::FlatBufferBuilder& builder, backend::RegionRewrite& rewrite,
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Convolution>>> convolutions,
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::MatrixMultiply>>>
          matrix_multiplies,
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::LayerNorm>>> layer_norms = {},
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Pooling>>> poolings = {},
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::ChannelScale>>>
          channel_scales = {}) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> ops;
    uint64_t macs = 0;
    for (const ir::Node* member : rewrite.members) {
      ops.push_back(builder.CreateString(member->op()));
      macs += dialect::NodeMacs(*member);
    }
    const auto blob = fb::CreateBlob(builder, kBlobVersion,
                                     static_cast<uint32_t>(rewrite.subgraph.arguments.size()),
                                     convolutions, builder.CreateVector(ops), macs,
                                     matrix_multiplies, layer_norms, poolings, channel_scales);
    builder.Finish(blob, fb::BlobIdentifier());
    rewrite.subgraph.blob.assign(builder.GetBufferPointer(),
                                 builder.GetBufferPointer() + builder.GetSize());
  }

  KernelTarget target_;
  GemmConfig config_{};
};

}  // namespace

absl::StatusOr<KernelTarget> ParseKernelTarget(const std::string& name) {
  if (name == "host") return CurrentKernelTarget();
  KernelTarget target;
  if (KernelTargetFromName(name.c_str(), &target)) return target;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown target '", name, "' (available: ", KernelTargetNames(), ")"));
}

std::string KernelTargetNames() {
  return absl::StrCat("host (here: ", KernelTargetName(CurrentKernelTarget()), "), ",
                      KernelTargetNameList());
}

std::unique_ptr<backend::Backend> MakeNativeCompileBackend(KernelTarget target) {
  return std::make_unique<NativeCompileBackend>(target);
}

}  // namespace torchir::native
