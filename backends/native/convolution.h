// 2-d convolution over NHWC tensors (groups == 1) as an implicit GEMM on the native GEMM
// (gemm.h): M = batch * output_height * output_width output pixels, N = output_channels,
// K = kernel_height * kernel_width * input_channels. B is the filter, packed ahead of time as a
// PackedB with row (ky * kernel_width + kx) * input_channels + ci. No im2col buffer exists:
//  1. the GEMM's step 3 asks for an mc x kc block of A;
//  2. for each of its rows (an output pixel) the block's columns are runs of input_channels
//     consecutive floats, one run per kernel tap (ky, kx): copied from the input pixel the tap
//     reads, or zeros where the tap falls in the padding;
//  3. the rest is the GEMM (micro-kernels, threads, epilogue).
// A 1x1, stride-1, unpadded convolution is the GEMM on the input itself (lda = input_channels).
// The input may instead be NCHW (Convolution2dShape::input_channels_first: a network's image,
// read where the caller put it); the output is NHWC either way.
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "backends/native/gemm.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "runtime/core/error.h"

namespace torchir::native {

// How the implicit GEMM reads A for a layer that no direct kernel takes. kAuto (every caller
// but tests and benchmarks): a k x k layer by pointer where each tap's channels come in runs of
// at least kIndirectMinRun floats that divide the K block, where they lie when consecutive
// output pixels read input pixels other than a multiple of kIndirectAliasBytes apart, else
// copied first (so the kernels still skip the padded taps); shorter runs through the im2col
// copy; a stride-1 1x1 layer by pointer where the GEMM would copy long runs for at most 40
// panels (convolution.cpp, PointwiseReadsByPointer), else as the GEMM reads its rows. kIm2col:
// never by pointer. kIndirect: by pointer where they lie wherever the runs have at least 8 floats
// (NHWC input). kCopied: copied then by pointer wherever the runs have at least 8 floats and a
// K block at most kIndirectCopyMaxSegments of them (gemm_call.h), else as kIm2col.
enum class ImplicitGemmA { kAuto, kIm2col, kIndirect, kCopied };
inline constexpr size_t kIndirectMinRun = 32;
inline constexpr size_t kIndirectAliasBytes = 4096;

// A 2-d convolution over NHWC tensors, groups == 1.
struct Convolution2dShape {
  size_t batch, input_height, input_width, input_channels;
  size_t output_channels;
  size_t kernel_height, kernel_width;
  size_t stride_height, stride_width;
  size_t dilation_height, dilation_width;
  size_t padding_top, padding_left, padding_bottom, padding_right;
  // The input is NCHW (batch, channel, row, column), not NHWC: an image whose planes a stem reads
  // in place, without a layout permute before it. DirectConvolution2d reads it so, the im2col
  // copies it channel by channel; depthwise, Winograd and ExpandDepthwise refuse it.
  bool input_channels_first = false;
  // (H + pt + pb - dh*(kh-1) - 1) / sh + 1; 0 when the dilated kernel does not fit (or the shape
  // fails CheckConvolution2dShape).
  size_t output_height() const;
  size_t output_width() const;
};

// Floats from one input pixel to the next along a row, and from one channel to the next.
inline size_t InputPixelStride(const Convolution2dShape& s) {
  return s.input_channels_first ? 1 : s.input_channels;
}
inline size_t InputChannelStride(const Convolution2dShape& s) {
  return s.input_channels_first ? s.input_height * s.input_width : 1;
}

// kOk, or kInvalidArgument for zero sizes/strides/dilations, an empty output, or sizes whose
// products overflow (input, output and filter element counts, and their bytes, fit size_t).
runtime::Error CheckConvolution2dShape(const Convolution2dShape& shape);

// The GEMM's B for a convolution is K = kernel_height*kernel_width*input_channels rows by
// N = output_channels, row (ky*kernel_width + kx)*input_channels + ci. Host side (compile time):
// bytes PackConvolutionWeights writes (a PackedB of K x N with the header; 0 for a shape that fails
// CheckConvolution2dShape).
size_t ConvolutionPackedWeightsBytes(const GemmConfig& config, const Convolution2dShape& shape);

// Packs PyTorch's OIHW filter (output_channels x input_channels x kernel_height x kernel_width)
// into `out` (ConvolutionPackedWeightsBytes bytes) in the PackedB format, readable with
// ViewPackedB. kInvalidArgument for a bad shape or null pointers, kOutOfMemory for a short `out`.
runtime::Error PackConvolutionWeights(const GemmConfig& config, const Convolution2dShape& shape,
                                      const float* oihw_weights, void* out, size_t out_bytes);

// Bytes of scratch Convolution2d needs with `threads` threads (the GEMM's, for M output pixels).
size_t ConvolutionScratchBytes(const GemmConfig& config, const Convolution2dShape& shape,
                               size_t threads);

// output (N, OH, OW, Cout) NHWC = epilogue(conv(input NHWC) + bias); weights from ViewPackedB of
// what PackConvolutionWeights wrote (its k must equal kh*kw*Cin, n = Cout, else
// kInvalidArgument); bias Cout floats or null; epilogue.residual, when set, is NHWC of the
// output's shape with residual_stride = Cout (it may be the output itself: an in-place add).
// Weights packed for another layout than this CPU's: kNotSupported; short scratch:
// kOutOfMemory. The output must not overlap the input or the scratch.
runtime::Error Convolution2d(const Convolution2dShape& shape, const float* input,
                             const PackedB& weights, const float* bias, float* output,
                             const Epilogue& epilogue, void* scratch, size_t scratch_bytes,
                             pthreadpool_t threadpool = nullptr,
                             ImplicitGemmA a_mode = ImplicitGemmA::kAuto);

// Grouped convolutions (groups > 1 other than depthwise with multiplier 1, which depthwise.h runs
// directly: ResNeXt's and RegNet's group convolutions, depthwise with a channel multiplier) are
// one implicit GEMM per group on the machinery above: group g reads input channels
// [g * Cin / groups, (g + 1) * Cin / groups) of each pixel (the im2col copies runs of Cin / groups
// floats, pixels Cin floats apart) and writes output channels [g * Cout / groups, ...) of each
// pixel (C's row stride is Cout). `shape` holds the whole tensors' channel counts, which `groups`
// divides. The weights are `groups` PackedB, group g's filter (K = kh * kw * Cin / groups,
// N = Cout / groups, rows as above, panels GroupPacking's nr wide) one after another, each starting
// at a multiple of kPackedGroupAlignment bytes from the first; scratch is ConvolutionScratchBytes
// (groups run one after another, each shared among the threads).
inline constexpr size_t kPackedGroupAlignment = 64;

// The blocking a grouped filter is packed with for `config`: config with nr the groups' panel
// width (GroupPanelWidth: nr / 2 for narrow groups on x86), config itself for groups <= 1.
GemmConfig GroupPacking(const GemmConfig& config, const Convolution2dShape& shape, size_t groups);

// Bytes PackGroupedConvolutionWeights writes; 0 for a shape that fails CheckConvolution2dShape or
// channel counts `groups` (>= 1) does not divide.
size_t GroupedConvolutionPackedWeightsBytes(const GemmConfig& config,
                                            const Convolution2dShape& shape, size_t groups);

// Packs PyTorch's grouped filter [Cout, Cin / groups, kh, kw] (group g's filter is its rows
// [g * Cout / groups, (g + 1) * Cout / groups)) into `out`, one PackedB per group.
// kInvalidArgument for a bad shape or null pointers, kOutOfMemory for a short `out`.
runtime::Error PackGroupedConvolutionWeights(const GemmConfig& config,
                                             const Convolution2dShape& shape, size_t groups,
                                             const float* oihw_weights, void* out,
                                             size_t out_bytes);

// Fills views[0, groups) from packed grouped weights (bytes from a file: not trusted): each group
// through ViewPackedB (its errors), all packed for one layout with K = kh * kw * Cin / groups and
// N = Cout / groups, inside `size` bytes (else kProgramOutOfBounds); kInvalidArgument for a shape
// or group count that does not fit.
runtime::Error ViewPackedGroupedWeights(const void* bytes, size_t size,
                                        const Convolution2dShape& shape, size_t groups,
                                        PackedB* views);

// output = epilogue(grouped conv(input) + bias), NHWC, `weights` the `groups` views
// ViewPackedGroupedWeights fills (each group's k and n as above, else kInvalidArgument); bias
// Cout floats or null; the epilogue's residual as for Convolution2d (residual_stride >= Cout).
// groups == 1 is Convolution2d.
runtime::Error GroupedConvolution2d(const Convolution2dShape& shape, size_t groups,
                                    const float* input, const PackedB* weights, const float* bias,
                                    float* output, const Epilogue& epilogue, void* scratch,
                                    size_t scratch_bytes, pthreadpool_t threadpool = nullptr,
                                    ImplicitGemmA a_mode = ImplicitGemmA::kAuto);

}  // namespace torchir::native
