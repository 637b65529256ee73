// Depthwise 2-d convolution over NHWC tensors (groups == input_channels == output_channels,
// channel multiplier 1), the 3x3 / 5x5 layers of MobileNets. Direct, not a GEMM: each output
// channel reads one input channel, so there is no reduction over channels to block for.
//  1. each task computes whole output rows (batch * output_height of them, shared among the
//     pool's threads);
//  2. for each output pixel, the taps that fall inside the input are found once (no per-tap
//     padding test in the loop);
//  3. output pixels whose taps all lie inside the input along x go up to 4 at a time (on AVX2 at
//     stride 1, rows of 10 or 8 reusing each loaded input column), the others one at a time;
//     3x3 and 5x5 kernels in rows with every tap inside the input through blocks unrolled at
//     compile time; channels in blocks of 2 vectors, then 1 vector (vectors of the CPU's best
//     Highway target), then one at a time for the last C mod lanes: accumulators (pixels x
//     vectors of them) start from the bias, take one FMA per tap, add the residual, are clamped
//     and stored; any other activation (GELU, hardswish, silu, ...) then runs on the block of
//     pixels just stored.
// The filter is packed ahead of time (PackDepthwiseWeights): tap-major, each tap's channels
// padded to kDepthwiseChannelAlignment floats; docs/native-kernels.md describes the bytes.
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

#include "backends/native/convolution.h"
#include "backends/native/gemm.h"
#include "runtime/core/error.h"

namespace torchir::native {

inline constexpr uint32_t kPackedDepthwiseMagic = 0x57445254;  // "TRDW" as little-endian bytes
inline constexpr uint32_t kPackedDepthwiseVersion = 1;
inline constexpr size_t kPackedDepthwiseHeaderBytes = 64;
// Each tap's row of channels is padded with zeros to a multiple of this many floats (64 bytes),
// so rows start at the buffer's alignment.
inline constexpr size_t kDepthwiseChannelAlignment = 16;

// The header of packed depthwise weights, little-endian; the floats follow at byte 64.
struct PackedDepthwiseHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t kernel_height;
  uint32_t kernel_width;
  uint64_t channels;
  uint64_t padded_channels;  // channels rounded up to kDepthwiseChannelAlignment
  uint64_t data_floats;      // kernel_height * kernel_width * padded_channels
  uint8_t reserved[24];
};
static_assert(sizeof(PackedDepthwiseHeader) == kPackedDepthwiseHeaderBytes,
              "the header is part of the format");

// Bytes PackDepthwiseWeights writes for `shape` (header included); 0 when the shape fails
// CheckConvolution2dShape, is not depthwise (output_channels != input_channels), or overflows.
size_t DepthwisePackedWeightsBytes(const Convolution2dShape& shape);

// Packs PyTorch's depthwise filter [C, 1, kh, kw] into `out` (DepthwisePackedWeightsBytes bytes):
// tap (ky, kx), channel c at float (ky * kw + kx) * padded_channels + c after the header.
// Host-side or load-side. kInvalidArgument for a bad shape or null pointers, kOutOfMemory for a
// short `out`.
runtime::Error PackDepthwiseWeights(const Convolution2dShape& shape, const float* weights,
                                    void* out, size_t out_bytes);

// A view of validated packed depthwise weights.
struct PackedDepthwise {
  size_t kernel_height, kernel_width, channels;
  const float* data;  // tap (ky, kx), channel c at (ky * kernel_width + kx) * padded_channels + c
  size_t padded_channels;  // the float stride between taps
};

// Checks the header of `bytes` (magic: kInvalidProgram, version: kUnsupportedVersion, sizes and
// the buffer's length: kProgramOutOfBounds, a misaligned buffer: kInvalidArgument) and fills
// `*view`. Packed weights come from program files, which are not trusted.
runtime::Error ViewPackedDepthwise(const void* bytes, size_t size, PackedDepthwise* view);

// output (N, OH, OW, C) NHWC = epilogue(depthwise_conv(input NHWC) + bias), with shape's
// output_channels == input_channels == weights.channels and its kernel size the weights' (else
// kInvalidArgument); bias C floats or null; epilogue.residual, when set, is NHWC of the output's
// shape with residual_stride >= C floats between pixels (it may be the output itself). The
// output must not overlap the input. Rows are shared among the pool's threads; nothing is
// allocated.
runtime::Error DepthwiseConvolution2d(const Convolution2dShape& shape, const float* input,
                                      const PackedDepthwise& weights, const float* bias,
                                      float* output, const Epilogue& epilogue,
                                      pthreadpool_t threadpool = nullptr);

}  // namespace torchir::native
