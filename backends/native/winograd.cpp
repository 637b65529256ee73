// Winograd F(4x4, 3x3) and F(2x2, 3x3) (winograd.h): the input and output transforms compiled
// once per Highway target (foreach_target.h re-includes this file), the blocking and the GEMMs
// after HWY_ONCE.
#include "backends/native/winograd.h"

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backends/native/gemm_call.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/winograd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"
// Must follow hwy/highway.h.
#include "hwy/contrib/math/math-inl.h"
// The epilogue activations shared with the GEMM and depthwise kernels.
#include "backends/native/activation-inl.h"

// What one block's transforms need; outside the per-target namespaces so every target's
// functions share the signature.
#ifndef TORCHIR_BACKENDS_NATIVE_WINOGRAD_BLOCK_
#define TORCHIR_BACKENDS_NATIVE_WINOGRAD_BLOCK_
namespace torchir::native {
struct WinogradBlock {
  const Convolution2dShape* shape;
  size_t output_tile;  // 2 or 4: n = output_tile + 2 input pixels a side, n * n matrices
  size_t output_height, output_width;
  size_t tiles_h, tiles_w;
  size_t first_tile;  // tiles [first_tile, first_tile + tiles), batch-major then row, column
  size_t tiles;
  // The input channels [c_begin, c_end) transformed into V and the output channels
  // [k_begin, k_end) transformed from M: all of them, or one group's.
  size_t c_begin, c_end, k_begin, k_end;
  const float* input;
  float* v;  // n * n matrices of `tiles` x (c_end - c_begin) (that row stride), matrix xi at
             // xi * v_matrix_floats
  size_t v_matrix_floats;
  float* m;  // n * n matrices of `tiles` x (k_end - k_begin), matrix xi at xi * m_matrix_floats
  size_t m_matrix_floats;
  const float* bias;  // K floats or null
  float* output;
  Epilogue epilogue;
};
// One group's products over one block of a grouped layer (winograd.h, version 2): for each of
// the n * n matrices xi, M[xi][t][co] = sum over ci < cg of V[xi][t][ci] U[xi][ci][co], with V's
// rows cg floats long, M's and U's kg.
struct WinogradGroupProducts {
  const float* v;
  size_t v_matrix_floats;
  float* m;
  size_t m_matrix_floats;
  size_t tiles;
  size_t cg, kg;           // the group's input and output channels
  const float* u;          // the group's block of matrix 0
  size_t u_matrix_floats;  // from one matrix's block to the next
  size_t matrices;
  // Null, or the next group's block of matrix 0 (same layout): fetched into L2 a block per
  // matrix while this group's products run, since each group's U comes from L3 or memory in a
  // network.
  const float* next_u;
};
}  // namespace torchir::native
#endif

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace {
namespace hn = hwy::HWY_NAMESPACE;

// Stores to out, out + stride, ...: aligned into a tile's scratch, unaligned to the V matrices.
template <bool kAligned, class D, class V = hn::Vec<D>>
HWY_INLINE void StoreAt(D d, V v, float* HWY_RESTRICT out, size_t index, size_t stride) {
  if constexpr (kAligned) {
    hn::Store(v, d, out + index * stride);
  } else {
    hn::StoreU(v, d, out + index * stride);
  }
}

// B^T (6x6) on six vectors: r = B^T d, with the shared sums of Lavin & Gray's F(4, 3):
//   r0 = 4 d0 - 5 d2 + d4          r3 = (d4 - d2) + 2 (d3 - d1)
//   r1 = (d4 - 4 d2) + (d3 - 4 d1)  r4 = (d4 - d2) - 2 (d3 - d1)
//   r2 = (d4 - 4 d2) - (d3 - 4 d1)  r5 = 4 d1 - 5 d3 + d5
template <bool kAligned, class D, class V = hn::Vec<D>>
HWY_INLINE void InputTransform1d(D d, V d0, V d1, V d2, V d3, V d4, V d5, float* HWY_RESTRICT out,
                                 size_t stride) {
  const V four = hn::Set(d, 4.0f), minus_four = hn::Set(d, -4.0f), minus_five = hn::Set(d, -5.0f);
  const V two = hn::Set(d, 2.0f);
  const V t1 = hn::MulAdd(minus_four, d2, d4);
  const V t2 = hn::MulAdd(minus_four, d1, d3);
  const V t3 = hn::Sub(d4, d2);
  const V t4 = hn::Mul(two, hn::Sub(d3, d1));
  StoreAt<kAligned>(d, hn::MulAdd(four, d0, hn::MulAdd(minus_five, d2, d4)), out, 0, stride);
  StoreAt<kAligned>(d, hn::Add(t1, t2), out, 1, stride);
  StoreAt<kAligned>(d, hn::Sub(t1, t2), out, 2, stride);
  StoreAt<kAligned>(d, hn::Add(t3, t4), out, 3, stride);
  StoreAt<kAligned>(d, hn::Sub(t3, t4), out, 4, stride);
  StoreAt<kAligned>(d, hn::MulAdd(four, d1, hn::MulAdd(minus_five, d3, d5)), out, 5, stride);
}

// B^T (4x4) of F(2, 3) on four vectors: r = (d0 - d2, d1 + d2, d2 - d1, d1 - d3).
template <bool kAligned, class D, class V = hn::Vec<D>>
HWY_INLINE void InputTransform1d(D d, V d0, V d1, V d2, V d3, float* HWY_RESTRICT out,
                                 size_t stride) {
  StoreAt<kAligned>(d, hn::Sub(d0, d2), out, 0, stride);
  StoreAt<kAligned>(d, hn::Add(d1, d2), out, 1, stride);
  StoreAt<kAligned>(d, hn::Sub(d2, d1), out, 2, stride);
  StoreAt<kAligned>(d, hn::Sub(d1, d3), out, 3, stride);
}

// One tile's input transform for the channels [c, c + Lanes(d)): `rows[y]` points at row
// iy0 + y of the image or is null when that row is outside it, `columns[x]` is the float offset
// of column ix0 + x in a row, or kOutside. V[n i + j][tile][vc] = (B^T d B)[i][j], n = kTile + 2,
// vc the channel's column in V.
constexpr size_t kOutside = ~size_t{0};
template <size_t kTile, class D>
HWY_INLINE void InputTile(D d, const float* const* rows, const size_t* columns, size_t c, size_t vc,
                          float* HWY_RESTRICT v, size_t v_matrix_floats) {
  constexpr size_t kIn = kTile + 2;
  constexpr size_t kStride = hn::MaxLanes(D());
  HWY_ALIGN float tmp[kIn * kIn * kStride];
  // Pass 1, along y: column x of the tile to B^T d, stored as tmp[i][x].
  for (size_t x = 0; x < kIn; ++x) {
    const bool inside = columns[x] != kOutside;
    auto load = [&](size_t y) {
      return inside && rows[y] != nullptr ? hn::LoadU(d, rows[y] + columns[x] + c) : hn::Zero(d);
    };
    if constexpr (kTile == 4) {
      InputTransform1d<true>(d, load(0), load(1), load(2), load(3), load(4), load(5),
                             tmp + x * kStride, kIn * kStride);
    } else {
      InputTransform1d<true>(d, load(0), load(1), load(2), load(3), tmp + x * kStride,
                             kIn * kStride);
    }
  }
  // Pass 2, along x: row i of tmp times B.
  for (size_t i = 0; i < kIn; ++i) {
    const float* row = tmp + i * kIn * kStride;
    float* to = v + i * kIn * v_matrix_floats + vc;
    if constexpr (kTile == 4) {
      InputTransform1d<false>(d, hn::Load(d, row), hn::Load(d, row + kStride),
                              hn::Load(d, row + 2 * kStride), hn::Load(d, row + 3 * kStride),
                              hn::Load(d, row + 4 * kStride), hn::Load(d, row + 5 * kStride), to,
                              v_matrix_floats);
    } else {
      InputTransform1d<false>(d, hn::Load(d, row), hn::Load(d, row + kStride),
                              hn::Load(d, row + 2 * kStride), hn::Load(d, row + 3 * kStride), to,
                              v_matrix_floats);
    }
  }
}

template <size_t kTile>
void InputBlock(const WinogradBlock& block) {
  constexpr size_t kIn = kTile + 2;
  const Convolution2dShape& s = *block.shape;
  const size_t cin = s.input_channels;
  const ptrdiff_t height = static_cast<ptrdiff_t>(s.input_height);
  const ptrdiff_t width = static_cast<ptrdiff_t>(s.input_width);
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  for (size_t t = 0; t < block.tiles; ++t) {
    const size_t tile = block.first_tile + t;
    const size_t tx = tile % block.tiles_w;
    const size_t ty = (tile / block.tiles_w) % block.tiles_h;
    const size_t image = tile / block.tiles_w / block.tiles_h;
    const ptrdiff_t iy0 =
        static_cast<ptrdiff_t>(ty * kTile) - static_cast<ptrdiff_t>(s.padding_top);
    const ptrdiff_t ix0 =
        static_cast<ptrdiff_t>(tx * kTile) - static_cast<ptrdiff_t>(s.padding_left);
    const float* rows[kIn];
    size_t columns[kIn];
    for (size_t y = 0; y < kIn; ++y) {
      const ptrdiff_t iy = iy0 + static_cast<ptrdiff_t>(y);
      rows[y] = iy >= 0 && iy < height
                    ? block.input +
                          (image * s.input_height + static_cast<size_t>(iy)) * s.input_width * cin
                    : nullptr;
    }
    for (size_t x = 0; x < kIn; ++x) {
      const ptrdiff_t ix = ix0 + static_cast<ptrdiff_t>(x);
      columns[x] = ix >= 0 && ix < width ? static_cast<size_t>(ix) * cin : kOutside;
    }
    const size_t width = block.c_end - block.c_begin;
    float* v = block.v + t * width;
    size_t c = block.c_begin;
    for (; c + lanes <= block.c_end; c += lanes) {
      InputTile<kTile>(d, rows, columns, c, c - block.c_begin, v, block.v_matrix_floats);
    }
    for (; c < block.c_end; ++c) {
      InputTile<kTile>(d1, rows, columns, c, c - block.c_begin, v, block.v_matrix_floats);
    }
  }
}

// Calls run(std::integral_constant<size_t, t>()) for the block's tile t (2 or 4).
template <class Run>
HWY_INLINE void ForTile(const WinogradBlock& block, const Run& run) {
  if (block.output_tile == 2) {
    run(std::integral_constant<size_t, 2>());
  } else {
    run(std::integral_constant<size_t, 4>());
  }
}

}  // namespace

