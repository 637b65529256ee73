// The portable kernel list: one line per Edge op, the one source from which the runtime
// declares (kernels.h) and registers (portable_kernels.cpp) its portable kernels. An
// X-macro list, deliberately without an include guard: the includer defines
//
//   TORCHIR_PORTABLE_KERNEL(name, check, run, num_outputs)
//
// first, and #undefs it after.
//   name         the Edge op table's `kernel` name (compiler/dialect/edge_ops.cpp);
//                portable_kernel_coverage_test fails when the list and the table differ;
//   check, run   its init-time check and its run function (runtime/kernel/kernel.h); ops
//                with the same argument shape share a check;
//   num_outputs  how many trailing arguments the kernel writes (the op's output count).
//
// Arguments follow kernel.h's order: the op's tensor operands, its attributes, its outputs,
// in the Edge table's order. Each check verifies every fact its run relies on (count and
// kinds, dtypes, ranks, output shapes), so that run never reads or writes out of bounds.

// ---- convolution.cpp, linear.cpp, matmul.cpp: float32 ------------------------------------
// convolution(input, weight, bias?, stride, padding, dilation, groups, output_min, output_max,
// out): 1-d to 3-d, NC* layout. Accumulates whole output rows, a block of output channels at a
// time, so that the inner loops are contiguous and need no scratch memory.
TORCHIR_PORTABLE_KERNEL(convolution, CheckConvolution, RunConvolution, 1)
// linear(input [..., K], weight [N, K], bias? [N], output_min, output_max, out [..., N]). Tiles
// of input rows x weight rows, each a set of dot products over K.
TORCHIR_PORTABLE_KERNEL(linear, CheckLinear, RunLinear, 1)
// matmul(self [..., M, K], other [..., K, N], out [..., M, N]), batch dims broadcast. Output
// rows accumulate rows of `other`, several output rows per pass.
TORCHIR_PORTABLE_KERNEL(matmul, CheckMatmul, RunMatmul, 1)

// ---- normalization.cpp, softmax.cpp: float32 ---------------------------------------------
// batch_norm(input [N, C, ...], running_mean, running_var, weight?, bias?, eps, out),
// inference: one scale and shift per channel.
TORCHIR_PORTABLE_KERNEL(batch_norm, CheckBatchNorm, RunBatchNorm, 1)
// layer_norm(input, weight?, bias?, normalized_shape, eps, out): statistics over the trailing
// normalized_shape dims, accumulated in double.
TORCHIR_PORTABLE_KERNEL(layer_norm, CheckLayerNorm, RunLayerNorm, 1)
// softmax(input, dim, out) and log_softmax(input, dim, out), max-subtracted.
TORCHIR_PORTABLE_KERNEL(softmax, CheckSoftmax, RunSoftmax, 1)
TORCHIR_PORTABLE_KERNEL(log_softmax, CheckSoftmax, RunLogSoftmax, 1)

