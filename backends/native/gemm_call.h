// The arguments of one Gemm call as they cross Highway's dispatch table: every target's function
// must have the same signature, so the struct lives outside the per-target namespaces.
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
  float* scratch;
};

}  // namespace torchir::native
