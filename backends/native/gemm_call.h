// The arguments of one Gemm call (or one thread's share of it) as they cross Highway's dispatch
// table: every target's function must have the same signature, so the struct lives outside the
// per-target namespaces.
#pragma once

#include <cstddef>

#include "backends/native/gemm.h"

namespace torchir::native {

struct GemmCall {
  size_t m;
  const float* a;
  size_t lda;
  const PackedB* b;  // its config carries this target's mc and nc
  const float* bias;
  float* c;
  size_t ldc;
  Epilogue epilogue;
  float* scratch;  // min(m, mc) * kc floats
  size_t n_begin;  // the columns this call computes: [n_begin, n_end), n_begin a multiple of nr
  size_t n_end;
};

}  // namespace torchir::native
