// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/depthwise.h"

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/native/activation.h"
#include "backends/native/convolution_rows.h"
#include "backends/native/row_tasks.h"

// foreach_target.h includes this file again per target: define the call's struct once.
#ifndef TORCHIR_BACKENDS_NATIVE_DEPTHWISE_CALL_
#define TORCHIR_BACKENDS_NATIVE_DEPTHWISE_CALL_
namespace torchir::native {
namespace {

// The arguments of one share of a depthwise convolution, as they cross Highway's dispatch table.
struct DepthwiseCall : ConvolutionRows {
  const PackedDepthwise* weights;
};

}  // namespace
}  // namespace torchir::native
#endif  // TORCHIR_BACKENDS_NATIVE_DEPTHWISE_CALL_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/depthwise.cpp"
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

// Channels [c, c + kVectors * lanes) of kPixels output pixels: kPixels * kVectors accumulators,
// so the chains of FMAs are independent and each weight vector serves kPixels pixels. The
// accumulators are named variables, not an array: a named vector is a register to the compiler,
// and SVE's vectors are sizeless types that cannot form arrays at all.
// kKernel 0: the taps of px's ranges, in loops. kKernel k: a k x k kernel whose taps all lie
// inside the input, its loops unrolled at compile time, so that each tap's loads are addressed
// from a few base registers with no loop control between them: 1.15-1.3x faster on the stride-2
// layers of mobilenet_v2 (docs/native-kernels.md).
#define TORCHIR_DW_PAIRS(X) X(0, 0) X(0, 1) X(1, 0) X(1, 1) X(2, 0) X(2, 1) X(3, 0) X(3, 1)
template <size_t kPixels, size_t kVectors, size_t kKernel, class D>
HWY_INLINE void Block(D d, const DepthwiseCall& call, const PixelBlock& px, size_t c) {
  static_assert(kPixels >= 1 && kPixels <= 4 && kVectors >= 1 && kVectors <= 2,
                "TORCHIR_DW_PAIRS covers 4 pixels x 2 vectors");
  using V = decltype(hn::Zero(d));
  const size_t lanes = hn::Lanes(d);
  const Convolution2dShape& s = *call.shape;
  const size_t channels = s.input_channels;
  const size_t row_step = s.dilation_height * s.input_width * channels;
  const size_t column_step = s.dilation_width * channels;
  const size_t tap_stride = call.weights->padded_channels;
  V start0 = hn::Zero(d);
  V start1 = hn::Zero(d);
  if (call.bias != nullptr) {
    start0 = hn::LoadU(d, call.bias + c);
    if constexpr (kVectors > 1) start1 = hn::LoadU(d, call.bias + c + lanes);
  }
#define TORCHIR_DW_DECLARE(p, v) \
  V acc##p##v = start##v;        \
  (void)acc##p##v;
  TORCHIR_DW_PAIRS(TORCHIR_DW_DECLARE)
#undef TORCHIR_DW_DECLARE
  const float* HWY_RESTRICT in_row = px.in + c;
  const size_t in_step = px.in_step;
  // One tap (ky, kx): its weights, then every pixel's FMAs, reading the input at in_tap.
#define TORCHIR_DW_FMA(p, v)                                                                 \
  if constexpr (p < kPixels && v < kVectors) {                                               \
    acc##p##v = hn::MulAdd(hn::LoadU(d, in_tap + p * in_step + v * lanes), w##v, acc##p##v); \
  }
#define TORCHIR_DW_TAP(ky, kx, kernel_width)                            \
  {                                                                     \
    const float* HWY_RESTRICT w_tap =                                   \
        call.weights->data + (ky * kernel_width + kx) * tap_stride + c; \
    const V w0 = hn::LoadU(d, w_tap);                                   \
    V w1 = w0;                                                          \
    if constexpr (kVectors > 1) w1 = hn::LoadU(d, w_tap + lanes);       \
    (void)w1;                                                           \
    TORCHIR_DW_PAIRS(TORCHIR_DW_FMA)                                    \
  }
  if constexpr (kKernel != 0) {
#pragma GCC unroll 5
    for (size_t ky = 0; ky < kKernel; ++ky) {
#pragma GCC unroll 5
      for (size_t kx = 0; kx < kKernel; ++kx) {
        const float* HWY_RESTRICT in_tap = in_row + ky * row_step + kx * column_step;
        TORCHIR_DW_TAP(ky, kx, kKernel)
      }
    }
  } else {
    // Pointers are formed for taps inside the input only (never stepped past the last one: with
    // a large dilation that step would leave the tensor, undefined even unread).
    for (size_t ky = px.ky_range.begin; ky < px.ky_range.end; ++ky) {
      const float* HWY_RESTRICT in_tap_row = in_row + (ky - px.ky_range.begin) * row_step;
      for (size_t kx = px.kx_range.begin; kx < px.kx_range.end; ++kx) {
        const float* HWY_RESTRICT in_tap = in_tap_row + (kx - px.kx_range.begin) * column_step;
        TORCHIR_DW_TAP(ky, kx, s.kernel_width)
      }
    }
  }
#undef TORCHIR_DW_TAP
#undef TORCHIR_DW_FMA
  const V lo = hn::Set(d, call.lo), hi = hn::Set(d, call.hi);
#define TORCHIR_DW_STORE(p, v)                                                                  \
  if constexpr (p < kPixels && v < kVectors) {                                                  \
    if (px.residual != nullptr) {                                                               \
      acc##p##v =                                                                               \
          hn::Add(acc##p##v, hn::LoadU(d, px.residual + p * px.residual_step + c + v * lanes)); \
    }                                                                                           \
    hn::StoreU(hn::Min(hn::Max(acc##p##v, lo), hi), d, px.out + p * channels + c + v * lanes);  \
  }
  TORCHIR_DW_PAIRS(TORCHIR_DW_STORE)
#undef TORCHIR_DW_STORE
}
#undef TORCHIR_DW_PAIRS

// The row-reuse block (AVX2, AVX-512): kPixels output pixels of a row, all taps inside the input
// along x, stride and dilation 1 along x, channels [c, c + lanes). Pixel p's tap kx reads input
// column p + kx, so a kernel row's kPixels + kKw - 1 columns are each loaded once and each feeds
// every (pixel, tap) pair that reads it, where Block loads every (pixel, tap) input anew. At stride
// 2 (8 * 2 + 1 columns for 8 pixels) it measured slower than Block. Live vectors: kPixels
// accumulators, the kernel row's kKw weights and one input column: 10 + 3 + 1 = 14 of AVX2's 16
// for a 3-wide kernel, 8 + 5 + 1 for a 5-wide one. The 3-wide kernel's 10 pixels rather than 8
// ran mobilenet_v2's large layers 1.2-1.3x faster: 10 FMA chains are more than the 8 (4 cycles'
// latency x 2 ports) that keep the FMA units busy, so a late load no longer idles them.
// AVX-512's 32 registers take 14 (18 live vectors): 0.97-0.98 of 10's time on mobilenet_v2's
// stride-1 layers, Zen 4 (docs/native-kernels.md, "Rows of 14 pixels on AVX-512").
// kAllRows: every kernel row inside the input (kernel height kKw), the row loop unrolled.
constexpr size_t kRowPixels = 8;  // the fewest pixels a RowBlock takes
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr size_t kRowPixels3 = 14;  // a 3-wide kernel's
#else
constexpr size_t kRowPixels3 = 10;
#endif
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr bool kRowReuse = true;
#else
// Not measured on NEON yet (docs/native-kernels.md): it keeps the 4-pixel Block.
constexpr bool kRowReuse = false;
#endif

#define TORCHIR_DW_ROW_PIXELS(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)
#define TORCHIR_DW_ROW_TAPS(X) X(0) X(1) X(2) X(3) X(4)
// Columns 0..11: enough for 8 pixels of a 5-wide kernel.
#define TORCHIR_DW_ROW_COLUMNS(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
template <size_t kKw, size_t kPixels, bool kAllRows, class D>
HWY_INLINE void RowBlock(D d, const DepthwiseCall& call, const PixelBlock& px, size_t c) {
  static_assert(kKw <= 5 && kPixels + kKw - 1 <= 16,
                "TORCHIR_DW_ROW_TAPS and _COLUMNS cover a 5-wide kernel");
  static_assert(kPixels <= 14, "TORCHIR_DW_ROW_PIXELS covers 14 pixels");
  constexpr size_t kColumns = kPixels + kKw - 1;
  using V = decltype(hn::Zero(d));
  const Convolution2dShape& s = *call.shape;
  const size_t channels = s.input_channels;
  const size_t row_step = s.dilation_height * s.input_width * channels;
  const size_t tap_stride = call.weights->padded_channels;
  V start = hn::Zero(d);
  if (call.bias != nullptr) start = hn::LoadU(d, call.bias + c);
#define TORCHIR_DW_ROW_DECLARE(p) \
  V acc##p = start;               \
  (void)acc##p;
  TORCHIR_DW_ROW_PIXELS(TORCHIR_DW_ROW_DECLARE)
#undef TORCHIR_DW_ROW_DECLARE
  const size_t ky_begin = kAllRows ? 0 : px.ky_range.begin;
  const size_t ky_end = kAllRows ? kKw : px.ky_range.end;
  // Unrolled where the trip count is known (kAllRows); a runtime count keeps the loop.
#pragma GCC unroll 5
  for (size_t ky = ky_begin; ky < ky_end; ++ky) {
    const float* HWY_RESTRICT in = px.in + (ky - ky_begin) * row_step + c;
    const float* HWY_RESTRICT w = call.weights->data + ky * kKw * tap_stride + c;
#define TORCHIR_DW_ROW_WEIGHT(kx) \
  V w##kx = hn::Zero(d);          \
  if constexpr (kx < kKw) w##kx = hn::LoadU(d, w + kx * tap_stride);
    TORCHIR_DW_ROW_TAPS(TORCHIR_DW_ROW_WEIGHT)
#undef TORCHIR_DW_ROW_WEIGHT
    // Column j feeds pixel p through tap j - p when that tap exists.
#define TORCHIR_DW_ROW_FMA(p)                                         \
  if constexpr (p < kPixels && kJ >= p && kJ - p < kKw) {             \
    constexpr size_t kTap = kJ - p;                                   \
    if constexpr (kTap == 0) acc##p = hn::MulAdd(column, w0, acc##p); \
    if constexpr (kTap == 1) acc##p = hn::MulAdd(column, w1, acc##p); \
    if constexpr (kTap == 2) acc##p = hn::MulAdd(column, w2, acc##p); \
    if constexpr (kTap == 3) acc##p = hn::MulAdd(column, w3, acc##p); \
    if constexpr (kTap == 4) acc##p = hn::MulAdd(column, w4, acc##p); \
  }
#define TORCHIR_DW_ROW_COLUMN(j)                      \
  if constexpr (j < kColumns) {                       \
    constexpr size_t kJ = j;                          \
    const V column = hn::LoadU(d, in + j * channels); \
    TORCHIR_DW_ROW_PIXELS(TORCHIR_DW_ROW_FMA)         \
  }
    TORCHIR_DW_ROW_COLUMNS(TORCHIR_DW_ROW_COLUMN)
#undef TORCHIR_DW_ROW_COLUMN
#undef TORCHIR_DW_ROW_FMA
    (void)w3;
    (void)w4;
  }
  const V lo = hn::Set(d, call.lo), hi = hn::Set(d, call.hi);
#define TORCHIR_DW_ROW_STORE(p)                                                       \
  if constexpr (p < kPixels) {                                                        \
    if (px.residual != nullptr) {                                                     \
      acc##p = hn::Add(acc##p, hn::LoadU(d, px.residual + p * px.residual_step + c)); \
    }                                                                                 \
    hn::StoreU(hn::Min(hn::Max(acc##p, lo), hi), d, px.out + p * channels + c);       \
  }
  TORCHIR_DW_ROW_PIXELS(TORCHIR_DW_ROW_STORE)
#undef TORCHIR_DW_ROW_STORE
}
#undef TORCHIR_DW_ROW_COLUMNS
#undef TORCHIR_DW_ROW_TAPS
#undef TORCHIR_DW_ROW_PIXELS

// Channels [c_begin, channels) of pixel p of `px`, one at a time (fewer than a vector's lanes),
// adding in the same order as Block.
void ScalarChannels(const DepthwiseCall& call, const PixelBlock& px, size_t p, size_t c_begin,
                    size_t c_end) {
  const Convolution2dShape& s = *call.shape;
  const size_t channels = s.input_channels;
  const size_t tap_stride = call.weights->padded_channels;
  const float* residual = px.residual == nullptr ? nullptr : px.residual + p * px.residual_step;
  float* out = px.out + p * channels;
  for (size_t c = c_begin; c < c_end; ++c) {
    float acc = call.bias != nullptr ? call.bias[c] : 0.0f;
    const float* in_row = px.in + p * px.in_step + c;
    for (size_t ky = px.ky_range.begin; ky < px.ky_range.end; ++ky) {
      const float* in_tap_row =
          in_row + (ky - px.ky_range.begin) * s.dilation_height * s.input_width * channels;
      for (size_t kx = px.kx_range.begin; kx < px.kx_range.end; ++kx) {
        acc += in_tap_row[(kx - px.kx_range.begin) * s.dilation_width * channels] *
               call.weights->data[(ky * s.kernel_width + kx) * tap_stride + c];
      }
    }
    if (residual != nullptr) acc += residual[c];
    acc = acc < call.lo ? call.lo : acc;
    out[c] = acc > call.hi ? call.hi : acc;
  }
}

// Channels [c_begin, c_end) of kPixels pixels that share their tap ranges: blocks of 2 vectors,
// then 1, then the last channels one at a time. kKernel as for Block.
template <size_t kPixels, size_t kKernel = 0, class D>
HWY_INLINE void Channels(D d, const DepthwiseCall& call, const PixelBlock& px, size_t c_begin,
                         size_t c_end) {
  const size_t lanes = hn::Lanes(d);
  size_t c = c_begin;
  for (; c + 2 * lanes <= c_end; c += 2 * lanes) Block<kPixels, 2, kKernel>(d, call, px, c);
  for (; c + lanes <= c_end; c += lanes) Block<kPixels, 1, kKernel>(d, call, px, c);
  if (c < c_end) {
    for (size_t p = 0; p < kPixels; ++p) ScalarChannels(call, px, p, c, c_end);
  }
}

// Channels [c_begin, c_end) of the kPixels pixels of `px` by RowBlock, the last channels (fewer
// than a vector's lanes) one at a time.
template <size_t kKw, size_t kPixels, class D>
HWY_INLINE void RowChannels(D d, const DepthwiseCall& call, const PixelBlock& px, size_t c_begin,
                            size_t c_end) {
  const size_t lanes = hn::Lanes(d);
  size_t c = c_begin;
  if (px.ky_range.begin == 0 && px.ky_range.end == kKw && call.shape->kernel_height == kKw) {
    for (; c + lanes <= c_end; c += lanes) RowBlock<kKw, kPixels, true>(d, call, px, c);
  } else {
    for (; c + lanes <= c_end; c += lanes) RowBlock<kKw, kPixels, false>(d, call, px, c);
  }
  if (c < c_end) {
    for (size_t p = 0; p < kPixels; ++p) ScalarChannels(call, px, p, c, c_end);
  }
}

constexpr bool kUnrolledKernels = HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128;

// `pixels` (1 to 4) pixels of `px`, every tap inside the input along x, through the Block
// instances for kKernel.
template <size_t kKernel, class D>
HWY_INLINE void InteriorPixels(D d, size_t pixels, const DepthwiseCall& call, const PixelBlock& px,
                               size_t c_begin, size_t c_end) {
  switch (pixels) {
    case 4:
      return Channels<4, kKernel>(d, call, px, c_begin, c_end);
    case 3:
      return Channels<3, kKernel>(d, call, px, c_begin, c_end);
    case 2:
      return Channels<2, kKernel>(d, call, px, c_begin, c_end);
    default:
      return Channels<1, kKernel>(d, call, px, c_begin, c_end);
  }
}

// The RowBlock instance that serves a layer, or kNone (the 4-pixel Block serves it).
enum class RowKernel { kNone, k3, k5 };

RowKernel RowKernelFor(const Convolution2dShape& s) {
  if (!kRowReuse || s.stride_width != 1 || s.dilation_width != 1) return RowKernel::kNone;
  if (s.kernel_width == 3) return RowKernel::k3;
  if (s.kernel_width == 5) return RowKernel::k5;
  return RowKernel::kNone;
}

// The first pixels of `px` through the widest RowBlock instance of `kernel` (k3 or k5) that
// `pixels` (at least kRowPixels, all of them interior) fill; returns how many it computed.
template <class D>
size_t RowPixels(D d, RowKernel kernel, size_t pixels, const DepthwiseCall& call,
                 const PixelBlock& px, size_t c_begin, size_t c_end) {
  if (kernel == RowKernel::k3) {
    if (pixels >= kRowPixels3) {
      RowChannels<3, kRowPixels3>(d, call, px, c_begin, c_end);
      return kRowPixels3;
    }
    RowChannels<3, kRowPixels>(d, call, px, c_begin, c_end);
    return kRowPixels;
  }
  RowChannels<5, kRowPixels>(d, call, px, c_begin, c_end);
  return kRowPixels;
}

}  // namespace

void DepthwiseRowsForTarget(const DepthwiseCall& call) {
  const Convolution2dShape& s = *call.shape;
  const hn::ScalableTag<float> d;
  const size_t channels = s.input_channels;
  const size_t ow = call.output_width;
  // Output columns whose taps all fall inside the input along x: there the pixels go 4 at a time.
  const TapRange interior = InteriorColumns(s, ow);
  const size_t ox_begin = interior.begin, ox_end = interior.end;
  constexpr size_t kBlockPixels = 4;
  const RowKernel row_kernel = RowKernelFor(s);
  // The square kernel sizes Block is compiled for (MobileNets' and EfficientNets' 3x3 and 5x5),
  // used where all of a pixel's taps lie inside the input; 0 for any other kernel, and on the
  // scalar target (no vectors to schedule: the unrolled copies would only add code).
  const size_t unrolled_kernel = kUnrolledKernels && s.kernel_height == s.kernel_width &&
                                         (s.kernel_width == 3 || s.kernel_width == 5)
                                     ? s.kernel_width
                                     : 0;
  // Activations other than a clamp run on each block of pixels just stored (still in L1).
  const bool after_store = IsAppliedAfterStore(call.activation);
  // Rows go in slices of at most 256 channels, as equal as multiples of 32 (2 vectors of every
  // target) allow: 576 channels as 3 x 192, not 256 + 256 + 64.
  const size_t slices = (channels + 255) / 256;
  const size_t channel_tile = ((channels + slices - 1) / slices + 31) / 32 * 32;

  for (size_t row = call.row_begin; row < call.row_end; ++row) {
    const RowTaps taps = RowTapsAt(call, row);
    const size_t row_kernel_size =
        taps.ky_range.begin == 0 && taps.ky_range.end == s.kernel_height ? unrolled_kernel : 0;
    // A row in slices of channels, so the input a block of pixels reads is still in L1 when the
    // next block (sharing kernel width - stride columns) reads it: at most 3 rows x 6 columns x
    // 256 channels = 18 KiB for a 3x3 kernel, where 576 channels at once would take 41 KiB.
    for (size_t c_begin = 0; c_begin < channels; c_begin += channel_tile) {
      const size_t c_end = channels - c_begin < channel_tile ? channels : c_begin + channel_tile;
      for (size_t ox = 0; ox < ow;) {
        const PixelBlock px = PixelsAt(call, taps, ox);
        size_t done = 1;
        if (px.ky_range.begin == px.ky_range.end || px.kx_range.begin == px.kx_range.end) {
          // Every tap in the padding: bias, residual and clamp only (no input pixel to read).
          PixelBlock none = px;
          none.in = nullptr;
          ScalarChannels(call, none, 0, c_begin, c_end);
        } else if (row_kernel != RowKernel::kNone && ox >= ox_begin && ox + kRowPixels <= ox_end) {
          if constexpr (kRowReuse)
            done = RowPixels(d, row_kernel, ox_end - ox, call, px, c_begin, c_end);
        } else if (ox >= ox_begin && ox < ox_end) {
          // Up to 4 pixels at a time, the last few of the interior columns together too.
          done = ox_end - ox < kBlockPixels ? ox_end - ox : kBlockPixels;
          if (kUnrolledKernels && row_kernel_size == 3) {
            InteriorPixels<3>(d, done, call, px, c_begin, c_end);
          } else if (kUnrolledKernels && row_kernel_size == 5) {
            InteriorPixels<5>(d, done, call, px, c_begin, c_end);
          } else {
            InteriorPixels<0>(d, done, call, px, c_begin, c_end);
          }
        } else {
          Channels<1>(d, call, px, c_begin, c_end);
        }
        if (after_store) {
          ActivationRows(call.activation, px.out + c_begin, done, c_end - c_begin, channels);
        }
        ox += done;
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(DepthwiseRowsForTarget);

namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();

// Float count of the packed data (kh * kw * padded channels), or 0 when it overflows (bytes
// included).
size_t DepthwiseFloats(size_t kernel_height, size_t kernel_width, size_t channels) {
  if (channels > kMaxSize - kDepthwiseChannelAlignment) return 0;
  const size_t padded = (channels + kDepthwiseChannelAlignment - 1) / kDepthwiseChannelAlignment *
                        kDepthwiseChannelAlignment;
  if (kernel_height == 0 || kernel_width == 0 || kernel_width > kMaxSize / kernel_height) return 0;
  const size_t taps = kernel_height * kernel_width;
  if (padded == 0 || taps > (kMaxSize - kPackedDepthwiseHeaderBytes) / sizeof(float) / padded) {
    return 0;
  }
  return taps * padded;
}

// Runs a share of the rows on this CPU's best target.
void RunDepthwiseCall(const DepthwiseCall& call) {
  HWY_DYNAMIC_DISPATCH(DepthwiseRowsForTarget)(call);
}

}  // namespace

size_t DepthwisePackedWeightsBytes(const Convolution2dShape& shape) {
  if (CheckConvolution2dShape(shape) != runtime::Error::kOk ||
      shape.output_channels != shape.input_channels || shape.kernel_height > UINT32_MAX ||
      shape.kernel_width > UINT32_MAX) {
    return 0;
  }
  const size_t floats =
      DepthwiseFloats(shape.kernel_height, shape.kernel_width, shape.input_channels);
  return floats == 0 ? 0 : kPackedDepthwiseHeaderBytes + floats * sizeof(float);
}

runtime::Error PackDepthwiseWeights(const Convolution2dShape& shape, const float* weights,
                                    void* out, size_t out_bytes) {
  const size_t bytes = DepthwisePackedWeightsBytes(shape);
  if (bytes == 0 || weights == nullptr || out == nullptr) return runtime::Error::kInvalidArgument;
  if (out_bytes < bytes) return runtime::Error::kOutOfMemory;
  const size_t channels = shape.input_channels;
  const size_t taps = shape.kernel_height * shape.kernel_width;
  const size_t floats = DepthwiseFloats(shape.kernel_height, shape.kernel_width, channels);
  PackedDepthwiseHeader header{};
  header.magic = kPackedDepthwiseMagic;
  header.version = kPackedDepthwiseVersion;
  header.kernel_height = static_cast<uint32_t>(shape.kernel_height);
  header.kernel_width = static_cast<uint32_t>(shape.kernel_width);
  header.channels = channels;
  header.padded_channels = floats / taps;
  header.data_floats = floats;
  std::memcpy(out, &header, sizeof(header));
  float* dst = reinterpret_cast<float*>(static_cast<char*>(out) + kPackedDepthwiseHeaderBytes);
  for (size_t tap = 0; tap < taps; ++tap) {
    float* row = dst + tap * header.padded_channels;
    // [C, 1, kh, kw]: channel c's tap at c * taps + tap.
    for (size_t c = 0; c < channels; ++c) row[c] = weights[c * taps + tap];
    for (size_t c = channels; c < header.padded_channels; ++c) row[c] = 0.0f;
  }
  return runtime::Error::kOk;
}

runtime::Error ViewPackedDepthwise(const void* bytes, size_t size, PackedDepthwise* view) {
  if (bytes == nullptr || view == nullptr || size < kPackedDepthwiseHeaderBytes) {
    return runtime::Error::kInvalidProgram;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % alignof(float) != 0) {
    return runtime::Error::kInvalidArgument;
  }
  PackedDepthwiseHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  if (header.magic != kPackedDepthwiseMagic) return runtime::Error::kInvalidProgram;
  if (header.version != kPackedDepthwiseVersion) return runtime::Error::kUnsupportedVersion;
  if (header.kernel_height == 0 || header.kernel_width == 0 || header.channels == 0 ||
      header.channels > kMaxSize) {
    return runtime::Error::kProgramOutOfBounds;
  }
  const size_t channels = static_cast<size_t>(header.channels);
  const size_t floats = DepthwiseFloats(header.kernel_height, header.kernel_width, channels);
  const size_t taps = size_t{header.kernel_height} * header.kernel_width;
  if (floats == 0 || header.data_floats != floats || header.padded_channels != floats / taps ||
      (size - kPackedDepthwiseHeaderBytes) / sizeof(float) < floats) {
    return runtime::Error::kProgramOutOfBounds;
  }
  view->kernel_height = header.kernel_height;
  view->kernel_width = header.kernel_width;
  view->channels = channels;
  view->padded_channels = static_cast<size_t>(header.padded_channels);
  view->data =
      reinterpret_cast<const float*>(static_cast<const char*>(bytes) + kPackedDepthwiseHeaderBytes);
  return runtime::Error::kOk;
}

runtime::Error DepthwiseConvolution2d(const Convolution2dShape& shape, const float* input,
                                      const PackedDepthwise& weights, const float* bias,
                                      float* output, const Epilogue& epilogue,
                                      pthreadpool_t threadpool) {
  const size_t channels = shape.input_channels;
  if (CheckConvolution2dShape(shape) != runtime::Error::kOk || shape.input_channels_first ||
      shape.output_channels != channels || weights.channels != channels ||
      weights.kernel_height != shape.kernel_height || weights.kernel_width != shape.kernel_width ||
      weights.padded_channels < channels || weights.data == nullptr || input == nullptr ||
      output == nullptr || epilogue.activation > kLastActivation ||
      (epilogue.activation == Activation::kClamp && !(epilogue.min <= epilogue.max)) ||
      (epilogue.residual != nullptr && epilogue.residual_stride < channels)) {
    return runtime::Error::kInvalidArgument;
  }
  DepthwiseCall call{AllConvolutionRows(shape, input, bias, output, epilogue), &weights};
  ShareRows<DepthwiseCall, &RunDepthwiseCall>(call, threadpool);
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
