// LibTorch's eager 2-d convolution on one layer, for the per-layer suite's third column
// (native_convolution_benchmark.cpp): at::conv2d on channels-last tensors, one thread, oneDNN
// (MKLDNN) enabled, so ATen picks the backend a PyTorch user gets for that layer (oneDNN for
// nearly all of them). This header is LibTorch-free: LibTorch compiles slowly, so only
// libtorch_convolution.cpp includes it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace torchir::benchmarks {

// Batch 1, a square input and kernel, symmetric padding, dilation 1.
struct TorchConvolutionShape {
  size_t size, input_channels, output_channels, kernel, stride, pad, groups;
};

class LibTorchConvolution {
 public:
  // Random input, weights and bias of `shape`, input and weights channels-last; sets LibTorch to
  // one intra-op thread. Null (and *error set to LibTorch's message) when LibTorch refuses.
  static std::unique_ptr<LibTorchConvolution> Create(const TorchConvolutionShape& shape,
                                                     std::string* error);
  ~LibTorchConvolution();

  // One at::conv2d call under c10::InferenceMode (the output is allocated by ATen, as in eager
  // PyTorch).
  void Run();
  // The backend ATen selects for this layer (at::native::select_conv_backend): "mkldnn",
  // "slow2d", "xnnpack2d", ...
  const std::string& backend() const;

 private:
  struct Impl;
  explicit LibTorchConvolution(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace torchir::benchmarks