// ---- unary.cpp, clamp.cpp: (input, [attributes], out), out the input's dtype and sizes ---
// clamp(input, min, max, out), float32/int32/int64, +-inf for an open side; integer tensors
// clamp to the integers inside [min, max].
TORCHIR_PORTABLE_KERNEL(clamp, CheckClamp, RunClamp, 1)
// gelu(input, approximate: "none" | "tanh", out), float32.
TORCHIR_PORTABLE_KERNEL(gelu, CheckGelu, RunGelu, 1)
// prelu(input, weight, out), float32: weight holds one slope or one per channel (dim 1; a 0-d
// or 1-d input has one channel).
TORCHIR_PORTABLE_KERNEL(prelu, CheckPrelu, RunPrelu, 1)
// The formula kernels, one line each in unary_ops.h (which documents their arguments).
#define TORCHIR_UNARY(name, dtypes, ...) \
  TORCHIR_PORTABLE_KERNEL(name, Check##dtypes##Unary, RunUnary_##name, 1)
#define TORCHIR_UNARY_ATTRS(name, count, ...) \
  TORCHIR_PORTABLE_KERNEL(name, CheckFloatUnaryAttrs##count, RunUnary_##name, 1)
#include "runtime/kernels/portable/unary_ops.h"
#undef TORCHIR_UNARY_ATTRS
#undef TORCHIR_UNARY

// ---- binary.cpp: (self, other, out), broadcasting ----------------------------------------
// One line each in binary_ops.h (which documents their dtypes).
#define TORCHIR_BINARY(name, dtypes, ...) \
  TORCHIR_PORTABLE_KERNEL(name, Check##dtypes##Binary, RunBinary_##name, 1)
#define TORCHIR_COMPARISON(name, ...) \
  TORCHIR_PORTABLE_KERNEL(name, CheckComparison, RunBinary_##name, 1)
#include "runtime/kernels/portable/binary_ops.h"
#undef TORCHIR_COMPARISON
#undef TORCHIR_BINARY

// ---- where.cpp, cast.cpp -----------------------------------------------------------------
// where(condition: bool, self, other, out), all three broadcast.
TORCHIR_PORTABLE_KERNEL(where, CheckWhere, RunWhere, 1)
// cast(input, dtype, out), any dtype pair, PyTorch's conversions.
TORCHIR_PORTABLE_KERNEL(cast, CheckCast, RunCast, 1)

// ---- reduction.cpp -----------------------------------------------------------------------
// mean/sum/amax(input, dims, keepdim, out): over `dims`, all dims when empty. mean takes
// float32, sum and amax float32, int32 and int64; float sums accumulate in double.
TORCHIR_PORTABLE_KERNEL(mean, CheckMean, RunMean, 1)
TORCHIR_PORTABLE_KERNEL(sum, CheckSum, RunSum, 1)
TORCHIR_PORTABLE_KERNEL(amax, CheckAmax, RunAmax, 1)
// max_dim(input, dim, keepdim, values, indices): float32, int32, int64; indices are int64 and
// point at the first maximum (a NaN counts as the maximum, as in PyTorch).
TORCHIR_PORTABLE_KERNEL(max_dim, CheckMaxDim, RunMaxDim, 2)
// amin(input, dims, keepdim, out): the minimum, float32/int32/int64 (a NaN wins). prod(input,
// dims, keepdim, out): the product, float32/int32/int64, float products in double, 1 when empty.
TORCHIR_PORTABLE_KERNEL(amin, CheckAmin, RunAmin, 1)
TORCHIR_PORTABLE_KERNEL(prod, CheckProd, RunProd, 1)
// min_dim(input, dim, keepdim, values, indices): max_dim's mirror (first minimum, NaN wins).
TORCHIR_PORTABLE_KERNEL(min_dim, CheckMinDim, RunMinDim, 2)
// ---- cumsum.cpp --------------------------------------------------------------------------
// cumsum(input, dim, out): running sums along dim, float32/int32/int64, float in double.
TORCHIR_PORTABLE_KERNEL(cumsum, CheckCumsum, RunCumsum, 1)
// ---- topk.cpp ----------------------------------------------------------------------------
// topk(input, k, dim, largest, values, indices): the k largest (smallest) entries along dim in
// order, float32/int32/int64, int64 indices; ties keep index order (a stable sort; sort and
// argsort are topk of the whole dim), a NaN counts as the largest value.
TORCHIR_PORTABLE_KERNEL(topk, CheckTopK, RunTopK, 2)
// ---- scatter.cpp -------------------------------------------------------------------------
// scatter(input, index: int32/int64, src, dim, reduce, include_self, out): out = input with
// src's entries written at the index along dim (reduce "none", any dtype: the last write
// wins), or combined into it (reduce "sum"/"prod"/"amax"/"amin", float32/int32/int64; without
// include_self every target starts from the identity); index values are checked at run.
TORCHIR_PORTABLE_KERNEL(scatter, CheckScatter, RunScatter, 1)

// ---- pooling.cpp: float32, over the last two dims of a 3-d or 4-d input ------------------
// max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, out) and
// avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, out), windows
// exactly as PyTorch places them.
TORCHIR_PORTABLE_KERNEL(max_pool2d, CheckMaxPool2d, RunMaxPool2d, 1)
TORCHIR_PORTABLE_KERNEL(avg_pool2d, CheckAvgPool2d, RunAvgPool2d, 1)
// adaptive_avg_pool2d(input, output_size, out): PyTorch's floor/ceil window bounds.
TORCHIR_PORTABLE_KERNEL(adaptive_avg_pool2d, CheckAdaptiveAvgPool2d, RunAdaptiveAvgPool2d, 1)
// upsample_bilinear2d(input, output_size, align_corners, scales_h, scales_w, out): PyTorch's
// source coordinates and two taps per dim (upsample.cpp); a scale <= 0 means none given.
TORCHIR_PORTABLE_KERNEL(upsample_bilinear2d, CheckUpsampleBilinear2d, RunUpsampleBilinear2d, 1)

// ---- grid_sampler.cpp --------------------------------------------------------------------
// grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2], interpolation_mode, padding_mode,
// align_corners, out [N, C, Ho, Wo]), float32: F.grid_sample with bilinear (0), nearest (1) or
// bicubic (2) interpolation and zeros (0), border (1) or reflection (2) padding, as ATen
// computes it; a non-finite or huge grid coordinate never reads out of bounds.
TORCHIR_PORTABLE_KERNEL(grid_sampler_2d, CheckGridSampler2d, RunGridSampler2d, 1)

// ---- data_movement.cpp, index_select.cpp, constant_pad.cpp: the output is contiguous -----
// Any dtype unless said otherwise.
// reshape(input, shape, out); out may share the input's storage (the planner's choice, from
// the Edge table's output_storage).
TORCHIR_PORTABLE_KERNEL(reshape, CheckReshape, RunReshape, 1)
// permute(input, dims, out).
TORCHIR_PORTABLE_KERNEL(permute, CheckPermute, RunPermute, 1)
// slice(input, dim, start, end, step, out), all normalised: 0 <= start <= end <= size.
TORCHIR_PORTABLE_KERNEL(slice, CheckSlice, RunSlice, 1)
// concatenate(tensors: TensorList, dim, out), dim normalised.
TORCHIR_PORTABLE_KERNEL(concatenate, CheckConcatenate, RunConcatenate, 1)
// expand(input, sizes, out).
TORCHIR_PORTABLE_KERNEL(expand, CheckExpand, RunExpand, 1)
// index_select(input, index: int32/int64 1-d, dim, out); index values are checked at run
// (kIndexOutOfRange).
TORCHIR_PORTABLE_KERNEL(index_select, CheckIndexSelect, RunIndexSelect, 1)
// constant_pad(input, pad, value, out), float32/int32/int64.
TORCHIR_PORTABLE_KERNEL(constant_pad, CheckConstantPad, RunConstantPad, 1)
// pad(input, pad, mode: "reflect" | "replicate" | "circular", out), any dtype (mode_pad.cpp).
TORCHIR_PORTABLE_KERNEL(pad, CheckModePad, RunModePad, 1)
