// Layer normalisation over the last dim of a float32 tensor seen as rows x cols, with Highway's
// widest vectors: what transformers run between their linear layers. The portable kernel
// (runtime/kernels/portable/normalization.cpp) is scalar and keeps its statistics in double; on
// gpt_small its nine layer norms were 10 % of the native program's time at 1 thread, and more at
// 2, where the GEMMs share the work and it did not.
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "runtime/core/error.h"

namespace torchir::native {

// output[r, c] = (input[r, c] - mean_r) / sqrt(var_r + epsilon) * weight[c] + bias[c] for rows r
// of `cols` floats (weight, bias: cols floats each, or null for 1 and 0). mean_r and the biased
// variance var_r are computed in float in two passes (the mean first, so the variance does not
// cancel), each summed in several vector accumulators. `output` may be `input` (same rows), not
// otherwise overlap it. Rows are shared among the pool's threads when given. kInvalidArgument for
// zero sizes, null tensors or a negative or NaN epsilon.
runtime::Error LayerNorm(size_t rows, size_t cols, const float* input, const float* weight,
                         const float* bias, float epsilon, float* output,
                         pthreadpool_t threadpool = nullptr);

}  // namespace torchir::native
