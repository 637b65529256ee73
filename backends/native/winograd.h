// Winograd F(4x4, 3x3) and F(2x2, 3x3) convolution over NHWC tensors for 3x3, stride-1,
// dilation-1 layers, ungrouped or grouped (any padding, any height and width): each 4x4 (2x2) block
// of output pixels (a "tile") is computed from the 6x6 (4x4) input pixels under it with 36 (16)
// multiplies per channel pair instead of 144 (36) (docs/native-kernels.md, "Winograd", has the
// matrices and the error bound tested). Below for F(4x4); F(2x2) has 16 matrices of 4x4 tiles.
//
// With interpolation points 0, 1, -1, 2, -2 and infinity (Lavin & Gray's choice for F(4, 3);
// F(2, 3): 0, 1, -1, infinity):
//   U = G g G^T       the 3x3 filter of each (output, input) channel pair as a 6x6 matrix, done
//                     when the program is compiled (PackWinogradWeights): 36 matrices of
//                     C x K (input x output channels), each packed as a GEMM's B;
//   V = B^T d B       each 6x6 input tile as 36 values per channel;
//   M[xi] = V[xi] U[xi] for each of the 36 positions xi: a GEMM [tiles x C] x [C x K];
//   Y = A^T M A       each tile's 6x6 x K values back to 4x4 x K outputs, plus the bias, the
//                     residual and the activation (the epilogue of Convolution2d), cut at the
//                     output's edges.
// Work goes in blocks of tiles (WinogradTileBlock), each a full A block of the GEMM:
//  1. for each block of T tiles (blocks shared among the pool's threads, one scratch slot each):
//  2.   input transform of the block's tiles into V (36 matrices of T x C, in the scratch);
//  3.   36 GEMMs on the packed machinery of gemm.h into M (36 matrices of T x K, in the scratch);
//  4.   output transform with the epilogue, straight into the output.
// Transforms run on Highway's vectors over channels (one lane at a time for the last
// C mod lanes), dispatched to the CPU's best target like the GEMM. A grouped layer's matrices are
// block-diagonal: it goes by (block of tiles, group) pairs instead, each with steps 2-4 on that
// group's channels alone and a small kernel of its own for step 3 (WinogradGroupedApplies).
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

#include "backends/native/convolution.h"
#include "backends/native/gemm.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "runtime/core/error.h"

namespace torchir::native {

// The output tiles it computes: F(2x2, 3x3) (2x2 outputs from 4x4 inputs, 16 matrices) and
// F(4x4, 3x3) (4x4 from 6x6, 36 matrices). F(4x4) multiplies 4x fewer than the direct
// convolution, F(2x2) 2.25x fewer with transformed filters 16/9 the size of the plain ones
// (F(4x4): 4x): the choice for small outputs, whose few 4x4 tiles would each read U for few rows.
inline constexpr bool WinogradTileSupported(size_t output_tile) {
  return output_tile == 2 || output_tile == 4;
}
inline constexpr size_t WinogradInputTile(size_t output_tile) { return output_tile + 2; }
inline constexpr size_t WinogradMatrices(size_t output_tile) {
  return WinogradInputTile(output_tile) * WinogradInputTile(output_tile);
}
inline constexpr size_t kWinogradMaxMatrices = 36;

// Tiles of `output_tile` x `output_tile` outputs of this convolution: batch x ceil(OH / tile) x
// ceil(OW / tile).
size_t WinogradTiles(const Convolution2dShape& shape, size_t output_tile);

inline constexpr uint32_t kPackedWinogradMagic = 0x47575254;  // "TRWG" as little-endian bytes
// Version 1: ungrouped (groups 0), matrices as PackedB bodies. Version 2: grouped (groups >= 2):
// each matrix is `groups` blocks of (C / groups) x (K / groups) floats, row-major (no panels: the
// layout is every target's), stored group by group, each group's 16 or 36 blocks together. A
// runtime that knows only version 1 refuses 2.
inline constexpr uint32_t kPackedWinogradVersion = 1;
inline constexpr uint32_t kPackedWinogradGroupedVersion = 2;
inline constexpr size_t kPackedWinogradHeaderBytes = 64;
// Each matrix starts a multiple of this many floats (64 bytes) after the first.
inline constexpr size_t kWinogradMatrixAlignment = 16;

// The header of packed Winograd weights, little-endian; the floats follow at byte 64.
struct PackedWinogradHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t target;  // the KernelTarget it was packed for (informative: nr and kc decide)
  uint32_t nr;
  uint32_t kc;
  uint32_t output_tile;      // 2: F(2x2, 3x3), 4: F(4x4, 3x3)
  uint64_t input_channels;   // C: each matrix's K (rows of B)
  uint64_t output_channels;  // K: each matrix's N (columns of B)
  uint64_t matrix_floats;    // from one matrix's start to the next: C * round_up(K, nr)
                             // (grouped: one block, C / groups * K / groups), rounded up to
                             // kWinogradMatrixAlignment
  uint64_t data_floats;      // matrices (16 or 36) * matrix_floats (grouped: times groups)
  uint32_t groups;           // 0 (version 1) or >= 2 (version 2)
  uint8_t reserved[4];
};
static_assert(sizeof(PackedWinogradHeader) == kPackedWinogradHeaderBytes,
              "the header is part of the format");

