// The tensor half of the portable kernels: elementwise math, comparisons,
// where, cast and data movement. Each Edge op's kernel is a Check (run once at
// Method init, trusting nothing) and a Run; ops with the same argument shape
// share a Check. Arguments arrive in the order runtime/kernel/kernel.h gives;
// tensor_kernel_list.cpp registers them under the Edge table's kernel names.
#pragma once

#include "runtime/core/error.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// unary.cpp: (input, [attributes], out), out the input's dtype and sizes.
// float32 only, no attributes: hardswish, hardsigmoid, sigmoid, tanh, silu,
// exp, log, sqrt, rsqrt, erf.
Error CheckFloatUnary(KernelArgs args);
Error RunHardswish(KernelContext& context, KernelArgs args);
Error RunHardsigmoid(KernelContext& context, KernelArgs args);
Error RunSigmoid(KernelContext& context, KernelArgs args);
Error RunTanh(KernelContext& context, KernelArgs args);
Error RunSilu(KernelContext& context, KernelArgs args);
Error RunExp(KernelContext& context, KernelArgs args);
Error RunLog(KernelContext& context, KernelArgs args);
Error RunSqrt(KernelContext& context, KernelArgs args);
Error RunRsqrt(KernelContext& context, KernelArgs args);
Error RunErf(KernelContext& context, KernelArgs args);
// (input, approximate: "none" | "tanh", out), float32.
Error CheckGelu(KernelArgs args);
Error RunGelu(KernelContext& context, KernelArgs args);
// (input, negative_slope, out), float32.
Error CheckLeakyRelu(KernelArgs args);
Error RunLeakyRelu(KernelContext& context, KernelArgs args);
// (input, out), float32/int32/int64; integers wrap around like PyTorch's.
Error CheckRealUnary(KernelArgs args);
Error RunNeg(KernelContext& context, KernelArgs args);
Error RunAbs(KernelContext& context, KernelArgs args);

// clamp.cpp: (input, min, max, out), float32/int32/int64, +-inf for an open
// side; integer tensors clamp to the integers inside [min, max].
Error CheckClamp(KernelArgs args);
Error RunClamp(KernelContext& context, KernelArgs args);

// binary.cpp: (self, other, out), broadcasting.
// float32/int32/int64, out of the same dtype: add, sub, mul, maximum, minimum.
Error CheckRealBinary(KernelArgs args);
Error RunAdd(KernelContext& context, KernelArgs args);
Error RunSub(KernelContext& context, KernelArgs args);
Error RunMul(KernelContext& context, KernelArgs args);
Error RunMaximum(KernelContext& context, KernelArgs args);
Error RunMinimum(KernelContext& context, KernelArgs args);
// float32 only: div, pow.
Error CheckFloatBinary(KernelArgs args);
Error RunDiv(KernelContext& context, KernelArgs args);
Error RunPow(KernelContext& context, KernelArgs args);
// float32/int32/int64 operands, bool out: eq, ne, lt, le, gt, ge.
Error CheckComparison(KernelArgs args);
Error RunEq(KernelContext& context, KernelArgs args);
Error RunNe(KernelContext& context, KernelArgs args);
Error RunLt(KernelContext& context, KernelArgs args);
Error RunLe(KernelContext& context, KernelArgs args);
Error RunGt(KernelContext& context, KernelArgs args);
Error RunGe(KernelContext& context, KernelArgs args);

// where.cpp: (condition: bool, self, other, out), all three broadcast.
Error CheckWhere(KernelArgs args);
Error RunWhere(KernelContext& context, KernelArgs args);

// cast.cpp: (input, dtype, out), any dtype pair, PyTorch's conversions.
Error CheckCast(KernelArgs args);
Error RunCast(KernelContext& context, KernelArgs args);

// data_movement.cpp: any dtype; the output is contiguous.
// (input, shape, out); out may share the input's storage (the planner's choice).
Error CheckReshape(KernelArgs args);
Error RunReshape(KernelContext& context, KernelArgs args);
// (input, dims, out).
Error CheckPermute(KernelArgs args);
Error RunPermute(KernelContext& context, KernelArgs args);
// (input, dim, start, end, step, out), all normalised: 0 <= start <= end <= size.
Error CheckSlice(KernelArgs args);
Error RunSlice(KernelContext& context, KernelArgs args);
// (tensors: TensorList, dim, out), dim normalised.
Error CheckConcatenate(KernelArgs args);
Error RunConcatenate(KernelContext& context, KernelArgs args);
// (input, sizes, out).
Error CheckExpand(KernelArgs args);
Error RunExpand(KernelContext& context, KernelArgs args);

// index_select.cpp: (input, index: int32/int64 1-d, dim, out); index values are
// checked at run (kIndexOutOfRange).
Error CheckIndexSelect(KernelArgs args);
Error RunIndexSelect(KernelContext& context, KernelArgs args);

// constant_pad.cpp: (input, pad, value, out), float32/int32/int64.
Error CheckConstantPad(KernelArgs args);
Error RunConstantPad(KernelContext& context, KernelArgs args);

}  // namespace torchir::runtime::portable
