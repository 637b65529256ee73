// The packed Winograd filter (its format, the filter transform, validation, repacking) and the
// block and scratch sizes of WinogradConvolution2d: plain C++, no per-target code.
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/native/winograd.h"

namespace torchir::native {
namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// G of F(4, 3) with points 0, 1, -1, 2, -2, infinity: U = G g G^T.
constexpr double kG4[6][3] = {
    {1.0 / 4, 0, 0},
    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
    {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6},
    {0, 0, 1},
};
// G of F(2, 3) with points 0, 1, -1, infinity.
constexpr double kG2[4][3] = {
    {1, 0, 0},
    {0.5, 0.5, 0.5},
    {0.5, -0.5, 0.5},
    {0, 0, 1},
};

// Row i of G for this tile.
const double* GRow(size_t output_tile, size_t i) { return output_tile == 2 ? kG2[i] : kG4[i]; }

// Floats of one packed matrix (C x K for `config`; grouped: one group's C / groups x K / groups
// block of it), rounded to the matrix alignment; 0 on overflow (kept under kMaxSize / 4 / 36 so
// every byte count below fits, groups' blocks included) or for channel counts `groups` does not
// divide.
size_t MatrixFloats(const GemmConfig& config, size_t c, size_t k, size_t groups = 1) {
  const size_t limit = kMaxSize / 4 / kWinogradMaxMatrices / 2;
  if (groups > 1) {
    if (c % groups != 0 || k % groups != 0 || c == 0 || k == 0 || c / groups > limit / k) {
      return 0;
    }
    const size_t block = RoundUp(c / groups * (k / groups), kWinogradMatrixAlignment);
    return block <= limit / groups ? block : 0;  // all groups' blocks of a matrix fit too
  }
  if (config.nr == 0 || k > kMaxSize - config.nr) return 0;
  const size_t k_padded = RoundUp(k, config.nr);
  if (c == 0 || k_padded == 0 || c > limit / k_padded) return 0;
  return RoundUp(c * k_padded, kWinogradMatrixAlignment);
}

void WriteHeader(const GemmConfig& config, size_t output_tile, size_t c, size_t k, void* out,
                 size_t groups = 1) {
  PackedWinogradHeader header{};
  header.magic = kPackedWinogradMagic;
  header.version = groups > 1 ? kPackedWinogradGroupedVersion : kPackedWinogradVersion;
  header.groups = groups > 1 ? static_cast<uint32_t>(groups) : 0;
  header.target = static_cast<uint32_t>(config.target);
  header.nr = static_cast<uint32_t>(config.nr);
  header.kc = static_cast<uint32_t>(config.kc);
  header.output_tile = static_cast<uint32_t>(output_tile);
  header.input_channels = c;
  header.output_channels = k;
  header.matrix_floats = MatrixFloats(config, c, k, groups);
  header.data_floats =
      header.matrix_floats * WinogradMatrices(output_tile) * (groups > 1 ? groups : 1);
  std::memcpy(out, &header, sizeof(header));
}

}  // namespace

bool WinogradApplies(const Convolution2dShape& shape) {
  return shape.kernel_height == 3 && shape.kernel_width == 3 && shape.stride_height == 1 &&
         shape.stride_width == 1 && shape.dilation_height == 1 && shape.dilation_width == 1 &&
         !shape.input_channels_first && CheckConvolution2dShape(shape) == runtime::Error::kOk;
}

size_t WinogradTiles(const Convolution2dShape& shape, size_t output_tile) {
  if (output_tile == 0) return 0;
  const size_t tiles_h = (shape.output_height() + output_tile - 1) / output_tile;
  const size_t tiles_w = (shape.output_width() + output_tile - 1) / output_tile;
  return shape.batch * tiles_h * tiles_w;
}

bool WinogradGroupedApplies(const Convolution2dShape& shape, size_t groups) {
  return groups >= 1 && WinogradApplies(shape) && shape.input_channels % groups == 0 &&
         shape.output_channels % groups == 0;
}

size_t WinogradPackedWeightsBytes(const GemmConfig& config, const Convolution2dShape& shape,
                                  size_t output_tile, size_t groups) {
  if (!WinogradGroupedApplies(shape, groups) || !WinogradTileSupported(output_tile)) return 0;
  const size_t floats = MatrixFloats(config, shape.input_channels, shape.output_channels, groups);
  if (floats == 0) return 0;
  return kPackedWinogradHeaderBytes +
         floats * WinogradMatrices(output_tile) * groups * sizeof(float);
}

