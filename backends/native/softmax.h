// Softmax over the last dim of a float32 tensor seen as rows x cols, with a scale and a boolean
// mask applied first, using Highway's widest vectors: what attention runs on its scores,
// softmax(where(mask, fill, scale * q k^T)). The native matrix product runs it on each batch's
// rows right after computing them (runtime/native_backend.cpp), so the scores are read back
// from cache, not memory, and the scale, the mask and the softmax are one pass over them, not
// three delegate calls.
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace torchir::native {

// For each row r of `cols` floats: v = scale * input[r, c], replaced by mask_fill where
// mask[r % mask_rows, c] is non-zero (mask: mask_rows x cols bytes, or null for none), then
// output[r, c] = exp(v - max_c v) / sum_c exp(v - max_c v). Exponentials are
// activation-inl.h's (relative error <= 1.5e-7), 0 where exp(v - max) is below the smallest
// normal float (v - max < -87.34: 1.2e-38 of the row's sum at most); the sum is in float. A row
// whose values are all -inf becomes NaN, as in PyTorch. `output` may be `input` (in place), not
// otherwise overlap it.
// Rows are shared among the pool's threads when given. kInvalidArgument for zero sizes, null
// tensors, or a mask with zero rows.
runtime::Error Softmax(size_t rows, size_t cols, const float* input, float scale,
                       const uint8_t* mask, size_t mask_rows, float mask_fill, float* output,
                       pthreadpool_t threadpool = nullptr);

// The same under a causal mask of -inf (GPT's attention): in row r, v = scale * input[r, c] for
// c <= r % period + offset, the softmax over those, and output[r, c] = 0 for the columns past
// them (input is not read there: a causal product leaves them unwritten). Every row has at
// least column 0, so none is NaN from the mask. kInvalidArgument for zero sizes or period, or
// null tensors.
runtime::Error CausalSoftmax(size_t rows, size_t cols, const float* input, float scale,
                             size_t period, size_t offset, float* output,
                             pthreadpool_t threadpool = nullptr);

}  // namespace torchir::native
