// The compute half of the portable kernels: each Edge op's init-time check and
// its run function, registered by compute_kernel_list.cpp. Arguments follow
// kernel.h's order (tensor operands, attributes, outputs, in the Edge table's
// order); each check verifies every fact its run relies on, so that run never
// reads or writes out of bounds.
#pragma once

#include "runtime/core/error.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// convolution(input, weight, bias?, stride, padding, dilation, groups, output_min, output_max,
// out): 1-d to 3-d, NC* layout, float32. Accumulates whole output rows, a block of output
// channels at a time, so that the inner loops are contiguous and need no scratch memory.
Error CheckConvolution(KernelArgs args);
Error RunConvolution(KernelContext& context, KernelArgs args);

// linear(input [..., K], weight [N, K], bias? [N], output_min, output_max, out [..., N]),
// float32. Tiles of input rows x weight rows, each a set of dot products over K.
Error CheckLinear(KernelArgs args);
Error RunLinear(KernelContext& context, KernelArgs args);

// matmul(self [..., M, K], other [..., K, N], out [..., M, N]), float32, batch dims
// broadcast. Output rows accumulate rows of `other`, several output rows per pass.
Error CheckMatmul(KernelArgs args);
Error RunMatmul(KernelContext& context, KernelArgs args);

// batch_norm(input [N, C, ...], running_mean, running_var, weight?, bias?, eps, out),
// float32, inference: one scale and shift per channel.
Error CheckBatchNorm(KernelArgs args);
Error RunBatchNorm(KernelContext& context, KernelArgs args);

// layer_norm(input, weight?, bias?, normalized_shape, eps, out), float32: statistics over
// the trailing normalized_shape dims, accumulated in double.
Error CheckLayerNorm(KernelArgs args);
Error RunLayerNorm(KernelContext& context, KernelArgs args);

// softmax(input, dim, out) and log_softmax(input, dim, out), float32, max-subtracted.
Error CheckSoftmax(KernelArgs args);
Error RunSoftmax(KernelContext& context, KernelArgs args);
Error RunLogSoftmax(KernelContext& context, KernelArgs args);

// mean/sum/amax(input, dims, keepdim, out): over `dims`, all dims when empty. mean takes
// float32, sum and amax float32, int32 and int64; float sums accumulate in double.
Error CheckMean(KernelArgs args);
Error RunMean(KernelContext& context, KernelArgs args);
Error CheckSum(KernelArgs args);
Error RunSum(KernelContext& context, KernelArgs args);
Error CheckAmax(KernelArgs args);
Error RunAmax(KernelContext& context, KernelArgs args);

// max_dim(input, dim, keepdim, values, indices): float32, int32, int64; indices are int64
// and point at the first maximum (a NaN counts as the maximum, as in PyTorch).
Error CheckMaxDim(KernelArgs args);
Error RunMaxDim(KernelContext& context, KernelArgs args);

// max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, out) and
// avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, out) over
// the last two dims of a 3-d or 4-d float32 input, windows exactly as PyTorch places them.
Error CheckMaxPool2d(KernelArgs args);
Error RunMaxPool2d(KernelContext& context, KernelArgs args);
Error CheckAvgPool2d(KernelArgs args);
Error RunAvgPool2d(KernelContext& context, KernelArgs args);

// adaptive_avg_pool2d(input, output_size, out): PyTorch's floor/ceil window bounds.
Error CheckAdaptiveAvgPool2d(KernelArgs args);
Error RunAdaptiveAvgPool2d(KernelContext& context, KernelArgs args);

}  // namespace torchir::runtime::portable
