// The arguments of one Gemm call (or one thread's share of it) as they cross Highway's dispatch
// table: every target's function must have the same signature, so the struct lives outside the
// per-target namespaces. Internal to backends/native/ (gemm.cpp, convolution.cpp).
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "backends/native/gemm.h"

namespace torchir::native {

// How GemmForTarget cuts a block of `rows` rows into tiles of micro-kernels with `mr` rows: tiles
// of mr, except that a remainder of fewer than FewestTileRows(mr) rows is not left alone: with
// the last full tile it makes mr + 1 to mr + 3 rows, split in two tiles of about half each. A
// tile of r rows has 2 r independent FMA chains (two vectors of B), and below 8 chains it waits
// on the FMA's latency (4 cycles, 2 FMAs a cycle on the cores we target), so it costs as long as
// a tile of kFullChainRows rows: on AVX2, 6 + 2 rows took the time of 6 + 4 and 4 + 4 take 8
// (docs/native-kernels.md). PlanSplit prices a share of rows with the same rule.
inline constexpr size_t kFullChainRows = 4;
constexpr size_t FewestTileRows(size_t mr) { return mr / 2 < 4 ? mr / 2 : 4; }
// The rows of the tile at row `done` of the block.
constexpr size_t TileRowsAt(size_t mr, size_t rows, size_t done) {
  const size_t left = rows - done;
  if (left < mr) return left;
  if (left == mr || left >= mr + FewestTileRows(mr)) return mr;
  return (left + 1) / 2;
}
// The time of the block's tiles in full tiles' time, each costing at least kFullChainRows rows.
constexpr double TileRowsCost(size_t mr, size_t rows) {
  const size_t full = rows / mr, rest = rows % mr;
  const auto cost = [](size_t tile) { return tile < kFullChainRows ? kFullChainRows : tile; };
  size_t row_time = full * mr;
  if (rest != 0 && (full == 0 || rest >= FewestTileRows(mr))) {
    row_time += cost(rest);
  } else if (rest != 0) {
    // The last full tile and the remainder, as two tiles of about half.
    const size_t merged = mr + rest;
    row_time += cost((merged + 1) / 2) + cost(merged / 2) - mr;
  }
  return static_cast<double>(row_time) / static_cast<double>(mr);
}

// Where step 3 of the GEMM gets a block of A from when A is not a plain matrix in memory (a
// convolution's im2col, computed one block at a time). `copy` writes rows [m0, m0 + rows) x
// columns [k0, k0 + kc) of the virtual M x K matrix A into `panels`, row r at r * row_stride
// floats. It runs on the pool's threads, concurrently for disjoint row ranges.
struct ABlockSource {
  void (*copy)(const void* context, size_t m0, size_t rows, size_t k0, size_t kc, float* panels,
               size_t row_stride);
  const void* context;
};

// Or A's rows by pointer, for an implicit GEMM read where its taps lie (ARows::kIndirect
// micro-kernels, no copy): `rows` writes, for rows [m0, m0 + rows) of the virtual M x K matrix A
// and its K range [k0, k0 + kc) (a pass: one K block, or two on AVX-512), one pointer per row and
// segment of segment_length columns: table[s * table_stride + r] is where row m0 + r's columns
// [k0 + s * L, k0 + (s + 1) * L) lie (L = segment_length, which divides the target's kc and K),
// or kIndirectZeros where they are all zero (a tap in the padding). The table lives in the GEMM's
// scratch (GemmForTarget); it runs on the pool's threads like ABlockSource::copy.
// With `copies` the segments that are not zeros are first copied, row r's segment s to
// copy + r * copy_stride + s * L (the scratch, rows kKc floats apart as a packed block), and the
// table points there (then it lives on GemmForTarget's stack: at most kIndirectCopyMaxRows rows
// and kIndirectCopyMaxSegments segments per K block). That is for rows whose taps lie a multiple
// of 4 KiB apart in the input, which read where they lie evict each other from L1, yet whose
// padded taps the kernels skip by pointer (convolution.cpp). Without, copy is null.
// A segment is skipped only when it is padding for every row of a tile; a convolution names the
// rows where that happens (its first and last output rows, where taps fall in the top and bottom
// padding) so GemmForTarget can fit tiles to them: `image_rows` rows per image (0: no hint), of
// which the first `top_rows` and the last `bottom_rows` read padding with some tap.
struct IndirectRowsSource {
  void (*rows)(const void* context, size_t m0, size_t rows, size_t k0, size_t kc,
               const float** table, size_t table_stride, float* copy, size_t copy_stride);
  const void* context;
  size_t segment_length;
  bool copies = false;
  size_t image_rows = 0;
  size_t top_rows = 0;
  size_t bottom_rows = 0;
};

// The rows of the first tile of each image when the call reads A through `source` with tiles of
// `mr` rows, or 0 for tiles as TileRowsAt cuts them. A layer's rows rarely fill whole tiles:
// TileRowsAt leaves the remainder at the end of the block. Put first instead, where it may hold
// just the rows in the top padding, its tile skips their padded taps (a 7 x 7 output with mr =
// 14: tiles of 7 + 14 + 14 + 14 rows, the first one output row that skips a third of its K). Only
// when that skips more tile rows than TileRowsAt's cut, counted over one image.
constexpr size_t LeadTileRows(size_t mr, const IndirectRowsSource& source) {
  const size_t rows = source.image_rows;
  if (rows == 0 || rows <= mr || source.top_rows + source.bottom_rows == 0) return 0;
  const size_t lead = rows % mr;
  if (lead < FewestTileRows(mr) || lead > source.top_rows) return 0;
  // Rows of the image in tiles wholly inside the top or the bottom padded rows.
  const auto skipped = [&](size_t first) {
    size_t count = 0;
    for (size_t done = 0, tile = 0; done < rows; done += tile) {
      tile = done == 0 && first != 0 ? first : TileRowsAt(mr, rows, done);
      const bool top = done + tile <= source.top_rows;
      const bool bottom = done >= rows - (source.bottom_rows < rows ? source.bottom_rows : rows);
      if (top || (source.bottom_rows != 0 && bottom)) count += tile;
    }
    return count;
  };
  return skipped(lead) > skipped(0) ? lead : 0;
}

// The zeros a padding row points at, enough for the longest segment (kc on every target).
inline constexpr size_t kIndirectZeroFloats = 256;
alignas(64) inline constexpr float kIndirectZeros[kIndirectZeroFloats] = {};
// The shortest segment RunGemm takes: a table of mc rows x kc / L pointers must fit the scratch
// meant for an mc x kc block of floats, and shorter runs would cost more pointers than FMAs.
inline constexpr size_t kIndirectMinSegment = 8;
// The longest K range one call of IndirectRowsSource::rows covers: a pass of the GEMM over two
// K blocks on AVX-512 (kPassBlocks in gemm_micro_kernel-inl.h), one elsewhere; every target's kc
// is 256. Its table then has up to this / kIndirectMinSegment segments.
inline constexpr size_t kIndirectMaxPassFloats = 512;
// The table of IndirectRowsSource::copies: every target's mc rows by kc / 32 segments.
inline constexpr size_t kIndirectCopyMaxRows = 128;
inline constexpr size_t kIndirectCopyMaxSegments = 8;

// The widest N for which GemmForTarget reads a plain A in place (rows lda < kc floats apart)
// rather than copying it: the copy's cost, shared by N / nr panels, was measured below the
// in-place kernel's at N <= 64 (mobilenet_v2's and resnet50's pointwise layers on Zen 4,
// docs/native-kernels.md). Convolutions that choose pointers over that copy read it too.
inline constexpr size_t kInPlaceMaxColumns = 64;

// Where the rows of a plain A (not an a_source) lie when they are not lda floats apart
// throughout: a 1x1 convolution with a stride reads output pixel (image, y, x) from input pixel
// (image, y * stride_h, x * stride_w). Rows come in lines of `per_line` (an output row), lda
// floats apart inside a line; a line starts `line_stride` floats after the one before it in its
// image, and an image `image_stride` floats after the one before. per_line == 0: row r is at
// r * lda. GemmForTarget cuts no tile across two lines.
struct StridedRows {
  size_t per_line = 0;
  size_t lines = 0;  // per image
  size_t line_stride = 0;
  size_t image_stride = 0;

