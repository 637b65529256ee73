// The NHWC test tensors of the native backend's tests as NCHW (an image as PyTorch holds it),
// for the convolutions that read their input channels first.
#pragma once

#include <cstddef>
#include <vector>

namespace torchir::native {

// `nhwc` (batch x pixels x channels) as batch x channels x pixels.
inline std::vector<float> ChannelsFirst(const std::vector<float>& nhwc, size_t batch, size_t pixels,
                                        size_t channels) {
  std::vector<float> planes(nhwc.size());
  for (size_t b = 0; b < batch; ++b) {
    for (size_t p = 0; p < pixels; ++p) {
      for (size_t c = 0; c < channels; ++c) {
        planes[(b * channels + c) * pixels + p] = nhwc[(b * pixels + p) * channels + c];
      }
    }
  }
  return planes;
}

}  // namespace torchir::native
