#include "backends/xnnpack/runtime/node_definitions.h"

#include <xnnpack.h>

#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "backends/xnnpack/serialization/node_params.h"
#include "runtime/core/result.h"
#include "runtime/platform/platform.h"

namespace torchir::runtime::xnnpack {
namespace {

namespace P = ::torchir::xnnpack::node_params;

static_assert(kMaxValueRank == XNN_MAX_TENSOR_DIMS, "ValueInfo must hold XNNPACK's largest rank");

// ---------------------------------------------------------------------------
// Messages. Every refusal names the node and its op.

#ifndef TORCHIR_STRIP_ERROR_MESSAGES
__attribute__((format(printf, 2, 3))) void LogNodeError(const NodeCall& call, const char* format,
                                                        ...) {
  char message[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  Log(LogLevel::kError, "XnnpackBackend: node %zu (%s): %s", call.index, call.op, message);
}
#define NODE_CHECK(call, cond, ...)    \
  do {                                 \
    if (!(cond)) {                     \
      LogNodeError(call, __VA_ARGS__); \
      return Error::kInvalidProgram;   \
    }                                  \
  } while (0)
#else
#define NODE_CHECK(call, cond, ...)             \
  do {                                          \
    (void)(call);                               \
    if (!(cond)) return Error::kInvalidProgram; \
  } while (0)
#endif

// XNNPACK refusing a node the checks accepted is a delegate failure, not a
// malformed blob: the compiler and this table disagree about what XNNPACK takes.
Error FromStatus(const NodeCall& call, xnn_status status) {
  if (status == xnn_status_success) return Error::kOk;
  Log(LogLevel::kError, "XnnpackBackend: node %zu (%s): XNNPACK refused it: %s", call.index,
      call.op, XnnStatusName(status));
  return Error::kDelegateFailed;
}

#ifndef TORCHIR_STRIP_ERROR_MESSAGES
void FormatDims(const uint64_t* dims, size_t rank, char* out, size_t size) {
  size_t used = static_cast<size_t>(std::snprintf(out, size, "["));
  for (size_t d = 0; d < rank && used < size; ++d) {
    used += static_cast<size_t>(std::snprintf(out + used, size - used, d == 0 ? "%llu" : ", %llu",
                                              static_cast<unsigned long long>(dims[d])));
  }
  if (used < size) std::snprintf(out + used, size - used, "]");
}
#endif

// `value` has exactly `expected` dims; `role` names it in the message.
Error ExpectShape(const NodeCall& call, const ValueInfo& value, const char* role,
                  const uint64_t* expected, size_t rank) {
  bool same = value.rank == rank;
  for (size_t d = 0; same && d < rank; ++d) same = value.dims[d] == expected[d];
  if (same) return Error::kOk;
#ifndef TORCHIR_STRIP_ERROR_MESSAGES
  uint64_t actual[kMaxValueRank];
  for (size_t d = 0; d < value.rank; ++d) actual[d] = value.dims[d];
  char have[128], want[128];
  FormatDims(actual, value.rank, have, sizeof(have));
  FormatDims(expected, rank, want, sizeof(want));
  LogNodeError(call, "%s is %s, expected %s", role, have, want);
#else
  (void)call;
  (void)role;
#endif
  return Error::kInvalidProgram;
}

// ---------------------------------------------------------------------------
// Parameters.

// Reads call.ints (the count was checked against the row) as uint32 values, each within
// its slot's [min, max].
template <typename Op>
Error ReadInts(const NodeCall& call, uint32_t (&out)[Op::kNumInts]) {
  for (size_t i = 0; i < static_cast<size_t>(Op::kNumInts); ++i) {
    const int64_t v = call.ints[i];
    const P::IntSlot& slot = Op::kInts[i];
    NODE_CHECK(call, v >= slot.min && v <= slot.max, "%s = %lld is out of range [%lld, %lld]",
               slot.name, static_cast<long long>(v), static_cast<long long>(slot.min),
               static_cast<long long>(slot.max));
    out[i] = static_cast<uint32_t>(v);
  }
  return Error::kOk;
}

// A double from the blob as the float XNNPACK takes; out-of-range values
// become infinities (a plain cast would be undefined behaviour).
float ToFloat(double v) {
  if (std::isnan(v)) return NAN;
  if (v > FLT_MAX) return INFINITY;
  if (v < -FLT_MAX) return -INFINITY;
  return static_cast<float>(v);
}

// The fused clamp [output_min, output_max] (±infinity for none) of an op with
// P::OutputRangeFloats. XNNPACK wants min < max and neither NaN.
Error ReadOutputRange(const NodeCall& call, float* min, float* max) {
  *min = ToFloat(call.floats[P::OutputRangeFloats::kOutputMin]);
  *max = ToFloat(call.floats[P::OutputRangeFloats::kOutputMax]);
  NODE_CHECK(call, !std::isnan(*min) && !std::isnan(*max) && *min < *max,
             "output range [%g, %g] is empty or NaN", static_cast<double>(*min),
             static_cast<double>(*max));
  return Error::kOk;
}

// ---------------------------------------------------------------------------
// Shape rules. Dims are < 2^60 and parameters < 2^32 (checked before), so
// the sums and products below cannot overflow 64 bits.

// The output extent of a window sliding over `input` (XNNPACK's rule: floor,
// no ceil mode), or 0 when the padded input is smaller than the window.
uint64_t WindowOutput(uint64_t input, uint32_t pad_before, uint32_t pad_after, uint32_t kernel,
                      uint32_t stride, uint32_t dilation) {
  const uint64_t padded = input + pad_before + pad_after;
  const uint64_t window = (uint64_t{kernel} - 1) * dilation + 1;
  if (padded < window) return 0;
  return (padded - window) / stride + 1;
}

// The 2-d window parameters shared by convolutions and poolings.
struct Window2d {
  uint32_t pad_top, pad_right, pad_bottom, pad_left;
  uint32_t kernel_h, kernel_w, stride_h, stride_w, dilation_h = 1, dilation_w = 1;
};

// Reads the window slots of Op (a convolution or pooling layout) and checks the 32-bit
// products XNNPACK forms from them: the kernel area and the dilated window.
template <typename Op, int kKernelH, int kKernelW>
Error ReadWindow(const NodeCall& call, const uint32_t* p, Window2d* w) {
  *w = Window2d{p[Op::kPadTop], p[Op::kPadRight], p[Op::kPadBottom], p[Op::kPadLeft],
                p[kKernelH],    p[kKernelW],      p[Op::kStrideH],   p[Op::kStrideW]};
  if constexpr (Op::kNumInts > Op::kStrideW + 1) {
    w->dilation_h = p[Op::kDilationH];
    w->dilation_w = p[Op::kDilationW];
  }
  const uint64_t area = uint64_t{w->kernel_h} * w->kernel_w;
  const uint64_t window_h = (uint64_t{w->kernel_h} - 1) * w->dilation_h + 1;
  const uint64_t window_w = (uint64_t{w->kernel_w} - 1) * w->dilation_w + 1;
  NODE_CHECK(call,
             area <= uint64_t{P::kMaxWindowParam} && window_h <= uint64_t{P::kMaxWindowParam} &&
                 window_w <= uint64_t{P::kMaxWindowParam},
             "the %ux%u window (dilation %ux%u) exceeds XNNPACK's 32-bit window arithmetic "
             "(area and dilated extent at most %lld)",
             w->kernel_h, w->kernel_w, w->dilation_h, w->dilation_w,
             static_cast<long long>(P::kMaxWindowParam));
  return Error::kOk;
}

// A sliding-window node's indirection buffer: XNNPACK keeps one input pointer per window
// element per output pixel (convolutions and poolings), sized from the parameters alone.
// Counted with slack (XNNPACK rounds the pixels up to its tile) against the delegate's budget.
Error ChargeIndirection(const NodeCall& call, uint64_t pixels, const Window2d& w) {
  // Pixels < 2^60 (an output value's element count) and the area < 2^24: the product fits
  // 128 bits; it saturates to 64.
  const unsigned __int128 bytes = static_cast<unsigned __int128>(pixels + 64) *
                                  (uint64_t{w.kernel_h} * w.kernel_w) * sizeof(void*);
  const uint64_t charged = bytes > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(bytes);
  if (call.memory_used == nullptr) return Error::kOk;
  if (charged > call.memory_budget || *call.memory_used > call.memory_budget - charged) {
    Log(LogLevel::kError,
        "XnnpackBackend: node %zu (%s): its %ux%u window over %llu output pixels needs a "
        "%llu-byte indirection buffer, beyond the delegate's XNNPACK memory budget "
        "(%llu bytes, %llu used)",
        call.index, call.op, w.kernel_h, w.kernel_w, static_cast<unsigned long long>(pixels),
        static_cast<unsigned long long>(charged),
        static_cast<unsigned long long>(call.memory_budget),
        static_cast<unsigned long long>(*call.memory_used));
    return Error::kOutOfMemory;
  }
  *call.memory_used += charged;
  return Error::kOk;
}

// Checks that `input` is NHWC and computes the output's [N, OH, OW].
Error WindowOutputDims(const NodeCall& call, const ValueInfo& input, const Window2d& w,
                       uint64_t* out_n, uint64_t* out_h, uint64_t* out_w) {
  NODE_CHECK(call, input.rank == 4, "input has rank %zu, expected 4 (NHWC)", input.rank);
  *out_n = input.dims[0];
  *out_h =
      WindowOutput(input.dims[1], w.pad_top, w.pad_bottom, w.kernel_h, w.stride_h, w.dilation_h);
  *out_w =
      WindowOutput(input.dims[2], w.pad_left, w.pad_right, w.kernel_w, w.stride_w, w.dilation_w);
  NODE_CHECK(call, *out_h > 0 && *out_w > 0,
             "the %ux%u window (dilation %ux%u) does not fit the padded %zux%zu input", w.kernel_h,
             w.kernel_w, w.dilation_h, w.dilation_w, input.dims[1], input.dims[2]);
  return Error::kOk;
}

// A filter or bias operand: static (XNNPACK packs it at init) with `dims`.
Error ExpectStaticOperand(const NodeCall& call, size_t input, const char* role,
                          const uint64_t* dims, size_t rank) {
  NODE_CHECK(call, call.inputs[input]->is_static, "%s must be a constant", role);
  return ExpectShape(call, *call.inputs[input], role, dims, rank);
}

// The bias id, or XNN_INVALID_VALUE_ID for a node without one (accepted by
// the snapshot's convolution, depthwise convolution and fully connected).
uint32_t BiasId(const NodeCall& call, size_t bias_input) {
  return call.num_inputs > bias_input ? call.inputs[bias_input]->id : XNN_INVALID_VALUE_ID;
}

// ---------------------------------------------------------------------------
// Definitions, in table order.

Error DefineConvolution2d(const NodeCall& call) {
  using Op = P::Convolution2d;
  uint32_t p[Op::kNumInts];
  TORCHIR_RETURN_IF_ERROR(ReadInts<Op>(call, p));
  Window2d w;
  TORCHIR_RETURN_IF_ERROR((ReadWindow<Op, Op::kKernelH, Op::kKernelW>(call, p, &w)));
  const uint32_t groups = p[Op::kGroups], group_in = p[Op::kGroupInputChannels],
                 group_out = p[Op::kGroupOutputChannels];
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  const ValueInfo& input = *call.inputs[0];
  uint64_t n, oh, ow;
  TORCHIR_RETURN_IF_ERROR(WindowOutputDims(call, input, w, &n, &oh, &ow));
  const uint64_t in_channels = uint64_t{groups} * group_in;
  const uint64_t out_channels = uint64_t{groups} * group_out;
  // XNNPACK's subgraph multiplies them in 32 bits (the pixel strides).
  NODE_CHECK(call, in_channels <= UINT32_MAX && out_channels <= UINT32_MAX,
             "groups * channels overflow 32 bits (%llu in, %llu out)",
             static_cast<unsigned long long>(in_channels),
             static_cast<unsigned long long>(out_channels));
  NODE_CHECK(call, input.dims[3] == in_channels,
             "input has %zu channels, groups * group_input_channels = %llu", input.dims[3],
             static_cast<unsigned long long>(in_channels));
  const uint64_t filter[] = {out_channels, w.kernel_h, w.kernel_w, group_in};
  TORCHIR_RETURN_IF_ERROR(ExpectStaticOperand(call, 1, "filter", filter, 4));
  if (call.num_inputs == 3) {
    TORCHIR_RETURN_IF_ERROR(ExpectStaticOperand(call, 2, "bias", &out_channels, 1));
  }
  const uint64_t output[] = {n, oh, ow, out_channels};
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", output, 4));
  // The output is a value (< 2^60 elements), so n * oh * ow cannot overflow.
  TORCHIR_RETURN_IF_ERROR(ChargeIndirection(call, n * oh * ow, w));
  return FromStatus(call, xnn_define_convolution_2d(
                              call.subgraph, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left,
                              w.kernel_h, w.kernel_w, w.stride_h, w.stride_w, w.dilation_h,
                              w.dilation_w, groups, group_in, group_out, min, max, input.id,
                              call.inputs[1]->id, BiasId(call, 2), call.output->id, /*flags=*/0));
}

Error DefineDepthwiseConvolution2d(const NodeCall& call) {
  using Op = P::DepthwiseConvolution2d;
  uint32_t p[Op::kNumInts];
  TORCHIR_RETURN_IF_ERROR(ReadInts<Op>(call, p));
  Window2d w;
  TORCHIR_RETURN_IF_ERROR((ReadWindow<Op, Op::kKernelH, Op::kKernelW>(call, p, &w)));
  const uint32_t depth_multiplier = p[Op::kDepthMultiplier], channels = p[Op::kInputChannels];
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  const ValueInfo& input = *call.inputs[0];
  uint64_t n, oh, ow;
  TORCHIR_RETURN_IF_ERROR(WindowOutputDims(call, input, w, &n, &oh, &ow));
  NODE_CHECK(call, input.dims[3] == channels, "input has %zu channels, input_channels = %u",
             input.dims[3], channels);
  const uint64_t out_channels = uint64_t{channels} * depth_multiplier;
  NODE_CHECK(call, out_channels <= UINT32_MAX,
             "input_channels * depth_multiplier = %llu overflows 32 bits",
             static_cast<unsigned long long>(out_channels));
  const uint64_t filter[] = {1, w.kernel_h, w.kernel_w, out_channels};
  TORCHIR_RETURN_IF_ERROR(ExpectStaticOperand(call, 1, "filter", filter, 4));
  if (call.num_inputs == 3) {
    TORCHIR_RETURN_IF_ERROR(ExpectStaticOperand(call, 2, "bias", &out_channels, 1));
  }
  const uint64_t output[] = {n, oh, ow, out_channels};
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", output, 4));
  // The output is a value (< 2^60 elements), so n * oh * ow cannot overflow.
  TORCHIR_RETURN_IF_ERROR(ChargeIndirection(call, n * oh * ow, w));
  return FromStatus(call, xnn_define_depthwise_convolution_2d(
                              call.subgraph, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left,
                              w.kernel_h, w.kernel_w, w.stride_h, w.stride_w, w.dilation_h,
                              w.dilation_w, depth_multiplier, channels, min, max, input.id,
                              call.inputs[1]->id, BiasId(call, 2), call.output->id, /*flags=*/0));
}

Error DefineFullyConnected(const NodeCall& call) {
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  const ValueInfo& input = *call.inputs[0];
  const ValueInfo& filter = *call.inputs[1];
  NODE_CHECK(call, input.rank >= 1, "input must have rank >= 1");
  NODE_CHECK(call, filter.rank == 2, "filter has rank %zu, expected 2 ([N, K])", filter.rank);
  const uint64_t k = input.dims[input.rank - 1];
  const uint64_t out_features = filter.dims[0];
  const uint64_t filter_dims[] = {out_features, k};
  TORCHIR_RETURN_IF_ERROR(ExpectStaticOperand(call, 1, "filter", filter_dims, 2));
  if (call.num_inputs == 3) {
    TORCHIR_RETURN_IF_ERROR(ExpectStaticOperand(call, 2, "bias", &out_features, 1));
  }
  uint64_t output[kMaxValueRank];
  for (size_t d = 0; d + 1 < input.rank; ++d) output[d] = input.dims[d];
  output[input.rank - 1] = out_features;
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", output, input.rank));
  return FromStatus(call, xnn_define_fully_connected(call.subgraph, min, max, input.id, filter.id,
                                                     BiasId(call, 2), call.output->id,
                                                     /*flags=*/0));
}

// Binary elementwise ops: the output has the numpy broadcast shape of the
// inputs (XNNPACK computes it the same way and writes that many elements).
Error ExpectBroadcastOutput(const NodeCall& call) {
  const ValueInfo& a = *call.inputs[0];
  const ValueInfo& b = *call.inputs[1];
  const size_t rank = a.rank > b.rank ? a.rank : b.rank;
  uint64_t output[kMaxValueRank];
  for (size_t i = 0; i < rank; ++i) {
    const uint64_t sa = i < a.rank ? a.dims[a.rank - 1 - i] : 1;
    const uint64_t sb = i < b.rank ? b.dims[b.rank - 1 - i] : 1;
    NODE_CHECK(call, sa == sb || sa == 1 || sb == 1,
               "inputs do not broadcast: %llu vs %llu at dim -%zu",
               static_cast<unsigned long long>(sa), static_cast<unsigned long long>(sb), i + 1);
    output[rank - 1 - i] = sa == 1 ? sb : sa;
  }
  return ExpectShape(call, *call.output, "output", output, rank);
}

using ClampedBinaryFn = xnn_status (*)(xnn_subgraph_t, float, float, uint32_t, uint32_t, uint32_t,
                                       uint32_t);
using BinaryFn = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t, uint32_t);

template <ClampedBinaryFn kDefine>
Error DefineClampedBinary(const NodeCall& call) {
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  TORCHIR_RETURN_IF_ERROR(ExpectBroadcastOutput(call));
  return FromStatus(call, kDefine(call.subgraph, min, max, call.inputs[0]->id, call.inputs[1]->id,
                                  call.output->id, /*flags=*/0));
}

template <BinaryFn kDefine>
Error DefineBinary(const NodeCall& call) {
  TORCHIR_RETURN_IF_ERROR(ExpectBroadcastOutput(call));
  return FromStatus(call, kDefine(call.subgraph, call.inputs[0]->id, call.inputs[1]->id,
                                  call.output->id, /*flags=*/0));
}

// Unary elementwise ops (and softmax): XNNPACK treats the last dim as channels
// and reads it unconditionally, so rank 0 is refused; the output has the
// input's shape.
Error ExpectSameShapeOutput(const NodeCall& call) {
  const ValueInfo& input = *call.inputs[0];
  NODE_CHECK(call, input.rank >= 1, "input must have rank >= 1");
  uint64_t dims[kMaxValueRank];
  for (size_t d = 0; d < input.rank; ++d) dims[d] = input.dims[d];
  return ExpectShape(call, *call.output, "output", dims, input.rank);
}

using UnaryFn = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t);

template <UnaryFn kDefine>
Error DefineUnary(const NodeCall& call) {
  TORCHIR_RETURN_IF_ERROR(ExpectSameShapeOutput(call));
  return FromStatus(call, kDefine(call.subgraph, call.inputs[0]->id, call.output->id, 0));
}

Error DefineClamp(const NodeCall& call) {
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  TORCHIR_RETURN_IF_ERROR(ExpectSameShapeOutput(call));
  return FromStatus(call, xnn_define_clamp(call.subgraph, min, max, call.inputs[0]->id,
                                           call.output->id, /*flags=*/0));
}

Error DefineLeakyRelu(const NodeCall& call) {
  const double slope = call.floats[P::LeakyRelu::kNegativeSlope];
  NODE_CHECK(call, std::isfinite(slope) && std::fabs(slope) <= FLT_MAX,
             "negative_slope %g is not a finite float", slope);
  TORCHIR_RETURN_IF_ERROR(ExpectSameShapeOutput(call));
  return FromStatus(call, xnn_define_leaky_relu(call.subgraph, static_cast<float>(slope),
                                                call.inputs[0]->id, call.output->id, 0));
}

Error DefineElu(const NodeCall& call) {
  const double alpha = call.floats[P::Elu::kAlpha];
  NODE_CHECK(call, std::isfinite(alpha) && std::fabs(alpha) <= FLT_MAX,
             "alpha %g is not a finite float", alpha);
  TORCHIR_RETURN_IF_ERROR(ExpectSameShapeOutput(call));
  return FromStatus(call, xnn_define_elu(call.subgraph, static_cast<float>(alpha),
                                         call.inputs[0]->id, call.output->id, 0));
}

// The slope is static, one per channel of the innermost dim (XNNPACK packs it at init).
Error DefinePrelu(const NodeCall& call) {
  const ValueInfo& input = *call.inputs[0];
  const ValueInfo& slope = *call.inputs[1];
  TORCHIR_RETURN_IF_ERROR(ExpectSameShapeOutput(call));
  NODE_CHECK(call, slope.is_static, "slope must be a constant");
  NODE_CHECK(call, slope.rank == 1 && slope.dims[0] == input.dims[input.rank - 1],
             "slope must be 1-d with one value per channel (the innermost dim)");
  return FromStatus(call, xnn_define_prelu(call.subgraph, input.id, slope.id, call.output->id,
                                           /*flags=*/0));
}

// Pooling keeps the channels: output [N, OH, OW, C].
Error ExpectPoolingOutput(const NodeCall& call, const Window2d& w) {
  const ValueInfo& input = *call.inputs[0];
  uint64_t n, oh, ow;
  TORCHIR_RETURN_IF_ERROR(WindowOutputDims(call, input, w, &n, &oh, &ow));
  const uint64_t output[] = {n, oh, ow, input.dims[3]};
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", output, 4));
  return ChargeIndirection(call, n * oh * ow, w);
}

Error DefineMaxPooling2d(const NodeCall& call) {
  using Op = P::MaxPooling2d;
  uint32_t p[Op::kNumInts];
  TORCHIR_RETURN_IF_ERROR(ReadInts<Op>(call, p));
  Window2d w;
  TORCHIR_RETURN_IF_ERROR((ReadWindow<Op, Op::kPoolH, Op::kPoolW>(call, p, &w)));
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  // The Debian 2022-02-16 snapshot computes wrong maxima for padded inputs
  // when the two dilations differ (e.g. 2x1), and for windows lying wholly in
  // the padding (PyTorch forbids padding beyond half the dilated window).
  const bool padded = w.pad_top + w.pad_bottom + w.pad_left + w.pad_right > 0;
  NODE_CHECK(call, !padded || w.dilation_h == w.dilation_w,
             "padding with unequal dilations (%ux%u) is computed wrongly by this XNNPACK",
             w.dilation_h, w.dilation_w);
  const uint64_t window_h = (uint64_t{w.kernel_h} - 1) * w.dilation_h + 1;
  const uint64_t window_w = (uint64_t{w.kernel_w} - 1) * w.dilation_w + 1;
  NODE_CHECK(call,
             2 * uint64_t{w.pad_top} <= window_h && 2 * uint64_t{w.pad_bottom} <= window_h &&
                 2 * uint64_t{w.pad_left} <= window_w && 2 * uint64_t{w.pad_right} <= window_w,
             "padding exceeds half the %llux%llu window", static_cast<unsigned long long>(window_h),
             static_cast<unsigned long long>(window_w));
  TORCHIR_RETURN_IF_ERROR(ExpectPoolingOutput(call, w));
  return FromStatus(call, xnn_define_max_pooling_2d(
                              call.subgraph, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left,
                              w.kernel_h, w.kernel_w, w.stride_h, w.stride_w, w.dilation_h,
                              w.dilation_w, min, max, call.inputs[0]->id, call.output->id, 0));
}

Error DefineAveragePooling2d(const NodeCall& call) {
  using Op = P::AveragePooling2d;
  uint32_t p[Op::kNumInts];
  TORCHIR_RETURN_IF_ERROR(ReadInts<Op>(call, p));
  Window2d w;
  TORCHIR_RETURN_IF_ERROR((ReadWindow<Op, Op::kPoolH, Op::kPoolW>(call, p, &w)));
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  TORCHIR_RETURN_IF_ERROR(ExpectPoolingOutput(call, w));
  return FromStatus(call, xnn_define_average_pooling_2d(
                              call.subgraph, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left,
                              w.kernel_h, w.kernel_w, w.stride_h, w.stride_w, min, max,
                              call.inputs[0]->id, call.output->id, 0));
}

Error DefineStaticResizeBilinear2d(const NodeCall& call) {
  using Op = P::StaticResizeBilinear2d;
  uint32_t p[Op::kNumInts];
  TORCHIR_RETURN_IF_ERROR(ReadInts<Op>(call, p));
  const ValueInfo& input = *call.inputs[0];
  NODE_CHECK(call, input.rank == 4, "input has rank %zu, expected 4 (NHWC)", input.rank);
  const uint64_t output[] = {input.dims[0], p[Op::kNewHeight], p[Op::kNewWidth], input.dims[3]};
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", output, 4));
  const uint32_t flags = p[Op::kAlignCorners] != 0 ? XNN_FLAG_ALIGN_CORNERS : 0;
  return FromStatus(call, xnn_define_static_resize_bilinear_2d(
                              call.subgraph, p[Op::kNewHeight], p[Op::kNewWidth], input.id,
                              call.output->id, flags));
}

Error DefineGlobalAveragePooling2d(const NodeCall& call) {
  float min, max;
  TORCHIR_RETURN_IF_ERROR(ReadOutputRange(call, &min, &max));
  const ValueInfo& input = *call.inputs[0];
  NODE_CHECK(call, input.rank == 4, "input has rank %zu, expected 4 (NHWC)", input.rank);
  const uint64_t output[] = {input.dims[0], 1, 1, input.dims[3]};
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", output, 4));
  return FromStatus(call, xnn_define_global_average_pooling_2d(call.subgraph, min, max, input.id,
                                                               call.output->id, 0));
}

Error DefineStaticReshape(const NodeCall& call) {
  const ValueInfo& input = *call.inputs[0];
  NODE_CHECK(call, call.ints.size() <= kMaxValueRank, "new shape has rank %zu, at most %zu",
             call.ints.size(), kMaxValueRank);
  uint64_t shape[kMaxValueRank];
  size_t new_shape[kMaxValueRank];
  for (size_t d = 0; d < call.ints.size(); ++d) {
    NODE_CHECK(call, call.ints[d] >= P::StaticReshape::kMinDim, "new shape dim %zu is %lld", d,
               static_cast<long long>(call.ints[d]));
    shape[d] = static_cast<uint64_t>(call.ints[d]);
    new_shape[d] = static_cast<size_t>(call.ints[d]);
  }
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", shape, call.ints.size()));
  // XNNPACK copies the input's elements into the output as they are.
  NODE_CHECK(call, input.numel == call.output->numel, "reshape from %zu to %zu elements",
             input.numel, call.output->numel);
  return FromStatus(call, xnn_define_static_reshape(call.subgraph, call.ints.size(), new_shape,
                                                    input.id, call.output->id, 0));
}

Error DefineStaticConstantPad(const NodeCall& call) {
  const ValueInfo& input = *call.inputs[0];
  NODE_CHECK(call, input.rank >= 1, "input must have rank >= 1");
  NODE_CHECK(call, call.ints.size() == 2 * input.rank,
             "%zu paddings for an input of rank %zu (expected pre and post per dim)",
             call.ints.size(), input.rank);
  size_t pre[kMaxValueRank], post[kMaxValueRank];
  uint64_t output[kMaxValueRank];
  for (size_t d = 0; d < input.rank; ++d) {
    using Op = P::StaticConstantPad;
    const int64_t before = call.ints[Op::PrePadding(d)];
    const int64_t after = call.ints[Op::PostPadding(d, input.rank)];
    // At most kMaxWindowParam: XNNPACK may fuse a zero pad into the convolution reading it
    // and adds the paddings in 32 bits.
    NODE_CHECK(
        call,
        before >= 0 && after >= 0 && before <= P::kMaxWindowParam && after <= P::kMaxWindowParam,
        "padding of dim %zu (%lld, %lld) is negative or larger than %lld", d,
        static_cast<long long>(before), static_cast<long long>(after),
        static_cast<long long>(P::kMaxWindowParam));
    pre[d] = static_cast<size_t>(before);
    post[d] = static_cast<size_t>(after);
    output[d] = input.dims[d] + static_cast<uint64_t>(before) + static_cast<uint64_t>(after);
  }
  TORCHIR_RETURN_IF_ERROR(ExpectShape(call, *call.output, "output", output, input.rank));
  return FromStatus(
      call, xnn_define_static_constant_pad(
                call.subgraph, pre, post, ToFloat(call.floats[P::StaticConstantPad::kPaddingValue]),
                input.id, call.output->id, 0));
}

// A row of the table: the op's layout from node_params.h and its definition.
template <typename Op>
constexpr NodeDefinition Row(DefineNodeFn define) {
  return {Op::kOp,
          Op::kMinInputs,
          Op::kMaxInputs,
          static_cast<int>(Op::kNumInts),
          static_cast<int>(Op::kNumFloats),
          define};
}

// The table (each op's inputs, slots and output shape are documented in node_params.h).
// Filters and biases must be constants (XNNPACK packs them at init).
constexpr NodeDefinition kNodeDefinitions[] = {
    Row<P::Convolution2d>(DefineConvolution2d),
    Row<P::DepthwiseConvolution2d>(DefineDepthwiseConvolution2d),
    Row<P::FullyConnected>(DefineFullyConnected),
    Row<P::Add2>(DefineClampedBinary<xnn_define_add2>),
    Row<P::Multiply2>(DefineClampedBinary<xnn_define_multiply2>),
    Row<P::Subtract>(DefineClampedBinary<xnn_define_subtract>),
    Row<P::Divide>(DefineClampedBinary<xnn_define_divide>),
    Row<P::Maximum2>(DefineBinary<xnn_define_maximum2>),
    Row<P::Minimum2>(DefineBinary<xnn_define_minimum2>),
    Row<P::Clamp>(DefineClamp),
    Row<P::LeakyRelu>(DefineLeakyRelu),
    Row<P::Elu>(DefineElu),
    Row<P::Hardswish>(DefineUnary<xnn_define_hardswish>),
    Row<P::Sigmoid>(DefineUnary<xnn_define_sigmoid>),
    Row<P::Negate>(DefineUnary<xnn_define_negate>),
    Row<P::Abs>(DefineUnary<xnn_define_abs>),
    Row<P::SquareRoot>(DefineUnary<xnn_define_square_root>),
    Row<P::Square>(DefineUnary<xnn_define_square>),
    Row<P::Prelu>(DefinePrelu),
    Row<P::Floor>(DefineUnary<xnn_define_floor>),
    Row<P::Ceiling>(DefineUnary<xnn_define_ceiling>),
    Row<P::BankersRounding>(DefineUnary<xnn_define_bankers_rounding>),
    Row<P::Softmax>(DefineUnary<xnn_define_softmax>),
    Row<P::MaxPooling2d>(DefineMaxPooling2d),
    Row<P::AveragePooling2d>(DefineAveragePooling2d),
    Row<P::StaticResizeBilinear2d>(DefineStaticResizeBilinear2d),
    Row<P::GlobalAveragePooling2d>(DefineGlobalAveragePooling2d),
    Row<P::StaticReshape>(DefineStaticReshape),
    Row<P::StaticConstantPad>(DefineStaticConstantPad),
};

// Every op of node_params.h has a row.
#define TORCHIR_XNNPACK_COUNT_OP(Op) +1
static_assert(std::size(kNodeDefinitions) == 0 TORCHIR_XNNPACK_NODE_OPS(TORCHIR_XNNPACK_COUNT_OP));
#undef TORCHIR_XNNPACK_COUNT_OP

}  // namespace

Span<const NodeDefinition> NodeDefinitions() {
  return Span<const NodeDefinition>(kNodeDefinitions, std::size(kNodeDefinitions));
}

const NodeDefinition* FindNodeDefinition(const char* op, size_t length) {
  for (const NodeDefinition& definition : kNodeDefinitions) {
    if (std::strlen(definition.op) == length && std::memcmp(definition.op, op, length) == 0) {
      return &definition;
    }
  }
  return nullptr;
}

const char* XnnStatusName(int status) {
  switch (status) {
    case xnn_status_success:
      return "success";
    case xnn_status_uninitialized:
      return "uninitialized";
    case xnn_status_invalid_parameter:
      return "invalid_parameter";
    case xnn_status_invalid_state:
      return "invalid_state";
    case xnn_status_unsupported_parameter:
      return "unsupported_parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported_hardware";
    case xnn_status_out_of_memory:
      return "out_of_memory";
    default:
      return "unknown status";
  }
}

}  // namespace torchir::runtime::xnnpack
