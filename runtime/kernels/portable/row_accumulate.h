// The inner loop of convolution and matmul: output rows accumulate `weight * input row`
// one weight at a time, over the whole row. With no scratch memory to pack operands into,
// this keeps every inner loop contiguous (vectorizable) and the output rows in L1; feeding
// kRowBlock output rows from each input value loaded makes it compute-bound rather than
// load-bound. Private to runtime/kernels/portable.
#pragma once

#include <cstdint>

namespace torchir::runtime::portable {

// Output rows updated together by AccumulateRowBlock.
inline constexpr int64_t kRowBlock = 4;

// rows[b][i] += w[b] * in[i * stride] for i < count, b < kRowBlock, in T (float or double).
// Separate restrict pointers let the compiler vectorize without runtime alias checks.
template <typename T>
inline void AccumulateRowBlock(T* __restrict r0, T* __restrict r1, T* __restrict r2,
                               T* __restrict r3, const T* __restrict in, const T* w, int64_t stride,
                               int64_t count) {
  const T w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
  if (stride == 1) {
    for (int64_t i = 0; i < count; ++i) {
      const T x = in[i];
      r0[i] += w0 * x;
      r1[i] += w1 * x;
      r2[i] += w2 * x;
      r3[i] += w3 * x;
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    const T x = in[i * stride];
    r0[i] += w0 * x;
    r1[i] += w1 * x;
    r2[i] += w2 * x;
    r3[i] += w3 * x;
  }
}

// row[i] += w * in[i * stride] for i < count: one row, for blocks' leftovers.
template <typename T>
inline void AccumulateRow(T* __restrict row, const T* __restrict in, T w, int64_t stride,
                          int64_t count) {
  if (stride == 1) {
    for (int64_t i = 0; i < count; ++i) row[i] += w * in[i];
    return;
  }
  for (int64_t i = 0; i < count; ++i) row[i] += w * in[i * stride];
}

}  // namespace torchir::runtime::portable
