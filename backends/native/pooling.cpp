// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/pooling.h"

#include <pthreadpool.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "backends/native/convolution_rows.h"
#include "backends/native/row_tasks.h"

// foreach_target.h includes this file again per target: define the calls' structs once.
#ifndef TORCHIR_BACKENDS_NATIVE_POOLING_CALL_
#define TORCHIR_BACKENDS_NATIVE_POOLING_CALL_
namespace torchir::native {
namespace {

// The arguments of one share of a max pooling, as they cross Highway's dispatch table: output
// rows [row_begin, row_end) of batch * output_height.
struct MaxPoolCall {
  const Pool2dShape* shape;
  const float* input;
  float* output;
  size_t row_begin, row_end;
};

// The arguments of one share of a global average pooling: rows [row_begin, row_end) of batch *
// channel blocks, block b of image n being channels [b * block, (b + 1) * block) of image n.
struct AveragePoolCall {
  size_t pixels, channels, block, blocks;
  const float* input;
  float* output;
  size_t row_begin, row_end;
};

// One task of a global average pooling split by pixels: for each of `batch` images, the sum over
// pixels [pixel_begin, pixel_end) of every channel, times `scale`, to output + image * channels.
struct PixelSumCall {
  size_t batch, pixels, channels;
  const float* input;
  float* output;
  size_t pixel_begin, pixel_end;
  float scale;
};

}  // namespace
}  // namespace torchir::native
#endif  // TORCHIR_BACKENDS_NATIVE_POOLING_CALL_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/pooling.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace {

// PyTorch's max: the tap replaces the best so far when larger or NaN, so a NaN stays.
template <class D>
HWY_INLINE hn::Vec<D> MaxKeepingNaN(D d, hn::Vec<D> best, hn::Vec<D> tap) {
  (void)d;
  return hn::IfThenElse(hn::Or(hn::Gt(tap, best), hn::IsNaN(tap)), tap, best);
}

// Channels [c, c + 2 * lanes) (kVectors 2) or [c, c + lanes) of one output pixel whose taps
// inside the input are rows ky_range x columns kx_range, starting at `in` (channel 0).
template <size_t kVectors, class D>
HWY_INLINE void MaxPixel(D d, const Pool2dShape& s, const float* HWY_RESTRICT in, TapRange ky_range,
                         TapRange kx_range, size_t c, float* HWY_RESTRICT out) {
  using V = hn::Vec<D>;
  const size_t lanes = hn::Lanes(d);
  const V lowest = hn::Set(d, -std::numeric_limits<float>::infinity());
  V best0 = lowest, best1 = lowest;
  const size_t row_step = s.dilation_height * s.input_width * s.channels;
  const size_t column_step = s.dilation_width * s.channels;
  for (size_t ky = ky_range.begin; ky < ky_range.end; ++ky) {
    const float* HWY_RESTRICT row = in + (ky - ky_range.begin) * row_step + c;
    for (size_t kx = kx_range.begin; kx < kx_range.end; ++kx) {
      const float* HWY_RESTRICT tap = row + (kx - kx_range.begin) * column_step;
      best0 = MaxKeepingNaN(d, best0, hn::LoadU(d, tap));
      if constexpr (kVectors > 1) best1 = MaxKeepingNaN(d, best1, hn::LoadU(d, tap + lanes));
    }
  }
  hn::StoreU(best0, d, out + c);
  if constexpr (kVectors > 1) hn::StoreU(best1, d, out + c + lanes);
}

// The same for channel c alone (the last C mod lanes).
float MaxScalar(const Pool2dShape& s, const float* in, TapRange ky_range, TapRange kx_range,
                size_t c) {
  float best = -std::numeric_limits<float>::infinity();
  for (size_t ky = ky_range.begin; ky < ky_range.end; ++ky) {
    const float* row = in + (ky - ky_range.begin) * s.dilation_height * s.input_width * s.channels;
    for (size_t kx = kx_range.begin; kx < kx_range.end; ++kx) {
      const float v = row[(kx - kx_range.begin) * s.dilation_width * s.channels + c];
      if (v > best || std::isnan(v)) best = v;
    }
  }
  return best;
}

}  // namespace

