// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches. Built with the baseline flags only: Highway puts each
// target's instruction-set attributes on its functions itself.
#include "backends/native/gemm.h"

#include <pthreadpool.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "backends/native/gemm_call.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"
// Must follow hwy/highway.h.
#include "backends/native/activation-inl.h"
#include "backends/native/gemm_micro_kernel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {

KernelTarget TargetOfThisCode() { return kThisTarget; }

namespace {

// Copies rows [0, rows) x columns [0, kc) of A into the scratch, row r at r * kKc
// (gemm_micro_kernel-inl.h says why rows rather than k-major panels). With vectors inline, not
// memcpy: rows are short (64 floats in resnet50's 56 x 56 pointwise layers, where a memcpy call
// per row took a tenth of the layer's time).
void PackA(const float* HWY_RESTRICT a, size_t lda, size_t rows, size_t kc,
           float* HWY_RESTRICT panels) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    const float* HWY_RESTRICT src = a + r * lda;
    float* HWY_RESTRICT dst = panels + r * kKc;
    size_t i = 0;
    for (; i + 2 * lanes <= kc; i += 2 * lanes) {
      const auto v0 = hn::LoadU(d, src + i);
      const auto v1 = hn::LoadU(d, src + i + lanes);
      hn::StoreU(v0, d, dst + i);
      hn::StoreU(v1, d, dst + i + lanes);
    }
    if (i + lanes <= kc) {
      hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
      i += lanes;
    }
    for (; i < kc; ++i) dst[i] = src[i];
  }
}

// PackA of rows [m0, m0 + rows) x columns [k0, k0 + kc) of call's A, wherever its rows lie
// (gemm_call.h's StridedRows): one PackA per line.
void PackRows(const GemmCall& call, size_t m0, size_t rows, size_t k0, size_t kc,
              float* HWY_RESTRICT panels) {
  const StridedRows& layout = call.a_rows;
  if (layout.per_line == 0) {
    PackA(call.a + m0 * call.lda + k0, call.lda, rows, kc, panels);
    return;
  }
  for (size_t done = 0; done < rows;) {
    const size_t row = m0 + done, in_line = layout.per_line - row % layout.per_line;
    const size_t count = rows - done < in_line ? rows - done : in_line;
    PackA(call.a + layout.Offset(row, call.lda) + k0, call.lda, count, kc, panels + done * kKc);
    done += count;
  }
}

// Tiles of at least this many rows (and all kNr columns, A packed) fetch the next panel of B
// while they compute (GemmForTarget): with fewer rows a panel serves few FMAs, and the K loop's
// fetch is a larger share of it.
constexpr size_t kPrefetchRows = (kMr + 1) / 2;
constexpr bool Fetches(size_t rows, size_t cols, ARows mode) {
  return cols == kNr && mode != ARows::kStrided && rows >= kPrefetchRows;
}

// The micro-kernel for `rows` (1..kMr) rows, through a table so each row count runs a kernel
// that computes no padding rows; indexed by ARows: [kPacked], [kStrided] (A in place, rows
// args.lda floats apart), [kIndirect] (A by pointer). The packed and indirect full-width kernels
// of kPrefetchRows..kMr rows fetch args.prefetch_rows rows of the next panel (0: none).
using Kernel = void (*)(const TileArgs&, float*, size_t);
using KernelTable = std::array<Kernel, kMr>;
template <size_t kCols, ARows kMode, size_t... kIndex>
constexpr KernelTable MicroKernelTable(std::index_sequence<kIndex...>) {
  return {&MicroKernel<kIndex + 1, kCols, Fetches(kIndex + 1, kCols, kMode), kMode>...};
}
using KernelTables = std::array<KernelTable, 3>;
template <size_t kCols>
constexpr KernelTables MicroKernelTables() {
  return {MicroKernelTable<kCols, ARows::kPacked>(std::make_index_sequence<kMr>()),
          MicroKernelTable<kCols, ARows::kStrided>(std::make_index_sequence<kMr>()),
          MicroKernelTable<kCols, ARows::kIndirect>(std::make_index_sequence<kMr>())};
}
constexpr KernelTables kMicroKernels = MicroKernelTables<kNr>();
// The same on the first half of the panel, for an N edge of at most kNr / 2 columns (N = 16 on
// AVX-512's 32-wide panels would otherwise compute twice the FMAs).
constexpr size_t kHalf = kNr / 2;
constexpr KernelTables kHalfKernels = MicroKernelTables<kHalf>();
// And on 3/4 and 1/4 of it where the micro-kernels have those widths (kQuarterTiles): on AVX-512
// mobilenet_v2's N = 24 projections computed a third more FMAs than they needed, through a tile
// on the stack (Tile below), and ran behind XNNPACK's and oneDNN's (docs/native-kernels.md,
// "Quarter-panel tiles"). Elsewhere the tables name the full and half kernels again (no new
// code), and the edges keep to those.
#if TORCHIR_NATIVE_SIMD
constexpr bool kQuarters = kQuarterTiles;
#else
constexpr bool kQuarters = false;
#endif
constexpr size_t kThreeQuarters = kQuarters ? kNr * 3 / 4 : kNr;
constexpr size_t kQuarter = kQuarters ? kNr / 4 : kHalf;
constexpr KernelTables kThreeQuarterKernels = MicroKernelTables<kThreeQuarters>();
constexpr KernelTables kQuarterKernels = MicroKernelTables<kQuarter>();