void WinogradInputForTarget(const WinogradBlock& block) {
  ForTile(block, [&](auto tile) { InputBlock<decltype(tile)::value>(block); });
}

namespace {

// The epilogue's activation as loop-invariant data.
struct ActivationParams {
  Activation activation;
  float lo, hi;  // the clamp (relu: 0, +inf)
};

template <class D, class V = hn::Vec<D>>
HWY_INLINE V Apply(D d, V x, const ActivationParams& a) {
  switch (a.activation) {
    case Activation::kRelu:
    case Activation::kClamp:
      return hn::Min(hn::Max(x, hn::Set(d, a.lo)), hn::Set(d, a.hi));
    case Activation::kGelu:
      return Gelu(d, x, false);
    case Activation::kGeluTanh:
      return Gelu(d, x, true);
    case Activation::kHardswish:
      return Hardswish(d, x);
    case Activation::kHardsigmoid:
      return Hardsigmoid(d, x);
    case Activation::kSigmoid:
      return Sigmoid(d, x);
    case Activation::kSilu:
      return Silu(d, x);
    case Activation::kNone:
      break;
  }
  return x;
}

// A^T (4x6) on six vectors: y = A^T m, with s12 = m1 + m2, d12 = m1 - m2 (and 34 alike):
//   y0 = m0 + s12 + s34   y1 = d12 + 2 d34   y2 = s12 + 4 s34   y3 = d12 + 8 d34 + m5.
#define TORCHIR_WINOGRAD_OUTPUT_1D(d, m0, m1, m2, m3, m4, m5, y0, y1, y2, y3) \
  const auto s12 = hn::Add(m1, m2);                                           \
  const auto d12 = hn::Sub(m1, m2);                                           \
  const auto s34 = hn::Add(m3, m4);                                           \
  const auto d34 = hn::Sub(m3, m4);                                           \
  const auto y0 = hn::Add(hn::Add(m0, s12), s34);                             \
  const auto y1 = hn::MulAdd(hn::Set(d, 2.0f), d34, d12);                     \
  const auto y2 = hn::MulAdd(hn::Set(d, 4.0f), s34, s12);                     \
  const auto y3 = hn::Add(hn::MulAdd(hn::Set(d, 8.0f), d34, d12), m5);
// A^T (2x4) of F(2, 3) on four vectors: y0 = m0 + m1 + m2, y1 = m1 - m2 - m3.
#define TORCHIR_WINOGRAD_OUTPUT_1D_2(m0, m1, m2, m3, y0, y1) \
  const auto y0 = hn::Add(hn::Add(m0, m1), m2);              \
  const auto y1 = hn::Sub(hn::Sub(m1, m2), m3);

// value + bias (+ residual[offset] when residual is not null), activated, stored to `out`.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void StoreOutput(D d, V value, V bias, const float* residual, size_t offset, float* out,
                            const ActivationParams& activate) {
  V result = hn::Add(value, bias);
  if (residual != nullptr) result = hn::Add(result, hn::LoadU(d, residual + offset));
  hn::StoreU(Apply(d, result, activate), d, out);
}

