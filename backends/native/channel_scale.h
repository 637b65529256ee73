// The multiply that closes a squeeze-and-excitation block (EfficientNet, MobileNetV3): every
// channel of an NHWC image times one value of that image and channel, vectorised over channels
// with Highway's widest vectors. It reads and writes each element once, so it runs at the speed
// of memory; what it saves is a delegate of another backend between two native ones (and its
// thread pool's hand-off).
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "runtime/core/error.h"

namespace torchir::native {

// output (N, pixels, C) [n, p, c] = input[n, p, c] * scale[n * scale_batch_stride + c], with
// scale_batch_stride C (a scale per image and channel: [N, C]) or 0 (one per channel for every
// image: [C]). Pixels are shared among the pool's threads. The output may be the input itself;
// it must not overlap it otherwise, nor the scale. kInvalidArgument for zero sizes, null
// tensors, a stride other than 0 or C, or element counts whose bytes overflow size_t.
runtime::Error ScaleChannels(size_t batch, size_t pixels, size_t channels, const float* input,
                             const float* scale, size_t scale_batch_stride, float* output,
                             pthreadpool_t threadpool = nullptr);

}  // namespace torchir::native
