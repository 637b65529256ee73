// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/depthwise.h"

#include <pthreadpool.h>

#include <cstdint>
#include <cstring>
#include <limits>

// foreach_target.h includes this file again per target: define the call's struct once.
#ifndef TORCHIR_BACKENDS_NATIVE_DEPTHWISE_CALL_
#define TORCHIR_BACKENDS_NATIVE_DEPTHWISE_CALL_
namespace torchir::native {
namespace {

// The arguments of one share of a depthwise convolution, as they cross Highway's dispatch table.
struct DepthwiseCall {
  const Convolution2dShape* shape;
  size_t output_height, output_width;
  const float* input;
  const PackedDepthwise* weights;
  const float* bias;  // C floats, or null
  float* output;
  const float* residual;  // null, or residual_stride floats per output pixel
  size_t residual_stride;
  float lo, hi;               // the clamp; -inf, +inf without an activation
  size_t row_begin, row_end;  // output rows (batch * output_height of them)
};

}  // namespace
}  // namespace torchir::native
#endif  // TORCHIR_BACKENDS_NATIVE_DEPTHWISE_CALL_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/depthwise.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace {

// The taps of one output pixel that fall inside the input along one axis: [begin, end).
struct TapRange {
  size_t begin, end;
};

// Taps k in [0, kernel) read input coordinate origin + k * dilation; keep those in [0, size).
TapRange Inside(ptrdiff_t origin, size_t kernel, size_t dilation, size_t size) {
  const ptrdiff_t d = static_cast<ptrdiff_t>(dilation);
  const ptrdiff_t n = static_cast<ptrdiff_t>(size);
  TapRange range{0, kernel};
  if (origin < 0) range.begin = static_cast<size_t>((-origin + d - 1) / d);
  // The first tap at or past `size`: ceil((size - origin) / dilation).
  const ptrdiff_t last = n - origin <= 0 ? 0 : (n - origin + d - 1) / d;
  if (static_cast<size_t>(last) < range.end) range.end = static_cast<size_t>(last);
  if (range.begin > range.end) range.begin = range.end;
  return range;
}

// kVectors vectors of channels [c, c + kVectors * lanes) of one output pixel. `in` points at the
// input pixel of tap (ky_range.begin, kx_range.begin), channel c.
template <size_t kVectors, class D>
HWY_INLINE void ChannelBlock(D d, const DepthwiseCall& call, const float* HWY_RESTRICT in,
                             TapRange ky_range, TapRange kx_range, const float* HWY_RESTRICT w,
                             size_t c, const float* HWY_RESTRICT residual,
                             float* HWY_RESTRICT out) {
  using V = decltype(hn::Zero(d));
  const size_t lanes = hn::Lanes(d);
  const Convolution2dShape& s = *call.shape;
  const size_t row_step = s.dilation_height * s.input_width * s.input_channels;
  const size_t column_step = s.dilation_width * s.input_channels;
  const size_t tap_stride = call.weights->padded_channels;
  V acc[kVectors];
  for (size_t v = 0; v < kVectors; ++v) {
    acc[v] = call.bias == nullptr ? hn::Zero(d) : hn::LoadU(d, call.bias + c + v * lanes);
  }
  for (size_t ky = ky_range.begin; ky < ky_range.end; ++ky) {
    const float* HWY_RESTRICT in_tap = in;
    const float* HWY_RESTRICT w_tap = w + (ky * s.kernel_width + kx_range.begin) * tap_stride + c;
    for (size_t kx = kx_range.begin; kx < kx_range.end; ++kx) {
      for (size_t v = 0; v < kVectors; ++v) {
        acc[v] =
            hn::MulAdd(hn::LoadU(d, in_tap + v * lanes), hn::LoadU(d, w_tap + v * lanes), acc[v]);
      }
      in_tap += column_step;
      w_tap += tap_stride;
    }
    in += row_step;
  }
  const V lo = hn::Set(d, call.lo), hi = hn::Set(d, call.hi);
  for (size_t v = 0; v < kVectors; ++v) {
    if (residual != nullptr) acc[v] = hn::Add(acc[v], hn::LoadU(d, residual + c + v * lanes));
    hn::StoreU(hn::Min(hn::Max(acc[v], lo), hi), d, out + c + v * lanes);
  }
}

}  // namespace

