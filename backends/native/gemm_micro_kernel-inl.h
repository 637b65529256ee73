// The register-blocked micro-kernels, compiled once per Highway target (a Highway "-inl" header:
// include it after hwy/highway.h, inside a foreach_target.h translation unit).
//
// Per target: kThisTarget (gemm_config.h), the tile kMr x kNr and the K block kKc (which must
// equal that target's row of gemm_config.cpp: Gemm checks it on every call), and
// MicroKernel<kRows, kCols>, which adds a (kRows x kc, rows kKc floats apart) * b (kc x kNr panel)
// to an accumulator tile started from the bias row (plus the residual's rows, if any) or from C and
// stores kRows rows of it to C, clamped on the last K block; with kc > kKc (kPassBlocks) the pass
// goes on into the next K block's panel and copy of A (TileArgs::b_after, a_after). kRows < kMr
// serves the M edge without computing padding rows; kCols < kNr serves an N edge without computing
// the columns past it: kNr / 2 (the first vector of each row) on every SIMD target, and where a
// vector has at least 8 lanes (kQuarterTiles: AVX2, AVX-512) also 3 kNr / 4 (the second vector half
// as wide: mobilenet_v2's N = 24 on AVX-512) and kNr / 4 (one vector half as wide: N = 40 = 32 + 8
// in efficientnet). ARows::kStrided kernels read A's rows args.lda floats apart where A is
// (gemm.cpp says when): a register per few rows instead of a constant displacement.
// ARows::kIndirect kernels read each row through a pointer per segment of the K block (an implicit
// GEMM's taps where they lie in the input: convolution.cpp), so no im2col copy exists.
//
// Packed A keeps A's rows (row-major, kKc floats apart) rather than BLIS's k-major interleave:
// the copy is then a memcpy per row instead of a transpose (which cost as much as the
// arithmetic when N is 64), and because kKc is a compile-time constant, row i's element is one
// broadcast at a constant displacement i * kKc * 4 from a single pointer.
//
// SIMD targets hold the tile as 2 * kMr named vector variables: a named variable is a register
// to the compiler, where an array of vectors may be kept in memory (read the assembly:
// docs/native-kernels.md).
#if defined(TORCHIR_BACKENDS_NATIVE_GEMM_MICRO_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TORCHIR_BACKENDS_NATIVE_GEMM_MICRO_KERNEL_INL_H_
#undef TORCHIR_BACKENDS_NATIVE_GEMM_MICRO_KERNEL_INL_H_
#else
#define TORCHIR_BACKENDS_NATIVE_GEMM_MICRO_KERNEL_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backends/native/gemm_config.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef TORCHIR_NATIVE_SIMD
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
#define TORCHIR_NATIVE_SIMD 0
constexpr KernelTarget kThisTarget = KernelTarget::kPortable;
constexpr size_t kMr = 4, kNr = 8, kKc = 256;
#elif HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_SSE4
#define TORCHIR_NATIVE_SIMD 1
constexpr KernelTarget kThisTarget = KernelTarget::kX86Sse4;
constexpr size_t kMr = 6, kNr = 8, kKc = 256;
#elif HWY_TARGET == HWY_AVX2
#define TORCHIR_NATIVE_SIMD 1
constexpr KernelTarget kThisTarget = KernelTarget::kX86Avx2;
constexpr size_t kMr = 6, kNr = 16, kKc = 256;
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define TORCHIR_NATIVE_SIMD 1
constexpr KernelTarget kThisTarget = KernelTarget::kX86Avx512;
constexpr size_t kMr = 14, kNr = 32, kKc = 256;
#elif HWY_ARCH_ARM
// NEON, and SVE run on fixed 128-bit vectors, so one packed layout serves every arm64 core.
#define TORCHIR_NATIVE_SIMD 1
constexpr KernelTarget kThisTarget = KernelTarget::kArmNeon;
constexpr size_t kMr = 12, kNr = 8, kKc = 256;
#else
// Targets without a tuned kernel yet (WASM, RVV, PPC) run the portable one.
#define TORCHIR_NATIVE_SIMD 0
constexpr KernelTarget kThisTarget = KernelTarget::kPortable;
constexpr size_t kMr = 4, kNr = 8, kKc = 256;
#endif