// One tile's output transform for the output channels [k, k + Lanes(d)), column mk of M: Y =
// A^T M A, then bias, residual and activation, stored for the rows x columns of the tile inside
// the output. `out` and `residual` point at the tile's first output pixel (residual may be null).
template <size_t kTile, class D>
HWY_INLINE void OutputTile(D d, const float* HWY_RESTRICT m, size_t m_matrix_floats, size_t mk,
                           size_t k, const float* bias, const float* residual,
                           size_t residual_stride, size_t residual_row, float* out, size_t cout,
                           size_t row_floats, size_t rows, size_t cols,
                           const ActivationParams& activate) {
  using V = hn::Vec<D>;
  constexpr size_t kIn = kTile + 2;
  constexpr size_t kStride = hn::MaxLanes(D());
  HWY_ALIGN float tmp[kTile * kIn * kStride];
  // Pass 1, along y: column x of the n x n to A^T m, stored as tmp[r][x].
  for (size_t x = 0; x < kIn; ++x) {
    const float* col = m + x * m_matrix_floats + mk;
    const V m0 = hn::LoadU(d, col);
    const V m1 = hn::LoadU(d, col + kIn * m_matrix_floats);
    const V m2 = hn::LoadU(d, col + 2 * kIn * m_matrix_floats);
    const V m3 = hn::LoadU(d, col + 3 * kIn * m_matrix_floats);
    if constexpr (kTile == 4) {
      const V m4 = hn::LoadU(d, col + 24 * m_matrix_floats);
      const V m5 = hn::LoadU(d, col + 30 * m_matrix_floats);
      TORCHIR_WINOGRAD_OUTPUT_1D(d, m0, m1, m2, m3, m4, m5, y0, y1, y2, y3)
      hn::Store(y0, d, tmp + (0 * kIn + x) * kStride);
      hn::Store(y1, d, tmp + (1 * kIn + x) * kStride);
      hn::Store(y2, d, tmp + (2 * kIn + x) * kStride);
      hn::Store(y3, d, tmp + (3 * kIn + x) * kStride);
    } else {
      TORCHIR_WINOGRAD_OUTPUT_1D_2(m0, m1, m2, m3, y0, y1)
      hn::Store(y0, d, tmp + (0 * kIn + x) * kStride);
      hn::Store(y1, d, tmp + (1 * kIn + x) * kStride);
    }
  }
  const V b = bias != nullptr ? hn::LoadU(d, bias + k) : hn::Zero(d);
  // Pass 2, along x: row r of tmp times A, then the epilogue.
  for (size_t r = 0; r < rows; ++r) {
    const float* row = tmp + r * kIn * kStride;
    // Column s of row r: the output at to + s * cout, the residual at at + s * residual_stride
    // (cols >= 1: a tile starts inside the output).
    float* to = out + r * row_floats + k;
    const size_t at = r * residual_row + k;
    const V m0 = hn::Load(d, row), m1 = hn::Load(d, row + kStride);
    const V m2 = hn::Load(d, row + 2 * kStride), m3 = hn::Load(d, row + 3 * kStride);
    if constexpr (kTile == 4) {
      const V m4 = hn::Load(d, row + 4 * kStride), m5 = hn::Load(d, row + 5 * kStride);
      TORCHIR_WINOGRAD_OUTPUT_1D(d, m0, m1, m2, m3, m4, m5, y0, y1, y2, y3)
      StoreOutput(d, y0, b, residual, at, to, activate);
      if (cols > 1) StoreOutput(d, y1, b, residual, at + residual_stride, to + cout, activate);
      if (cols > 2)
        StoreOutput(d, y2, b, residual, at + 2 * residual_stride, to + 2 * cout, activate);
      if (cols > 3)
        StoreOutput(d, y3, b, residual, at + 3 * residual_stride, to + 3 * cout, activate);
    } else {
      TORCHIR_WINOGRAD_OUTPUT_1D_2(m0, m1, m2, m3, y0, y1)
      StoreOutput(d, y0, b, residual, at, to, activate);
      if (cols > 1) StoreOutput(d, y1, b, residual, at + residual_stride, to + cout, activate);
    }
  }
}

