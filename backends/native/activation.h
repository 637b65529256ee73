// The epilogue activations of the native kernels (activation-inl.h) on a plain buffer, through
// the same vector code and run-time dispatch as the kernels: what the tests check the kernels'
// activations and the vectorised exp against.
#pragma once

#include <cstddef>

#include "backends/native/gemm.h"

namespace torchir::native {

// data[i] = activation(data[i]) for i < count, in place: clamp, relu and none as the kernels'
// clamp (epilogue.min, epilogue.max for kClamp), the others as activation-inl.h computes them.
// The epilogue's residual is ignored.
void ApplyActivation(const Epilogue& epilogue, float* data, size_t count);

// y[i] = e^x[i] for i < count, vectorised: relative error <= 1.5e-7 where the result is a normal
// float; 0 below about -103.97, +inf above about 88.72, NaN for NaN.
void Exp(const float* x, float* y, size_t count);

}  // namespace torchir::native