void MaxPoolRowsForTarget(const MaxPoolCall& call) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const Pool2dShape& s = *call.shape;
  const size_t channels = s.channels;
  for (size_t row = call.row_begin; row < call.row_end; ++row) {
    const size_t image = row / s.output_height, oy = row % s.output_height;
    const ptrdiff_t iy0 =
        static_cast<ptrdiff_t>(oy * s.stride_height) - static_cast<ptrdiff_t>(s.padding_top);
    const TapRange ky_range = Inside(iy0, s.kernel_height, s.dilation_height, s.input_height);
    float* out_row = call.output + row * s.output_width * channels;
    for (size_t ox = 0; ox < s.output_width; ++ox) {
      float* out = out_row + ox * channels;
      const ptrdiff_t ix0 =
          static_cast<ptrdiff_t>(ox * s.stride_width) - static_cast<ptrdiff_t>(s.padding_left);
      const TapRange kx_range = Inside(ix0, s.kernel_width, s.dilation_width, s.input_width);
      if (ky_range.begin == ky_range.end || kx_range.begin == kx_range.end) {
        for (size_t c = 0; c < channels; ++c) out[c] = -std::numeric_limits<float>::infinity();
        continue;
      }
      // The input pixel of the first tap inside; pointers are formed for taps inside only.
      const size_t iy =
          static_cast<size_t>(iy0 + static_cast<ptrdiff_t>(ky_range.begin * s.dilation_height));
      const size_t ix =
          static_cast<size_t>(ix0 + static_cast<ptrdiff_t>(kx_range.begin * s.dilation_width));
      const float* in =
          call.input + ((image * s.input_height + iy) * s.input_width + ix) * channels;
      size_t c = 0;
      for (; c + 2 * lanes <= channels; c += 2 * lanes) {
        MaxPixel<2>(d, s, in, ky_range, kx_range, c, out);
      }
      for (; c + lanes <= channels; c += lanes) MaxPixel<1>(d, s, in, ky_range, kx_range, c, out);
      for (; c < channels; ++c) out[c] = MaxScalar(s, in, ky_range, kx_range, c);
    }
  }
}

// out[c] = scale * the sum over pixels [p_begin, p_end) of in[p * channels + c], for channels
// [c_begin, c_end): four vectors of channels at a time (four independent chains of adds over
// the pixels), then one vector, then one lane.
HWY_INLINE void SumChannels(const float* HWY_RESTRICT in, size_t channels, size_t c_begin,
                            size_t c_end, size_t p_begin, size_t p_end, float scale_value,
                            float* HWY_RESTRICT out) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const V scale = hn::Set(d, scale_value);
  size_t c = c_begin;
  for (; c + 4 * lanes <= c_end; c += 4 * lanes) {
    V s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
    for (size_t p = p_begin; p < p_end; ++p) {
      const float* HWY_RESTRICT pixel = in + p * channels + c;
      s0 = hn::Add(s0, hn::LoadU(d, pixel));
      s1 = hn::Add(s1, hn::LoadU(d, pixel + lanes));
      s2 = hn::Add(s2, hn::LoadU(d, pixel + 2 * lanes));
      s3 = hn::Add(s3, hn::LoadU(d, pixel + 3 * lanes));
    }
    hn::StoreU(hn::Mul(s0, scale), d, out + c);
    hn::StoreU(hn::Mul(s1, scale), d, out + c + lanes);
    hn::StoreU(hn::Mul(s2, scale), d, out + c + 2 * lanes);
    hn::StoreU(hn::Mul(s3, scale), d, out + c + 3 * lanes);
  }
  for (; c + lanes <= c_end; c += lanes) {
    V sum = hn::Zero(d);
    for (size_t p = p_begin; p < p_end; ++p)
      sum = hn::Add(sum, hn::LoadU(d, in + p * channels + c));
    hn::StoreU(hn::Mul(sum, scale), d, out + c);
  }
  for (; c < c_end; ++c) {
    float sum = 0.0f;
    for (size_t p = p_begin; p < p_end; ++p) sum += in[p * channels + c];
    out[c] = sum * scale_value;
  }
}