template <size_t kTile>
void OutputBlock(const WinogradBlock& block) {
  const Convolution2dShape& s = *block.shape;
  const size_t cout = s.output_channels;
  const size_t row_floats = block.output_width * cout;
  const Epilogue& e = block.epilogue;
  ActivationParams activate{
      e.activation, e.activation == Activation::kClamp ? e.min : 0.0f,
      e.activation == Activation::kClamp ? e.max : std::numeric_limits<float>::infinity()};
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  for (size_t t = 0; t < block.tiles; ++t) {
    const size_t tile = block.first_tile + t;
    const size_t tx = tile % block.tiles_w;
    const size_t ty = (tile / block.tiles_w) % block.tiles_h;
    const size_t image = tile / block.tiles_w / block.tiles_h;
    const size_t oy0 = ty * kTile, ox0 = tx * kTile;
    const size_t rows = block.output_height - oy0 < kTile ? block.output_height - oy0 : kTile;
    const size_t cols = block.output_width - ox0 < kTile ? block.output_width - ox0 : kTile;
    const size_t pixel = (image * block.output_height + oy0) * block.output_width + ox0;
    float* out = block.output + pixel * cout;
    const float* residual =
        e.residual != nullptr ? e.residual + pixel * e.residual_stride : nullptr;
    const float* m = block.m + t * (block.k_end - block.k_begin);
    size_t k = block.k_begin;
    for (; k + lanes <= block.k_end; k += lanes) {
      OutputTile<kTile>(d, m, block.m_matrix_floats, k - block.k_begin, k, block.bias, residual,
                        e.residual_stride, block.output_width * e.residual_stride, out, cout,
                        row_floats, rows, cols, activate);
    }
    for (; k < block.k_end; ++k) {
      OutputTile<kTile>(d1, m, block.m_matrix_floats, k - block.k_begin, k, block.bias, residual,
                        e.residual_stride, block.output_width * e.residual_stride, out, cout,
                        row_floats, rows, cols, activate);
    }
  }
}

}  // namespace

