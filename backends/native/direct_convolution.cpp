// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/direct_convolution.h"

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/native/activation.h"
#include "backends/native/convolution_rows.h"
#include "backends/native/gemm_config.h"
#include "backends/native/row_tasks.h"

// foreach_target.h includes this file again per target: define the call's struct once.
#ifndef TORCHIR_BACKENDS_NATIVE_DIRECT_CONVOLUTION_CALL_
#define TORCHIR_BACKENDS_NATIVE_DIRECT_CONVOLUTION_CALL_
namespace torchir::native {
namespace {

// The arguments of one share of a direct convolution, as they cross Highway's dispatch table.
struct DirectCall : ConvolutionRows {
  size_t groups, group_input, group_output;
  const PackedB* weights;  // `groups` views, packed for this CPU
  size_t k;                // rows of each group's filter: kh * kw * group_input
};

}  // namespace
}  // namespace torchir::native
#endif  // TORCHIR_BACKENDS_NATIVE_DIRECT_CONVOLUTION_CALL_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/direct_convolution.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"
// Must follow hwy/highway.h.
#include "backends/native/activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace {

// The output channels one pass over the pixels computes: columns [j * nr, j * nr + width) of
// group g's filter, one packed panel (so at most two vectors).
struct Chunk {
  size_t input_first;   // the group's first input channel
  size_t output_first;  // the chunk's first output channel
  size_t width;
  const float* weights;  // filter row k of the chunk at k * nr floats
  size_t nr;
  // The next chunk's filter (null after the last one): the first `next_width` floats of each of
  // its k rows, fetched into L2 a slice per output row while this chunk computes.
  const float* next_weights;
  size_t next_width;
};

// The first `count` floats at p (count <= lanes) in a vector, the rest zero; and the first
// `count` lanes of v stored at p. Through a buffer: Highway's MaskedLoad and BlendedStore touch
// the whole vector on some targets (SSE4), which may lie past the end of the tensor.
template <class D>
HWY_INLINE hn::Vec<D> LoadFirst(D d, const float* p, size_t count) {
  HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)] = {};
  std::memcpy(buffer, p, count * sizeof(float));
  return hn::Load(d, buffer);
}
template <class D>
HWY_INLINE void StoreFirst(D d, hn::Vec<D> v, float* p, size_t count) {
  HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(v, d, buffer);
  std::memcpy(p, buffer, count * sizeof(float));
}

// Output channels [g * Cout / groups, (g + 1) * Cout / groups) of kPixels pixels: kVectors
// vectors of them (the last one partial when the group is not a multiple of the lanes), each
// summed in kSplit partial sums (input channel ci into sum ci mod kSplit), so kPixels * kSplit *
// kVectors independent chains of FMAs: enough to hide the FMA's latency also where few pixels
// share a tap range (a row's edge pixels, the last pixels of a 7-pixel row). Each broadcast input
// float serves kVectors vectors and each weight vector kPixels pixels. The accumulators are named
// variables, not an array (a named vector is a register to the compiler; SVE's vectors cannot
// form arrays). kChannelsFirst: the input is NCHW (an image's planes, Convolution2dShape), each
// broadcast read from its channel's plane.
#define TORCHIR_DC_INDICES(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)
#define TORCHIR_DC_SPLITS_OF(p, X) X(p, 0) X(p, 1) X(p, 2) X(p, 3) X(p, 4) X(p, 5) X(p, 6) X(p, 7)
#define TORCHIR_DC_UNITS(X)  \
  TORCHIR_DC_SPLITS_OF(0, X) \
  TORCHIR_DC_SPLITS_OF(1, X) \
  TORCHIR_DC_SPLITS_OF(2, X) \
  TORCHIR_DC_SPLITS_OF(3, X) \
  TORCHIR_DC_SPLITS_OF(4, X) \
  TORCHIR_DC_SPLITS_OF(5, X) \
  TORCHIR_DC_SPLITS_OF(6, X) \
  TORCHIR_DC_SPLITS_OF(7, X) X(8, 0) X(9, 0) X(10, 0) X(11, 0) X(12, 0) X(13, 0)