runtime::Error PackWinogradWeights(const GemmConfig& config, const Convolution2dShape& shape,
                                   size_t output_tile, const float* oihw_weights, void* out,
                                   size_t out_bytes, size_t groups) {
  const size_t bytes = WinogradPackedWeightsBytes(config, shape, output_tile, groups);
  if (bytes == 0 || oihw_weights == nullptr || out == nullptr || config.kc == 0) {
    return runtime::Error::kInvalidArgument;
  }
  if (out_bytes < bytes) return runtime::Error::kOutOfMemory;
  const size_t c = shape.input_channels, k = shape.output_channels, nr = config.nr;
  const size_t matrix_floats = MatrixFloats(config, c, k, groups);
  const size_t n = WinogradInputTile(output_tile);
  WriteHeader(config, output_tile, c, k, out, groups);
  float* data = reinterpret_cast<float*>(static_cast<char*>(out) + kPackedWinogradHeaderBytes);
  if (groups > 1) {
    // Group g's block of matrix xi at (g * n * n + xi) * matrix_floats: U[g][xi][ci][co] at
    // ci * kg + co in it, so each group's matrices lie together.
    const size_t cg = c / groups, kg = k / groups;
    for (size_t g = 0; g < groups; ++g) {
      for (size_t i = 0; i < n; ++i) {
        const double* gi = GRow(output_tile, i);
        for (size_t j = 0; j < n; ++j) {
          const double* gj = GRow(output_tile, j);
          float* dst = data + (g * n * n + i * n + j) * matrix_floats;
          float* const block_end = dst + matrix_floats;
          for (size_t ci = 0; ci < cg; ++ci) {
            for (size_t co = 0; co < kg; ++co) {
              const float* f = oihw_weights + ((g * kg + co) * cg + ci) * 9;
              double u = 0.0;
              for (size_t a = 0; a < 3; ++a) {
                for (size_t b = 0; b < 3; ++b) u += gi[a] * double{f[a * 3 + b]} * gj[b];
              }
              *dst++ = static_cast<float>(u);
            }
          }
          while (dst < block_end) *dst++ = 0.0f;  // the alignment padding
        }
      }
    }
    return runtime::Error::kOk;
  }
  // Matrix xi is the PackedB body of B[row = ci][column = co] = U[xi][ci][co] (the layout of
  // packed_weights.h: K blocks of kc rows, nr-wide panels, rows of nr floats, zero past K).
  for (size_t i = 0; i < n; ++i) {
    const double* gi = GRow(output_tile, i);
    for (size_t j = 0; j < n; ++j) {
      const double* gj = GRow(output_tile, j);
      float* dst = data + (i * n + j) * matrix_floats;
      float* const matrix_end = dst + matrix_floats;
      for (size_t k0 = 0; k0 < c; k0 += config.kc) {
        const size_t kc = c - k0 < config.kc ? c - k0 : config.kc;
        for (size_t n0 = 0; n0 < k; n0 += nr) {
          const size_t cols = k - n0 < nr ? k - n0 : nr;
          for (size_t ci = k0; ci < k0 + kc; ++ci) {
            for (size_t jj = 0; jj < cols; ++jj) {
              const float* g = oihw_weights + ((n0 + jj) * c + ci) * 9;
              double u = 0.0;
              for (size_t a = 0; a < 3; ++a) {
                for (size_t b = 0; b < 3; ++b) u += gi[a] * double{g[a * 3 + b]} * gj[b];
              }
              dst[jj] = static_cast<float>(u);
            }
            for (size_t jj = cols; jj < nr; ++jj) dst[jj] = 0.0f;
            dst += nr;
          }
        }
      }
      while (dst < matrix_end) *dst++ = 0.0f;  // the alignment padding
    }
  }
  return runtime::Error::kOk;
}