void WinogradOutputForTarget(const WinogradBlock& block) {
  ForTile(block, [&](auto tile) { OutputBlock<decltype(tile)::value>(block); });
}

namespace {

// kRows tiles of one group's block for output channels [co, co + Lanes(d)): kRows rows of V
// (v_stride floats apart, the group's cg channels each) times U's cg x kg block (rows kg floats
// apart), into kRows rows of M (m_stride apart). The accumulators are named variables, so they
// stay in registers (gemm_micro_kernel-inl.h).
template <size_t kRows, class D>
HWY_INLINE void GroupRows(D d, const float* HWY_RESTRICT v, size_t v_stride,
                          const float* HWY_RESTRICT u, size_t cg, size_t kg, float* HWY_RESTRICT m,
                          size_t m_stride) {
  static_assert(kRows >= 1 && kRows <= 8, "one to eight rows");
  using V = hn::Vec<D>;
  V a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  V a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
  for (size_t ci = 0; ci < cg; ++ci) {
    const V w = hn::LoadU(d, u + ci * kg);
    const float* x = v + ci;
    a0 = hn::MulAdd(hn::Set(d, x[0]), w, a0);
    if constexpr (kRows > 1) a1 = hn::MulAdd(hn::Set(d, x[v_stride]), w, a1);
    if constexpr (kRows > 2) a2 = hn::MulAdd(hn::Set(d, x[2 * v_stride]), w, a2);
    if constexpr (kRows > 3) a3 = hn::MulAdd(hn::Set(d, x[3 * v_stride]), w, a3);
    if constexpr (kRows > 4) a4 = hn::MulAdd(hn::Set(d, x[4 * v_stride]), w, a4);
    if constexpr (kRows > 5) a5 = hn::MulAdd(hn::Set(d, x[5 * v_stride]), w, a5);
    if constexpr (kRows > 6) a6 = hn::MulAdd(hn::Set(d, x[6 * v_stride]), w, a6);
    if constexpr (kRows > 7) a7 = hn::MulAdd(hn::Set(d, x[7 * v_stride]), w, a7);
  }
  hn::StoreU(a0, d, m);
  if constexpr (kRows > 1) hn::StoreU(a1, d, m + m_stride);
  if constexpr (kRows > 2) hn::StoreU(a2, d, m + 2 * m_stride);
  if constexpr (kRows > 3) hn::StoreU(a3, d, m + 3 * m_stride);
  if constexpr (kRows > 4) hn::StoreU(a4, d, m + 4 * m_stride);
  if constexpr (kRows > 5) hn::StoreU(a5, d, m + 5 * m_stride);
  if constexpr (kRows > 6) hn::StoreU(a6, d, m + 6 * m_stride);
  if constexpr (kRows > 7) hn::StoreU(a7, d, m + 7 * m_stride);
}

// Every tile of the block for one group's output channels [co, co + Lanes(d)).
template <class D>
HWY_INLINE void GroupColumn(D d, const float* v, size_t v_stride, const float* u, size_t cg,
                            size_t kg, float* m, size_t m_stride, size_t tiles) {
  size_t t = 0;
  for (; t + 8 <= tiles; t += 8) {
    GroupRows<8>(d, v + t * v_stride, v_stride, u, cg, kg, m + t * m_stride, m_stride);
  }
  // The last 1-7 tiles by the kernel of that many rows.
  using Rows = void (*)(D, const float*, size_t, const float*, size_t, size_t, float*, size_t);
  static constexpr Rows kRest[8] = {nullptr,          &GroupRows<1, D>, &GroupRows<2, D>,
                                    &GroupRows<3, D>, &GroupRows<4, D>, &GroupRows<5, D>,
                                    &GroupRows<6, D>, &GroupRows<7, D>};
  if (t < tiles) {
    kRest[tiles - t](d, v + t * v_stride, v_stride, u, cg, kg, m + t * m_stride, m_stride);
  }
}

}  // namespace