template <size_t kPixels, size_t kSplit, size_t kVectors, bool kChannelsFirst, class D>
HWY_INLINE void GroupBlock(D d, const DirectCall& call, const PixelBlock& px, const Chunk& chunk) {
  static_assert(kPixels >= 1 && (kPixels <= 8 || (kPixels <= 14 && kSplit == 1)) && kSplit >= 1 &&
                    kSplit <= 8 && kVectors >= 1 && kVectors <= 2,
                "the macros cover 8 pixels x 8 partial sums (14 pixels x 1) x 2 vectors");
  using V = decltype(hn::Zero(d));
  const size_t lanes = hn::Lanes(d);
  const Convolution2dShape& s = *call.shape;
  const size_t cin = call.group_input;
  const size_t channels_in = s.input_channels, channels_out = s.output_channels;
  const size_t first = chunk.output_first;
  // The last vector's channels: all its lanes but at a partial chunk.
  const size_t tail = chunk.width - (kVectors - 1) * lanes;
  const bool whole = tail == lanes;
  const V zero = hn::Zero(d);
  V start0 = zero;
  V start1 = zero;
  if (call.bias != nullptr) {
    const float* bias = call.bias + first;
    if constexpr (kVectors == 1) {
      start0 = whole ? hn::LoadU(d, bias) : LoadFirst(d, bias, tail);
    } else {
      start0 = hn::LoadU(d, bias);
      start1 = whole ? hn::LoadU(d, bias + lanes) : LoadFirst(d, bias + lanes, tail);
    }
  }
  // Partial sum 0 starts from the bias, the others from zero.
#define TORCHIR_DC_DECLARE(p, k)           \
  V acc##p##k##0 = k == 0 ? start0 : zero; \
  V acc##p##k##1 = k == 0 ? start1 : zero; \
  (void)acc##p##k##0;                      \
  (void)acc##p##k##1;
  TORCHIR_DC_UNITS(TORCHIR_DC_DECLARE)
#undef TORCHIR_DC_DECLARE
  const size_t nr = chunk.nr;
  // Floats between pixels and between channels: a constant 1 between channels of NHWC.
  const size_t pixel_stride = kChannelsFirst ? 1 : channels_in;
  const size_t channel_stride = kChannelsFirst ? s.input_height * s.input_width : 1;
  const size_t row_step = s.dilation_height * s.input_width * pixel_stride;
  const size_t column_step = s.dilation_width * pixel_stride;
  const size_t in_step = px.in_step;
  const float* HWY_RESTRICT in_row = px.in + chunk.input_first * channel_stride;
  // Weight vectors of input channel ci + k: k < kSplit loaded, the rest unused.
#define TORCHIR_DC_LOAD(k)                                                             \
  V w##k##0 = zero, w##k##1 = zero;                                                    \
  if constexpr (k < kSplit) {                                                          \
    w##k##0 = hn::LoadU(d, w_tap + (ci + k) * nr);                                     \
    if constexpr (kVectors > 1) w##k##1 = hn::LoadU(d, w_tap + (ci + k) * nr + lanes); \
  }                                                                                    \
  (void)w##k##0;                                                                       \
  (void)w##k##1;
#define TORCHIR_DC_FMA(p, k)                                                                      \
  if constexpr (p < kPixels && k < kSplit) {                                                      \
    const V a =                                                                                   \
        hn::Set(d, kPixels > 8 && p >= 7 ? in_high[(p % 7) * in_step + (ci + k) * channel_stride] \
                                         : in_tap[p * in_step + (ci + k) * channel_stride]);      \
    acc##p##k##0 = hn::MulAdd(a, w##k##0, acc##p##k##0);                                          \
    if constexpr (kVectors > 1) acc##p##k##1 = hn::MulAdd(a, w##k##1, acc##p##k##1);              \
  }
  // Pointers are formed for taps inside the input only (never stepped past the last one: with a
  // large dilation that step would leave the tensor, undefined even unread).
  for (size_t ky = px.ky_range.begin; ky < px.ky_range.end; ++ky) {
    const float* HWY_RESTRICT in_tap_row = in_row + (ky - px.ky_range.begin) * row_step;
    for (size_t kx = px.kx_range.begin; kx < px.kx_range.end; ++kx) {
      const float* HWY_RESTRICT in_tap = in_tap_row + (kx - px.kx_range.begin) * column_step;
      // Past 8 pixels, pixels 7.. from a second base 7 pixels on, sharing the offsets of pixels
      // 0..6: 13 offsets would not fit the general-purpose registers beside the loop's pointers.
      const float* HWY_RESTRICT in_high = kPixels > 8 ? in_tap + 7 * in_step : in_tap;
      (void)in_high;
      // Filter row k = (ky * kw + kx) * cin + ci at k * nr floats.
      const float* HWY_RESTRICT w_tap = chunk.weights + (ky * s.kernel_width + kx) * cin * nr;
      size_t ci = 0;
      for (; ci + kSplit <= cin; ci += kSplit) {
        TORCHIR_DC_INDICES(TORCHIR_DC_LOAD)
        TORCHIR_DC_UNITS(TORCHIR_DC_FMA)
      }
      // The last cin mod kSplit channels, into partial sum 0.
      for (; ci < cin; ++ci) {
        const V w00 = hn::LoadU(d, w_tap + ci * nr);
        V w01 = w00;
        if constexpr (kVectors > 1) w01 = hn::LoadU(d, w_tap + ci * nr + lanes);
        (void)w01;
#define TORCHIR_DC_FMA_REST(p)                                                              \
  if constexpr (p < kPixels) {                                                              \
    const V a =                                                                             \
        hn::Set(d, kPixels > 8 && p >= 7 ? in_high[(p % 7) * in_step + ci * channel_stride] \
                                         : in_tap[p * in_step + ci * channel_stride]);      \
    acc##p##0##0 = hn::MulAdd(a, w00, acc##p##0##0);                                        \
    if constexpr (kVectors > 1) acc##p##0##1 = hn::MulAdd(a, w01, acc##p##0##1);            \
  }
        TORCHIR_DC_INDICES(TORCHIR_DC_FMA_REST)
#undef TORCHIR_DC_FMA_REST
      }
    }
  }
#undef TORCHIR_DC_FMA
#undef TORCHIR_DC_LOAD
  // The partial sums into sum 0.
#define TORCHIR_DC_REDUCE(p, k)                                                     \
  if constexpr (p < kPixels && k > 0 && k < kSplit) {                               \
    acc##p##0##0 = hn::Add(acc##p##0##0, acc##p##k##0);                             \
    if constexpr (kVectors > 1) acc##p##0##1 = hn::Add(acc##p##0##1, acc##p##k##1); \
  }
  TORCHIR_DC_UNITS(TORCHIR_DC_REDUCE)
#undef TORCHIR_DC_REDUCE
  const V lo = hn::Set(d, call.lo), hi = hn::Set(d, call.hi);
  // Vector v of pixel p: added to the residual, clamped, stored (through a buffer when it is a
  // partial tail).
#define TORCHIR_DC_STORE_ONE(p, v, full)                                                    \
  {                                                                                         \
    float* out = px.out + p * channels_out + first + v * lanes;                             \
    if (px.residual != nullptr) {                                                           \
      const float* r = px.residual + p * px.residual_step + first + v * lanes;              \
      acc##p##0##v = hn::Add(acc##p##0##v, full ? hn::LoadU(d, r) : LoadFirst(d, r, tail)); \
    }                                                                                       \
    const V result = hn::Min(hn::Max(acc##p##0##v, lo), hi);                                \
    if (full) {                                                                             \
      hn::StoreU(result, d, out);                                                           \
    } else {                                                                                \
      StoreFirst(d, result, out, tail);                                                     \
    }                                                                                       \
  }
#define TORCHIR_DC_STORE(p)             \
  if constexpr (p < kPixels) {          \
    if constexpr (kVectors == 1) {      \
      TORCHIR_DC_STORE_ONE(p, 0, whole) \
    } else {                            \
      TORCHIR_DC_STORE_ONE(p, 0, true)  \
      TORCHIR_DC_STORE_ONE(p, 1, whole) \
    }                                   \
  }
  TORCHIR_DC_INDICES(TORCHIR_DC_STORE)
#undef TORCHIR_DC_STORE
#undef TORCHIR_DC_STORE_ONE
}
#undef TORCHIR_DC_UNITS
#undef TORCHIR_DC_SPLITS_OF
#undef TORCHIR_DC_INDICES

// AVX2 and SSE4 have 16 vector registers; AVX-512, NEON and SVE 32.
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
constexpr bool kManyRegisters = false;
#else
constexpr bool kManyRegisters = true;
#endif

// On AVX-512, interior pixels of two-vector chunks go 14 at a time where the filter is
// deep enough (the 7 x 7 RGB stem: K = 147), as the GEMM's 14 x 32 tile: 28 accumulators, 2
// weight vectors and a broadcast, each weight vector loaded once for 14 pixels rather than 8
// (RowPlan's kFull). resnet18's stem ran 0.99 of its time, from 1.03-1.04 of oneDNN's to
// 1.00-1.02; mobilenet_v2's 3x3 stem (K = 27) 1.050, whence the depth (docs/native-kernels.md,
// "Fourteen pixels for the stem"). NEON has the registers too, unmeasured there.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr bool kWideBlocks = true;
#else
constexpr bool kWideBlocks = false;
#endif
constexpr size_t kWidePixels = 14;
constexpr size_t kWideMinDepth = 128;

// How the pixels of a row go, per number of vectors per chunk: blocks of kFull interior pixels
// with one partial sum each; fewer interior pixels (a row's last ones) in blocks of kHalf, then
// of kThree (0: none), then of kQuarter, each with more partial sums; pixels at the edges (their
// own tap range) alone with kSingleSplit sums: at least 8 chains of FMAs each (the FMA's latency
// times its throughput) where the registers allow, with accumulators, weight vectors and a
// broadcast within the register file (two vectors on AVX2: 6 x 2 + 2 + 1 of 16 for the full
// blocks). At most 8 pixels: their broadcasts address the input through one index register each
// (kWidePixels' blocks read pixels 7.. from a second base with the same offsets).
// On AVX2 the two-vector blocks below 6 pixels take one sum each (a second would not fit): 4
// pixels make 8 chains and 3 make 6, which still beats 2 pixels and a lone one (Zen 3: a 7-pixel
// row as 1 + 4 + 1 + 1 ran regnet_x_400mf's 7 x 7 grouped layer 1.13x as fast as 1 + 3 + 2 + 1,
// and 27 interior pixels as 6 x 4 + 3 ran 1.07x as fast as 6 x 4 + 2 + 1).
// kEven: a row's last 4 to 2 kFull - 1 interior pixels go as one block, or two of about half
// (RowEnd), not as full blocks and a few short ones.
template <size_t kVectors>
struct RowPlan;
template <>
struct RowPlan<1> {
  static constexpr size_t kFull = 8, kHalf = 4, kHalfSplit = 2, kThree = 0, kQuarter = 2,
                          kQuarterSplit = 4, kSingleSplit = 8;
  static constexpr bool kEven = kManyRegisters;
};
template <>
struct RowPlan<2> {
  static constexpr size_t kFull = kManyRegisters ? 8 : 6, kHalf = 4,
                          kHalfSplit = kManyRegisters ? 2 : 1, kThree = kManyRegisters ? 0 : 3,
                          kQuarter = 2, kQuarterSplit = 2, kSingleSplit = kManyRegisters ? 4 : 2;
  static constexpr bool kEven = kManyRegisters;
};

// The last `left` (4 to 15) interior pixels of a row, as one block of 4-8 pixels, or the first
// of two of about half; returns the pixels it did. Rows of 8-pixel blocks and a short rest ran
// the rest in blocks of 4, 2 and 1 pixel with more partial sums: more weight loads and
// reductions per FMA. A 28-pixel row's 26 interior pixels are now 8 + 8 + 5 + 5, not
// 8 + 8 + 8 + 2 (regnet_x_400mf's grouped 3 x 3 layers at 28 x 28 and 56 x 56 wide, Zen 4:
// 0.93-0.97 of the time alone; the 32-channel stems 0.975-0.99). One vector below 8 pixels:
// 2 partial sums each, 10-14 chains for a CPU with two FMA units (Zen 4 has one 512-bit one: a
// single sum was another 1-2 % faster there); two vectors: one sum, 8-14 chains.
template <size_t kVectors, bool kChannelsFirst, class D>
HWY_INLINE size_t RowEnd(D d, const DirectCall& call, const PixelBlock& px, const Chunk& chunk,
                         size_t left) {
  constexpr size_t kSplit = kVectors == 1 ? 2 : 1;
  const size_t pixels = left > 8 ? (left + 1) / 2 : left;
  switch (pixels) {
    case 8:
      GroupBlock<8, 1, kVectors, kChannelsFirst>(d, call, px, chunk);
      break;
    case 7:
      GroupBlock<7, kSplit, kVectors, kChannelsFirst>(d, call, px, chunk);
      break;
    case 6:
      GroupBlock<6, kSplit, kVectors, kChannelsFirst>(d, call, px, chunk);
      break;
    case 5:
      GroupBlock<5, kSplit, kVectors, kChannelsFirst>(d, call, px, chunk);
      break;
    default:
      GroupBlock<4, kSplit, kVectors, kChannelsFirst>(d, call, px, chunk);
      break;
  }
  return pixels;
}

// Slice `part` of `parts` of the next chunk's filter rows into L2 (prefetcht1); none after the
// last chunk. Inside a model the filters come from memory, not cache: regnet_x_400mf's 7 x 7
// grouped layer took 1.5x its warm time with them flushed (Native/<layer>/cold).
inline void FetchNextFilter(const DirectCall& call, const Chunk& chunk, size_t part, size_t parts) {
  if (chunk.next_weights == nullptr) return;
  const size_t k_end = (part + 1) * call.k / parts;
  for (size_t k = part * call.k / parts; k < k_end; ++k) {
    const char* line = reinterpret_cast<const char*>(chunk.next_weights + k * chunk.nr);
    for (size_t byte = 0; byte < chunk.next_width * sizeof(float); byte += 64) {
      __builtin_prefetch(line + byte, 0, 2);
    }
  }
}

// The cache lines of slice `part` of `parts` of the next chunk's filter rows (none after the
// last chunk): [first, first + lines * 64) covers them.
struct FilterSlice {
  const char* first = nullptr;
  size_t lines = 0;
};
inline FilterSlice NextFilterSlice(const DirectCall& call, const Chunk& chunk, size_t part,
                                   size_t parts) {
  FilterSlice slice;
  const size_t k_begin = part * call.k / parts, k_end = (part + 1) * call.k / parts;
  if (chunk.next_weights == nullptr || k_begin == k_end) return slice;
  // Rows k_begin..k_end - 1, nr floats apart, the first next_width floats of each read.
  const uintptr_t begin = reinterpret_cast<uintptr_t>(chunk.next_weights + k_begin * chunk.nr);
  const uintptr_t last =
      reinterpret_cast<uintptr_t>(chunk.next_weights + (k_end - 1) * chunk.nr + chunk.next_width) -
      1;
  const uintptr_t line = ~uintptr_t{63};
  slice.first = reinterpret_cast<const char*>(begin & line);
  slice.lines = ((last & line) - (begin & line)) / 64 + 1;
  return slice;
}

// The chunk of output rows [row_begin, row_end).
template <size_t kVectors, bool kChannelsFirst, class D>
void ChunkRows(D d, const DirectCall& call, const Chunk& chunk) {
  using Plan = RowPlan<kVectors>;
  const Convolution2dShape& s = *call.shape;
  const size_t ow = call.output_width;
  const TapRange interior = InteriorColumns(s, ow);
  const bool after_store = IsAppliedAfterStore(call.activation);
  const size_t channels_out = s.output_channels;
  const size_t rows = call.row_end - call.row_begin;
  for (size_t row = call.row_begin; row < call.row_end; ++row) {
    FetchNextFilter(call, chunk, row - call.row_begin, rows);
    const RowTaps taps = RowTapsAt(call, row);
    for (size_t ox = 0; ox < ow;) {
      const PixelBlock px = PixelsAt(call, taps, ox);
      const size_t left = ox >= interior.begin && ox < interior.end ? interior.end - ox : 0;
      size_t done = 0;
      if constexpr (kWideBlocks && kVectors == 2) {
        // At least 2 Plan::kFull left: the rest still ends as RowEnd has it.
        if (call.k >= kWideMinDepth && left >= 2 * Plan::kFull) {
          GroupBlock<kWidePixels, 1, kVectors, kChannelsFirst>(d, call, px, chunk);
          done = kWidePixels;
        }
      }
      if constexpr (Plan::kEven) {
        if (done == 0 && left >= 4 && left < 2 * Plan::kFull) {
          done = RowEnd<kVectors, kChannelsFirst>(d, call, px, chunk, left);
        }
      }
      if (done != 0) {
        // A block of kWidePixels, or RowEnd's.
      } else if (left >= Plan::kFull) {
        GroupBlock<Plan::kFull, 1, kVectors, kChannelsFirst>(d, call, px, chunk);
        done = Plan::kFull;
      } else if (left >= Plan::kHalf) {
        GroupBlock<Plan::kHalf, Plan::kHalfSplit, kVectors, kChannelsFirst>(d, call, px, chunk);
        done = Plan::kHalf;
      } else if (Plan::kThree != 0 && left >= Plan::kThree) {
        constexpr size_t kThree = Plan::kThree != 0 ? Plan::kThree : 1;  // 0: never reached
        GroupBlock<kThree, 1, kVectors, kChannelsFirst>(d, call, px, chunk);
        done = kThree;
      } else if (left >= Plan::kQuarter) {
        GroupBlock<Plan::kQuarter, Plan::kQuarterSplit, kVectors, kChannelsFirst>(d, call, px,
                                                                                  chunk);
        done = Plan::kQuarter;
      } else {
        GroupBlock<1, Plan::kSingleSplit, kVectors, kChannelsFirst>(d, call, px, chunk);
        done = 1;
      }
      if (after_store) {
        ActivationRows(call.activation, px.out + chunk.output_first, done, chunk.width,
                       channels_out);
      }
      ox += done;
    }
  }
}

// Narrow groups in one vector with short rows (regnet_x_400mf's 16-channel groups at 7 x 7 and
// 14 x 14 on AVX-512) go pixel by pixel across the rows, 7 or 8 at a time, each tap of each
// pixel read through a pointer to its input (or to zeros in the padding): row by row, rows of 7
// pixels end in short blocks and lone edge pixels with more loads per FMA (1 + 4 + 1 + 1). This
// multiplies the padding's zeros instead. The pointers are made once per band of pixels and
// serve every group. Zen 4, against the rows (docs/native-kernels.md): rows of 7 pixels
// 0.76-0.80 of the time, of 14 0.92-0.99, of 28 1.02-1.04 and of 56 1.09-1.18, hence
// kIndirectMaxWidth.
constexpr size_t kIndirectPixels = 8;  // at most; 7 where that leaves fewer pixels over
constexpr size_t kIndirectBand = 56;   // pixels, a multiple of 7 and of 8
constexpr size_t kIndirectMaxTaps = 9;
constexpr size_t kIndirectMaxChannels = 1024;
constexpr size_t kIndirectMaxWidth = 16;
HWY_ALIGN constexpr float kIndirectZeros[kIndirectMaxChannels] = {};

bool IsIndirect(const DirectCall& call, size_t lanes) {
  const Convolution2dShape& s = *call.shape;
  return call.groups > 1 && !s.input_channels_first && call.group_output <= lanes &&
         call.output_width <= kIndirectMaxWidth && s.input_channels <= kIndirectMaxChannels &&
         s.kernel_height * s.kernel_width <= kIndirectMaxTaps;
}

// Pointers to channel 0 of the input each tap of pixels [pixel, pixel + count) reads, pixel by
// pixel flattened over images, rows and columns, in blocks of `block_pixels`:
// where[(p / block_pixels * taps + t) * 8 + p % block_pixels]. Past count, up to a multiple of
// block_pixels, the last pixel again.
inline void IndirectPointers(const DirectCall& call, size_t pixel, size_t count,
                             size_t block_pixels, const float** where) {
  const Convolution2dShape& s = *call.shape;
  const size_t taps = s.kernel_height * s.kernel_width;
  const size_t ow = call.output_width;
  size_t row = pixel / ow, ox = pixel % ow;
  size_t image = row / call.output_height, oy = row % call.output_height;
  const size_t padded = (count + block_pixels - 1) / block_pixels * block_pixels;
  for (size_t p = 0; p < padded; ++p) {
    if (p > 0 && p < count && ++ox == ow) {
      ox = 0;
      if (++oy == call.output_height) {
        oy = 0;
        ++image;
      }
    }
    const ptrdiff_t iy0 =
        static_cast<ptrdiff_t>(oy * s.stride_height) - static_cast<ptrdiff_t>(s.padding_top);
    const ptrdiff_t ix0 =
        static_cast<ptrdiff_t>(ox * s.stride_width) - static_cast<ptrdiff_t>(s.padding_left);
    const float* image_input =
        call.input + image * s.input_height * s.input_width * s.input_channels;
    const float** block = where + p / block_pixels * taps * kIndirectPixels + p % block_pixels;
    for (size_t ky = 0; ky < s.kernel_height; ++ky) {
      const ptrdiff_t iy = iy0 + static_cast<ptrdiff_t>(ky * s.dilation_height);
      const bool row_inside = iy >= 0 && iy < static_cast<ptrdiff_t>(s.input_height);
      for (size_t kx = 0; kx < s.kernel_width; ++kx) {
        const ptrdiff_t ix = ix0 + static_cast<ptrdiff_t>(kx * s.dilation_width);
        const bool inside = row_inside && ix >= 0 && ix < static_cast<ptrdiff_t>(s.input_width);
        block[(ky * s.kernel_width + kx) * kIndirectPixels] =
            inside ? image_input +
                         (static_cast<size_t>(iy) * s.input_width + static_cast<size_t>(ix)) *
                             s.input_channels
                   : kIndirectZeros;
      }
    }
  }
}

// One chunk's channels of pixels [pixel, pixel + count), count <= kPixels, through the
// pointers of their block (`where`: taps x 8), fetching `fetch` into L2 a share per tap. Inside
// a model the filters come from memory; fetched all at once before the block, the share of the
// next group's filter (about 20 lines on AVX-512) ran regnet_x_400mf's 7 x 7 grouped layer at
// 62 us with its filters flushed, against 50 warm; spread over the taps, 53 (Zen 4).
template <size_t kPixels, class D>
HWY_INLINE void IndirectBlock(D d, const DirectCall& call, const Chunk& chunk,
                              const float* const* where, size_t pixel, size_t count,
                              const FilterSlice& fetch) {
  using V = decltype(hn::Zero(d));
  const Convolution2dShape& s = *call.shape;
  const size_t taps = s.kernel_height * s.kernel_width;
  const size_t cin = call.group_input;
  const size_t first = chunk.output_first;
  const size_t tail = chunk.width;
  const bool whole = tail == hn::Lanes(d);
  V start = hn::Zero(d);
  if (call.bias != nullptr) {
    start = whole ? hn::LoadU(d, call.bias + first) : LoadFirst(d, call.bias + first, tail);
  }
#define TORCHIR_DI_PIXELS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define TORCHIR_DI_DECLARE(p) \
  V acc##p = start;           \
  (void)acc##p;
  TORCHIR_DI_PIXELS(TORCHIR_DI_DECLARE)
#undef TORCHIR_DI_DECLARE
  const size_t nr = chunk.nr;
  const size_t input_first = chunk.input_first;
  for (size_t t = 0; t < taps; ++t) {
    const float* HWY_RESTRICT w = chunk.weights + t * cin * nr;
    const float* const* tap = where + t * kIndirectPixels;
#define TORCHIR_DI_POINTER(p)                                                            \
  const float* HWY_RESTRICT in##p = p < kPixels ? tap[p] + input_first : kIndirectZeros; \
  (void)in##p;
    TORCHIR_DI_PIXELS(TORCHIR_DI_POINTER)
#undef TORCHIR_DI_POINTER
    const size_t fetch_end = (t + 1) * fetch.lines / taps;
    for (size_t line = t * fetch.lines / taps; line < fetch_end; ++line) {
      __builtin_prefetch(fetch.first + line * 64, 0, 2);
    }
    for (size_t ci = 0; ci < cin; ++ci) {
      const V wv = hn::LoadU(d, w + ci * nr);
#define TORCHIR_DI_FMA(p) \
  if constexpr (p < kPixels) acc##p = hn::MulAdd(hn::Set(d, in##p[ci]), wv, acc##p);
      TORCHIR_DI_PIXELS(TORCHIR_DI_FMA)
#undef TORCHIR_DI_FMA
    }
  }
  const V lo = hn::Set(d, call.lo), hi = hn::Set(d, call.hi);
  const size_t channels_out = s.output_channels;
#define TORCHIR_DI_STORE(p)                                                        \
  if (p < kPixels && p < count) {                                                  \
    float* out = call.output + (pixel + p) * channels_out + first;                 \
    if (call.residual != nullptr) {                                                \
      const float* r = call.residual + (pixel + p) * call.residual_stride + first; \
      acc##p = hn::Add(acc##p, whole ? hn::LoadU(d, r) : LoadFirst(d, r, tail));   \
    }                                                                              \
    const V result = hn::Min(hn::Max(acc##p, lo), hi);                             \
    if (whole) {                                                                   \
      hn::StoreU(result, d, out);                                                  \
    } else {                                                                       \
      StoreFirst(d, result, out, tail);                                            \
    }                                                                              \
  }
  TORCHIR_DI_PIXELS(TORCHIR_DI_STORE)
#undef TORCHIR_DI_STORE
#undef TORCHIR_DI_PIXELS
}

// The task's output rows, band by band of kIndirectBand pixels; per band each group's single
// chunk over the band's blocks of kPixels, the next group's filter fetched into L2 meanwhile (a
// slice per block, spread over its taps: IndirectBlock).
template <size_t kPixels, class D>
void IndirectRows(D d, const DirectCall& call) {
  const Convolution2dShape& s = *call.shape;
  const size_t taps = s.kernel_height * s.kernel_width;
  const size_t nr = call.weights[0].config.nr;
  const size_t end = call.row_end * call.output_width;
  const bool after_store = IsAppliedAfterStore(call.activation);
  // Each block's taps take 8 slots whether it has 7 or 8 pixels.
  const float* where[(kIndirectBand + kPixels - 1) / kPixels * kIndirectMaxTaps * kIndirectPixels];
  for (size_t band = call.row_begin * call.output_width; band < end; band += kIndirectBand) {
    const size_t count = end - band < kIndirectBand ? end - band : kIndirectBand;
    IndirectPointers(call, band, count, kPixels, where);
    const size_t blocks = (count + kPixels - 1) / kPixels;
    for (size_t g = 0; g < call.groups; ++g) {
      Chunk chunk;
      chunk.input_first = g * call.group_input;
      chunk.output_first = g * call.group_output;
      chunk.width = call.group_output;
      chunk.weights = call.weights[g].data;
      chunk.nr = nr;
      chunk.next_weights = g + 1 < call.groups ? call.weights[g + 1].data : nullptr;
      chunk.next_width = call.group_output;
      for (size_t b = 0; b < blocks; ++b) {
        const size_t pixel = band + b * kPixels;
        const size_t n = count - b * kPixels < kPixels ? count - b * kPixels : kPixels;
        IndirectBlock<kPixels>(d, call, chunk, where + b * taps * kIndirectPixels, pixel, n,
                               NextFilterSlice(call, chunk, b, blocks));
        if (after_store) {
          ActivationRows(call.activation,
                         call.output + pixel * s.output_channels + chunk.output_first, n,
                         chunk.width, s.output_channels);
        }
      }
    }
  }
}

}  // namespace

// Lanes of this target's float vectors: the caller's test of whether chunks fit two vectors.
size_t DirectLanesForTarget() { return hn::Lanes(hn::ScalableTag<float>()); }

void DirectRowsForTarget(const DirectCall& call) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  if (IsIndirect(call, lanes)) {
    // Blocks of 7 where they leave fewer pixels over than blocks of 8 (a 7 x 7 layer's 49).
    const size_t pixels = (call.row_end - call.row_begin) * call.output_width;
    const auto over = [pixels](size_t block) {
      size_t padded = 0;
      for (size_t band = 0; band < pixels; band += kIndirectBand) {
        const size_t count = pixels - band < kIndirectBand ? pixels - band : kIndirectBand;
        padded += (count + block - 1) / block * block - count;
      }
      return padded;
    };
    if (over(7) < over(8)) {
      IndirectRows<7>(d, call);
    } else {
      IndirectRows<8>(d, call);
    }
    return;
  }
  // Panel j of a group's filter: with one K block (k <= kc, or a single panel) it starts at
  // j * k * nr floats, its row k at k * nr from there (packed_weights.h). The groups share one
  // layout (ViewPackedGroupedWeights), so one nr.
  const size_t nr = call.weights[0].config.nr;
  const auto panel = [&call, nr](size_t g, size_t j) {
    return call.weights[g].data + j * call.k * nr;
  };
  const auto width = [&call, nr](size_t j) {
    return call.group_output - j * nr < nr ? call.group_output - j * nr : nr;
  };
  for (size_t g = 0; g < call.groups; ++g) {
    for (size_t j = 0; j * nr < call.group_output; ++j) {
      Chunk chunk;
      chunk.input_first = g * call.group_input;
      chunk.output_first = g * call.group_output + j * nr;
      chunk.width = width(j);
      chunk.weights = panel(g, j);
      chunk.nr = nr;
      chunk.next_weights = nullptr;
      chunk.next_width = 0;
      if ((j + 1) * nr < call.group_output) {
        chunk.next_weights = panel(g, j + 1);
        chunk.next_width = width(j + 1);
      } else if (g + 1 < call.groups) {
        chunk.next_weights = panel(g + 1, 0);
        chunk.next_width = width(0);
      }
      const bool channels_first = call.shape->input_channels_first;
      if (chunk.width <= lanes) {
        channels_first ? ChunkRows<1, true>(d, call, chunk) : ChunkRows<1, false>(d, call, chunk);
      } else {
        channels_first ? ChunkRows<2, true>(d, call, chunk) : ChunkRows<2, false>(d, call, chunk);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(DirectLanesForTarget);
HWY_EXPORT(DirectRowsForTarget);

namespace {

// Runs a share of the rows on this CPU's best target.
void RunDirectCall(const DirectCall& call) { HWY_DYNAMIC_DISPATCH(DirectRowsForTarget)(call); }

}  // namespace

bool IsDirectConvolution(const Convolution2dShape& shape, size_t groups, size_t lanes,
                         const GemmConfig& config) {
  if (groups == 0 || CheckConvolution2dShape(shape) != runtime::Error::kOk ||
      config.nr > 2 * lanes) {
    return false;
  }
  const size_t group_input = shape.input_channels / groups;
  const size_t group_output = shape.output_channels / groups;
  const size_t k = shape.kernel_height * shape.kernel_width * group_input;
  return (groups > 1 && group_output <= config.nr) ||
         (group_input <= kDirectMaxInputChannels && k <= config.kc);
}

runtime::Error DirectConvolution2d(const Convolution2dShape& shape, size_t groups,
                                   const float* input, const PackedB* weights, const float* bias,
                                   float* output, const Epilogue& epilogue,
                                   pthreadpool_t threadpool, bool* handled) {
  *handled = false;
  if (epilogue.activation > kLastActivation ||
      (epilogue.activation == Activation::kClamp && !(epilogue.min <= epilogue.max))) {
    return runtime::Error::kInvalidArgument;
  }
  GemmConfig current;
  if (!GetGemmConfig(CurrentKernelTarget(), &current) ||
      !IsDirectConvolution(shape, groups, HWY_DYNAMIC_DISPATCH(DirectLanesForTarget)(), current)) {
    return runtime::Error::kOk;
  }
  const size_t group_input = shape.input_channels / groups;
  for (size_t g = 0; g < groups; ++g) {
    // Another layout than this CPU's: the GEMM path says kNotSupported. Narrow groups' panels
    // may be half as wide (GroupPacking), a single panel still.
    const size_t nr = weights[g].config.nr;
    const bool layout = groups > 1 ? IsGroupPanelWidth(current, shape.output_channels / groups, nr)
                                   : nr == current.nr;
    if (!layout || weights[g].config.kc != current.kc) return runtime::Error::kOk;
  }
  const DirectCall call{AllConvolutionRows(shape, input, bias, output, epilogue),
                        groups,
                        group_input,
                        shape.output_channels / groups,
                        weights,
                        shape.kernel_height * shape.kernel_width * group_input};
  *handled = true;
  ShareRows<DirectCall, &RunDirectCall>(call, threadpool);
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
