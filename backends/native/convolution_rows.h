// What the direct (row-parallel) convolution kernels share (internal to backends/native/:
// depthwise.cpp, direct_convolution.cpp): which kernel taps of an output pixel fall inside the
// input (they skip the taps in the padding instead of multiplying zeros), their calls' common
// part (the tensors, the epilogue as a clamp in registers plus an activation after the store, the
// output rows a share computes, which ShareRows splits), and where a block of pixels reads and
// writes.
#pragma once

#include <cstddef>

#include "backends/native/activation.h"
#include "backends/native/convolution.h"
#include "backends/native/gemm.h"

namespace torchir::native {

// The taps of one output pixel that fall inside the input along one axis: [begin, end).
struct TapRange {
  size_t begin, end;
};

// Taps k in [0, kernel) read input coordinate origin + k * dilation; keep those in [0, size).
inline TapRange Inside(ptrdiff_t origin, size_t kernel, size_t dilation, size_t size) {
  const ptrdiff_t d = static_cast<ptrdiff_t>(dilation);
  const ptrdiff_t n = static_cast<ptrdiff_t>(size);
  TapRange range{0, kernel};
  // Without dilation no division: this runs once per block of pixels, and its 64-bit division
  // had 3 % of the samples of mobilenet_v2's stem (Zen 3, perf); the stems and depthwise layers
  // gained 0-3 % without it.
  if (origin < 0) range.begin = static_cast<size_t>(d == 1 ? -origin : (-origin + d - 1) / d);
  // The first tap at or past `size`: ceil((size - origin) / dilation).
  const ptrdiff_t last = n - origin <= 0 ? 0 : d == 1 ? n - origin : (n - origin + d - 1) / d;
  if (static_cast<size_t>(last) < range.end) range.end = static_cast<size_t>(last);
  if (range.begin > range.end) range.begin = range.end;
  return range;
}

// The outputs [begin, end) (of `outputs`) along one axis whose taps all fall inside the input:
// o * stride >= padding and o * stride - padding + (kernel - 1) * dilation <= size - 1.
inline TapRange InteriorOutputs(size_t size, size_t padding, size_t kernel, size_t dilation,
                                size_t stride, size_t outputs) {
  const size_t extent = (kernel - 1) * dilation;
  size_t end = size + padding > extent ? (size - 1 + padding - extent) / stride + 1 : 0;
  end = end < outputs ? end : outputs;
  size_t begin = (padding + stride - 1) / stride;
  begin = begin < end ? begin : end;
  return TapRange{begin, end};
}

// The output columns whose taps all fall inside the input along x. There pixels share their tap
// range and go several at a time.
inline TapRange InteriorColumns(const Convolution2dShape& s, size_t output_width) {
  return InteriorOutputs(s.input_width, s.padding_left, s.kernel_width, s.dilation_width,
                         s.stride_width, output_width);
}

// The output rows whose taps all fall inside the input along y.
inline TapRange InteriorRows(const Convolution2dShape& s, size_t output_height) {
  return InteriorOutputs(s.input_height, s.padding_top, s.kernel_height, s.dilation_height,
                         s.stride_height, output_height);
}

struct ConvolutionRows {
  const Convolution2dShape* shape;  // the whole tensors' channel counts
  size_t output_height, output_width;
  const float* input;
  const float* bias;  // Cout floats, or null
  float* output;
  const float* residual;  // null, or residual_stride floats per output pixel
  size_t residual_stride;
  float lo, hi;               // the clamp; -inf, +inf without one
  Activation activation;      // applied to each block of pixels once stored, unless a clamp
  size_t row_begin, row_end;  // output rows (batch * output_height of them)
};

// All the output rows of `shape` with this epilogue: relu and clamp applied in registers, every
// other activation afterwards.
inline ConvolutionRows AllConvolutionRows(const Convolution2dShape& shape, const float* input,
                                          const float* bias, float* output,
                                          const Epilogue& epilogue) {
  ConvolutionRows rows{};
  rows.shape = &shape;
  rows.output_height = shape.output_height();
  rows.output_width = shape.output_width();
  rows.input = input;
  rows.bias = bias;
  rows.output = output;
  rows.residual = epilogue.residual;
  rows.residual_stride = epilogue.residual_stride;
  rows.lo = ClampLow(epilogue);
  rows.hi = ClampHigh(epilogue);
  rows.activation = epilogue.activation;
  rows.row_begin = 0;
  rows.row_end = shape.batch * rows.output_height;
  return rows;
}

// Where the pixels of a block read and write: `in` points at the input of pixel 0's first tap
// inside (ky_range.begin, kx_range.begin), channel 0, and pixel p's at in + p * in_step (channel c
// InputChannelStride floats further each); when
// every tap of pixel 0 is in the padding (an empty range) it is the input's start, never read.
struct PixelBlock {
  const float* in;
  size_t in_step;
  TapRange ky_range, kx_range;
  const float* residual;  // pixel 0's, or null; pixel p's at + p * residual_step
  size_t residual_step;
  float* out;  // pixel 0's, channel 0; pixel p's at + p * Cout
};

// The taps along y of output row `row` (batch-major), found once per row.
struct RowTaps {
  size_t row;
  TapRange ky_range;
  const float* first_row_input;  // the image's input row of the first tap inside, or null
};

inline RowTaps RowTapsAt(const ConvolutionRows& call, size_t row) {
  const Convolution2dShape& s = *call.shape;
  const size_t image = row / call.output_height, oy = row % call.output_height;
  const ptrdiff_t iy0 =
      static_cast<ptrdiff_t>(oy * s.stride_height) - static_cast<ptrdiff_t>(s.padding_top);
  RowTaps taps{row, Inside(iy0, s.kernel_height, s.dilation_height, s.input_height), nullptr};
  if (taps.ky_range.begin < taps.ky_range.end) {
    const size_t iy_first =
        static_cast<size_t>(iy0 + static_cast<ptrdiff_t>(taps.ky_range.begin * s.dilation_height));
    taps.first_row_input =
        s.input_channels_first
            ? call.input + (image * s.input_channels * s.input_height + iy_first) * s.input_width
            : call.input + ((image * s.input_height + iy_first) * s.input_width) * s.input_channels;
  }
  return taps;
}

// The block of pixels from output column `ox` of the row on, with pixel ox's tap range along x.
inline PixelBlock PixelsAt(const ConvolutionRows& call, const RowTaps& taps, size_t ox) {
  const Convolution2dShape& s = *call.shape;
  const ptrdiff_t ix0 =
      static_cast<ptrdiff_t>(ox * s.stride_width) - static_cast<ptrdiff_t>(s.padding_left);
  PixelBlock px;
  px.ky_range = taps.ky_range;
  px.kx_range = Inside(ix0, s.kernel_width, s.dilation_width, s.input_width);
  px.in = call.input;
  if (taps.first_row_input != nullptr && px.kx_range.begin < px.kx_range.end) {
    const size_t ix_first =
        static_cast<size_t>(ix0 + static_cast<ptrdiff_t>(px.kx_range.begin * s.dilation_width));
    px.in = taps.first_row_input + ix_first * InputPixelStride(s);
  }
  px.in_step = s.stride_width * InputPixelStride(s);
  const size_t pixel = taps.row * call.output_width + ox;
  px.residual = call.residual == nullptr ? nullptr : call.residual + pixel * call.residual_stride;
  px.residual_step = call.residual_stride;
  px.out = call.output + pixel * s.output_channels;
  return px;
}

}  // namespace torchir::native
