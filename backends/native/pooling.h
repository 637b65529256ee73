// Pooling over NHWC float32 tensors, channels vectorised with Highway's widest vectors: 2-d max
// pooling (ResNet's stem) and global average pooling (every CNN's head, EfficientNet's and
// MobileNetV3's squeeze-and-excitation). Both read the input once, channel-contiguous, so they run
// at the speed of memory; what they save is a delegate of another backend between two native
// ones (and its thread pool's hand-off).
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "runtime/core/error.h"

namespace torchir::native {

// A 2-d pooling window over an NHWC input (PyTorch's max_pool2d: symmetric padding, any stride
// and dilation). The output size is given, not derived: ceil_mode's last window may run past the
// input, and its taps there are not read, like the padding's.
struct Pool2dShape {
  size_t batch, input_height, input_width, channels;
  size_t output_height, output_width;
  size_t kernel_height, kernel_width;
  size_t stride_height, stride_width;
  size_t dilation_height, dilation_width;
  size_t padding_top, padding_left;
};

// kOk, or kInvalidArgument for zero sizes, strides or dilations, or element counts whose bytes
// overflow size_t.
runtime::Error CheckPool2dShape(const Pool2dShape& shape);

// Global pooling as a window: one 1 x 1 output pixel whose window is the whole height x width
// image (what GlobalAveragePool averages over; the compile side and the delegate check it with
// CheckPool2dShape).
Pool2dShape GlobalPool2dShape(size_t batch, size_t height, size_t width, size_t channels);

// output (N, OH, OW, C) [n, oy, ox, c] = the maximum over the window's taps (iy, ix) = (oy * sh -
// pt + ky * dh, ox * sw - pl + kx * dw) inside the input of input (N, H, W, C) [n, iy, ix, c],
// a NaN tap making it NaN (PyTorch's rule); -inf for a window with no tap inside. Output rows are
// shared among the pool's threads. The output must not overlap the input.
runtime::Error MaxPool2d(const Pool2dShape& shape, const float* input, float* output,
                         pthreadpool_t threadpool = nullptr);

// output (N, C) [n, c] = the mean of input (N, pixels, C) [n, p, c] over its `pixels` pixels,
// summed in float in pixel order per channel. On several threads each thread sums a contiguous
// share of the pixels (the rows it wrote, when the layer before shared its rows out in order)
// and the shares' means are added, while the other threads' partial means fit 4096 floats; else
// channel blocks of images are shared among the threads. kInvalidArgument for zero sizes or
// null tensors.
runtime::Error GlobalAveragePool(size_t batch, size_t pixels, size_t channels, const float* input,
                                 float* output, pthreadpool_t threadpool = nullptr);

}  // namespace torchir::native
