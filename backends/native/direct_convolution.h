// Convolutions computed directly from the NHWC input, without the implicit GEMM's im2col
// (internal to backends/native/; GroupedConvolution2d, hence Convolution2d, calls it). The im2col
// copies each output pixel's taps into the GEMM's A block, which pays when each copied float then
// feeds many multiply-adds; two kinds of layer get few:
//  - narrow groups (RegNet's and ResNeXt's 3x3 convolutions with 8-32 output channels per
//    group): with Cout / groups = 16 a copied float feeds 16 multiply-adds, and the copy was a
//    quarter of regnet_x_400mf's time;
//  - few input channels (the RGB stems: 3 channels, K = kh * kw * 3 up to kc): runs of 3 floats
//    (21 for a 7x7 kernel row), the copy's bookkeeping per run against a short K loop.
// Here each output pixel accumulates in registers over its taps and input channels, reading the
// input where it lies:
//  1. tasks of output rows; per task, chunk by chunk: one packed panel of a group's filter (at
//     most nr output channels, two vectors), which stays in L1;
//  2. per output row, the kernel rows inside the input found once; the columns whose taps all lie
//     inside go up to 8 at a time (one broadcast of an input float feeds the chunk's one or two
//     vectors for that pixel), the rest in smaller blocks and the edge pixels one at a time with
//     partial sums over the input channels, so every block has about 8 independent FMA chains.
//     Taps in the padding are skipped, not multiplied by zero;
//  3. bias, residual and clamp in registers, the chunk's channels stored (a partial vector through
//     a buffer), other activations on the stored block.
// The weights are the groups' PackedB of GroupedConvolution2d, read in place: a chunk is one
// panel, and with one K block (K <= kc, or a single panel) panel j starts at j * K * nr floats and
// holds filter row k at k * nr.
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "backends/native/convolution.h"
#include "backends/native/gemm_config.h"
#include "runtime/core/error.h"

namespace torchir::native {

// Input channels per group up to which a convolution with K <= kc runs directly.
inline constexpr size_t kDirectMaxInputChannels = 4;

// Whether DirectConvolution2d takes `shape` with `groups` on a CPU whose float vectors have
// `lanes` lanes and whose GEMM layout is `config`: each panel (nr) fits two vectors, and either
// the groups are narrow (groups > 1, Cout / groups <= nr) or the groups have at most
// kDirectMaxInputChannels input channels and K <= kc.
bool IsDirectConvolution(const Convolution2dShape& shape, size_t groups, size_t lanes,
                         const GemmConfig& config);

// Runs the convolution of GroupedConvolution2d (arguments already checked there: shapes, each
// group's k and n) when IsDirectConvolution holds for this CPU and the weights are packed for
// this CPU's layout; sets *handled to whether it did. kInvalidArgument for a bad epilogue.
runtime::Error DirectConvolution2d(const Convolution2dShape& shape, size_t groups,
                                   const float* input, const PackedB* weights, const float* bias,
                                   float* output, const Epilogue& epilogue,
                                   pthreadpool_t threadpool, bool* handled);

}  // namespace torchir::native