// One tile of C: straight into C when it has all kNr columns (or exactly kNr / 2, 3 kNr / 4 or
// kNr / 4: the narrower kernels), else through a tile on the stack so the micro-kernel never
// reads or writes past the N edge (with the narrowest kernel that covers the edge). kMode other
// than kPacked: A is read where it is (GemmForTarget says when), through out-of-line kernels.
template <ARows kMode>
HWY_INLINE void Tile(const TileArgs& args, size_t rows, size_t cols, float* HWY_RESTRICT c,
                     size_t ldc) {
  constexpr size_t kTable = static_cast<size_t>(kMode);
  if (cols == kNr) {
    if constexpr (kMode == ARows::kPacked) {
      if (rows == kMr && args.prefetch != nullptr) {
        MicroKernel<kMr, kNr, true>(args, c, ldc);  // a panel's first tile
        return;
      }
      if (rows == kMr) {
        MicroKernel<kMr>(args, c, ldc);  // the common case, inlined
        return;
      }
    }
    kMicroKernels[kTable][rows - 1](args, c, ldc);
    return;
  }
  // Straight into C: it has those columns.
  if (cols == kHalf) {
    kHalfKernels[kTable][rows - 1](args, c, ldc);
    return;
  }
  if (cols == kThreeQuarters) {
    kThreeQuarterKernels[kTable][rows - 1](args, c, ldc);
    return;
  }
  if (cols == kQuarter) {
    kQuarterKernels[kTable][rows - 1](args, c, ldc);
    return;
  }
  const auto& kernels = cols < kQuarter         ? kQuarterKernels[kTable]
                        : cols < kHalf          ? kHalfKernels[kTable]
                        : cols < kThreeQuarters ? kThreeQuarterKernels[kTable]
                                                : kMicroKernels[kTable];
  alignas(64) float tile[kMr * kNr];
  TileArgs edge = args;
  if (args.accumulate) {
    for (size_t r = 0; r < rows; ++r)
      std::memcpy(tile + r * kNr, c + r * ldc, cols * sizeof(float));
  } else if (args.residual != nullptr) {
    // The residual's columns past N are not there to read: start from a copy in the tile.
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(tile + r * kNr, args.residual + r * args.residual_stride, cols * sizeof(float));
    }
    edge.residual = tile;
    edge.residual_stride = kNr;
  }
  kernels[rows - 1](edge, tile, kNr);
  for (size_t r = 0; r < rows; ++r) std::memcpy(c + r * ldc, tile + r * kNr, cols * sizeof(float));
}

// A is read in place at N <= kInPlaceMaxColumns (gemm_call.h), and, on AVX2 and AVX-512, at any
// N when rows have at most this many floats: with K this short the copy is a larger share of each
// tile's work than the run-time stride costs (Zen 3, AVX2's 6 rows: mobilenet_v2's 16 -> 96
// expansion at 112 x 112 0.95-0.97 of the time, 24 -> 144 0.98-0.99; resnet50's 64 -> 256 at
// 56 x 56 0.97-0.98; K = 128 gained 1-2 %, within the noise). AVX-512's 14 rows, once they read
// from two bases without spilling (session 36), gained as much (Zen 4: the same expansions
// 0.93-0.95, 32 -> 192 and regnet_x_400mf's 64 -> 160 0.97-0.98; K = 96 and 128 another 0-2 %,
// mobilenet_v2 level: docs/native-kernels.md, "Short rows read in place on AVX-512"). NEON and
// SSE4 keep the N rule until measured.
constexpr size_t kInPlaceMaxFeatures =
    kThisTarget == KernelTarget::kX86Avx2 || kThisTarget == KernelTarget::kX86Avx512 ? 64 : 0;

// A strided 1x1 convolution's rows (gemm_call.h's StridedRows: lines of per_line rows) of at
// most kKc floats are read where they are on AVX-512, whatever N: resnet50's 256 -> 512 stride-2
// layer at 56 x 56 took 0.977-0.987 of its time over three runs (Zen 4, 1 thread, its rows 2 KiB
// apart within a line). On AVX2 the run-time stride cost more than the copy (1.04-1.05 there,
// regnet_x_400mf's 160 -> 400 1.12): the copy stays (docs/native-kernels.md, "Strided 1x1 rows
// in place on AVX-512").
constexpr bool kStridedLinesInPlace = kThisTarget == KernelTarget::kX86Avx512;

// L2 per core on the x86-64 and arm64 cores we target is 512 KiB-2 MiB: above the smallest, a
// residual comes from L3 or memory, and its K block runs rows first (GemmForTarget).
constexpr size_t kStreamResidualAboveBytes = 512 * 1024;

// A prefetch into L2 of the first line of each 4 KiB page that starts inside [first, first +
// bytes): the next panel's pages, all requested at once before the tiles' row-by-row prefetches
// cross into them one after another. Packed weights are read once per run from a file mapped in
// 4 KiB pages, so their translations are rarely in the TLB; the row prefetches alone left
// resnet50's Winograd GEMMs on 14 x 14 images at 0.91-1.12 ms in the model, against 0.73-0.77
// ms with the weights in 2 MiB pages (docs/native-kernels.md, "The next panel's pages at once").
constexpr uintptr_t kPageBytes = 4096;
HWY_INLINE void FetchPageStarts(const float* first, size_t bytes) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(first);
  for (uintptr_t page = (start + kPageBytes - 1) & ~(kPageBytes - 1); page < start + bytes;
       page += kPageBytes) {
    __builtin_prefetch(reinterpret_cast<const char*>(page), 0, 2);
  }
}

// Packed B of at most this many bytes stays in L2 from one M block to the next (half the
// smallest L2 of GemmForTarget's cores, kStreamResidualAboveBytes): its next panel needs no
// prefetch after the first M block, and the stream can fetch A instead (GemmForTarget).
constexpr size_t kBStaysInL2Bytes = 256 * 1024;

// A prefetch of a tile's `rows` x `cols` floats of a matrix `stride` floats a row, fetched while
// the tile before it computes: into L1 for reading (the residual the next tile starts from), or
// with kForStore into L2 for writing (the lines of C the next tile stores).
template <bool kForStore = false>
HWY_INLINE void FetchTile(const float* first, size_t rows, size_t cols, size_t stride) {
  for (size_t r = 0; r < rows; ++r) {
    const char* row = reinterpret_cast<const char*>(first + r * stride);
    for (size_t byte = 0; byte < cols * sizeof(float); byte += 64) {
      __builtin_prefetch(row + byte, kForStore ? 1 : 0, kForStore ? 2 : 3);
    }
  }
}