void WinogradGroupProductsForTarget(const WinogradGroupProducts& p) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const size_t lanes = hn::Lanes(d);
  for (size_t xi = 0; xi < p.matrices; ++xi) {
    const float* v = p.v + xi * p.v_matrix_floats;
    float* m = p.m + xi * p.m_matrix_floats;
    const float* u = p.u + xi * p.u_matrix_floats;
    if (p.next_u != nullptr) {
      const char* next = reinterpret_cast<const char*>(p.next_u + xi * p.u_matrix_floats);
      for (size_t byte = 0; byte < p.cg * p.kg * sizeof(float); byte += 64) {
        __builtin_prefetch(next + byte, 0, 2);
      }
    }
    size_t co = 0;
    for (; co + lanes <= p.kg; co += lanes) {
      GroupColumn(d, v, p.cg, u + co, p.cg, p.kg, m + co, p.kg, p.tiles);
    }
    for (; co < p.kg; ++co) GroupColumn(d1, v, p.cg, u + co, p.cg, p.kg, m + co, p.kg, p.tiles);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(WinogradInputForTarget);
HWY_EXPORT(WinogradOutputForTarget);
HWY_EXPORT(WinogradGroupProductsForTarget);

namespace {

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

struct WinogradRun {
  const Convolution2dShape* shape;
  const PackedWinograd* weights;
  WinogradBlock whole;  // its first_tile, tiles, v and m are set per block
  size_t tiles_total;
  size_t block;           // tiles per block
  size_t tiles_per_task;  // a multiple of block
  char* scratch;
  size_t slot_bytes;
  size_t v_bytes;  // V and M of a slot, rounded to 64: the GEMM's scratch follows
  size_t gemm_scratch_bytes;
};

// A grouped layer's work items: (block of tiles, group) pairs, the groups of a block one after
// another, each transformed, multiplied and transformed back on its own (its V and M, 36 x T x 16
// floats for RegNet's groups, stay in L1 and L2 where a whole layer's did not). Task t runs items
// [t * items / tasks, (t + 1) * items / tasks) on scratch slot t.
struct GroupedRun {
  const WinogradRun* run;
  size_t blocks, tasks;
};

void RunGroupItems(const WinogradRun& run, size_t begin, size_t end, size_t slot) {
  const size_t groups = run.weights->groups;
  const size_t cg = run.shape->input_channels / groups, kg = run.shape->output_channels / groups;
  WinogradBlock block = run.whole;
  block.v = reinterpret_cast<float*>(run.scratch + slot * run.slot_bytes);
  block.v_matrix_floats = WinogradScratchMatrixFloats(run.block, cg);
  block.m = block.v + run.weights->matrices() * block.v_matrix_floats;
  block.m_matrix_floats = WinogradScratchMatrixFloats(run.block, kg);
  for (size_t item = begin; item < end; ++item) {
    const size_t b = item / groups, g = item % groups;
    block.first_tile = b * run.block;
    block.tiles = run.tiles_total - block.first_tile < run.block
                      ? run.tiles_total - block.first_tile
                      : run.block;
    block.c_begin = g * cg;
    block.c_end = block.c_begin + cg;
    block.k_begin = g * kg;
    block.k_end = block.k_begin + kg;
    HWY_DYNAMIC_DISPATCH(WinogradInputForTarget)(block);
    WinogradGroupProducts p;
    p.v = block.v;
    p.v_matrix_floats = block.v_matrix_floats;
    p.m = block.m;
    p.m_matrix_floats = block.m_matrix_floats;
    p.tiles = block.tiles;
    p.cg = cg;
    p.kg = kg;
    p.u = run.weights->data + g * run.weights->matrices() * run.weights->matrix_floats;
    p.u_matrix_floats = run.weights->matrix_floats;
    p.matrices = run.weights->matrices();
    p.next_u = g + 1 < groups ? p.u + p.matrices * p.u_matrix_floats : nullptr;
    HWY_DYNAMIC_DISPATCH(WinogradGroupProductsForTarget)(p);
    HWY_DYNAMIC_DISPATCH(WinogradOutputForTarget)(block);
  }
}

void GroupedTask(void* context, size_t task) {
  const GroupedRun& grouped = *static_cast<const GroupedRun*>(context);
  const size_t items = grouped.blocks * grouped.run->weights->groups;
  RunGroupItems(*grouped.run, items * task / grouped.tasks, items * (task + 1) / grouped.tasks,
                task);
}

// Tiles [begin, end) in blocks, on scratch slot `slot`.
void RunTiles(const WinogradRun& run, size_t begin, size_t end, size_t slot) {
  char* base = run.scratch + slot * run.slot_bytes;
  const size_t cin = run.shape->input_channels, cout = run.shape->output_channels;
  WinogradBlock block = run.whole;
  block.v = reinterpret_cast<float*>(base);
  block.v_matrix_floats = WinogradScratchMatrixFloats(run.block, cin);
  block.m = block.v + run.weights->matrices() * block.v_matrix_floats;
  block.m_matrix_floats = WinogradScratchMatrixFloats(run.block, cout);
  float* gemm_scratch = reinterpret_cast<float*>(base + run.v_bytes);
  for (size_t t0 = begin; t0 < end; t0 += run.block) {
    block.first_tile = t0;
    block.tiles = end - t0 < run.block ? end - t0 : run.block;
    HWY_DYNAMIC_DISPATCH(WinogradInputForTarget)(block);
    for (size_t xi = 0; xi < run.weights->matrices(); ++xi) {
      const PackedB b = run.weights->Matrix(xi);
      // The next matrix, or after the last the first again when another block follows.
      const bool last = xi + 1 == run.weights->matrices();
      const PackedB then = run.weights->Matrix(last ? 0 : xi + 1);
      GemmCall call{};
      call.then_b = !last || t0 + block.tiles < end ? &then : nullptr;
      call.fetch_c = true;
      call.m = block.tiles;
      call.a = block.v + xi * block.v_matrix_floats;
      call.lda = cin;
      call.b = &b;
      call.c = block.m + xi * block.m_matrix_floats;
      call.ldc = cout;
      call.scratch = gemm_scratch;
      // Checked by WinogradConvolution2d: the layout is this CPU's, the scratch is enough.
      (void)RunGemm(call, run.gemm_scratch_bytes, nullptr);
    }
    HWY_DYNAMIC_DISPATCH(WinogradOutputForTarget)(block);
  }
}

void RunTask(void* context, size_t task) {
  const WinogradRun& run = *static_cast<const WinogradRun*>(context);
  const size_t begin = task * run.tiles_per_task;
  const size_t end =
      run.tiles_total - begin < run.tiles_per_task ? run.tiles_total : begin + run.tiles_per_task;
  RunTiles(run, begin, end, task);
}

// One block holding every tile, its work shared by `tasks` tasks in three phases (the pool
// returns between them): the input transform by tiles, the 36 GEMMs by matrices (task t on GEMM
// scratch slot t), the output transform by tiles.
struct SharedBlock {
  const WinogradRun* run;
  WinogradBlock block;  // every tile
  size_t tasks;
  float* gemm_scratch;  // slot t at t * gemm_scratch_bytes
};

// Task `task`'s share [begin, end) of `count` items.
void Share(size_t count, size_t tasks, size_t task, size_t* begin, size_t* end) {
  *begin = count * task / tasks;
  *end = count * (task + 1) / tasks;
}

// The part of the block with tiles [begin, end): V and M rows begin.. of every matrix.
WinogradBlock Part(const WinogradBlock& block, size_t begin, size_t end, size_t cin, size_t cout) {
  WinogradBlock part = block;
  part.first_tile = block.first_tile + begin;
  part.tiles = end - begin;
  part.v = block.v + begin * cin;
  part.m = block.m + begin * cout;
  return part;
}

void SharedInputTask(void* context, size_t task) {
  const SharedBlock& shared = *static_cast<const SharedBlock*>(context);
  size_t begin, end;
  Share(shared.block.tiles, shared.tasks, task, &begin, &end);
  if (begin == end) return;
  HWY_DYNAMIC_DISPATCH(WinogradInputForTarget)
  (Part(shared.block, begin, end, shared.run->shape->input_channels,
        shared.run->shape->output_channels));
}

void SharedGemmTask(void* context, size_t task) {
  const SharedBlock& shared = *static_cast<const SharedBlock*>(context);
  const WinogradRun& run = *shared.run;
  size_t begin, end;
  Share(run.weights->matrices(), shared.tasks, task, &begin, &end);
  for (size_t xi = begin; xi < end; ++xi) {
    const PackedB b = run.weights->Matrix(xi);
    const PackedB then = run.weights->Matrix(xi + 1 < end ? xi + 1 : xi);
    GemmCall call{};
    call.then_b = xi + 1 < end ? &then : nullptr;
    call.fetch_c = true;
    call.m = shared.block.tiles;
    call.a = shared.block.v + xi * shared.block.v_matrix_floats;
    call.lda = run.shape->input_channels;
    call.b = &b;
    call.c = shared.block.m + xi * shared.block.m_matrix_floats;
    call.ldc = run.shape->output_channels;
    call.scratch = shared.gemm_scratch + task * (run.gemm_scratch_bytes / sizeof(float));
    (void)RunGemm(call, run.gemm_scratch_bytes, nullptr);
  }
}

void SharedOutputTask(void* context, size_t task) {
  const SharedBlock& shared = *static_cast<const SharedBlock*>(context);
  size_t begin, end;
  Share(shared.block.tiles, shared.tasks, task, &begin, &end);
  if (begin == end) return;
  HWY_DYNAMIC_DISPATCH(WinogradOutputForTarget)
  (Part(shared.block, begin, end, shared.run->shape->input_channels,
        shared.run->shape->output_channels));
}

}  // namespace

runtime::Error WinogradConvolution2d(const Convolution2dShape& shape, const float* input,
                                     const PackedWinograd& weights, const float* bias,
                                     float* output, const Epilogue& epilogue, void* scratch,
                                     size_t scratch_bytes, pthreadpool_t threadpool) {
  if (!WinogradGroupedApplies(shape, weights.groups) || input == nullptr || output == nullptr ||
      weights.data == nullptr || weights.input_channels != shape.input_channels ||
      weights.output_channels != shape.output_channels) {
    return runtime::Error::kInvalidArgument;
  }
  GemmConfig current;
  if (!GetGemmConfig(CurrentKernelTarget(), &current)) return runtime::Error::kInternal;
  if (weights.config.nr != current.nr || weights.config.kc != current.kc) {
    return runtime::Error::kNotSupported;
  }
  if ((epilogue.activation == Activation::kClamp && !(epilogue.min <= epilogue.max)) ||
      (epilogue.residual != nullptr && epilogue.residual_stride < shape.output_channels)) {
    return runtime::Error::kInvalidArgument;
  }
  const size_t tile = weights.output_tile;
  if (!WinogradTileSupported(tile)) return runtime::Error::kInvalidArgument;
  const size_t threads = threadpool == nullptr ? 1 : pthreadpool_get_threads_count(threadpool);
  const size_t groups = weights.groups;
  if (scratch == nullptr ||
      scratch_bytes < WinogradScratchBytes(current, shape, tile, threads, groups) ||
      reinterpret_cast<uintptr_t>(scratch) % alignof(float) != 0) {
    return runtime::Error::kOutOfMemory;
  }
  WinogradRun run{};
  run.shape = &shape;
  run.weights = &weights;
  run.whole.shape = &shape;
  run.whole.output_tile = tile;
  run.whole.output_height = shape.output_height();
  run.whole.output_width = shape.output_width();
  run.whole.tiles_h = (run.whole.output_height + tile - 1) / tile;
  run.whole.tiles_w = (run.whole.output_width + tile - 1) / tile;
  run.whole.c_begin = 0;
  run.whole.c_end = shape.input_channels;
  run.whole.k_begin = 0;
  run.whole.k_end = shape.output_channels;
  run.whole.input = input;
  run.whole.bias = bias;
  run.whole.output = output;
  run.whole.epilogue = epilogue;
  run.tiles_total = shape.batch * run.whole.tiles_h * run.whole.tiles_w;
  run.block = WinogradTileBlock(current, shape, tile, threads, groups);
  run.scratch = static_cast<char*>(scratch);
  if (groups > 1) {
    // One slot per task: a group's V and M, no GEMM blocks (the block does not depend on the
    // thread count, so one thread's scratch is one slot).
    run.slot_bytes = WinogradScratchBytes(current, shape, tile, 1, groups);
    GroupedRun grouped{&run, (run.tiles_total + run.block - 1) / run.block, 1};
    const size_t items = grouped.blocks * groups;
    grouped.tasks = threads < items ? threads : items;
    if (grouped.tasks <= 1) {
      RunGroupItems(run, 0, items, 0);
    } else {
      pthreadpool_parallelize_1d(threadpool, &GroupedTask, &grouped, grouped.tasks, 0);
    }
    return runtime::Error::kOk;
  }
  run.v_bytes = RoundUp(weights.matrices() *
                            (WinogradScratchMatrixFloats(run.block, shape.input_channels) +
                             WinogradScratchMatrixFloats(run.block, shape.output_channels)) *
                            sizeof(float),
                        64);
  run.gemm_scratch_bytes = RoundUp(GemmScratchBytes(current, run.block, 1), 64);
  run.slot_bytes = run.v_bytes + run.gemm_scratch_bytes;
  if (WinogradSharesMatrices(current, shape, tile, threads)) {
    SharedBlock shared;
    shared.run = &run;
    shared.block = run.whole;
    shared.block.first_tile = 0;
    shared.block.tiles = run.tiles_total;
    shared.block.v = reinterpret_cast<float*>(run.scratch);
    shared.block.v_matrix_floats = WinogradScratchMatrixFloats(run.block, shape.input_channels);
    shared.block.m = shared.block.v + weights.matrices() * shared.block.v_matrix_floats;
    shared.block.m_matrix_floats = WinogradScratchMatrixFloats(run.block, shape.output_channels);
    shared.tasks = threads;
    shared.gemm_scratch = reinterpret_cast<float*>(run.scratch + run.v_bytes);
    pthreadpool_parallelize_1d(threadpool, &SharedInputTask, &shared, threads, 0);
    pthreadpool_parallelize_1d(threadpool, &SharedGemmTask, &shared, threads, 0);
    pthreadpool_parallelize_1d(threadpool, &SharedOutputTask, &shared, threads, 0);
    return runtime::Error::kOk;
  }
  // Whole blocks per task, as evenly as the blocks allow.
  const size_t blocks = (run.tiles_total + run.block - 1) / run.block;
  const size_t tasks_wanted = threads < blocks ? threads : blocks;
  run.tiles_per_task = (blocks + tasks_wanted - 1) / tasks_wanted * run.block;
  const size_t tasks = (run.tiles_total + run.tiles_per_task - 1) / run.tiles_per_task;
  if (tasks <= 1) {
    RunTiles(run, 0, run.tiles_total, 0);
  } else {
    pthreadpool_parallelize_1d(threadpool, &RunTask, &run, tasks, 0);
  }
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