// The K blocks a tile runs in one pass, starting C once and storing it once (TileArgs::b_after,
// a_after; GemmConfig::pass_blocks, which must agree): two on AVX-512, where a tile's start and
// end cost a share of its time that halves with twice its K steps (resnet50's long-K layers,
// Zen 4: docs/native-kernels.md, "Two K blocks a pass"); one elsewhere (not measured there).
constexpr size_t kPassBlocks = kThisTarget == KernelTarget::kX86Avx512 ? 2 : 1;

// Where a micro-kernel reads A's rows: packed (kKc floats apart, a constant displacement), in
// place (args.lda floats apart, a run-time stride), or by pointer (TileArgs::rows: an implicit
// GEMM's taps read where they lie in the input, no im2col copy).
enum class ARows { kPacked, kStrided, kIndirect };

// What a micro-kernel call computes besides the panels' product.
struct TileArgs {
  size_t kc;          // the pass's K steps: at most kKc, or kPassBlocks * kKc
  const float* a;     // up to kMr rows of kc floats, lda floats apart
  size_t lda;         // kKc (packed A: gemm.cpp PackA), or A's own row stride (kStrided)
  const float* b;     // kc x kNr, k-major (packed_weights.h)
  const float* bias;  // kNr floats; the tile's start value when !accumulate
  // When !accumulate and non-null: kNr floats per row, rows residual_stride floats apart, added
  // to the bias as the tile's start value (the epilogue's residual, read before C is written, so
  // it may be C itself).
  const float* residual;
  size_t residual_stride;
  // Null, or rows of the packed B the next panel's tiles will read (k-major like b, kNr floats a
  // row): the kernels with kPrefetch fetch the first prefetch_rows of them into L2 alongside b,
  // one row per step of the K loop, so a panel streamed from L3 or memory (a layer with few rows
  // reads each B panel for few tiles) arrives while this one computes.
  const float* prefetch;
  size_t prefetch_rows;
  // A pass over two K blocks (kPassBlocks; kc > kKc): from K step kKc on, B's panel is b_after
  // (the same columns in the next K block), packed A's rows a_after (the block's copy, kKc floats
  // a row like a's), and the rows fetched for the next panel prefetch_after's first
  // prefetch_after_rows. Unused when kc <= kKc.
  const float* b_after;
  const float* a_after;
  const float* prefetch_after;
  size_t prefetch_after_rows;
  // ARows::kIndirect: the K block is segments of segment_length columns (kc is a multiple);
  // row i of segment s starts at rows[s * rows_stride + i], or is `zeros` (at least
  // segment_length floats of 0: a tap in the padding). A segment whose rows are all `zeros` is
  // skipped, its B rows with it.
  const float* const* rows;
  size_t rows_stride;
  size_t segment_length;
  const float* zeros;
  bool accumulate;  // start from C (a later K block) instead of the bias
  bool clamp;       // the last K block of an epilogue: clamp to [lo, hi] before storing
  float lo;
  float hi;
};

#if TORCHIR_NATIVE_SIMD

// Tiles of 3/4 and 1/4 of a panel's width (above): half-width vectors of 4 or more lanes.
constexpr bool kQuarterTiles = kNr / 4 >= 4;

// A vector of the first column block as the second's type: itself, or its lower half when the
// second is half as wide (a register name on x86, no instruction).
template <class D1, class V>
HWY_INLINE decltype(hn::Zero(D1())) SecondOf(D1 d1, V v) {
  if constexpr (std::is_same_v<decltype(hn::Zero(d1)), V>) {
    return v;
  } else {
    return hn::LowerHalf(d1, v);
  }
}

// Rows 0..13: enough for the largest kMr (AVX-512's 14); rows >= kMr compile to nothing.
#define TORCHIR_NATIVE_ROWS(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)

// kPrefetch kernels: K step k of a tile fetches a row of the next panel into L2 while k < `end`
// (args.prefetch_rows, or for the second K block of a pass kKc + args.prefetch_after_rows).
// Locality 2: into L2 (prefetcht1 on x86), not L1, which holds this panel and A's rows.
template <bool kPrefetch>
HWY_INLINE void FetchNextPanelRow(size_t k, size_t end, const float*& next) {
  if constexpr (kPrefetch) {
    if (k < end) {
      for (size_t line = 0; line < kNr * sizeof(float); line += 64) {
        __builtin_prefetch(reinterpret_cast<const char*>(next) + line, 0, 2);
      }
      next += kNr;
    }
  }
}

