// A 1x1 expansion followed by a depthwise convolution (the first two layers of a MobileNet
// inverted-residual block), or by a grouped one (a RegNet or ResNeXt block's first two layers),
// computed band by band of the depthwise layer's output rows so the
// expanded tensor never exists whole: each band's expanded rows go into a buffer of at most
// kExpandDepthwiseBandBytes (it stays in L2), the depthwise rows are computed from there, and
// the rows the next band shares with this one (kernel - stride of them) move to the buffer's
// top rather than being computed again. mobilenet_v2's first block writes a 4.8 MB expanded
// tensor at 112 x 112 that the depthwise layer reads back; inside the model those lines come
// from memory on both sides (docs/native-kernels.md, "An expansion and its depthwise layer, in
// bands").
//
// Each band runs the same kernels as the two layers (Convolution2d on the band's input rows,
// DepthwiseConvolution2d or GroupedConvolution2d on the band with its own top and bottom
// padding), so the output is the two layers' to the last bit. Bands are shared among the pool's
// threads in contiguous runs, each thread with its own slot of the scratch.
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

#include "backends/native/convolution.h"
#include "backends/native/depthwise.h"
#include "backends/native/gemm.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "runtime/core/error.h"

namespace torchir::native {

// The most bytes of expanded rows one band keeps (a quarter to half of the L2 of the cores
// we target), unless a single band needs more.
inline constexpr size_t kExpandDepthwiseBandBytes = 256 * 1024;

// kOk when `expand` is a 1x1, stride-1, unpadded, undilated convolution and `depthwise` a
// convolution over its output (same batch, height, width and channels) whose padding is
// smaller than its dilated kernel on each side of the height (so every band reads at least one
// expanded row): depthwise (output channels = input channels) when `groups` is 0, else grouped
// in `groups` > 1 groups (both channel counts multiples of it); else kInvalidArgument. Both
// shapes must pass CheckConvolution2dShape.
runtime::Error CheckExpandDepthwise(const Convolution2dShape& expand,
                                    const Convolution2dShape& depthwise, size_t groups = 0);

// The depthwise layer's output rows per band: the most whose expanded rows fit
// kExpandDepthwiseBandBytes, at least 1, at most the output height; on several threads, fewer
// where that makes a band count the threads divide (at most twice as many bands). 0 for shapes
// that fail CheckExpandDepthwise.
size_t ExpandDepthwiseBandRows(const Convolution2dShape& expand,
                               const Convolution2dShape& depthwise, size_t groups = 0,
                               size_t threads = 1);

// Bytes of scratch ExpandDepthwise needs on `threads` threads (a band buffer and the GEMM's
// blocks per thread, which the grouped layer's scratch shares; with pthreadpool, the threads the
// pool has). 0 for bad shapes.
size_t ExpandDepthwiseScratchBytes(const GemmConfig& config, const Convolution2dShape& expand,
                                   const Convolution2dShape& depthwise, size_t threads,
                                   size_t groups = 0);

// The two layers' operands, as Convolution2d and DepthwiseConvolution2d take them.
struct ExpandDepthwiseCall {
  Convolution2dShape expand{};
  const float* input = nullptr;  // NHWC, expand's input
  const PackedB* expand_weights = nullptr;
  const float* expand_bias = nullptr;  // or null
  Epilogue expand_epilogue{};          // no residual
  Convolution2dShape depthwise{};      // the second layer's shape, depthwise or grouped
  const PackedDepthwise* depthwise_weights = nullptr;  // null when the second layer is grouped
  // A grouped second layer: `groups` > 1 and one filter view per group, as GroupedConvolution2d
  // takes them (then depthwise_weights is null); 0 and null for a depthwise one.
  size_t groups = 0;
  const PackedB* group_weights = nullptr;
  const float* depthwise_bias = nullptr;  // or null
  Epilogue depthwise_epilogue{};          // no residual
  float* output = nullptr;                // NHWC, depthwise's output; must not overlap the input
  // Null, or where to add the nanoseconds the bands spent in the expansion ([0]) and in the
  // depthwise layer ([1]), summed over the threads: how a profile splits the pair's time.
  uint64_t* phase_ns = nullptr;
};

// output = depthwise(expand(input)) as the two layers compute it. kInvalidArgument for shapes
// that fail CheckExpandDepthwise (with call.groups), a residual in either epilogue, or null
// pointers; kOutOfMemory
// when scratch_bytes is short of ExpandDepthwiseScratchBytes for the pool's threads; otherwise
// the kernels' errors.
runtime::Error ExpandDepthwise(const ExpandDepthwiseCall& call, void* scratch, size_t scratch_bytes,
                               pthreadpool_t threadpool = nullptr);

}  // namespace torchir::native
