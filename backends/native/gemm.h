// C = A * B + bias with a fused activation, f32, on packed B (packed_weights.h). The work is
// blocked the BLIS way (docs/native-kernels.md):
//  1. for each block of nc columns of C,
//  2.   for each block of kc rows of B (B's panels are packed for this kc ahead of time),
//  3.     for each block of mc rows of A: copy its kc columns into the caller's scratch, rows kc
//         floats apart (mr consecutive rows form one panel), then
//  4.       for each nr-wide panel of B and each mr-row panel of A: the register-blocked
//           micro-kernel adds the kc-long products into an mr x nr tile of C held in registers
//           (a panel at the M edge runs a kernel instance with fewer rows).
// The first K block starts the tile from the bias (plus the residual), later ones from C; the last
// one applies the epilogue before storing. Tiles at the N edge run on a tile buffer on the stack
// (on the first half of the panel only, when the edge has at most nr / 2 columns).
// Dispatched at run time to the CPU's best Highway target (gemm_config.h).
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "runtime/core/error.h"

namespace torchir::native {

// What happens to each element of C after the last K block.
enum class Activation : uint32_t {
  kNone = 0,
  kRelu = 1,      // max(x, 0)
  kClamp = 2,     // min(max(x, min), max): relu6 and hardtanh
  kGelu = 3,      // x * (1 + erf(x / sqrt 2)) / 2, erf within 4.4e-7 (a rational fit)
  kGeluTanh = 4,  // x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2
  // The rest use exp within 1.5e-7 relative error (activation-inl.h).
  kHardswish = 5,    // x * min(max(x + 3, 0), 6) / 6: MobileNetV3
  kSilu = 6,         // x / (1 + exp(-x)): EfficientNet
  kSigmoid = 7,      // 1 / (1 + exp(-x)): squeeze-and-excitation gates
  kHardsigmoid = 8,  // min(max(x + 3, 0), 6) / 6: MobileNetV3's gates
};
// The largest value of Activation; kernels refuse anything past it.
inline constexpr Activation kLastActivation = Activation::kHardsigmoid;

// What is added to and applied on A*B + bias: C = activation(A*B + bias + residual).
struct Epilogue {
  Activation activation = Activation::kNone;
  float min = 0.0f;  // kClamp only
  float max = 0.0f;  // kClamp only
  // Null, or an M x N matrix (row stride residual_stride >= N floats) added before the
  // activation: a ResNet's skip connection. It is read for each tile before that tile of C is
  // first written, so it may be C itself (same pointer, same stride: an in-place add); otherwise
  // it must not overlap C.
  const float* residual = nullptr;
  size_t residual_stride = 0;
};

// What a causal (lower-triangular) structure lets a product skip, row i counted from A's and C's
// row 0. kColumns: row i of C is needed only in columns j <= i + offset (attention's scores under
// a causal mask, whose softmax masks the rest): tiles wholly right of that are not computed, and
// those elements of C are left as they were. kDepth: row i of A is zero past column i + offset
// (the softmax of such scores, times V): tiles skip those terms of the sum, and K blocks wholly
// past them. Either needs an epilogue without activation or residual (else kInvalidArgument).
struct CausalSkip {
  enum class Kind : uint32_t { kNone = 0, kColumns = 1, kDepth = 2 };
  Kind kind = Kind::kNone;
  size_t offset = 0;
};

// Bytes of scratch Gemm needs for M rows of A with weights packed for `config`: one mc x kc
// block of copied A per thread (`threads`: the pool's pthreadpool_get_threads_count, 1 without a
// pool). The scratch is the caller's: Gemm itself allocates nothing.
size_t GemmScratchBytes(const GemmConfig& config, size_t m, size_t threads = 1);

// C (M x N, row stride ldc) = A (M x K, row-major, row stride lda) * B + bias (N floats, or
// null), then the epilogue. K and N are B's. B must be packed with the blocking of
// CurrentKernelTarget() (else kNotSupported: repack for this CPU); scratch holds at least
// GemmScratchBytes(b.config, m, threads) bytes. C must not overlap A, B or the scratch (the
// epilogue's residual may be C itself: see Epilogue).
// With a thread pool the rows (or, for fewer rows than threads * mr, the nr-wide column panels)
// are shared among its threads; null runs on the calling thread.
runtime::Error Gemm(size_t m, const float* a, size_t lda, const PackedB& b, const float* bias,
                    float* c, size_t ldc, const Epilogue& epilogue, void* scratch,
                    size_t scratch_bytes, pthreadpool_t threadpool = nullptr,
                    const CausalSkip& causal = CausalSkip());

}  // namespace torchir::native