// C of more than this many bytes a call (the part of a layer one thread writes) is more than the
// smallest L2 of our cores holds (kStreamResidualAboveBytes): its lines come from L3 or memory
// when a tile stores them, and GemmForTarget fetches each tile's C while the tile before it
// computes. A store waits for its line, and a tile of 14 rows x 32 columns stores 28 lines at
// once. With each layer's data pushed out of the caches between calls (`torchir_ab_layer
// --evict=32`, 1 thread, Zen 4): resnet50's 128 -> 512 layer at 28 x 28 0.90 of its time, its
// 64 -> 256 at 56 x 56 0.93-0.98, mobilenet_v2's 16 -> 96 at 112 x 112 0.81-0.88 and 24 -> 144
// at 56 x 56 0.89; with 8 MiB of other data between calls (theirs still in L3) 0.99-1.00, but
// 24 -> 144 1.01-1.03: a short tile pays for its prefetches (docs/native-kernels.md, "C's lines
// fetched before the tile stores them").
// AVX-512 only: AVX2's tiles of 6 rows x 16 columns store 6 lines, and there the prefetches
// won nothing (the same layers capped at AVX2 on Zen 4: resnet50's 64 -> 256 and mobilenet_v2's
// 16 -> 96 1.01-1.03, within what the same build loaded twice spreads). NEON and SSE4
// unmeasured: off.
constexpr size_t kFetchCAboveBytes = kStreamResidualAboveBytes;
constexpr bool kFetchC = kThisTarget == KernelTarget::kX86Avx512;

// The rows of packed B a panel's tiles fetch for the panel that follows it in memory (the next
// panel, or the next K block's first), `rows` of them, each tile that fetches taking the next
// `share` (TileArgs::prefetch).
struct NextPanel {
  const float* panel = nullptr;
  size_t rows = 0;
  size_t share = 0;
  size_t fetched = 0;
  void Take(const float** first, size_t* count) {
    if (fetched >= rows) return;
    *first = panel + fetched * kNr;
    *count = rows - fetched < share ? rows - fetched : share;
    fetched += *count;
  }
};
// What follows `panel` (of `rows` rows) in packed B (`floats` floats from `data`): as many rows
// when they lie inside it, else none.
HWY_INLINE NextPanel NextAfter(const float* panel, size_t rows, const float* data, size_t floats) {
  NextPanel next;
  next.panel = panel + rows * kNr;
  next.rows = static_cast<size_t>(next.panel - data) + rows * kNr <= floats ? rows : 0;
  return next;
}

// The rows of the tile at row i0 of an mc-row block (gemm_call.h).
HWY_INLINE size_t TileRows(size_t mc, size_t i0) { return TileRowsAt(kMr, mc, i0); }

// The same for the block at row m0 when `per_line` is not 0 and A is read in place: no tile
// crosses the end of a line (StridedRows), where the rows stop being lda floats apart.
HWY_INLINE size_t TileRowsInLines(size_t per_line, size_t m0, size_t mc, size_t i0) {
  if (per_line == 0) return TileRows(mc, i0);
  const size_t in_line = per_line - (m0 + i0) % per_line;
  return TileRowsAt(kMr, mc - i0 < in_line ? mc - i0 : in_line, 0);
}

// Or, when A comes by pointer with a lead tile (LeadTileRows: `lead` rows, images of
// `image_rows`), that tile at the start of each image when the block holds the rest of the image
// after it (the rest then whole tiles).
HWY_INLINE size_t TileRowsWithLead(size_t lead, size_t image_rows, size_t m0, size_t mc,
                                   size_t i0) {
  if (lead != 0 && (m0 + i0) % image_rows == 0 && mc - i0 >= image_rows) return lead;
  return TileRows(mc, i0);
}

// The full-width tiles of an mc-row block at column j0 with A read in place (kStrided, rows
// call.lda floats apart from row m0), when a tile needs nothing but where its A starts: a loop
// of indirect calls. The general loop of GemmForTarget (lambdas, the causal and residual tests,
// the prefetch shares) took about 55 cycles a tile, 3 % of a 64-step tile's time (perf of
// resnet50's 64 -> 256 layer, Zen 4: docs/native-kernels.md, "The tile's end").
void StridedTiles(const GemmCall& call, size_t m0, size_t mc, size_t j0, size_t k0, bool fetch_c,
                  TileArgs* args) {
  args->prefetch = nullptr;
  args->prefetch_rows = 0;
  args->prefetch_after = nullptr;
  args->prefetch_after_rows = 0;
  const KernelTable& kernels = kMicroKernels[static_cast<size_t>(ARows::kStrided)];
  const float* a = call.a + m0 * call.lda + k0;
  float* c = call.c + m0 * call.ldc + j0;
  for (size_t i0 = 0, rows = 0; i0 < mc; i0 += rows) {
    rows = TileRows(mc, i0);
    if (fetch_c && i0 + rows < mc) {
      FetchTile<true>(c + (i0 + rows) * call.ldc, TileRows(mc, i0 + rows), kNr, call.ldc);
    }
    args->a = a + i0 * call.lda;
    kernels[rows - 1](*args, c + i0 * call.ldc, call.ldc);
  }
}

}  // namespace

