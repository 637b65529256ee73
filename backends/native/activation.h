// The epilogue activations of the native kernels (activation-inl.h) on a plain buffer, through
// the same vector code and run-time dispatch as the kernels: what the tests check the kernels'
// activations and the vectorised exp and erf against.
#pragma once

#include <cstddef>
#include <limits>

#include "backends/native/gemm.h"

namespace torchir::native {

// data[i] = activation(data[i]) for i < count, in place: clamp, relu and none as the kernels'
// clamp (epilogue.min, epilogue.max for kClamp), the others as activation-inl.h computes them.
// The epilogue's residual is ignored.
void ApplyActivation(const Epilogue& epilogue, float* data, size_t count);

// The clamp a kernel applies while its results are in registers: [0, +inf) for relu,
// [min, max] for kClamp, no bound for the others (they run on the stored results instead).
inline float ClampLow(const Epilogue& epilogue) {
  return epilogue.activation == Activation::kRelu    ? 0.0f
         : epilogue.activation == Activation::kClamp ? epilogue.min
                                                     : -std::numeric_limits<float>::infinity();
}
inline float ClampHigh(const Epilogue& epilogue) {
  return epilogue.activation == Activation::kClamp ? epilogue.max
                                                   : std::numeric_limits<float>::infinity();
}

// y[i] = e^x[i] for i < count, vectorised: relative error <= 1.5e-7 where the result is a normal
// float; 0 below about -103.97, +inf above about 88.72, NaN for NaN.
void Exp(const float* x, float* y, size_t count);

// y[i] = erf(x[i]) for i < count, vectorised as GELU computes it: within 4.4e-7 of erf for every
// float; +-1 beyond +-4. A NaN gives NaN or +-1, depending on the target's min / max (GELU keeps
// its NaN through x itself).
void Erf(const float* x, float* y, size_t count);

}  // namespace torchir::native
