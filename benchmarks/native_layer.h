// One convolution layer on torchir's native kernels, its filter packed as a program's constant
// segment holds it: by the implicit GEMM (grouped or not), the depthwise kernel or Winograd.
// Shared by torchir_native_convolution_benchmark and torchir_ab_layer's module, so both time the
// same packing and calls. No Google Benchmark here: the module is loaded without it.
#pragma once

#include <cstddef>
#include <vector>

#include "backends/native/convolution.h"
#include "backends/native/depthwise.h"
#include "backends/native/gemm_config.h"
#include "backends/native/winograd.h"
#include "benchmarks/cache_line_allocator.h"
#include "runtime/core/error.h"

namespace torchir::benchmarks {

// Batch 1, a SIZE x SIZE input, a square kernel, equal strides and padding on every side, no
// dilation: the per-layer suite's layers and torchir_ab_layer's shapes.
native::Convolution2dShape SquareConvolutionShape(size_t size, size_t input_channels,
                                                  size_t output_channels, size_t kernel,
                                                  size_t stride, size_t padding);

class NativeConvolution {
 public:
  // Packs `weights` (OIHW, input channels per group) for the CPU's current kernels: depthwise
  // when groups == input == output channels, Winograd F(tile x tile, 3x3) when winograd_tile is
  // 2 or 4, else the implicit GEMM. False when the shape has no such path or packing fails.
  bool Pack(const native::Convolution2dShape& shape, size_t groups, size_t winograd_tile,
            const float* weights);

  // One call on the packed filter; a_mode chooses the implicit GEMM's A (GEMM path only).
  runtime::Error Run(const float* input, const float* bias, float* output,
                     const native::Epilogue& epilogue,
                     native::ImplicitGemmA a_mode = native::ImplicitGemmA::kAuto);

  const native::Convolution2dShape& shape() const { return shape_; }
  const native::GemmConfig& config() const { return config_; }
  // The packed filter (a benchmark flushes it from the caches to time cold weights).
  const PageFloats& packed() const { return packed_; }

 private:
  native::Convolution2dShape shape_{};
  size_t groups_ = 1;
  bool depthwise_ = false;
  size_t winograd_tile_ = 0;
  native::GemmConfig config_{};
  // Page-aligned (so 64-byte aligned, as a program's constant segments and memory plan place
  // them, and at the same offsets within a page wherever two copies are allocated): from a plain
  // std::vector (16 bytes past a page when large) the kernels' vector loads cross cache lines,
  // and two builds loaded by torchir_ab_layer timed differently (the same build twice:
  // mobilenet_v2's 7 x 7 depthwise layer 0.85; with 64-byte alignment alone its 16 -> 96
  // expansion 0.956).
  PageFloats packed_, scratch_;
  std::vector<native::PackedB> gemm_weights_;
  native::PackedDepthwise depthwise_weights_{};
  native::PackedWinograd winograd_weights_{};
};

}  // namespace torchir::benchmarks
