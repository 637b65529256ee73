// The arguments of one Gemm call (or one thread's share of it) as they cross Highway's dispatch
// table: every target's function must have the same signature, so the struct lives outside the
// per-target namespaces. Internal to backends/native/ (gemm.cpp, convolution.cpp).
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "backends/native/gemm.h"

namespace torchir::native {

// Where step 3 of the GEMM gets a block of A from when A is not a plain matrix in memory (a
// convolution's im2col, computed one block at a time). `copy` writes rows [m0, m0 + rows) x
// columns [k0, k0 + kc) of the virtual M x K matrix A into `panels`, row r at r * row_stride
// floats. It runs on the pool's threads, concurrently for disjoint row ranges.
struct ABlockSource {
  void (*copy)(const void* context, size_t m0, size_t rows, size_t k0, size_t kc, float* panels,
               size_t row_stride);
  const void* context;
};

struct GemmCall {
  size_t m_begin;  // the rows this call computes: [m_begin, m_begin + m) of A, C and residual
  size_t m;
  const float* a;  // row 0 of A (when a_source is null)
  size_t lda;
  const ABlockSource* a_source;  // null: A is `a` with row stride lda
  const PackedB* b;              // its config carries this target's mc and nc
  const float* bias;
  float* c;  // row 0 of C
  size_t ldc;
  Epilogue epilogue;  // its residual points at row 0
  float* scratch;     // min(m, mc) * kc floats
  size_t n_begin;     // the columns this call computes: [n_begin, n_end), n_begin a multiple of nr
  size_t n_end;
  CausalSkip causal;  // kNone but for attention (gemm.h)
};

// Checks `call` (whose m_begin is 0 and n range all of N) against the current target, then runs
// it, shared among the pool's threads. `call.scratch` holds scratch_bytes bytes. The one entry
// point of Gemm and the convolutions.
runtime::Error RunGemm(const GemmCall& call, size_t scratch_bytes, pthreadpool_t threadpool);

}  // namespace torchir::native