void AveragePoolRowsForTarget(const AveragePoolCall& call) {
  const float inverse = 1.0f / static_cast<float>(call.pixels);
  for (size_t row = call.row_begin; row < call.row_end; ++row) {
    const size_t image = row / call.blocks, block = row % call.blocks;
    const size_t c_begin = block * call.block;
    const size_t c_end =
        call.channels - c_begin < call.block ? call.channels : c_begin + call.block;
    SumChannels(call.input + image * call.pixels * call.channels, call.channels, c_begin, c_end, 0,
                call.pixels, inverse, call.output + image * call.channels);
  }
}

void SumPixelsForTarget(const PixelSumCall& call) {
  for (size_t image = 0; image < call.batch; ++image) {
    SumChannels(call.input + image * call.pixels * call.channels, call.channels, 0, call.channels,
                call.pixel_begin, call.pixel_end, call.scale, call.output + image * call.channels);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(MaxPoolRowsForTarget);
HWY_EXPORT(AveragePoolRowsForTarget);
HWY_EXPORT(SumPixelsForTarget);

namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();

// a * b into *out, false on overflow.
bool Product(size_t a, size_t b, size_t* out) { return !__builtin_mul_overflow(a, b, out); }

// Whether batch * height * width * channels floats fit size_t as bytes.
bool FitsBytes(size_t batch, size_t height, size_t width, size_t channels) {
  size_t n;
  return Product(batch, height, &n) && Product(n, width, &n) && Product(n, channels, &n) &&
         n <= kMaxSize / sizeof(float);
}

void RunMaxPoolCall(const MaxPoolCall& call) { HWY_DYNAMIC_DISPATCH(MaxPoolRowsForTarget)(call); }

void RunAveragePoolCall(const AveragePoolCall& call) {
  HWY_DYNAMIC_DISPATCH(AveragePoolRowsForTarget)(call);
}

// Channels per task of a global average pooling: a few tasks per image when there are many
// channels (a CNN's head: 1280 channels of 7 x 7 pixels), one when there are few.
constexpr size_t kAverageBlockChannels = 128;

// A global average pooling on several threads goes by pixels when the other tasks' partial means
// fit this many floats on the stack (EfficientNet's largest: 1152 channels): each thread reads
// the rows it wrote in the layer before (whose rows were shared out in the same order), where
// channel blocks had every thread read every pixel, half of them from the other core's cache,
// and images with at most kAverageBlockChannels channels ran on one thread.
constexpr size_t kPartialMeanFloats = 4096;

struct PixelShares {
  PixelSumCall whole;  // output, pixel range set per task
  size_t tasks;
  float* partials;  // task t > 0 writes at (t - 1) * batch * channels
};

void RunPixelShare(void* context, size_t task) {
  const PixelShares& shares = *static_cast<const PixelShares*>(context);
  PixelSumCall call = shares.whole;
  call.pixel_begin = call.pixels * task / shares.tasks;
  call.pixel_end = call.pixels * (task + 1) / shares.tasks;
  if (task > 0) call.output = shares.partials + (task - 1) * call.batch * call.channels;
  HWY_DYNAMIC_DISPATCH(SumPixelsForTarget)(call);
}

}  // namespace

runtime::Error CheckPool2dShape(const Pool2dShape& s) {
  if (s.batch == 0 || s.input_height == 0 || s.input_width == 0 || s.channels == 0 ||
      s.output_height == 0 || s.output_width == 0 || s.kernel_height == 0 || s.kernel_width == 0 ||
      s.stride_height == 0 || s.stride_width == 0 || s.dilation_height == 0 ||
      s.dilation_width == 0 || !FitsBytes(s.batch, s.input_height, s.input_width, s.channels) ||
      !FitsBytes(s.batch, s.output_height, s.output_width, s.channels)) {
    return runtime::Error::kInvalidArgument;
  }
  // The window origins and extents below stay far from overflowing ptrdiff_t.
  size_t origin, extent;
  if (!Product(s.output_height, s.stride_height, &origin) ||
      !Product(s.output_width, s.stride_width, &extent) ||
      origin > static_cast<size_t>(PTRDIFF_MAX / 4) ||
      extent > static_cast<size_t>(PTRDIFF_MAX / 4) ||
      !Product(s.kernel_height, s.dilation_height, &origin) ||
      !Product(s.kernel_width, s.dilation_width, &extent) ||
      origin > static_cast<size_t>(PTRDIFF_MAX / 4) ||
      extent > static_cast<size_t>(PTRDIFF_MAX / 4) ||
      s.padding_top > static_cast<size_t>(PTRDIFF_MAX / 4) ||
      s.padding_left > static_cast<size_t>(PTRDIFF_MAX / 4)) {
    return runtime::Error::kInvalidArgument;
  }
  return runtime::Error::kOk;
}

Pool2dShape GlobalPool2dShape(size_t batch, size_t height, size_t width, size_t channels) {
  Pool2dShape shape{};
  shape.batch = batch;
  shape.input_height = height;
  shape.input_width = width;
  shape.channels = channels;
  shape.output_height = shape.output_width = 1;
  shape.kernel_height = height;
  shape.kernel_width = width;
  shape.stride_height = shape.stride_width = shape.dilation_height = shape.dilation_width = 1;
  return shape;
}

runtime::Error MaxPool2d(const Pool2dShape& shape, const float* input, float* output,
                         pthreadpool_t threadpool) {
  if (CheckPool2dShape(shape) != runtime::Error::kOk || input == nullptr || output == nullptr) {
    return runtime::Error::kInvalidArgument;
  }
  const MaxPoolCall call{&shape, input, output, 0, shape.batch * shape.output_height};
  ShareRows<MaxPoolCall, &RunMaxPoolCall>(call, threadpool);
  return runtime::Error::kOk;
}

runtime::Error GlobalAveragePool(size_t batch, size_t pixels, size_t channels, const float* input,
                                 float* output, pthreadpool_t threadpool) {
  if (batch == 0 || pixels == 0 || channels == 0 || input == nullptr || output == nullptr ||
      !FitsBytes(batch, pixels, 1, channels)) {
    return runtime::Error::kInvalidArgument;
  }
  const size_t threads = threadpool == nullptr ? 1 : pthreadpool_get_threads_count(threadpool);
  if (threads >= 2 && pixels >= 2 * threads &&
      channels <= kPartialMeanFloats / batch / (threads - 1)) {
    alignas(64) float partials[kPartialMeanFloats];
    const PixelShares shares{
        {batch, pixels, channels, input, output, 0, pixels, 1.0f / static_cast<float>(pixels)},
        threads,
        partials};
    pthreadpool_parallelize_1d(threadpool, &RunPixelShare, const_cast<PixelShares*>(&shares),
                               threads, 0);
    const size_t floats = batch * channels;
    for (size_t t = 1; t < threads; ++t) {
      const float* partial = partials + (t - 1) * floats;
      for (size_t i = 0; i < floats; ++i) output[i] += partial[i];
    }
    return runtime::Error::kOk;
  }
  const size_t blocks = (channels + kAverageBlockChannels - 1) / kAverageBlockChannels;
  const size_t block = (channels + blocks - 1) / blocks;
  const AveragePoolCall call{pixels, channels, block, blocks, input, output, 0, batch * blocks};
  ShareRows<AveragePoolCall, &RunAveragePoolCall>(call, threadpool);
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
