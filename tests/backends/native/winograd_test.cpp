#include "backends/native/winograd.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "backends/native/packed_weights.h"
#include "tests/backends/native/convolution_test_support.h"
#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;
using Options = ConvolutionOptions;

// The transform matrices of F(4x4, 3x3) at points 0, 1, -1, 2, -2, infinity, in double: the
// test's own copy, for the error bound and the packed layout.
constexpr double kBT[6][6] = {
    {4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
    {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1},
};
constexpr double kG[6][3] = {
    {1.0 / 4, 0, 0},
    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
    {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6},
    {0, 0, 1},
};
constexpr double kAT[4][6] = {
    {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
// F(2x2, 3x3) at points 0, 1, -1, infinity.
constexpr double kBT2[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kAT2[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

// The matrices of F(tile x tile, 3x3), entry by entry.
double Bt(size_t tile, size_t i, size_t p) { return tile == 2 ? kBT2[i][p] : kBT[i][p]; }
double Gt(size_t tile, size_t i, size_t a) { return tile == 2 ? kG2[i][a] : kG[i][a]; }
double At(size_t tile, size_t r, size_t i) { return tile == 2 ? kAT2[r][i] : kAT[r][i]; }

constexpr size_t kTiles[] = {4, 2};

// 3x3, stride 1, dilation 1, padding (top, left, bottom, right).
Convolution2dShape Shape(size_t batch, size_t height, size_t width, size_t cin, size_t cout,
                         size_t pt, size_t pl, size_t pb, size_t pr) {
  return {batch, height, width, cin, cout, 3, 3, 1, 1, 1, 1, pt, pl, pb, pr};
}

// Packs `weights` (OIHW) for `config` and `tile` into `*packed` and views it.
void PackAndView(const GemmConfig& config, const Convolution2dShape& s, size_t tile,
                 const std::vector<float>& weights, std::vector<float>* packed,
                 PackedWinograd* view, size_t groups = 1) {
  packed->assign(WinogradPackedWeightsBytes(config, s, tile, groups) / sizeof(float), 0.0f);
  ASSERT_FALSE(packed->empty());
  ASSERT_EQ(PackWinogradWeights(config, s, tile, weights.data(), packed->data(),
                                packed->size() * sizeof(float), groups),
            Error::kOk);
  ASSERT_EQ(ViewPackedWinograd(packed->data(), packed->size() * sizeof(float), view), Error::kOk);
  ASSERT_EQ(view->output_tile, tile);
  ASSERT_EQ(view->groups, groups);
}

// The largest |error| seen, relative to u * sum |w x| of the direct convolution (what the docs
// report), over every case of the test binary.
double g_worst_relative_to_direct[2] = {0.0, 0.0};  // F(2x2), F(4x4)

// Runs WinogradConvolution2d on the current target and checks every output element against a
// double-precision direct convolution. The bound (docs/native-kernels.md): to first order, every
// intermediate of the algorithm is bounded by the same expression with each matrix and value
// replaced by its absolute value,
//   mag(y) = sum_c |A^T| (|G| |g_c| |G^T|  .*  |B^T| |d_c| |B|) |A|   (+ |bias| + |residual|),
// and each output passes through at most C - 1 additions of the GEMM, one product, one rounding
// of U, about 6 roundings in each transform (two 1-d passes of up to 3 operations) and the two
// additions of the epilogue: |y - exact| <= (C + 16) u mag. We allow twice that. With `groups`,
// the filter is [K, C / groups, 3, 3] and C above is a group's C / groups.
void ExpectWinogradMatchesReference(const Convolution2dShape& s, const Options& o, uint32_t seed,
                                    size_t tile, size_t groups = 1) {
  SCOPED_TRACE(Describe(s, o) + " F(" + std::to_string(tile) + "x" + std::to_string(tile) +
               ", 3x3), " + std::to_string(groups) + " group(s)");
  const size_t n = WinogradInputTile(tile), nn = n * n;
  ASSERT_TRUE(WinogradApplies(s));
  std::mt19937 rng(seed);
  const size_t h = s.input_height, w = s.input_width;
  const size_t oh = s.output_height(), ow = s.output_width();
  const size_t cin = s.input_channels, cout = s.output_channels;
  ASSERT_TRUE(WinogradGroupedApplies(s, groups));
  const size_t cg = cin / groups, kg = cout / groups;  // a group's input and output channels
  const std::vector<float> input = Random(s.batch * h * w * cin, &rng);
  const std::vector<float> weights = Random(cout * cg * 9, &rng);  // OIHW, I per group
  const std::vector<float> bias = Random(cout, &rng);
  const std::vector<float> residual = Random(s.batch * oh * ow * cout, &rng);

  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  std::vector<float> packed;
  PackedWinograd view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, s, tile, weights, &packed, &view, groups));

  std::vector<float> output(s.batch * oh * ow * cout, 12345.0f);
  Epilogue epilogue = o.epilogue;
  if (o.residual == Options::kSeparate) {
    epilogue.residual = residual.data();
    epilogue.residual_stride = cout;
  } else if (o.residual == Options::kInPlace) {
    output = residual;
    epilogue.residual = output.data();
    epilogue.residual_stride = cout;
  }
  const size_t threads = o.threads == 0 ? 1 : o.threads;
  std::vector<char> scratch(WinogradScratchBytes(config, s, tile, threads, groups));
  pthreadpool_t pool = o.threads == 0 ? nullptr : pthreadpool_create(o.threads);
  const Error error =
      WinogradConvolution2d(s, input.data(), view, o.bias ? bias.data() : nullptr, output.data(),
                            epilogue, scratch.data(), scratch.size(), pool);
  if (pool != nullptr) pthreadpool_destroy(pool);
  ASSERT_EQ(error, Error::kOk);

  // |U| = |G| |g| |G^T| per (co, ci of co's group), n * n values each.
  std::vector<double> abs_u(cout * cg * nn);
  for (size_t co = 0; co < cout; ++co) {
    for (size_t ci = 0; ci < cg; ++ci) {
      const float* g = &weights[(co * cg + ci) * 9];
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
          double sum = 0;
          for (size_t a = 0; a < 3; ++a) {
            for (size_t b = 0; b < 3; ++b) {
              sum +=
                  std::fabs(Gt(tile, i, a)) * std::fabs(g[a * 3 + b]) * std::fabs(Gt(tile, j, b));
            }
          }
          abs_u[(co * cg + ci) * nn + i * n + j] = sum;
        }
      }
    }
  }
  auto in = [&](size_t b, long y, long x, size_t c) -> double {
    if (y < 0 || x < 0 || y >= static_cast<long>(h) || x >= static_cast<long>(w)) return 0.0;
    return input[((b * h + y) * w + x) * cin + c];
  };

  const double u = std::ldexp(1.0, -24);
  const size_t tiles_h = (oh + tile - 1) / tile, tiles_w = (ow + tile - 1) / tile;
  std::vector<double> abs_v(cin * nn);
  size_t failures = 0;
  for (size_t b = 0; b < s.batch; ++b) {
    for (size_t ty = 0; ty < tiles_h; ++ty) {
      for (size_t tx = 0; tx < tiles_w; ++tx) {
        const long iy0 = static_cast<long>(ty * tile) - static_cast<long>(s.padding_top);
        const long ix0 = static_cast<long>(tx * tile) - static_cast<long>(s.padding_left);
        // |V| = |B^T| |d| |B| per channel.
        for (size_t ci = 0; ci < cin; ++ci) {
          for (size_t i = 0; i < n; ++i) {
            for (size_t j = 0; j < n; ++j) {
              double sum = 0;
              for (size_t p = 0; p < n; ++p) {
                for (size_t q = 0; q < n; ++q) {
                  sum +=
                      std::fabs(Bt(tile, i, p)) *
                      std::fabs(in(b, iy0 + static_cast<long>(p), ix0 + static_cast<long>(q), ci)) *
                      std::fabs(Bt(tile, j, q));
                }
              }
              abs_v[ci * nn + i * n + j] = sum;
            }
          }
        }
        for (size_t co = 0; co < cout; ++co) {
          double product[kWinogradMaxMatrices] = {};
          const size_t first = co / kg * cg;  // co's group's first input channel
          for (size_t ci = 0; ci < cg; ++ci) {
            for (size_t e = 0; e < nn; ++e) {
              product[e] += abs_u[(co * cg + ci) * nn + e] * abs_v[(first + ci) * nn + e];
            }
          }
          for (size_t r = 0; r < tile && ty * tile + r < oh; ++r) {
            for (size_t sx = 0; sx < tile && tx * tile + sx < ow; ++sx) {
              const size_t oy = ty * tile + r, ox = tx * tile + sx;
              double magnitude = 0;
              for (size_t i = 0; i < n; ++i) {
                for (size_t j = 0; j < n; ++j) {
                  magnitude +=
                      std::fabs(At(tile, r, i)) * product[i * n + j] * std::fabs(At(tile, sx, j));
                }
              }
              const size_t index = ((b * oh + oy) * ow + ox) * cout + co;
              double exact = o.bias ? bias[co] : 0.0;
              double direct_magnitude = 0;
              double extra = std::fabs(exact);
              if (o.residual != Options::kNone) {
                exact += residual[index];
                extra += std::fabs(residual[index]);
              }
              for (size_t ky = 0; ky < 3; ++ky) {
                for (size_t kx = 0; kx < 3; ++kx) {
                  for (size_t ci = 0; ci < cg; ++ci) {
                    const double p =
                        in(b, static_cast<long>(oy + ky) - static_cast<long>(s.padding_top),
                           static_cast<long>(ox + kx) - static_cast<long>(s.padding_left),
                           first + ci) *
                        weights[(co * cg + ci) * 9 + ky * 3 + kx];
                    exact += p;
                    direct_magnitude += std::fabs(p);
                  }
                }
              }
              double tolerance = 2.0 * (cg + 16) * u * (magnitude + extra) + 1e-30;
              const bool clamp_kind = o.epilogue.activation == Activation::kNone ||
                                      o.epilogue.activation == Activation::kRelu ||
                                      o.epilogue.activation == Activation::kClamp;
              if (!clamp_kind) {
                // The activations' slopes are at most 1.5 (hardswish at 3; GELU 1.13, silu
                // 1.1), plus their approximations (erf, exp: <= 1.5e-7 relative).
                tolerance = 1.5 * tolerance + 4e-7 * (std::fabs(exact) + 1.0);
              }
              exact = ReferenceActivation(exact, o.epilogue);
              const float got = output[index];
              if (!(std::fabs(got - exact) <= tolerance) && ++failures <= 5) {
                ADD_FAILURE() << "y[" << b << "][" << oy << "][" << ox << "][" << co
                              << "] = " << got << ", expected " << exact << " +- " << tolerance;
              }
              // The second, empirical bound (docs/native-kernels.md): against the direct
              // convolution's own magnitude, |y - exact| <= 256 u (sum |w x| + |bias| + |r|).
              // The worst seen over every case is printed at the end (F(4x4) about 86, F(2x2) 7).
              if (clamp_kind) {
                const double direct = u * (direct_magnitude + extra) + 1e-30;
                const double relative = std::fabs(got - exact) / direct;
                double& worst = g_worst_relative_to_direct[tile == 4 ? 1 : 0];
                worst = std::max(worst, relative);
                if (!(relative <= 256.0) && ++failures <= 5) {
                  ADD_FAILURE() << "y[" << b << "][" << oy << "][" << ox << "][" << co
                                << "] = " << got << ", expected " << exact << ": " << relative
                                << " u sum |w x|";
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

class WinogradTest : public PerTargetTest {};

// Odd and even sizes, sizes that are and are not multiples of the tile (output tiles cut at the
// right and bottom edges), an input as small as the kernel, and paddings 0, 1, 2, asymmetric.
TEST_P(WinogradTest, MatchesReferenceForEverySizeAndPadding) {
  struct Size {
    size_t h, w;
  };
  for (size_t tile : kTiles) {
    uint32_t seed = 1;
    for (Size size : {Size{3, 3}, Size{4, 4}, Size{5, 7}, Size{6, 6}, Size{8, 8}, Size{9, 11},
                      Size{13, 4}, Size{17, 17}}) {
      for (size_t pad : {0, 1, 2}) {
        ExpectWinogradMatchesReference(Shape(1, size.h, size.w, 5, 9, pad, pad, pad, pad), {},
                                       seed++, tile);
        if (HasFailure()) return;
      }
      // Asymmetric: none at the top, more at the bottom and right.
      ExpectWinogradMatchesReference(Shape(1, size.h, size.w, 3, 4, 0, 1, 2, 1), {}, seed++, tile);
      if (HasFailure()) return;
    }
  }
}

// Channel counts that are not multiples of any vector width (and one crossing the K block at
// 256), batch 1 and 2, bias or not.
TEST_P(WinogradTest, MatchesReferenceForOddChannelCounts) {
  for (size_t tile : kTiles) {
    uint32_t seed = 100;
    for (size_t cin : {1, 3, 17, 64, 257}) {
      for (size_t cout : {1, 7, 16, 33, 65}) {
        Options options;
        options.bias = seed % 2 == 0;
        ExpectWinogradMatchesReference(Shape(1 + seed % 2, 7, 6, cin, cout, 1, 1, 1, 1), options,
                                       seed, tile);
        ++seed;
        if (HasFailure()) return;
      }
    }
  }
}

// More tiles than one block (WinogradTileBlock), so several blocks and a short last one.
TEST_P(WinogradTest, MatchesReferenceAcrossBlocks) {
  const Convolution2dShape s = Shape(2, 58, 30, 40, 24, 1, 1, 1, 1);
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  for (size_t tile : kTiles) {
    ASSERT_LT(WinogradTileBlock(config, s, tile, 1), WinogradTiles(s, tile));
    ExpectWinogradMatchesReference(s, {}, 200, tile);
  }
}

TEST_P(WinogradTest, AppliesEveryEpilogue) {
  const Convolution2dShape s = Shape(2, 9, 10, 19, 37, 1, 1, 1, 1);
  for (size_t tile : kTiles) {
    uint32_t seed = 400;
    for (const Options& options : EveryEpilogueCase()) {
      ExpectWinogradMatchesReference(s, options, seed++, tile);
      if (HasFailure()) return;
    }
    for (Activation gelu : {Activation::kGelu, Activation::kGeluTanh}) {
      Options options;
      options.epilogue.activation = gelu;
      options.residual = Options::kSeparate;
      ExpectWinogradMatchesReference(s, options, seed++, tile);
    }
  }
}

// Blocks shared between 2 and 3 threads, with a residual in place.
TEST_P(WinogradTest, MatchesReferenceWithThreads) {
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  for (size_t tile : kTiles) {
    for (size_t threads : {2, 3}) {
      Options options;
      options.threads = threads;
      options.epilogue.activation = Activation::kRelu;
      options.residual = Options::kInPlace;
      ExpectWinogradMatchesReference(Shape(2, 13, 15, 24, 40, 1, 1, 1, 1), options, 500 + threads,
                                     tile);
      // One block of every tile, its matrices shared among the threads (F(4x4): 64 tiles of
      // 32 x 32 outputs; F(2x2): 16 tiles of 7 x 7, resnet's stage 4).
      const Convolution2dShape one_block =
          tile == 4 ? Shape(1, 30, 30, 128, 64, 2, 2, 2, 2) : Shape(1, 7, 7, 128, 64, 1, 1, 1, 1);
      EXPECT_TRUE(WinogradSharesMatrices(config, one_block, tile, threads));
      ExpectWinogradMatchesReference(one_block, options, 510 + threads, tile);
      // Fewer tiles than threads.
      ExpectWinogradMatchesReference(Shape(1, 3, 3, 8, 10, 1, 1, 1, 1), options, 520 + threads,
                                     tile);
      // More tiles than one block: blocks of tiles per thread rather than the matrices shared.
      const Convolution2dShape many = Shape(2, 58, 30, 40, 24, 1, 1, 1, 1);
      EXPECT_FALSE(WinogradSharesMatrices(config, many, tile, threads));
      ExpectWinogradMatchesReference(many, options, 530 + threads, tile);
    }
  }
}

// Grouped layers (block-diagonal matrices, version 2 weights): groups of 16 channels as in
// RegNet's layers (a whole vector on AVX-512, two on AVX2), groups narrower and wider than a
// vector, groups with more outputs than inputs, tile counts that leave 1-7 rows after blocks of 8,
// several blocks, threads (blocks per thread and matrices shared), and the epilogues.
TEST_P(WinogradTest, MatchesReferenceForGroupedLayers) {
  struct Case {
    size_t batch, h, w, cin, cout, groups;
  };
  for (size_t tile : kTiles) {
    uint32_t seed = 700;
    for (const Case& c :
         {Case{1, 7, 7, 64, 64, 4}, Case{1, 14, 14, 48, 48, 3}, Case{2, 9, 11, 12, 20, 4},
          Case{1, 5, 6, 6, 6, 2}, Case{1, 8, 8, 40, 40, 10}, Case{1, 13, 3, 66, 33, 3}}) {
      ExpectWinogradMatchesReference(Shape(c.batch, c.h, c.w, c.cin, c.cout, 1, 1, 1, 1), {},
                                     seed++, tile, c.groups);
      if (HasFailure()) return;
    }
    // Several blocks.
    GemmConfig config;
    ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
    const Convolution2dShape many = Shape(2, 58, 30, 32, 32, 1, 1, 1, 1);
    ASSERT_LT(WinogradTileBlock(config, many, tile, 1, 2), WinogradTiles(many, tile));
    EXPECT_FALSE(WinogradSharesMatrices(config, many, tile, 2, 2));
    ExpectWinogradMatchesReference(many, {}, seed++, tile, 2);
    for (size_t threads : {2, 3}) {
      Options options;
      options.threads = threads;
      options.bias = true;
      options.epilogue.activation = Activation::kRelu;
      options.residual = Options::kInPlace;
      ExpectWinogradMatchesReference(Shape(1, 14, 14, 64, 64, 1, 1, 1, 1), options, seed++, tile,
                                     4);
      ExpectWinogradMatchesReference(many, options, seed++, tile, 2);
    }
    for (const Options& options : EveryEpilogueCase()) {
      ExpectWinogradMatchesReference(Shape(1, 6, 9, 32, 32, 1, 1, 1, 1), options, seed++, tile, 2);
      if (HasFailure()) return;
    }
  }
}

// Grouped weights: version 2 with the group count, every target's layout (a repack copies them),
// and refused for a group count that does not divide the channels or a header that lies.
TEST_P(WinogradTest, GroupedWeightsAreVersion2) {
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  const Convolution2dShape s = Shape(1, 8, 8, 32, 48, 1, 1, 1, 1);
  std::mt19937 rng(9);
  const std::vector<float> weights = Random(48 * 8 * 9, &rng);
  std::vector<float> packed;
  PackedWinograd view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, s, 4, weights, &packed, &view, 4));
  PackedWinogradHeader header;
  std::memcpy(&header, packed.data(), sizeof(header));
  EXPECT_EQ(header.version, kPackedWinogradGroupedVersion);
  EXPECT_EQ(header.groups, 4u);
  // 4 groups of 36 blocks of 8 x 12 floats (a multiple of 16: no padding).
  EXPECT_EQ(header.matrix_floats, 8u * 12u);
  EXPECT_EQ(header.data_floats, 4u * 36u * 8u * 12u);
  // Ungrouped weights keep version 1 and groups 0, as before groups existed.
  std::vector<float> plain;
  PackedWinograd plain_view;
  ASSERT_NO_FATAL_FAILURE(
      PackAndView(config, s, 4, Random(48 * 32 * 9, &rng), &plain, &plain_view));
  PackedWinogradHeader plain_header;
  std::memcpy(&plain_header, plain.data(), sizeof(plain_header));
  EXPECT_EQ(plain_header.version, kPackedWinogradVersion);
  EXPECT_EQ(plain_header.groups, 0u);

  for (KernelTarget target : {KernelTarget::kPortable, KernelTarget::kX86Avx2,
                              KernelTarget::kX86Avx512, KernelTarget::kArmNeon}) {
    GemmConfig other;
    ASSERT_TRUE(GetGemmConfig(target, &other));
    std::vector<float> repacked(RepackedWinogradBytes(view, other) / sizeof(float));
    ASSERT_EQ(repacked.size(), packed.size());
    std::vector<float> unused(48 * 32);
    ASSERT_EQ(RepackWinogradWeights(view, other, unused.data(), repacked.data(),
                                    repacked.size() * sizeof(float)),
              Error::kOk);
    PackedWinograd again;
    ASSERT_EQ(ViewPackedWinograd(repacked.data(), repacked.size() * sizeof(float), &again),
              Error::kOk);
    EXPECT_EQ(again.groups, 4u);
    EXPECT_EQ(again.config.target, target);
    EXPECT_EQ(std::memcmp(again.data, view.data, 4 * 36 * view.matrix_floats * sizeof(float)), 0);
  }

  // Groups that do not divide the channels.
  EXPECT_FALSE(WinogradGroupedApplies(s, 5));
  EXPECT_EQ(WinogradPackedWeightsBytes(config, s, 4, 5), 0u);
  EXPECT_EQ(PackWinogradWeights(config, s, 4, weights.data(), packed.data(),
                                packed.size() * sizeof(float), 5),
            Error::kInvalidArgument);
  // Headers that lie: a version 2 without groups, a version 1 with them, another group count
  // (the matrix size no longer follows).
  const auto view_with = [&](uint32_t version, uint32_t groups) {
    std::vector<float> copy = packed;
    PackedWinogradHeader h = header;
    h.version = version;
    h.groups = groups;
    std::memcpy(copy.data(), &h, sizeof(h));
    PackedWinograd v;
    return ViewPackedWinograd(copy.data(), copy.size() * sizeof(float), &v);
  };
  EXPECT_EQ(view_with(kPackedWinogradGroupedVersion, 4), Error::kOk);
  EXPECT_EQ(view_with(kPackedWinogradGroupedVersion, 0), Error::kInvalidProgram);
  EXPECT_EQ(view_with(kPackedWinogradGroupedVersion, 1), Error::kInvalidProgram);
  EXPECT_EQ(view_with(kPackedWinogradVersion, 4), Error::kInvalidProgram);
  EXPECT_EQ(view_with(kPackedWinogradGroupedVersion, 2), Error::kProgramOutOfBounds);
  EXPECT_EQ(view_with(3, 4), Error::kUnsupportedVersion);
  // The shape's channels are the whole tensors'; weights of 4 groups on a 2-group view refuse.
  std::vector<float> input(8 * 8 * 32), output(8 * 8 * 48);
  std::vector<char> scratch(WinogradScratchBytes(config, s, 4, 1, 4));
  EXPECT_EQ(WinogradConvolution2d(s, input.data(), view, nullptr, output.data(), {}, scratch.data(),
                                  scratch.size()),
            Error::kOk);
  EXPECT_EQ(WinogradConvolution2d(s, input.data(), view, nullptr, output.data(), {}, scratch.data(),
                                  scratch.size() - 1),
            Error::kOutOfMemory);
  Convolution2dShape odd = s;
  odd.input_channels = 30;
  EXPECT_EQ(WinogradConvolution2d(odd, input.data(), view, nullptr, output.data(), {},
                                  scratch.data(), scratch.size()),
            Error::kInvalidArgument);
}

TEST_P(WinogradTest, RefusesWhatItDoesNotCompute) {
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  const Convolution2dShape good = Shape(1, 8, 8, 4, 4, 1, 1, 1, 1);
  const std::vector<float> weights(4 * 4 * 9, 0.5f);
  std::vector<float> packed;
  PackedWinograd view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, good, 4, weights, &packed, &view));
  std::vector<float> input(8 * 8 * 4), output(8 * 8 * 4);
  std::vector<char> scratch(WinogradScratchBytes(config, good, 4, 1));
  EXPECT_EQ(WinogradConvolution2d(good, input.data(), view, nullptr, output.data(), {},
                                  scratch.data(), scratch.size()),
            Error::kOk);
  // Not 3x3 stride 1 dilation 1.
  std::vector<Convolution2dShape> bads(4, good);
  bads[0].stride_height = 2;
  bads[1].dilation_width = 2;
  bads[2].kernel_height = bads[2].kernel_width = 5;
  bads[2].padding_top = bads[2].padding_bottom = 2;
  bads[3].kernel_width = 1;
  for (const Convolution2dShape& bad : bads) {
    EXPECT_FALSE(WinogradApplies(bad));
    EXPECT_EQ(WinogradPackedWeightsBytes(config, bad, 4), 0u);
    EXPECT_EQ(PackWinogradWeights(config, bad, 4, weights.data(), packed.data(),
                                  packed.size() * sizeof(float)),
              Error::kInvalidArgument);
    EXPECT_EQ(WinogradConvolution2d(bad, input.data(), view, nullptr, output.data(), {},
                                    scratch.data(), scratch.size()),
              Error::kInvalidArgument);
  }
  // Tiles other than 2 and 4, in the sizes and in weights whose view says so.
  for (size_t tile : {0, 1, 3, 6}) {
    EXPECT_FALSE(WinogradTileSupported(tile));
    EXPECT_EQ(WinogradPackedWeightsBytes(config, good, tile), 0u);
    EXPECT_EQ(WinogradScratchBytes(config, good, tile, 1), 0u);
    EXPECT_EQ(WinogradTileBlock(config, good, tile, 1), 0u);
    EXPECT_EQ(PackWinogradWeights(config, good, tile, weights.data(), packed.data(),
                                  packed.size() * sizeof(float)),
              Error::kInvalidArgument);
    PackedWinograd odd = view;
    odd.output_tile = tile;
    EXPECT_EQ(WinogradConvolution2d(good, input.data(), odd, nullptr, output.data(), {},
                                    scratch.data(), scratch.size()),
              Error::kInvalidArgument);
  }
  // Scratch sized for F(4x4) is short for F(2x2) here (64 tiles of 2x2 against 4 of 4x4).
  std::vector<float> packed2;
  PackedWinograd view2;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, good, 2, weights, &packed2, &view2));
  ASSERT_GT(WinogradScratchBytes(config, good, 2, 1), scratch.size());
  EXPECT_EQ(WinogradConvolution2d(good, input.data(), view2, nullptr, output.data(), {},
                                  scratch.data(), scratch.size()),
            Error::kOutOfMemory);
  // Other channel counts than the weights'.
  Convolution2dShape other = good;
  other.output_channels = 3;
  EXPECT_EQ(WinogradConvolution2d(other, input.data(), view, nullptr, output.data(), {},
                                  scratch.data(), scratch.size()),
            Error::kInvalidArgument);
  // Null pointers, a short scratch, a bad epilogue.
  EXPECT_EQ(WinogradConvolution2d(good, nullptr, view, nullptr, output.data(), {}, scratch.data(),
                                  scratch.size()),
            Error::kInvalidArgument);
  EXPECT_EQ(WinogradConvolution2d(good, input.data(), view, nullptr, output.data(), {},
                                  scratch.data(), scratch.size() - 1),
            Error::kOutOfMemory);
  Epilogue empty_clamp{Activation::kClamp, 1.0f, 0.0f};
  EXPECT_EQ(WinogradConvolution2d(good, input.data(), view, nullptr, output.data(), empty_clamp,
                                  scratch.data(), scratch.size()),
            Error::kInvalidArgument);
  Epilogue short_residual;
  short_residual.residual = output.data();
  short_residual.residual_stride = 3;
  EXPECT_EQ(WinogradConvolution2d(good, input.data(), view, nullptr, output.data(), short_residual,
                                  scratch.data(), scratch.size()),
            Error::kInvalidArgument);
  // Weights packed for a layout this CPU's kernels do not read.
  GemmConfig other_config;
  ASSERT_TRUE(GetGemmConfig(
      config.target == KernelTarget::kX86Avx512 ? KernelTarget::kX86Avx2 : KernelTarget::kX86Avx512,
      &other_config));
  std::vector<float> foreign;
  PackedWinograd foreign_view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(other_config, good, 4, weights, &foreign, &foreign_view));
  EXPECT_EQ(WinogradConvolution2d(good, input.data(), foreign_view, nullptr, output.data(), {},
                                  scratch.data(), scratch.size()),
            Error::kNotSupported);
}

TORCHIR_INSTANTIATE_PER_TARGET(WinogradTest);

// Matrix xi of the packing is PackB (for that config) of U[xi][ci][co] = (G g G^T)[i][j]
// computed in double and rounded once, byte for byte, for every target's blocking and both
// tiles; C = 300 crosses the K block at 256.
TEST(WinogradWeightsTest, EachMatrixIsPackedBOfTheTransformedFilter) {
  const Convolution2dShape s = Shape(1, 6, 6, 300, 37, 1, 1, 1, 1);
  std::mt19937 rng(7);
  const std::vector<float> weights = Random(37 * 300 * 9, &rng);
  for (KernelTarget target :
       {KernelTarget::kPortable, KernelTarget::kX86Sse4, KernelTarget::kX86Avx2,
        KernelTarget::kX86Avx512, KernelTarget::kArmNeon}) {
    for (size_t tile : kTiles) {
      SCOPED_TRACE(std::string(KernelTargetName(target)) + " F(" + std::to_string(tile) + ")");
      GemmConfig config;
      ASSERT_TRUE(GetGemmConfig(target, &config));
      std::vector<float> packed;
      PackedWinograd view;
      ASSERT_NO_FATAL_FAILURE(PackAndView(config, s, tile, weights, &packed, &view));
      EXPECT_EQ(view.matrix_floats % kWinogradMatrixAlignment, 0u);
      const size_t n = WinogradInputTile(tile);
      EXPECT_EQ(packed.size() * sizeof(float),
                kPackedWinogradHeaderBytes + n * n * view.matrix_floats * sizeof(float));
      std::vector<float> u(300 * 37);
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
          for (size_t ci = 0; ci < 300; ++ci) {
            for (size_t co = 0; co < 37; ++co) {
              double sum = 0;
              for (size_t a = 0; a < 3; ++a) {
                for (size_t b = 0; b < 3; ++b) {
                  sum += Gt(tile, i, a) * double{weights[(co * 300 + ci) * 9 + a * 3 + b]} *
                         Gt(tile, j, b);
                }
              }
              u[ci * 37 + co] = static_cast<float>(sum);
            }
          }
          std::vector<char> expected(PackedBBytes(config, 300, 37));
          ASSERT_EQ(PackB(config, 300, 37, u.data(), 37, expected.data(), expected.size()),
                    Error::kOk);
          const PackedB matrix = view.Matrix(i * n + j);
          ASSERT_EQ(std::memcmp(matrix.data, expected.data() + kPackedBHeaderBytes,
                                expected.size() - kPackedBHeaderBytes),
                    0)
              << "matrix " << i * n + j;
        }
      }
    }
  }
}

// Repacking for another family gives the bytes packing for it directly would.
TEST(WinogradWeightsTest, RepacksForAnotherBlocking) {
  const Convolution2dShape s = Shape(1, 6, 6, 270, 45, 1, 1, 1, 1);
  std::mt19937 rng(8);
  const std::vector<float> weights = Random(45 * 270 * 9, &rng);
  for (size_t tile : kTiles) {
    for (KernelTarget from : {KernelTarget::kX86Avx512, KernelTarget::kPortable}) {
      for (KernelTarget to :
           {KernelTarget::kX86Avx2, KernelTarget::kX86Avx512, KernelTarget::kPortable}) {
        GemmConfig from_config, to_config;
        ASSERT_TRUE(GetGemmConfig(from, &from_config));
        ASSERT_TRUE(GetGemmConfig(to, &to_config));
        std::vector<float> packed, expected;
        PackedWinograd view, expected_view;
        ASSERT_NO_FATAL_FAILURE(PackAndView(from_config, s, tile, weights, &packed, &view));
        ASSERT_NO_FATAL_FAILURE(
            PackAndView(to_config, s, tile, weights, &expected, &expected_view));
        ASSERT_EQ(RepackedWinogradBytes(view, to_config), expected.size() * sizeof(float));
        std::vector<float> repacked(expected.size(), -1.0f);
        std::vector<float> plain(270 * 45);
        ASSERT_EQ(RepackWinogradWeights(view, to_config, plain.data(), repacked.data(),
                                        repacked.size() * sizeof(float)),
                  Error::kOk);
        EXPECT_EQ(std::memcmp(repacked.data(), expected.data(), expected.size() * sizeof(float)), 0)
            << KernelTargetName(from) << " -> " << KernelTargetName(to) << ", F(" << tile << ")";
        EXPECT_EQ(RepackWinogradWeights(view, to_config, plain.data(), repacked.data(),
                                        repacked.size() * sizeof(float) - 1),
                  Error::kOutOfMemory);
      }
    }
  }
}

// Every header check of ViewPackedWinograd.
TEST(WinogradWeightsTest, ViewRejectsBadHeaders) {
  const Convolution2dShape s = Shape(1, 6, 6, 5, 9, 1, 1, 1, 1);
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(KernelTarget::kX86Avx2, &config));
  const std::vector<float> weights(9 * 5 * 9, 1.0f);
  std::vector<float> good(WinogradPackedWeightsBytes(config, s, 4) / sizeof(float));
  ASSERT_EQ(
      PackWinogradWeights(config, s, 4, weights.data(), good.data(), good.size() * sizeof(float)),
      Error::kOk);
  const size_t bytes = good.size() * sizeof(float);
  PackedWinograd view;
  ASSERT_EQ(ViewPackedWinograd(good.data(), bytes, &view), Error::kOk);
  EXPECT_EQ(view.input_channels, 5u);
  EXPECT_EQ(view.output_channels, 9u);
  EXPECT_EQ(view.config.target, KernelTarget::kX86Avx2);
  auto with = [&](auto edit) {
    std::vector<float> copy = good;
    PackedWinogradHeader header;
    std::memcpy(&header, copy.data(), sizeof(header));
    edit(header);
    std::memcpy(copy.data(), &header, sizeof(header));
    return ViewPackedWinograd(copy.data(), bytes, &view);
  };
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.magic = kPackedBMagic; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.version = 3; }), Error::kUnsupportedVersion);
  // Version 2 is grouped: ungrouped weights under it lack the group count.
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.version = 2; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.target = 99; }), Error::kNotSupported);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.nr = 32; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.kc = 128; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.output_tile = 6; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.output_tile = 3; }), Error::kInvalidProgram);
  // F(2x2)'s 16 matrices where the counts say 36.
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.output_tile = 2; }), Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.input_channels = 0; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.output_channels = 0; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.input_channels = 6; }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.matrix_floats += 16; }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.data_floats -= 1; }), Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedWinogradHeader& h) { h.output_channels = uint64_t{1} << 62; }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(ViewPackedWinograd(good.data(), bytes - 4, &view), Error::kProgramOutOfBounds);
  EXPECT_EQ(ViewPackedWinograd(good.data(), 63, &view), Error::kInvalidProgram);
  EXPECT_EQ(ViewPackedWinograd(nullptr, bytes, &view), Error::kInvalidProgram);
  EXPECT_EQ(ViewPackedWinograd(reinterpret_cast<const char*>(good.data()) + 1, bytes - 1, &view),
            Error::kInvalidProgram);
}

// Printed for docs/native-kernels.md: the worst error of every case above relative to the
// direct convolution's own magnitude.
class ReportWorstError : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf(
        "winograd: worst |error| / (u * sum |w x|) over the cases run: F(4x4) %.1f, F(2x2) "
        "%.1f\n",
        g_worst_relative_to_direct[1], g_worst_relative_to_direct[0]);
  }
};
const auto* const kReport = ::testing::AddGlobalTestEnvironment(new ReportWorstError);

}  // namespace
}  // namespace torchir::native
