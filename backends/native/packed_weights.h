// The packed layout of a GEMM's constant right-hand side B (K x N; a linear layer's weight
// transposed, a convolution's filter as im2col columns). Programs will carry it in their constant
// segments, so it is a versioned format; docs/native-kernels.md describes it byte by byte.
//
// Layout (all integers little-endian):
//   bytes [0, 64)  PackedBHeader
//   bytes [64, ..) floats, in K blocks of kc rows (the last one shorter). Inside a K block, the
//                  N panels of nr columns follow one another; inside a panel, row k of the block
//                  is nr consecutive floats (columns past N are zero). So the panel the
//                  micro-kernel reads for (K block p, columns [j*nr, j*nr+nr)) starts at float
//                  p*kc*n_padded + j*kc_p*nr, where kc_p is that block's row count and n_padded
//                  is N rounded up to nr. nr is the target's, or half of it for the filters of
//                  grouped convolutions with narrow groups (gemm_config.h, GroupPanelWidth).
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/native/gemm_config.h"
#include "runtime/core/error.h"

namespace torchir::native {

inline constexpr uint32_t kPackedBMagic = 0x42505254;  // "TRPB" read as little-endian bytes
inline constexpr uint32_t kPackedBVersion = 1;
inline constexpr size_t kPackedBHeaderBytes = 64;
// Panels start at this alignment when the buffer does (the data follows a 64-byte header).
inline constexpr size_t kPackedBAlignment = 64;

struct PackedBHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t target;  // the KernelTarget it was packed for (informative: nr and kc decide)
  uint32_t nr;
  uint32_t kc;
  uint32_t reserved0;
  uint64_t k;
  uint64_t n;
  uint64_t data_floats;  // float count after the header
  uint8_t reserved[16];
};
static_assert(sizeof(PackedBHeader) == kPackedBHeaderBytes, "the header is part of the format");

// Bytes PackB writes for a K x N matrix packed for `config` (header included).
size_t PackedBBytes(const GemmConfig& config, size_t k, size_t n);

// Packs row-major B (K x N, row stride ldb >= n) into `out` (PackedBBytes bytes): weights when a
// program is compiled, and a matrix product's run-time B in its delegate's scratch.
runtime::Error PackB(const GemmConfig& config, size_t k, size_t n, const float* b, size_t ldb,
                     void* out, size_t out_bytes);

// Packs B = bt^T, bt row-major N x K with row stride ldbt >= k, into the same layout: attention's
// k^T packed from k's rows, without a transposing copy first.
runtime::Error PackBTransposed(const GemmConfig& config, size_t k, size_t n, const float* bt,
                               size_t ldbt, void* out, size_t out_bytes);

// A view of validated packed weights.
struct PackedB {
  GemmConfig config;  // the blocking it was packed with
  size_t k;
  size_t n;
  const float* data;
};

// Checks the header of `bytes` (magic, version, known target, nr/kc of that target, sizes) and
// fills `*view`, whose config.nr is the header's (the target's nr, or a grouped filter's narrow
// width: gemm_config.h, GroupPanelWidth). Packed weights come from program files, which are not
// trusted.
runtime::Error ViewPackedB(const void* bytes, size_t size, PackedB* view);

// Writes B back as row-major K x N (row stride ldb >= n) from packed weights: what a runtime
// does, with PackB for its own blocking, when a program's weights were packed for another CPU
// family. Runs at load, never inside an execute call.
runtime::Error UnpackB(const PackedB& b, float* out, size_t ldb);

}  // namespace torchir::native