  // Floats from row 0 to row r.
  size_t Offset(size_t r, size_t lda) const {
    if (per_line == 0) return r * lda;
    const size_t line = r / per_line;
    return line / lines * image_stride + line % lines * line_stride + r % per_line * lda;
  }
};

struct GemmCall {
  size_t m_begin;  // the rows this call computes: [m_begin, m_begin + m) of A, C and residual
  size_t m;
  const float* a;  // row 0 of A (when a_source is null)
  size_t lda;
  const ABlockSource* a_source;          // null: A is `a` with row stride lda (and a_rows)
  const IndirectRowsSource* a_indirect;  // null, or A by pointer (then a and a_source are unused)
  StridedRows a_rows;                    // per_line 0 but for a strided 1x1 convolution
  const PackedB* b;                      // its config carries this target's mc and nc
  const float* bias;
  float* c;  // row 0 of C
  size_t ldc;
  Epilogue epilogue;  // its residual points at row 0
  float* scratch;     // min(m, mc) * kc floats
  size_t n_begin;     // the columns this call computes: [n_begin, n_end), n_begin a multiple of nr
  size_t n_end;
  CausalSkip causal;  // kNone but for attention (gemm.h)
  // Null, or the packed B the caller multiplies by next, packed with the same nr: while this
  // call's last panel computes, its tiles fetch that B's first panel into L2 as they fetch the
  // next panel of their own B. Winograd's 36 (16) GEMMs pass the next matrix of U, whose first
  // panel otherwise came from memory on demand.
  const PackedB* then_b;
  // Fetch C's lines a tile ahead of the stores whatever C's size (where the target fetches C at
  // all: gemm.cpp, kFetchC), not only above kFetchCAboveBytes: Winograd's GEMMs, each writing a
  // small M matrix, 36 (16) of them a block, into scratch the layer has not touched since its
  // last call. resnet's F(4x4) layers with their data in memory took 0.92-0.98 of their time,
  // in L3 0.90-0.97 (Zen 4; docs/native-kernels.md, "Winograd with its data in memory").
  bool fetch_c;
};

// Checks `call` (whose m_begin is 0 and n range all of N) against the current target, then runs
// it, shared among the pool's threads. `call.scratch` holds scratch_bytes bytes. The one entry
// point of Gemm and the convolutions.
runtime::Error RunGemm(const GemmCall& call, size_t scratch_bytes, pthreadpool_t threadpool);

}  // namespace torchir::native
