// The two halves of the portable kernel set, each kept by its own files.
#pragma once

#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// Convolution, matrix products, normalisation, softmax, pooling, reductions.
Span<const Kernel> ComputeKernels();
// Elementwise math, comparisons, where, cast, clamp and data movement.
Span<const Kernel> TensorKernels();

}  // namespace torchir::runtime::portable