// Whether Winograd computes this convolution: a 3x3 kernel, stride 1, dilation 1
// (Convolution2dShape is ungrouped), and a shape CheckConvolution2dShape accepts.
bool WinogradApplies(const Convolution2dShape& shape);

// Whether Winograd computes this convolution with `groups` groups: WinogradApplies, and groups
// divides both channel counts (groups 1: ungrouped). A grouped layer's matrices are
// block-diagonal: each group's (C / groups) x (K / groups) block multiplied by a small kernel
// of its own rather than the GEMM (RegNet's and ResNeXt's 3x3 layers, 8-64 channels a group).
bool WinogradGroupedApplies(const Convolution2dShape& shape, size_t groups);

// Bytes PackWinogradWeights writes (header included); 0 when !WinogradGroupedApplies, for an
// unsupported tile or on overflow.
size_t WinogradPackedWeightsBytes(const GemmConfig& config, const Convolution2dShape& shape,
                                  size_t output_tile, size_t groups = 1);

// The filter transform, host side (when a program is compiled): PyTorch's OIHW 3x3 filter into
// `out` for F(output_tile x output_tile, 3x3). Matrix xi = n i + j (n = output_tile + 2, i along
// y, j along x) holds U[xi][c][k] = (G g[k][c] G^T)[i][j], computed in double and rounded once,
// packed as a PackedB body (packed_weights.h) of C x K for `config`. With groups >= 2 the filter
// is PyTorch's grouped one, [K, C / groups, 3, 3], and group g's block of matrix xi starts at
// (g * n * n + xi) * matrix_floats, U[xi][ci][co] of that group at ci * K / groups + co in it
// (version 2). kInvalidArgument for a
// shape Winograd does not apply to, an unsupported tile or null pointers, kOutOfMemory for a
// short `out`.
runtime::Error PackWinogradWeights(const GemmConfig& config, const Convolution2dShape& shape,
                                   size_t output_tile, const float* oihw_weights, void* out,
                                   size_t out_bytes, size_t groups = 1);

// A view of validated packed Winograd weights.
struct PackedWinograd {
  GemmConfig config;   // the blocking it was packed with
  size_t output_tile;  // 2 or 4
  size_t input_channels;
  size_t output_channels;
  size_t matrix_floats;
  const float* data;
  size_t groups = 1;  // >= 2: block-diagonal matrices (version 2), not PackedB bodies: group g's
                      // block of matrix xi at data + (g * matrices() + xi) * matrix_floats
  size_t matrices() const { return WinogradMatrices(output_tile); }
  // Matrix xi (0..matrices() - 1) as the GEMM's B: C x K (groups 1 only).
  PackedB Matrix(size_t xi) const {
    return PackedB{config, input_channels, output_channels, data + xi * matrix_floats};
  }
};

// Checks the header of `bytes` (magic: kInvalidProgram; version: kUnsupportedVersion; an
// unknown target: kNotSupported; nr/kc not that target's, an output tile other than 2 and 4,
// zero sizes:
// kInvalidProgram; counts that do not follow from the sizes or a short buffer:
// kProgramOutOfBounds; a buffer not aligned for floats: kInvalidProgram) and fills `*view`.
runtime::Error ViewPackedWinograd(const void* bytes, size_t size, PackedWinograd* view);