runtime::Error ViewPackedWinograd(const void* bytes, size_t size, PackedWinograd* view) {
  if (bytes == nullptr || size < kPackedWinogradHeaderBytes ||
      reinterpret_cast<uintptr_t>(bytes) % alignof(float) != 0) {
    return runtime::Error::kInvalidProgram;
  }
  PackedWinogradHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  if (header.magic != kPackedWinogradMagic) return runtime::Error::kInvalidProgram;
  if (header.version != kPackedWinogradVersion && header.version != kPackedWinogradGroupedVersion) {
    return runtime::Error::kUnsupportedVersion;
  }
  const bool grouped = header.version == kPackedWinogradGroupedVersion;
  if (grouped ? header.groups < 2 : header.groups != 0) return runtime::Error::kInvalidProgram;
  const size_t groups = grouped ? header.groups : 1;
  GemmConfig config;
  if (!GetGemmConfig(static_cast<KernelTarget>(header.target), &config)) {
    return runtime::Error::kNotSupported;
  }
  if (header.nr != config.nr || header.kc != config.kc ||
      !WinogradTileSupported(header.output_tile) || header.input_channels == 0 ||
      header.output_channels == 0 || header.input_channels > kMaxSize ||
      header.output_channels > kMaxSize) {
    return runtime::Error::kInvalidProgram;
  }
  const size_t c = static_cast<size_t>(header.input_channels);
  const size_t k = static_cast<size_t>(header.output_channels);
  const size_t matrices = WinogradMatrices(header.output_tile);
  const size_t matrix_floats = MatrixFloats(config, c, k, groups);
  if (matrix_floats == 0 || header.matrix_floats != matrix_floats ||
      header.data_floats != matrix_floats * matrices * groups ||
      (size - kPackedWinogradHeaderBytes) / sizeof(float) / matrices / groups < matrix_floats) {
    return runtime::Error::kProgramOutOfBounds;
  }
  view->config = config;
  view->output_tile = header.output_tile;
  view->input_channels = c;
  view->output_channels = k;
  view->matrix_floats = matrix_floats;
  view->groups = groups;
  view->data =
      reinterpret_cast<const float*>(static_cast<const char*>(bytes) + kPackedWinogradHeaderBytes);
  return runtime::Error::kOk;
}

size_t RepackedWinogradBytes(const PackedWinograd& packed, const GemmConfig& config) {
  const size_t floats =
      MatrixFloats(config, packed.input_channels, packed.output_channels, packed.groups);
  if (floats == 0 || !WinogradTileSupported(packed.output_tile)) return 0;
  return kPackedWinogradHeaderBytes + floats * packed.matrices() * packed.groups * sizeof(float);
}

runtime::Error RepackWinogradWeights(const PackedWinograd& packed, const GemmConfig& config,
                                     float* plain, void* out, size_t out_bytes) {
  const size_t bytes = RepackedWinogradBytes(packed, config);
  if (bytes == 0 || plain == nullptr || out == nullptr || packed.data == nullptr) {
    return runtime::Error::kInvalidArgument;
  }
  if (out_bytes < bytes) return runtime::Error::kOutOfMemory;
  const size_t c = packed.input_channels, k = packed.output_channels;
  const size_t matrix_floats = MatrixFloats(config, c, k, packed.groups);
  char* data = static_cast<char*>(out) + kPackedWinogradHeaderBytes;
  if (packed.groups > 1) {
    // Every target reads the grouped blocks as they are: a new header, the same floats.
    WriteHeader(config, packed.output_tile, c, k, out, packed.groups);
    std::memcpy(data, packed.data,
                packed.matrices() * packed.groups * matrix_floats * sizeof(float));
    return runtime::Error::kOk;
  }
  WriteHeader(config, packed.output_tile, c, k, out);
  // Each matrix is a PackedB body: unpack it to C x K, then PackB it for `config` (PackB writes a
  // header first, so it packs into a spot 64 bytes early and the header is written over after).
  for (size_t xi = 0; xi < packed.matrices(); ++xi) {
    const runtime::Error unpacked = UnpackB(packed.Matrix(xi), plain, k);
    if (unpacked != runtime::Error::kOk) return unpacked;
    float* matrix = reinterpret_cast<float*>(data) + xi * matrix_floats;
    char* spot = reinterpret_cast<char*>(matrix) - kPackedBHeaderBytes;
    PackedBHeader saved;  // the 64 bytes PackB's header overwrites: the previous matrix's tail
    std::memcpy(&saved, spot, sizeof(saved));
    const runtime::Error error =
        PackB(config, c, k, plain, k, spot, kPackedBHeaderBytes + matrix_floats * sizeof(float));
    std::memcpy(spot, &saved, sizeof(saved));
    if (error != runtime::Error::kOk) return error;
    const size_t used = c * RoundUp(k, config.nr);
    for (size_t f = used; f < matrix_floats; ++f) matrix[f] = 0.0f;
  }
  WriteHeader(config, packed.output_tile, c, k, out);
  return runtime::Error::kOk;
}

