// OpenBLAS's own thread count, set through its symbol when the process has one: LibTorch reaches
// BLAS only through libblas.so.3, which may or may not be OpenBLAS (scripts/bench.sh puts
// OpenBLAS first). at::set_num_threads does not reach it, and OpenBLAS starts as many threads as
// the machine has cores, so a "1 thread" LibTorch layer whose convolution falls back to a GEMM
// (ATen's slow2d path: every 1x1 convolution here) would otherwise run on all of them.
#pragma once

#include <dlfcn.h>

namespace torchir::benchmarks {

// Whether the process has OpenBLAS (and its thread count is now `threads`).
inline bool SetOpenBlasThreads(int threads) {
  using SetThreadsFunction = void (*)(int);
  static const SetThreadsFunction set =
      reinterpret_cast<SetThreadsFunction>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (set == nullptr) return false;
  set(threads);
  return true;
}

}  // namespace torchir::benchmarks