template <size_t kRows, size_t kCols = kNr, bool kPrefetch = false, ARows kMode = ARows::kPacked>
HWY_INLINE void MicroKernel(const TileArgs& args, float* HWY_RESTRICT c, size_t ldc) {
  static_assert(kRows >= 1 && kRows <= kMr, "a tile has 1..kMr rows");
  static_assert(kCols == kNr || kCols == kNr / 2 ||
                    (kQuarterTiles && (kCols == kNr * 3 / 4 || kCols == kNr / 4)),
                "a tile has both vectors, the first, or (kQuarterTiles) 3/4 or 1/4 of a panel");
  constexpr size_t kLanes = kNr / 2;  // where the second vector starts
  constexpr bool kBoth = kCols > kLanes;
  // The first vector's lanes, and the second's (the first's when there is none, unused).
  constexpr size_t kLanes0 = kBoth ? kLanes : kCols;
  constexpr size_t kLanes1 = kBoth ? kCols - kLanes : kLanes0;
  const hn::FixedTag<float, kLanes0> d;
  const hn::FixedTag<float, kLanes1> d1;
  using V = decltype(hn::Zero(d));
  using V1 = decltype(hn::Zero(d1));

  static_assert(kMr <= 14, "TORCHIR_NATIVE_ROWS covers 14 rows");

#define TORCHIR_DECLARE(i)   \
  V c##i##0 = hn::Zero(d);   \
  V1 c##i##1 = hn::Zero(d1); \
  (void)c##i##0;             \
  (void)c##i##1;
  TORCHIR_NATIVE_ROWS(TORCHIR_DECLARE)
#undef TORCHIR_DECLARE

  if (args.accumulate) {
#define TORCHIR_LOAD_C(i)                                               \
  if constexpr (i < kRows) {                                            \
    c##i##0 = hn::LoadU(d, c + i * ldc);                                \
    if constexpr (kBoth) c##i##1 = hn::LoadU(d1, c + i * ldc + kLanes); \
  }
    TORCHIR_NATIVE_ROWS(TORCHIR_LOAD_C)
#undef TORCHIR_LOAD_C
  } else if (args.residual != nullptr) {
    const V bias0 = hn::LoadU(d, args.bias);
    const V1 bias1 = hn::LoadU(d1, args.bias + kLanes);
    (void)bias1;
    const float* HWY_RESTRICT r = args.residual;
    const size_t ldr = args.residual_stride;
#define TORCHIR_INIT_RESIDUAL(i)                                                        \
  if constexpr (i < kRows) {                                                            \
    c##i##0 = hn::Add(bias0, hn::LoadU(d, r + i * ldr));                                \
    if constexpr (kBoth) c##i##1 = hn::Add(bias1, hn::LoadU(d1, r + i * ldr + kLanes)); \
  }
    TORCHIR_NATIVE_ROWS(TORCHIR_INIT_RESIDUAL)
#undef TORCHIR_INIT_RESIDUAL
  } else {
    const V bias0 = hn::LoadU(d, args.bias);
    const V1 bias1 = hn::LoadU(d1, args.bias + kLanes);
    (void)bias1;
#define TORCHIR_INIT_BIAS(i) \
  if constexpr (i < kRows) { \
    c##i##0 = bias0;         \
    c##i##1 = bias1;         \
  }
    TORCHIR_NATIVE_ROWS(TORCHIR_INIT_BIAS)
#undef TORCHIR_INIT_BIAS
  }

  // The hot loop: 2 loads of B, kRows broadcasts of A, 2 * kRows FMAs; live vectors are the
  // 2 * kRows accumulators, the 2 B vectors and one broadcast at a time.
  const float* HWY_RESTRICT a = args.a;
  // Packed rows are kKc floats apart: a constant displacement per row, no register.
  const size_t lda = kMode == ARows::kStrided ? args.lda : kKc;
  const float* HWY_RESTRICT b = args.b;
  const float* next = args.prefetch;
  size_t k = 0;
  // A tile of one or two rows has only 2 or 4 chains of FMAs and would wait on their latency
  // (gemm.cpp TileRows keeps such tiles to M < kMr: a classifier's single row, a
  // squeeze-excitation block's pooled vector): its K loop takes kSplitK steps at a time, step j
  // into partial tile j, so it has 8 chains, and adds the partial tiles at the end.
  // (Not by pointer: such tiles are rare there, an M edge.)
  constexpr size_t kSplitK = kMode == ARows::kIndirect ? 1 : kRows == 1 ? 4 : kRows == 2 ? 2 : 1;
#define TORCHIR_DECLARE_SPLIT(j) \
  V s##j##00 = hn::Zero(d);      \
  V1 s##j##01 = hn::Zero(d1);    \
  V s##j##10 = hn::Zero(d);      \
  V1 s##j##11 = hn::Zero(d1);    \
  (void)s##j##00;                \
  (void)s##j##01;                \
  (void)s##j##10;                \
  (void)s##j##11;
#define TORCHIR_SPLIT_STEP(j, t00, t01, t10, t11)                       \
  if constexpr (j < kSplitK) {                                          \
    const V b0 = hn::LoadU(d, b + j * kNr);                             \
    V1 b1 = hn::Zero(d1);                                               \
    if constexpr (kBoth) b1 = hn::LoadU(d1, b + j * kNr + kLanes);      \
    const V a0 = hn::Set(d, a[j]);                                      \
    t00 = hn::MulAdd(a0, b0, t00);                                      \
    if constexpr (kBoth) t01 = hn::MulAdd(SecondOf(d1, a0), b1, t01);   \
    if constexpr (kRows > 1) {                                          \
      const V a1 = hn::Set(d, a[lda + j]);                              \
      t10 = hn::MulAdd(a1, b0, t10);                                    \
      if constexpr (kBoth) t11 = hn::MulAdd(SecondOf(d1, a1), b1, t11); \
    }                                                                   \
  }
  TORCHIR_DECLARE_SPLIT(1)
  TORCHIR_DECLARE_SPLIT(2)
  TORCHIR_DECLARE_SPLIT(3)
#undef TORCHIR_DECLARE_SPLIT
  if constexpr (kMode != ARows::kIndirect) {
    // A run-time stride and more than 7 rows: rows 7.. are read from a second base pointer 7 rows
    // down, so both halves share the offsets lda .. 6 lda. With one base, AVX-512's 14 rows
    // needed 13 offsets besides a, b and the loop's counters, more than x86-64's 15
    // general-purpose registers: GCC reloaded four of them from the stack on every K step. Two
    // bases need 6: resnet50's 64 -> 64 1x1 layer and mobilenet_v2's in-place pointwise layers
    // ran 0.966-0.979 of their time (docs/native-kernels.md, "Two base pointers for rows read
    // in place"). Packed rows need neither: their offsets are constants.
    constexpr bool kTwoBases = kMode == ARows::kStrided && kRows > 7;
    const float* HWY_RESTRICT a_low = a + (kTwoBases ? 7 * lda : 0);
    // A pass over two K blocks (kPassBlocks): K steps [0, kKc), then [kKc, kc) from B's
    // b_after, packed A's a_after (rows read in place go on where they are) and the next
    // panel's rows at prefetch_after.
    size_t block_end = kPassBlocks > 1 && args.kc > kKc ? kKc : args.kc;
    size_t fetch_end = args.prefetch_rows;
    for (;;) {
      if constexpr (kSplitK > 1) {
        for (; k + kSplitK <= block_end; k += kSplitK) {
          TORCHIR_SPLIT_STEP(0, c00, c01, c10, c11)
          TORCHIR_SPLIT_STEP(1, s100, s101, s110, s111)
          TORCHIR_SPLIT_STEP(2, s200, s201, s210, s211)
          TORCHIR_SPLIT_STEP(3, s300, s301, s310, s311)
          a += kSplitK;
          b += kSplitK * kNr;
        }
      }
      for (; k < block_end; ++k) {
        FetchNextPanelRow<kPrefetch>(k, fetch_end, next);
        const V b0 = hn::LoadU(d, b);
        V1 b1 = hn::Zero(d1);  // no ?: on vectors: SVE's are sizeless types
        if constexpr (kBoth) b1 = hn::LoadU(d1, b + kLanes);
#define TORCHIR_FMA(i)                                                                  \
  if constexpr (i < kRows) {                                                            \
    const V a##i = hn::Set(d, kTwoBases && i >= 7 ? a_low[(i % 7) * lda] : a[i * lda]); \
    c##i##0 = hn::MulAdd(a##i, b0, c##i##0);                                            \
    if constexpr (kBoth) c##i##1 = hn::MulAdd(SecondOf(d1, a##i), b1, c##i##1);         \
  }
        TORCHIR_NATIVE_ROWS(TORCHIR_FMA)
#undef TORCHIR_FMA
        a += 1;
        if constexpr (kTwoBases) a_low += 1;
        b += kNr;
      }
      if (kPassBlocks == 1 || k >= args.kc) break;
      b = args.b_after;
      if constexpr (kMode == ARows::kPacked) a = args.a_after;
      next = args.prefetch_after;
      fetch_end = kKc + args.prefetch_after_rows;
      block_end = args.kc;
    }
  } else {
    // By pointer, a segment at a time: its rows' pointers (a register each while the compiler
    // has them; the rest are reloaded, loads beside the FMAs, never an accumulator spilled),
    // then its K steps as above with row i's element at a_i[j]. A segment that is padding for
    // every row adds nothing and is skipped. One that is padding for the tile's first row (and
    // row 7: a tile over two rows of a 7-pixel-wide output) and no other runs without that
    // row's FMAs: with tiles starting at an output row (LeadTileRows), those are the left
    // column's taps (resnet18's stride-2 layer at 7 x 7 ran 0.91 of its old time, 0.95 with
    // the lead tile alone: docs/native-kernels.md, "Padded taps skipped by output row"). Other
    // patterns multiply their zeros.
    (void)a;
    const float* const* HWY_RESTRICT rows = args.rows;
    const size_t length = args.segment_length;
    size_t fetch_end = args.prefetch_rows;
    for (; k < args.kc; k += length, rows += args.rows_stride) {
      if constexpr (kPassBlocks > 1) {
        if (k == kKc) {  // the pass's second K block (segments divide kKc)
          b = args.b_after;
          next = args.prefetch_after;
          fetch_end = kKc + args.prefetch_after_rows;
        }
      }
      uint32_t padded = 0;  // bit i: row i's segment is zeros
      for (size_t i = 0; i < kRows; ++i) padded |= uint32_t{rows[i] == args.zeros} << i;
      if (padded == (uint32_t{1} << kRows) - 1) {
        b += length * kNr;
        continue;
      }
#define TORCHIR_ROW(i) const float* HWY_RESTRICT a##i = rows[i < kRows ? i : 0];
      TORCHIR_NATIVE_ROWS(TORCHIR_ROW)
#undef TORCHIR_ROW
#define TORCHIR_FMA(i)                                                          \
  if constexpr (i < kRows && ((kSkip >> i) & 1) == 0) {                         \
    const V x##i = hn::Set(d, a##i[j]);                                         \
    c##i##0 = hn::MulAdd(x##i, b0, c##i##0);                                    \
    if constexpr (kBoth) c##i##1 = hn::MulAdd(SecondOf(d1, x##i), b1, c##i##1); \
  } else {                                                                      \
    (void)a##i;                                                                 \
  }
#define TORCHIR_SEGMENT(skip)                               \
  {                                                         \
    constexpr uint32_t kSkip = skip;                        \
    for (size_t j = 0; j < length; ++j) {                   \
      FetchNextPanelRow<kPrefetch>(k + j, fetch_end, next); \
      const V b0 = hn::LoadU(d, b);                         \
      V1 b1 = hn::Zero(d1);                                 \
      if constexpr (kBoth) b1 = hn::LoadU(d1, b + kLanes);  \
      TORCHIR_NATIVE_ROWS(TORCHIR_FMA)                      \
      b += kNr;                                             \
    }                                                       \
  }
      if constexpr (kRows >= 7) {
        if (padded == 1) {
          TORCHIR_SEGMENT(1)
          continue;
        }
        if constexpr (kRows > 7) {
          if (padded == 0x81) {
            TORCHIR_SEGMENT(0x81)
            continue;
          }
        }
      }
      TORCHIR_SEGMENT(0)
#undef TORCHIR_SEGMENT
#undef TORCHIR_FMA
    }
  }

  if constexpr (kSplitK > 1) {
    c00 = hn::Add(c00, hn::Add(s100, hn::Add(s200, s300)));
    c01 = hn::Add(c01, hn::Add(s101, hn::Add(s201, s301)));
    c10 = hn::Add(c10, hn::Add(s110, hn::Add(s210, s310)));
    c11 = hn::Add(c11, hn::Add(s111, hn::Add(s211, s311)));
  }
#undef TORCHIR_SPLIT_STEP

  if (args.clamp) {
    // A relu (no upper bound) takes the lower bound alone: 2 * kRows instructions fewer per
    // tile, a share of a short-K tile's time (docs/native-kernels.md, "The tile's end").
    const V lo = hn::Set(d, args.lo);
    if (args.hi == std::numeric_limits<float>::infinity()) {
#define TORCHIR_CLAMP_LOW(i)                                           \
  if constexpr (i < kRows) {                                           \
    c##i##0 = hn::Max(c##i##0, lo);                                    \
    if constexpr (kBoth) c##i##1 = hn::Max(c##i##1, SecondOf(d1, lo)); \
  }
      TORCHIR_NATIVE_ROWS(TORCHIR_CLAMP_LOW)
#undef TORCHIR_CLAMP_LOW
    } else {
      const V hi = hn::Set(d, args.hi);
#define TORCHIR_CLAMP(i)                                                                          \
  if constexpr (i < kRows) {                                                                      \
    c##i##0 = hn::Min(hn::Max(c##i##0, lo), hi);                                                  \
    if constexpr (kBoth) c##i##1 = hn::Min(hn::Max(c##i##1, SecondOf(d1, lo)), SecondOf(d1, hi)); \
  }
      TORCHIR_NATIVE_ROWS(TORCHIR_CLAMP)
#undef TORCHIR_CLAMP
    }
  }

  // One row pointer stepped by ldc, opaque to the compiler: else it computes all kRows row
  // addresses before the hot loop and keeps them on the stack (a load per store, and the
  // address arithmetic was a tenth of a K = 16 layer's time).
  float* row = c;
#define TORCHIR_STORE(i)                                        \
  if constexpr (i < kRows) {                                    \
    asm volatile("" : "+r"(row));                               \
    hn::StoreU(c##i##0, d, row);                                \
    if constexpr (kBoth) hn::StoreU(c##i##1, d1, row + kLanes); \
    row += ldc;                                                 \
  }
  TORCHIR_NATIVE_ROWS(TORCHIR_STORE)
#undef TORCHIR_STORE
}

#undef TORCHIR_NATIVE_ROWS

#else  // !TORCHIR_NATIVE_SIMD

// The portable kernel: plain C++ the compiler may keep in scalar registers or auto-vectorise.
// kCols columns of the panel's kNr.
template <size_t kRows, size_t kCols = kNr, bool kPrefetch = false, ARows kMode = ARows::kPacked>
HWY_INLINE void MicroKernel(const TileArgs& args, float* HWY_RESTRICT c, size_t ldc) {
  (void)kPrefetch;  // the portable kernel leaves fetching to the hardware
  float acc[kRows][kCols];
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t j = 0; j < kCols; ++j) {
      acc[i][j] = args.accumulate ? c[i * ldc + j]
                  : args.residual != nullptr
                      ? args.bias[j] + args.residual[i * args.residual_stride + j]
                      : args.bias[j];
    }
  }
  const float* HWY_RESTRICT b = args.b;
  if constexpr (kMode != ARows::kIndirect) {
    const float* HWY_RESTRICT a = args.a;
    const size_t lda = kMode == ARows::kStrided ? args.lda : kKc;
    for (size_t k = 0; k < args.kc; ++k) {
      for (size_t i = 0; i < kRows; ++i) {
        for (size_t j = 0; j < kCols; ++j) acc[i][j] += a[i * lda] * b[j];
      }
      a += 1;
      b += kNr;
    }
  } else {
    const float* const* table = args.rows;
    for (size_t k = 0; k < args.kc; k += args.segment_length, table += args.rows_stride) {
      for (size_t step = 0; step < args.segment_length; ++step) {
        for (size_t i = 0; i < kRows; ++i) {
          for (size_t j = 0; j < kCols; ++j) acc[i][j] += table[i][step] * b[j];
        }
        b += kNr;
      }
    }
  }
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t j = 0; j < kCols; ++j) {
      float value = acc[i][j];
      if (args.clamp) value = value < args.lo ? args.lo : value > args.hi ? args.hi : value;
      c[i * ldc + j] = value;
    }
  }
}

#endif  // TORCHIR_NATIVE_SIMD

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#endif  // include guard toggled per target
