// The PyTorch paths the model benchmarks measure torchir against, run with
// LibTorch from the files `tools/export_ir.py --torchscript` writes. This
// header is LibTorch-free: LibTorch compiles slowly, so only
// libtorch_models.cpp includes it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/reference/host_tensor.h"

namespace torchir::benchmarks {

// How a PyTorch user would deploy the model on a CPU.
enum class TorchPath {
  // mobile.pt (optimize_for_mobile) on the lite interpreter,
  // torch::jit::_load_for_mobile: PyTorch Mobile, XNNPACK prepacked ops.
  kMobile,
  // traced_frozen.pt (traced + frozen) through torch::jit::load and then
  // torch::jit::optimize_for_inference: oneDNN (MKLDNN) convolutions.
  kOneDnn,
  // traced.pt through torch::jit::load, unoptimised: the eager-like baseline.
  kTraced,
  // kOneDnn's module with ATen on one OpenMP thread and OpenBLAS on all of the
  // run's: the fastest TorchScript setting for the transformers at 2 threads
  // (their matmuls reach OpenBLAS, whose workers and OpenMP's spin against
  // each other when both have two). Registered for 2 threads and more only:
  // at 1 thread it is kOneDnn.
  kOneDnnBlas,
};

inline constexpr TorchPath kTorchPaths[] = {TorchPath::kMobile, TorchPath::kOneDnn,
                                            TorchPath::kTraced, TorchPath::kOneDnnBlas};

// "pytorch_mobile", "torchscript_onednn", "torchscript_traced".
std::string_view TorchPathName(TorchPath path);
// The file in an export directory: "mobile.pt", "traced_frozen.pt", "traced.pt".
std::string_view TorchPathFile(TorchPath path);

// One model loaded on one PyTorch path, with its inputs bound.
class LibTorchModel {
 public:
  // Loads `file` as `path` requires (for kOneDnn this includes
  // optimize_for_inference) and copies `inputs` into LibTorch tensors. Errors
  // carry LibTorch's message.
  static absl::StatusOr<std::unique_ptr<LibTorchModel>> Load(
      const std::string& file, TorchPath path, const std::vector<reference::HostTensor>& inputs);
  ~LibTorchModel();

  // Runs forward once under c10::InferenceMode and keeps the result.
  absl::Status Run();
  // The last Run's outputs (a tensor, or a tuple/list of tensors, flattened).
  absl::StatusOr<std::vector<reference::HostTensor>> Outputs() const;

 private:
  struct Impl;
  explicit LibTorchModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Once, before any LibTorch work: one inter-op thread (a forward call never
// forks), intra-op threads as SetLibTorchThreads(kTraced, 1).
void InitLibTorch();

// Runs `path` on `threads` threads: OpenMP (ATen's and oneDNN's kernels) and
// the pthreadpool behind the XNNPACK ops get `threads`, except that kMobile
// runs ATen's own kernels on one OpenMP thread (a PyTorch Mobile build has no
// OpenMP); OpenBLAS gets one, except on kOneDnnBlas, where OpenMP gets one and
// OpenBLAS `threads`.
void SetLibTorchThreads(TorchPath path, int threads);

// Which BLAS LibTorch resolved and how fast it is, for the report:
// "/usr/lib/.../libblas.so.3 (OpenBLAS 0.3.21 ...); sgemm 512x512x512 on 1
// thread: 70.1 GFLOP/s".
std::string DescribeLibTorchBlas();

}  // namespace torchir::benchmarks