runtime::Error GemmForTarget(const GemmCall& call) {
  const PackedB& b = *call.b;
  const GemmConfig& config = b.config;
  // The table (gemm_config.cpp) and this target's kernel must agree, or panels are misread.
  if (config.mr != kMr || config.nr != kNr || config.kc != kKc ||
      config.pass_blocks != kPassBlocks || config.mc % kMr != 0 || config.nc % kNr != 0) {
    return runtime::Error::kInternal;
  }
  const size_t m_end = call.m_begin + call.m, n = b.n, k = b.k;
  // Added to the bias when the first K block starts a tile (and nowhere else, which is why C may
  // be the residual itself).
  const float* residual = call.epilogue.residual;
  // A residual larger than L2 comes from L3 or memory, and each tile's FMA chains start from
  // it. Panels first, a tile reads nr floats of each of its rows, a row (ldc floats) apart: the
  // tiles' residual and output lines form page-crossing strides, not the runs the hardware
  // prefetchers follow. The K block that adds it runs rows first instead: each tile over all the
  // panels, whole rows of the residual read and of C written, B's panels from L2 (resnet50's
  // residual 1x1 layers, Zen 4, 1 thread: stage 1 0.95-0.97 of the time, stage 2 0.97-0.98,
  // stage 3 0.99, against the panels first with the next tile's residual prefetched, which had
  // gained them 3-10 % on Zen 3). Without a residual, rows first was slower (B from L2, not L1);
  // mobilenet_v2's and regnet_x_400mf's residuals, 50-400 KB, stay panels first.
  const bool rows_first_residual =
      residual != nullptr && call.causal.kind == CausalSkip::Kind::kNone &&
      call.m * call.epilogue.residual_stride * sizeof(float) > kStreamResidualAboveBytes;
  const size_t n_padded = (n + kNr - 1) / kNr * kNr;
  const float lo = call.epilogue.activation == Activation::kNone
                       ? -std::numeric_limits<float>::infinity()
                   : call.epilogue.activation == Activation::kRelu ? 0.0f
                                                                   : call.epilogue.min;
  const float hi = call.epilogue.activation == Activation::kClamp
                       ? call.epilogue.max
                       : std::numeric_limits<float>::infinity();
  // A zero-padded copy of the bias for the panel at the N edge (and for a missing bias), so the
  // micro-kernel always loads nr floats.
  alignas(64) float edge_bias[kNr];
  TileArgs args{};
  // B's panel at column j0 (of this K block) and its bias, for a panel of `cols` columns.
  // The pass's K blocks (kPassBlocks, or one: pass_kc below): where the first starts in the packed
  // B, its rows and the second's (0: none).
  const float* b_block = nullptr;
  size_t block_kc = 0, after_kc = 0;
  const auto select_panel = [&](size_t j0, size_t cols) {
    args.b = b_block + j0 * block_kc;  // panel j0 / nr of the K block: (j0 / nr) * kc * nr
    // The same columns in the next K block, which starts kc x round_up(N, nr) floats later.
    args.b_after = after_kc != 0 ? b_block + config.kc * n_padded + j0 * after_kc : nullptr;
    if (call.bias != nullptr && cols == kNr) {
      args.bias = call.bias + j0;
    } else {
      for (size_t j = 0; j < kNr; ++j) {
        edge_bias[j] = call.bias != nullptr && j < cols ? call.bias[j0 + j] : 0.0f;
      }
      args.bias = edge_bias;
    }
  };

  // IndirectRowsSource::copies: the table of an M block's pointers into its copy.
  const float* copied_table[kIndirectCopyMaxRows * kIndirectCopyMaxSegments];
  // A by pointer with the rows in the padding named: the first tile of each image may fit them.
  const size_t lead = call.a_indirect != nullptr ? LeadTileRows(kMr, *call.a_indirect) : 0;
  // Rows per M block: as many blocks as mc rows need, their rows shared out evenly in whole
  // tiles, so no block is a remainder of a few rows that streams all of B for them (resnet50's
  // 14 x 14 layers: 196 rows as 66 + 66 + 64, not 96 + 96 + 4, with 1-2 MB of B per block).
  const size_t m_blocks = (call.m + config.mc - 1) / config.mc;
  const size_t block_rows = ((call.m + m_blocks - 1) / m_blocks + kMr - 1) / kMr * kMr;
  // Rows already kKc floats apart (a linear layer with 256 input features on AVX2 and
  // AVX-512) are what the packed kernels read: no copy. Shorter rows are read where they
  // are too when few panels share the copy (N <= kInPlaceMaxColumns: pointwise
  // convolutions with few channels, where the copy took a fifth of the time at N = 16) or
  // when they are short (K <= kInPlaceMaxFeatures, AVX2),
  // by kernels that take their stride at run time. Else rows are packed kKc floats apart,
  // for the packed kernels' constant displacements: a run-time stride costs a few
  // registers, and 3-7 % of the time of a layer with many panels (Zen 4).
  // A by pointer (call.a_indirect: an implicit GEMM's taps where they lie) is neither.
  const bool indirect = call.a_indirect != nullptr;
  const bool plain = call.a_source == nullptr && !indirect;
  const bool as_packed = plain && call.lda == kKc;
  const bool in_place =
      plain && ((call.lda < kKc && (n <= kInPlaceMaxColumns || k <= kInPlaceMaxFeatures)) ||
                (kStridedLinesInPlace && !as_packed && call.a_rows.per_line != 0 && k <= kKc));
  const ARows mode = indirect ? ARows::kIndirect : in_place ? ARows::kStrided : ARows::kPacked;
  const bool copies = indirect && call.a_indirect->copies;
  // Rows kKc floats apart read where they are (as_packed, no line ends: one run of memory) come
  // from L3 or memory the first time, on the first panel of each M block, where a tile waited
  // for them: there each tile's prefetch stream fetches the rows the next tile will read
  // instead of B's next panel, once B stays in L2 (after the first M block, and when small).
  // resnet50's 256 -> 128 layer at 56 x 56 (1 thread, Zen 4), its data pushed out of the caches
  // between calls as a network's other layers push them: 0.88-0.90 of the time (256 -> 64
  // 0.81), 0.98-0.99 with its data in L3 (docs/native-kernels.md, "The next tile's A on the
  // first panel").
  // kFetchCAboveBytes: C's lines fetched a tile ahead of its stores, when C has more than one
  // panel of columns. With one, a tile's rows are one run of memory, which the hardware's
  // prefetchers follow: there the prefetches only cost (mobilenet_v2's 32 -> 16 projection at
  // 112 x 112 1.09 of the time with its data in L3, regnet_x_400mf's 32 -> 32 at 112 x 112
  // 1.035).
  const bool fetch_c =
      kFetchC && n > kNr && (call.fetch_c || call.m * n * sizeof(float) > kFetchCAboveBytes);
  const bool fetch_a_ahead =
      as_packed && call.a_rows.per_line == 0 && k * n_padded * sizeof(float) <= kBStaysInL2Bytes;
  // A pass covers kPassBlocks K blocks (TileArgs::b_after), but one where A by pointer is
  // copied first (the copied runs' table holds one K block's segments).
  const size_t pass_kc = copies ? config.kc : kPassBlocks * config.kc;
  static_assert(kPassBlocks * kKc <= kIndirectMaxPassFloats, "the row tables hold one pass");
  for (size_t n0 = call.n_begin; n0 < call.n_end; n0 += config.nc) {
    const size_t n_end = call.n_end - n0 < config.nc ? call.n_end : n0 + config.nc;
    for (size_t k0 = 0; k0 < k; k0 += pass_kc) {
      const size_t kc = k - k0 < pass_kc ? k - k0 : pass_kc;
      b_block = b.data + k0 * n_padded;
      block_kc = kc < config.kc ? kc : config.kc;
      after_kc = kc - block_kc;
      args.kc = kc;
      args.prefetch = nullptr;
      args.prefetch_rows = 0;
      args.prefetch_after = nullptr;
      args.prefetch_after_rows = 0;
      args.accumulate = k0 != 0;
      args.residual = nullptr;
      args.residual_stride = call.epilogue.residual_stride;
      const bool last_block = k0 + kc == k;
      // Activations other than a clamp run on each panel's block just stored (activation-inl.h).
      const bool after_store = last_block && IsAppliedAfterStore(call.epilogue.activation);
      args.clamp = last_block && (call.epilogue.activation == Activation::kRelu ||
                                  call.epilogue.activation == Activation::kClamp);
      args.lo = lo;
      args.hi = hi;
      for (size_t m0 = call.m_begin; m0 < m_end; m0 += block_rows) {
        const size_t mc = m_end - m0 < block_rows ? m_end - m0 : block_rows;
        // The pointers of the block's rows (the scratch holds no copy of A then): table[s * mc + r]
        // for segment s of the pass and row m0 + r.
        // When the rows are copied first the copy takes the scratch and the table the stack.
        const float** table = copies ? copied_table : reinterpret_cast<const float**>(call.scratch);
        // Read where they are, rows of a strided 1x1 convolution's A are lda floats apart only
        // within a line (gemm_call.h): there tiles stop at the end of each line.
        const bool direct = as_packed || in_place;
        const size_t per_line = direct ? call.a_rows.per_line : 0;
        const auto tile_rows = [&](size_t i0) {
          return lead != 0 ? TileRowsWithLead(lead, call.a_indirect->image_rows, m0, mc, i0)
                           : TileRowsInLines(per_line, m0, mc, i0);
        };
        args.lda = in_place ? call.lda : kKc;
        if (indirect) {
          call.a_indirect->rows(call.a_indirect->context, m0, mc, k0, kc, table, mc,
                                copies ? call.scratch : nullptr, kKc);
          args.rows_stride = mc;
          args.segment_length = call.a_indirect->segment_length;
          args.zeros = kIndirectZeros;
        } else if (call.a_source != nullptr) {
          // A pass's K blocks one after the other, each mc rows of kKc floats (a_after).
          call.a_source->copy(call.a_source->context, m0, mc, k0, block_kc, call.scratch, kKc);
          if (after_kc != 0) {
            call.a_source->copy(call.a_source->context, m0, mc, k0 + kKc, after_kc,
                                call.scratch + mc * kKc, kKc);
          }
        } else if (!direct) {
          PackRows(call, m0, mc, k0, block_kc, call.scratch);
          if (after_kc != 0) PackRows(call, m0, mc, k0 + kKc, after_kc, call.scratch + mc * kKc);
        }
        // Where the tile at row i0 of the block reads A.
        const auto set_tile_a = [&](size_t i0) {
          if (indirect) {
            args.a = nullptr;
            args.rows = table + i0;
          } else {
            args.a = direct ? call.a + call.a_rows.Offset(m0 + i0, call.lda) + k0
                            : call.scratch + i0 * kKc;
            args.a_after = direct ? nullptr : call.scratch + (mc + i0) * kKc;
          }
        };
        const auto run_tile = [&](size_t rows, size_t cols, float* c) {
          if (indirect) {
            Tile<ARows::kIndirect>(args, rows, cols, c, call.ldc);
          } else if (in_place) {
            Tile<ARows::kStrided>(args, rows, cols, c, call.ldc);
          } else {
            Tile<ARows::kPacked>(args, rows, cols, c, call.ldc);
          }
        };
        if (rows_first_residual && k0 == 0) {
          // Rows first (rows_first_residual): each tile across the panels. Each tile starts
          // from its residual, which comes from L3 or memory: the next tile's (the next panel
          // of these rows, or the next rows' first panel) is fetched before this one runs, for
          // short K the tile lasts little longer than the fetch. In resnet50 at 1 thread its
          // three 64 -> 256 residual layers at 56 x 56 took 0.94 of their time (Zen 4; one
          // tile ahead, not two or four: docs/native-kernels.md, "The next tile's residual
          // fetched").
          args.prefetch = nullptr;
          args.prefetch_rows = 0;
          const auto panel_cols = [&](size_t j0) { return n - j0 < kNr ? n - j0 : kNr; };
          for (size_t i0 = 0, rows = 0; i0 < mc; i0 += rows) {
            set_tile_a(i0);
            rows = tile_rows(i0);
            for (size_t j0 = n0; j0 < n_end; j0 += kNr) {
              select_panel(j0, panel_cols(j0));
              args.residual = residual + (m0 + i0) * args.residual_stride + j0;
              // The tile after this one: the next panel of these rows, else the next rows' first.
              const bool same_rows = j0 + kNr < n_end;
              const size_t next_i = same_rows ? i0 : i0 + rows;
              const size_t next_j = same_rows ? j0 + kNr : n0;
              if (next_i < mc) {
                FetchTile(residual + (m0 + next_i) * args.residual_stride + next_j,
                          same_rows ? rows : tile_rows(next_i), panel_cols(next_j),
                          args.residual_stride);
              }
              run_tile(rows, panel_cols(j0), call.c + (m0 + i0) * call.ldc + j0);
            }
            if (after_store) {
              ActivationRows(call.epilogue.activation, call.c + (m0 + i0) * call.ldc + n0, rows,
                             n_end - n0, call.ldc);
            }
          }
          continue;
        }
        // Tiles of at least kPrefetchRows rows in this block (TileRows): the ones that prefetch.
        size_t fetching_tiles = 0;
        for (size_t i0 = 0, rows = 0; i0 < mc; i0 += rows) {
          rows = tile_rows(i0);
          fetching_tiles += Fetches(rows, kNr, mode) ? 1 : 0;
        }
        if (fetching_tiles == 0) fetching_tiles = 1;  // no tile prefetches (share unused)
        for (size_t j0 = n0; j0 < n_end; j0 += kNr) {
          const size_t cols = n - j0 < kNr ? n - j0 : kNr;
          args.kc = kc;
          select_panel(j0, cols);
          // The packed B after this panel in memory (the next panel, or the next K block's
          // first) comes into L2 while this panel computes: with few rows (stage 4 of a ResNet:
          // 49) each panel serves few tiles, and waiting for it from L3 cost a quarter of the
          // time. Only when those kc x kNr floats lie inside B. The block's tiles of at least
          // kPrefetchRows rows fetch a share of its kc rows each: fetched whole by the first tile,
          // weights streamed from memory cost 3-6 % more per layer (Zen 3: resnet50's and
          // regnet_x_400mf's 7 x 7 layers with their weights flushed; regnet_x_400mf 0.95 of the
          // time at 1 thread). Not only full tiles: Winograd's GEMMs on 14 x 14 and 7 x 7 images
          // have 16 rows, two tiles of 8 (TileRows), and fetched nothing. A pass over two K
          // blocks fetches what follows each of its two panels.
          NextPanel first = NextAfter(args.b, block_kc, b.data, k * n_padded);
          NextPanel second =
              after_kc != 0 ? NextAfter(args.b_after, after_kc, b.data, k * n_padded) : NextPanel{};
          NextPanel& last = after_kc != 0 ? second : first;
          if (last.rows == 0 && call.then_b != nullptr && call.then_b->config.nr == kNr &&
              n_end == call.n_end && last_block && m0 + mc == m_end && j0 + kNr >= n_end) {
            // This call's last panel: the next call's first comes while it computes.
            last.panel = call.then_b->data;
            last.rows = call.then_b->k < kKc ? call.then_b->k : kKc;
          }
          for (NextPanel* next : {&first, &second}) {
            if (next->rows != 0) FetchPageStarts(next->panel, next->rows * kNr * sizeof(float));
            next->share = (next->rows + fetching_tiles - 1) / fetching_tiles;
          }
          // Rows read in place with nothing to do per tile but point at A (Fetches() is false
          // for them; no line ends, causal skip or residual to start from): StridedTiles.
          if (mode == ARows::kStrided && per_line == 0 && cols == kNr &&
              call.causal.kind == CausalSkip::Kind::kNone && (residual == nullptr || k0 != 0)) {
            StridedTiles(call, m0, mc, j0, k0, fetch_c, &args);
          } else {
            for (size_t i0 = 0, rows = 0; i0 < mc; i0 += rows) {
              set_tile_a(i0);
              rows = tile_rows(i0);
              args.kc = kc;
              if (call.causal.kind != CausalSkip::Kind::kNone) {
                // The tile's last row needs columns (or has non-zero A) before this one.
                const size_t limit = m0 + i0 + rows + call.causal.offset;
                if (call.causal.kind == CausalSkip::Kind::kColumns && j0 >= limit) continue;
                if (call.causal.kind == CausalSkip::Kind::kDepth) {
                  if (limit <= k0) continue;
                  if (limit - k0 < kc) args.kc = limit - k0;
                }
              }
              args.prefetch = nullptr;
              args.prefetch_rows = 0;
              args.prefetch_after = nullptr;
              args.prefetch_after_rows = 0;
              if (Fetches(rows, cols, mode)) {
                first.Take(&args.prefetch, &args.prefetch_rows);
                second.Take(&args.prefetch_after, &args.prefetch_after_rows);
              }
              if (residual != nullptr && k0 == 0) {
                args.residual = residual + (m0 + i0) * args.residual_stride + j0;
              }
              if (fetch_a_ahead && j0 == n0 && m0 != call.m_begin && Fetches(rows, cols, mode)) {
                // The next tile's rows (fetch_a_ahead), as rows of kNr floats.
                const size_t next = m0 + i0 + rows;
                if (next < m_end) {
                  args.prefetch = call.a + next * call.lda + k0;
                  args.prefetch_rows =
                      std::min((std::min(m_end - next, kMr) * call.lda + kNr - 1) / kNr, kc);
                }
              }
              if (fetch_c) {
                // The tile after this one: the next rows of this panel, else the next panel's
                // first (the next M block's first is left to its own stores).
                const bool same_panel = i0 + rows < mc;
                const size_t next_i = same_panel ? i0 + rows : 0;
                const size_t next_j = same_panel ? j0 : j0 + kNr;
                if (next_j < n_end) {
                  FetchTile<true>(call.c + (m0 + next_i) * call.ldc + next_j, tile_rows(next_i),
                                  std::min(n - next_j, kNr), call.ldc);
                }
              }
              run_tile(rows, cols, call.c + (m0 + i0) * call.ldc + j0);
            }
          }
          if (after_store) {
            // The panel's mc x nr block just stored (at most 112 x 16 floats: in L1), in one
            // call: per tile, the call's setup (the constants of an exp or erf) and too few
            // vectors for the out-of-order core to overlap their chains cost silu twice its
            // time in efficientnet_b0.
            ActivationRows(call.epilogue.activation, call.c + m0 * call.ldc + j0, mc, cols,
                           call.ldc);
          }
        }
      }
    }
  }
  return runtime::Error::kOk;
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(TargetOfThisCode);
HWY_EXPORT(GemmForTarget);

KernelTarget CurrentKernelTarget() { return HWY_DYNAMIC_DISPATCH(TargetOfThisCode)(); }

runtime::Error LimitKernelTarget(KernelTarget widest, KernelTarget* now) {
  // Highway's targets wider than `widest`: within a family a lower bit is a wider target, so every
  // bit below the narrowest Highway target that `widest` stands for (kX86Sse4 covers SSSE3 too).
  int64_t wider = 0;
  switch (widest) {
    case KernelTarget::kPortable:
      wider = HWY_EMU128 - 1;
      break;
#if HWY_ARCH_X86
    case KernelTarget::kX86Sse4:
      wider = HWY_SSE4 - 1;
      break;
    case KernelTarget::kX86Avx2:
      wider = HWY_AVX2 - 1;
      break;
    case KernelTarget::kX86Avx512:
      wider = 0;
      break;
#elif HWY_ARCH_ARM
    case KernelTarget::kArmNeon:
      wider = HWY_NEON - 1;
      break;
#endif
    default:
      return runtime::Error::kNotSupported;  // another family than this CPU's, or no target
  }
  hwy::DisableTargets(wider);
  // Pinned: Highway 1.0.3's SupportedTargets() detects the CPU again and points the dispatch at
  // its best target before it applies DisableTargets' mask to what it returns, so any later call
  // (the convolution benchmark printing its targets) lifted the cap unseen: its native rows ran
  // AVX-512 under --native_isa=avx2. A set given as Highway's mock is not detected again.
  hwy::SetSupportedTargetsForTest(hwy::SupportedTargets());
  if (now != nullptr) *now = CurrentKernelTarget();
  return runtime::Error::kOk;
}

namespace {

// How a call is shared among threads: `tasks` tasks (at most the pool's thread count, one scratch
// slot each, so no two running tasks share a slot whichever thread runs them), each a range of
// rows when there are enough for every thread to run whole mr-row tiles (in whole tiles or
// evenly, whichever ends sooner), else a range of nr-wide panels (M = 1 linear layers, the last
// stage of a CNN).
struct Split {
  size_t tasks = 1;
  bool along_m = true;
  size_t per_task = 0;  // rows (along M) or panels (along N)
};

// Along N every task reads all of A and writes part of every row of C; along M a task reads
// only its rows of A and writes whole rows of C, which a next layer shared the same way along M
// reads from the same core. A tie therefore goes to the rows.
Split PlanSplit(const GemmConfig& config, size_t m, size_t n, size_t threads) {
  Split split;
  split.per_task = m;
  if (threads <= 1) return split;
  const size_t panels = (n + config.nr - 1) / config.nr;
  Split along_n;
  along_n.along_m = false;
  along_n.per_task = (panels + threads - 1) / threads;
  along_n.tasks = (panels + along_n.per_task - 1) / along_n.per_task;
  if (m >= threads * config.mr) {
    Split along_m;
    along_m.per_task = ((m + threads - 1) / threads + config.mr - 1) / config.mr * config.mr;
    along_m.tasks = (m + along_m.per_task - 1) / along_m.per_task;
    // Whole mr-row tiles for every thread; along N instead when that ends sooner: with AVX-512's
    // 14-row tiles, 128 rows on 2 threads are 70 + 58 along M (5 tiles against 4 and a 2-row
    // remainder, which TileRows joins to the fourth as 8 + 8), but 9 tiles and a 2-row remainder
    // each along N.
    const double m_time = TileRowsCost(config.mr, along_m.per_task) * static_cast<double>(panels);
    const double n_time = TileRowsCost(config.mr, m) * static_cast<double>(along_n.per_task);
    Split best = along_m;
    double best_time = m_time;
    if (panels >= threads && n_time < m_time) {
      best = along_n;
      best_time = n_time;
    }
    // Or the rows shared evenly, tiles and all, where whole tiles leave one thread a tile more
    // than another: the 49 rows of a 7 x 7 image are 28 + 21 in whole tiles, 7 panels against
    // 6 and a half along N, but 25 + 24 (14 + 11 and 14 + 10) evenly. When strictly sooner than
    // whole tiles, and at a tie with N: a transformer's 128 rows on AVX-512 (64 + 64 evenly,
    // 4 tiles and 8 rows each, as soon as 9 tiles and 2 rows each along N) and most of a CNN's
    // layers on AVX2 (6-row tiles: resnet50's 784 rows are 392 + 392 evenly, as soon as 130
    // tiles and 4 rows along N). Session 35, Zen 4, 2 threads on cores without a shared L3:
    // encoder_small and gpt_small 0.93-0.95 of their time, resnet50 on the AVX2 kernels 0.91;
    // level on cores that share one (docs/native-kernels.md, "Threads").
    Split even = along_m;
    even.per_task = (m + threads - 1) / threads;
    even.tasks = (m + even.per_task - 1) / even.per_task;
    const double even_time = TileRowsCost(config.mr, even.per_task) * static_cast<double>(panels);
    const bool sooner = even_time < best_time * (1.0 - 1e-9);
    const bool tie_with_n = !best.along_m && even_time < best_time * (1.0 + 1e-9);
    if (even.per_task != along_m.per_task && (sooner || tie_with_n)) best = even;
    return best;
  }
  return panels >= 2 ? along_n : split;
}

// An M block's copy of A: a pass's K blocks (pass_blocks) of kc floats a row.
size_t ScratchFloatsPerSlot(const GemmConfig& config, size_t m) {
  return (m < config.mc ? m : config.mc) * config.kc * config.pass_blocks;
}

struct ParallelGemm {
  GemmCall whole;
  Split split;
  size_t slot_floats;
};

void RunTask(void* context, size_t task) {
  const ParallelGemm& p = *static_cast<const ParallelGemm*>(context);
  GemmCall call = p.whole;
  call.scratch = p.whole.scratch + task * p.slot_floats;
  if (p.split.along_m) {
    call.m_begin = task * p.split.per_task;
    call.m =
        p.whole.m - call.m_begin < p.split.per_task ? p.whole.m - call.m_begin : p.split.per_task;
  } else {
    const size_t nr = call.b->config.nr;
    call.n_begin = task * p.split.per_task * nr;
    const size_t end = call.n_begin + p.split.per_task * nr;
    call.n_end = end < p.whole.n_end ? end : p.whole.n_end;
  }
  // Arguments were checked by RunGemm and every task's share is in range: the result is kOk.
  (void)HWY_DYNAMIC_DISPATCH(GemmForTarget)(call);
}

}  // namespace

size_t GemmScratchBytes(const GemmConfig& config, size_t m, size_t threads) {
  return (threads == 0 ? 1 : threads) * ScratchFloatsPerSlot(config, m) * sizeof(float);
}

runtime::Error RunGemm(const GemmCall& call, size_t scratch_bytes, pthreadpool_t threadpool) {
  const PackedB& b = *call.b;
  GemmConfig current;
  if (!GetGemmConfig(CurrentKernelTarget(), &current)) return runtime::Error::kInternal;
  // The layout is what must match: nr and kc (a program packed for SSE4 runs on NEON).
  if (b.config.nr != current.nr || b.config.kc != current.kc) return runtime::Error::kNotSupported;
  if (call.m == 0) return runtime::Error::kOk;
  const Epilogue& epilogue = call.epilogue;
  const IndirectRowsSource* indirect = call.a_indirect;
  if ((call.a_source == nullptr && indirect == nullptr && (call.a == nullptr || call.lda < b.k)) ||
      (call.a_source != nullptr && (call.a_source->copy == nullptr || indirect != nullptr)) ||
      (indirect != nullptr &&
       (indirect->rows == nullptr || call.a_rows.per_line != 0 ||
        indirect->segment_length < kIndirectMinSegment ||
        indirect->segment_length > kIndirectZeroFloats ||
        (indirect->copies && (current.mc > kIndirectCopyMaxRows ||
                              current.kc / indirect->segment_length > kIndirectCopyMaxSegments)) ||
        current.kc % indirect->segment_length != 0 || b.k % indirect->segment_length != 0 ||
        call.causal.kind != CausalSkip::Kind::kNone)) ||
      (call.a_rows.per_line != 0 && (call.a_source != nullptr || call.a_rows.lines == 0)) ||
      call.c == nullptr || b.data == nullptr || call.ldc < b.n ||
      epilogue.activation > kLastActivation ||
      (epilogue.activation == Activation::kClamp && !(epilogue.min <= epilogue.max)) ||
      (epilogue.residual != nullptr && epilogue.residual_stride < b.n) ||
      (call.causal.kind != CausalSkip::Kind::kNone &&
       (call.causal.kind > CausalSkip::Kind::kDepth || epilogue.activation != Activation::kNone ||
        epilogue.residual != nullptr))) {
    return runtime::Error::kInvalidArgument;
  }
  const size_t threads = threadpool == nullptr ? 1 : pthreadpool_get_threads_count(threadpool);
  if (call.scratch == nullptr || scratch_bytes < GemmScratchBytes(current, call.m, threads) ||
      reinterpret_cast<uintptr_t>(call.scratch) %
              (indirect != nullptr ? alignof(const float*) : alignof(float)) !=
          0) {
    return runtime::Error::kOutOfMemory;
  }
  // The table's mc and nc for this target, with the caller's nr/kc already checked equal.
  PackedB blocked = b;
  blocked.config = current;
  GemmCall whole = call;
  whole.b = &blocked;
  whole.m_begin = 0;
  whole.n_begin = 0;
  whole.n_end = b.n;
  // An offset past every column and every term skips nothing (and cannot overflow the limits).
  if (whole.causal.offset >= b.n + b.k) whole.causal = CausalSkip();
  const Split split = PlanSplit(current, call.m, b.n, threads);
  if (split.tasks == 1) return HWY_DYNAMIC_DISPATCH(GemmForTarget)(whole);
  ParallelGemm parallel{whole, split, ScratchFloatsPerSlot(current, call.m)};
  pthreadpool_parallelize_1d(threadpool, &RunTask, &parallel, split.tasks, 0);
  return runtime::Error::kOk;
}

runtime::Error Gemm(size_t m, const float* a, size_t lda, const PackedB& b, const float* bias,
                    float* c, size_t ldc, const Epilogue& epilogue, void* scratch,
                    size_t scratch_bytes, pthreadpool_t threadpool, const CausalSkip& causal) {
  GemmCall call{};
  call.causal = causal;
  call.m = m;
  call.a = a;
  call.lda = lda;
  call.b = &b;
  call.bias = bias;
  call.c = c;
  call.ldc = ldc;
  call.epilogue = epilogue;
  call.scratch = static_cast<float*>(scratch);
  return RunGemm(call, scratch_bytes, threadpool);
}

}  // namespace torchir::native
#endif  // HWY_ONCE