// Bytes of packed weights of `packed`'s channel counts and tile for another blocking.
size_t RepackedWinogradBytes(const PackedWinograd& packed, const GemmConfig& config);

// Packs `packed` again for `config` into `out` (RepackedWinogradBytes bytes), matrix by matrix
// through `plain` (C x K floats, the caller's): what a runtime does at load when a program was
// packed for another CPU family. Never inside an execute call.
runtime::Error RepackWinogradWeights(const PackedWinograd& packed, const GemmConfig& config,
                                     float* plain, void* out, size_t out_bytes);

// Tiles per block (T above) for `threads` threads and this blocking. One block holds at least mc
// tiles (so each packed U[xi] read by a block's GEMM serves as many rows as a plain GEMM's A
// block: with fewer, the layers with many channels stream their 36 x C x K weights for a
// handful of rows), more when 36 (16) * T * (C + K) floats still fit kWinogradBlockBytes (few
// channels), a multiple of mr. T is all the tiles when they fit one such block; else one
// thread's share when it fits one, or that share cut into equal blocks no larger (196 tiles on
// 2 threads: 4 blocks of 49, not 96 + 96 for one thread and 4 for the other). With groups >= 2:
// as many tiles as keep one group's V and M (36 (16) * T * (C + K) / groups floats) within
// kWinogradBlockBytes, at least 8, cut into equal blocks.
inline constexpr size_t kWinogradBlockBytes = 512 * 1024;
size_t WinogradTileBlock(const GemmConfig& config, const Convolution2dShape& shape,
                         size_t output_tile, size_t threads, size_t groups = 1);

// How `threads` threads share the work: blocks of tiles, or, when every tile fits one block
// (few tiles: resnet18's 28x28 and 14x14 layers), that block's 36 GEMMs (and its transforms by
// tiles), so each thread reads its share of U rather than all of it for a smaller block.
// Never for grouped layers, whose (block, group) pairs are shared among the threads.
bool WinogradSharesMatrices(const GemmConfig& config, const Convolution2dShape& shape,
                            size_t output_tile, size_t threads, size_t groups = 1);

// Floats from one of a block's 36 transformed matrices (rows x columns) to the next in the
// scratch: rounded to 64 bytes, plus 64, so the 36 rows a transform touches per tile do not all
// fall in one L1 set (a multiple of 4 KiB apart they did: the input transform took 28 % of
// resnet18's 56x56 layer, mostly waiting on 4 KiB aliasing).
inline size_t WinogradScratchMatrixFloats(size_t rows, size_t columns) {
  return (rows * columns + 15) / 16 * 16 + 16;
}

// Bytes of scratch WinogradConvolution2d needs with `threads` threads and weights of this
// output tile: per thread, the block's transformed inputs and GEMM results and the GEMM's own
// scratch (grouped: one group's V and M per thread). 0 when !WinogradGroupedApplies or for an
// unsupported tile.
size_t WinogradScratchBytes(const GemmConfig& config, const Convolution2dShape& shape,
                            size_t output_tile, size_t threads, size_t groups = 1);

// What Convolution2d computes, by Winograd F(t x t, 3x3) with t the weights' output tile: output
// (N, OH, OW, K) NHWC = epilogue(conv(input NHWC) + bias), bias K floats or null, epilogue.residual
// NHWC of the output's shape with residual_stride >= K floats (it may be the output itself). The
// shape must satisfy WinogradGroupedApplies with the weights' groups and match their channels
// (else kInvalidArgument);
// weights packed for another layout than this CPU's: kNotSupported; scratch short of
// WinogradScratchBytes for the weights' tile and the pool's thread count: kOutOfMemory. The output
// must not overlap the input or the scratch.
runtime::Error WinogradConvolution2d(const Convolution2dShape& shape, const float* input,
                                     const PackedWinograd& weights, const float* bias,
                                     float* output, const Epilogue& epilogue, void* scratch,
                                     size_t scratch_bytes, pthreadpool_t threadpool = nullptr);

}  // namespace torchir::native
