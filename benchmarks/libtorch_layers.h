// LibTorch's layers for the per-layer suites' third and fourth columns, one thread: as a PyTorch
// user runs them eagerly (at::conv2d on channels-last tensors with oneDNN (MKLDNN) enabled, so
// ATen picks the backend it picks for that layer; at::linear), and a convolution as TorchScript +
// oneDNN runs it inside a frozen network (LibTorchConvolution::Path::kOneDnnPrepacked). This header
// is LibTorch-free: LibTorch compiles slowly, so only libtorch_layers.cpp includes it.
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
  enum class Path {
    // at::conv2d on channels-last tensors, as eager PyTorch runs the layer: ATen picks the
    // backend (oneDNN for most 3x3 layers, slow2d, i.e. im2col + OpenBLAS, for most 1x1 ones)
    // and oneDNN reorders the weights at every call.
    kEager,
    // What TorchScript + oneDNN (torch.jit.freeze + optimize_for_inference, the model suite's
    // torchscript_onednn) runs for a convolution inside a network: at::mkldnn_convolution on
    // oneDNN tensors, the weights reordered once (at::mkldnn_reorder_conv2d_weight) and the input
    // already in the blocked layout a previous oneDNN convolution leaves (made here by a 1x1
    // identity convolution; the 3-channel stems take the plain layout, as a network's first
    // layer does). The output stays a oneDNN tensor.
    kOneDnnPrepacked,
  };

  // Random input, weights and bias of `shape`, input and weights channels-last; sets LibTorch to
  // one intra-op thread. Null (and *error set to LibTorch's message) when LibTorch refuses, or
  // when kOneDnnPrepacked's output differs from at::conv2d's (a check of the path).
  static std::unique_ptr<LibTorchConvolution> Create(const TorchConvolutionShape& shape,
                                                     std::string* error, Path path = Path::kEager);
  ~LibTorchConvolution();

  // One convolution under c10::InferenceMode (the output is allocated by ATen, as in PyTorch).
  void Run();
  // The backend ATen selects for this layer (at::native::select_conv_backend): "mkldnn",
  // "slow2d", "xnnpack2d", ...; "mkldnn_prepacked" for kOneDnnPrepacked.
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