namespace {

// Tiles per block on one thread: at least mc, more when V and M still fit kWinogradBlockBytes.
size_t OneThreadBlock(const GemmConfig& config, const Convolution2dShape& shape,
                      size_t output_tile) {
  const size_t per_tile = WinogradMatrices(output_tile) *
                          (shape.input_channels + shape.output_channels) * sizeof(float);
  size_t block = kWinogradBlockBytes / per_tile;
  if (block > config.mr) block = block / config.mr * config.mr;
  if (block < config.mc) block = config.mc;
  return block;
}

// A grouped layer's tiles per block: as many as keep one group's V and M within
// kWinogradBlockBytes (at least 8, a whole register block of the product), cut into equal blocks.
size_t GroupedTileBlock(const Convolution2dShape& shape, size_t output_tile, size_t groups) {
  const size_t tiles = WinogradTiles(shape, output_tile);
  const size_t per_tile = WinogradMatrices(output_tile) *
                          (shape.input_channels + shape.output_channels) / groups * sizeof(float);
  size_t block = kWinogradBlockBytes / per_tile;
  if (block < 8) block = 8;
  if (tiles <= block) return tiles;
  const size_t blocks = (tiles + block - 1) / block;
  return (tiles + blocks - 1) / blocks;
}

}  // namespace

bool WinogradSharesMatrices(const GemmConfig& config, const Convolution2dShape& shape,
                            size_t output_tile, size_t threads, size_t groups) {
  if (!WinogradApplies(shape) || !WinogradTileSupported(output_tile) || config.mr == 0 ||
      threads <= 1 || groups > 1) {
    return false;
  }
  return WinogradTiles(shape, output_tile) <= OneThreadBlock(config, shape, output_tile);
}

size_t WinogradTileBlock(const GemmConfig& config, const Convolution2dShape& shape,
                         size_t output_tile, size_t threads, size_t groups) {
  if (!WinogradGroupedApplies(shape, groups) || !WinogradTileSupported(output_tile) ||
      config.mr == 0) {
    return 0;
  }
  if (groups > 1) return GroupedTileBlock(shape, output_tile, groups);
  const size_t tiles = WinogradTiles(shape, output_tile);
  const size_t block = OneThreadBlock(config, shape, output_tile);
  if (tiles <= block) return tiles;  // one block, on one thread or shared by matrices
  const size_t share = (tiles + (threads == 0 ? 1 : threads) - 1) / (threads == 0 ? 1 : threads);
  if (share <= block) return share;
  // A share of several blocks: as many equal blocks as it needs, so every thread gets whole
  // blocks of about its share. resnet's 56 x 56 layers (196 tiles, blocks of mc = 96) on 2
  // threads were 96 + 96 for one thread and 4 for the other; at 1 thread 96 + 96 + 4.
  const size_t per_share = (share + block - 1) / block;
  return (share + per_share - 1) / per_share;
}

size_t WinogradScratchBytes(const GemmConfig& config, const Convolution2dShape& shape,
                            size_t output_tile, size_t threads, size_t groups) {
  const size_t block = WinogradTileBlock(config, shape, output_tile, threads, groups);
  if (block == 0) return 0;
  if (threads == 0) threads = 1;
  if (groups > 1) {
    // Per thread, one group's V and M at a time.
    const size_t floats = WinogradMatrices(output_tile) *
                          (WinogradScratchMatrixFloats(block, shape.input_channels / groups) +
                           WinogradScratchMatrixFloats(block, shape.output_channels / groups));
    return threads * RoundUp(floats * sizeof(float), 64);
  }
  // V and M, then the GEMM's scratch, each rounded to 64 bytes: per thread, or V and M once and
  // the GEMM's scratch per thread when the threads share one block's matrices.
  const size_t floats =
      WinogradMatrices(output_tile) * (WinogradScratchMatrixFloats(block, shape.input_channels) +
                                       WinogradScratchMatrixFloats(block, shape.output_channels));
  const size_t v_bytes = RoundUp(floats * sizeof(float), 64);
  const size_t gemm_bytes = RoundUp(GemmScratchBytes(config, block, 1), 64);
  if (WinogradSharesMatrices(config, shape, output_tile, threads)) {
    return v_bytes + threads * gemm_bytes;
  }
  return threads * (v_bytes + gemm_bytes);
}

}  // namespace torchir::native
