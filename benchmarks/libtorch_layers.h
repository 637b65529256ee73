// LibTorch's eager layers for the per-layer suites' third column, one thread, as a PyTorch user
// runs them: at::conv2d on channels-last tensors with oneDNN (MKLDNN) enabled, so ATen picks the
// backend it picks for that layer (native_convolution_benchmark.cpp), and at::linear
// (native_gemm_benchmark.cpp). This header is LibTorch-free: LibTorch compiles slowly, so only
// libtorch_layers.cpp includes it.
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

// y [M, N] = x [M, K] W^T + b, W [N, K]: a linear layer, or a GEMM of those sizes.
class LibTorchLinear {
 public:
  // Random x, W and b; one intra-op thread. Null (and *error set) when LibTorch refuses.
  static std::unique_ptr<LibTorchLinear> Create(size_t m, size_t n, size_t k, std::string* error);
  ~LibTorchLinear();

  // One at::linear call under c10::InferenceMode.
  void Run();

 private:
  struct Impl;
  explicit LibTorchLinear(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace torchir::benchmarks