void DepthwiseRowsForTarget(const DepthwiseCall& call) {
  const Convolution2dShape& s = *call.shape;
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t channels = s.input_channels;
  const float* HWY_RESTRICT w = call.weights->data;
  const size_t tap_stride = call.weights->padded_channels;
  for (size_t row = call.row_begin; row < call.row_end; ++row) {
    const size_t image = row / call.output_height, oy = row % call.output_height;
    const ptrdiff_t iy0 =
        static_cast<ptrdiff_t>(oy * s.stride_height) - static_cast<ptrdiff_t>(s.padding_top);
    const TapRange ky_range = Inside(iy0, s.kernel_height, s.dilation_height, s.input_height);
    const float* image_input = call.input + image * s.input_height * s.input_width * channels;
    for (size_t ox = 0; ox < call.output_width; ++ox) {
      const ptrdiff_t ix0 =
          static_cast<ptrdiff_t>(ox * s.stride_width) - static_cast<ptrdiff_t>(s.padding_left);
      const TapRange kx_range = Inside(ix0, s.kernel_width, s.dilation_width, s.input_width);
      const size_t pixel = row * call.output_width + ox;
      float* HWY_RESTRICT out = call.output + pixel * channels;
      const float* residual =
          call.residual == nullptr ? nullptr : call.residual + pixel * call.residual_stride;
      if (ky_range.begin == ky_range.end || kx_range.begin == kx_range.end) {
        // Every tap in the padding: bias, residual and clamp only.
        for (size_t c = 0; c < channels; ++c) {
          float value = (call.bias != nullptr ? call.bias[c] : 0.0f) +
                        (residual != nullptr ? residual[c] : 0.0f);
          value = value < call.lo ? call.lo : value;
          out[c] = value > call.hi ? call.hi : value;
        }
        continue;
      }
      // The input pixel of the first tap inside, channel 0.
      const float* in =
          image_input +
          ((static_cast<size_t>(iy0 + static_cast<ptrdiff_t>(ky_range.begin * s.dilation_height)) *
                s.input_width +
            static_cast<size_t>(ix0 + static_cast<ptrdiff_t>(kx_range.begin * s.dilation_width))) *
           channels);
      size_t c = 0;
      for (; c + 4 * lanes <= channels; c += 4 * lanes) {
        ChannelBlock<4>(d, call, in + c, ky_range, kx_range, w, c, residual, out);
      }
      for (; c + lanes <= channels; c += lanes) {
        ChannelBlock<1>(d, call, in + c, ky_range, kx_range, w, c, residual, out);
      }
      // The last channels, fewer than a vector: scalar, in the same order of additions.
      for (; c < channels; ++c) {
        float acc = call.bias != nullptr ? call.bias[c] : 0.0f;
        const float* in_row = in + c;
        for (size_t ky = ky_range.begin; ky < ky_range.end; ++ky) {
          const float* in_tap = in_row;
          for (size_t kx = kx_range.begin; kx < kx_range.end; ++kx) {
            acc += *in_tap * w[(ky * s.kernel_width + kx) * tap_stride + c];
            in_tap += s.dilation_width * channels;
          }
          in_row += s.dilation_height * s.input_width * channels;
        }
        if (residual != nullptr) acc += residual[c];
        acc = acc < call.lo ? call.lo : acc;
        out[c] = acc > call.hi ? call.hi : acc;
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(DepthwiseRowsForTarget);

namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();

// Float count of the packed data (kh * kw * padded channels), or 0 when it overflows (bytes
// included).
size_t DepthwiseFloats(size_t kernel_height, size_t kernel_width, size_t channels) {
  if (channels > kMaxSize - kDepthwiseChannelAlignment) return 0;
  const size_t padded = (channels + kDepthwiseChannelAlignment - 1) / kDepthwiseChannelAlignment *
                        kDepthwiseChannelAlignment;
  if (kernel_height == 0 || kernel_width == 0 || kernel_width > kMaxSize / kernel_height) return 0;
  const size_t taps = kernel_height * kernel_width;
  if (padded == 0 || taps > (kMaxSize - kPackedDepthwiseHeaderBytes) / sizeof(float) / padded) {
    return 0;
  }
  return taps * padded;
}

// The share of output rows of one pool task.
struct ParallelDepthwise {
  DepthwiseCall whole;
  size_t rows_per_task;
};

void RunRows(void* context, size_t task) {
  const ParallelDepthwise& p = *static_cast<const ParallelDepthwise*>(context);
  DepthwiseCall call = p.whole;
  call.row_begin = task * p.rows_per_task;
  const size_t end = call.row_begin + p.rows_per_task;
  call.row_end = end < p.whole.row_end ? end : p.whole.row_end;
  HWY_DYNAMIC_DISPATCH(DepthwiseRowsForTarget)(call);
}

}  // namespace

size_t DepthwisePackedWeightsBytes(const Convolution2dShape& shape) {
  if (CheckConvolution2dShape(shape) != runtime::Error::kOk ||
      shape.output_channels != shape.input_channels || shape.kernel_height > UINT32_MAX ||
      shape.kernel_width > UINT32_MAX) {
    return 0;
  }
  const size_t floats =
      DepthwiseFloats(shape.kernel_height, shape.kernel_width, shape.input_channels);
  return floats == 0 ? 0 : kPackedDepthwiseHeaderBytes + floats * sizeof(float);
}

runtime::Error PackDepthwiseWeights(const Convolution2dShape& shape, const float* weights,
                                    void* out, size_t out_bytes) {
  const size_t bytes = DepthwisePackedWeightsBytes(shape);
  if (bytes == 0 || weights == nullptr || out == nullptr) return runtime::Error::kInvalidArgument;
  if (out_bytes < bytes) return runtime::Error::kOutOfMemory;
  const size_t channels = shape.input_channels;
  const size_t taps = shape.kernel_height * shape.kernel_width;
  const size_t floats = DepthwiseFloats(shape.kernel_height, shape.kernel_width, channels);
  PackedDepthwiseHeader header{};
  header.magic = kPackedDepthwiseMagic;
  header.version = kPackedDepthwiseVersion;
  header.kernel_height = static_cast<uint32_t>(shape.kernel_height);
  header.kernel_width = static_cast<uint32_t>(shape.kernel_width);
  header.channels = channels;
  header.padded_channels = floats / taps;
  header.data_floats = floats;
  std::memcpy(out, &header, sizeof(header));
  float* dst = reinterpret_cast<float*>(static_cast<char*>(out) + kPackedDepthwiseHeaderBytes);
  for (size_t tap = 0; tap < taps; ++tap) {
    float* row = dst + tap * header.padded_channels;
    // [C, 1, kh, kw]: channel c's tap at c * taps + tap.
    for (size_t c = 0; c < channels; ++c) row[c] = weights[c * taps + tap];
    for (size_t c = channels; c < header.padded_channels; ++c) row[c] = 0.0f;
  }
  return runtime::Error::kOk;
}

runtime::Error ViewPackedDepthwise(const void* bytes, size_t size, PackedDepthwise* view) {
  if (bytes == nullptr || view == nullptr || size < kPackedDepthwiseHeaderBytes) {
    return runtime::Error::kInvalidProgram;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % alignof(float) != 0) {
    return runtime::Error::kInvalidArgument;
  }
  PackedDepthwiseHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  if (header.magic != kPackedDepthwiseMagic) return runtime::Error::kInvalidProgram;
  if (header.version != kPackedDepthwiseVersion) return runtime::Error::kUnsupportedVersion;
  if (header.kernel_height == 0 || header.kernel_width == 0 || header.channels == 0 ||
      header.channels > kMaxSize) {
    return runtime::Error::kProgramOutOfBounds;
  }
  const size_t channels = static_cast<size_t>(header.channels);
  const size_t floats = DepthwiseFloats(header.kernel_height, header.kernel_width, channels);
  const size_t taps = size_t{header.kernel_height} * header.kernel_width;
  if (floats == 0 || header.data_floats != floats || header.padded_channels != floats / taps ||
      (size - kPackedDepthwiseHeaderBytes) / sizeof(float) < floats) {
    return runtime::Error::kProgramOutOfBounds;
  }
  view->kernel_height = header.kernel_height;
  view->kernel_width = header.kernel_width;
  view->channels = channels;
  view->padded_channels = static_cast<size_t>(header.padded_channels);
  view->data =
      reinterpret_cast<const float*>(static_cast<const char*>(bytes) + kPackedDepthwiseHeaderBytes);
  return runtime::Error::kOk;
}

runtime::Error DepthwiseConvolution2d(const Convolution2dShape& shape, const float* input,
                                      const PackedDepthwise& weights, const float* bias,
                                      float* output, const Epilogue& epilogue,
                                      pthreadpool_t threadpool) {
  const size_t channels = shape.input_channels;
  if (CheckConvolution2dShape(shape) != runtime::Error::kOk || shape.output_channels != channels ||
      weights.channels != channels || weights.kernel_height != shape.kernel_height ||
      weights.kernel_width != shape.kernel_width || weights.padded_channels < channels ||
      weights.data == nullptr || input == nullptr || output == nullptr ||
      epilogue.activation > Activation::kClamp ||
      (epilogue.activation == Activation::kClamp && !(epilogue.min <= epilogue.max)) ||
      (epilogue.residual != nullptr && epilogue.residual_stride < channels)) {
    return runtime::Error::kInvalidArgument;
  }
  DepthwiseCall call{};
  call.shape = &shape;
  call.output_height = shape.output_height();
  call.output_width = shape.output_width();
  call.input = input;
  call.weights = &weights;
  call.bias = bias;
  call.output = output;
  call.residual = epilogue.residual;
  call.residual_stride = epilogue.residual_stride;
  call.lo = epilogue.activation == Activation::kNone   ? -std::numeric_limits<float>::infinity()
            : epilogue.activation == Activation::kRelu ? 0.0f
                                                       : epilogue.min;
  call.hi = epilogue.activation == Activation::kClamp ? epilogue.max
                                                      : std::numeric_limits<float>::infinity();
  call.row_begin = 0;
  call.row_end = shape.batch * call.output_height;
  const size_t threads = threadpool == nullptr ? 1 : pthreadpool_get_threads_count(threadpool);
  if (threads <= 1 || call.row_end < 2) {
    HWY_DYNAMIC_DISPATCH(DepthwiseRowsForTarget)(call);
    return runtime::Error::kOk;
  }
  // A few tasks per thread, so a thread slowed by other work does not hold up the rest.
  const size_t tasks_wanted = threads * 4 < call.row_end ? threads * 4 : call.row_end;
  ParallelDepthwise parallel{call, (call.row_end + tasks_wanted - 1) / tasks_wanted};
  const size_t tasks = (call.row_end + parallel.rows_per_task - 1) / parallel.rows_per_task;
  pthreadpool_parallelize_1d(threadpool, &RunRows, &parallel, tasks, 0);
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
