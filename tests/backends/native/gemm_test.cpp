#include "backends/native/gemm.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/native/gemm_call.h"
#include "hwy/targets.h"
#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;

// The KernelTarget each Highway target runs (gemm_micro_kernel-inl.h).
KernelTarget ExpectedKernelTarget(int64_t hwy_target) {
  switch (hwy_target) {
    case HWY_AVX3:
    case HWY_AVX3_DL:
      return KernelTarget::kX86Avx512;
    case HWY_AVX2:
      return KernelTarget::kX86Avx2;
    case HWY_SSE4:
    case HWY_SSSE3:
      return KernelTarget::kX86Sse4;
    case HWY_NEON:
    case HWY_SVE:  // SVE runs the NEON tile on fixed 128-bit vectors
    case HWY_SVE2:
    case HWY_SVE_256:
    case HWY_SVE2_128:
      return KernelTarget::kArmNeon;
    default:
      return KernelTarget::kPortable;
  }
}

std::vector<float> Random(size_t count, std::mt19937* rng, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(count);
  for (float& v : values) v = dist(*rng);
  return values;
}

// B (k x n, row-major) packed for `config` into `packed`, and its view.
void PackAndView(const GemmConfig& config, size_t k, size_t n, const std::vector<float>& b,
                 std::vector<char>* packed, PackedB* view) {
  packed->assign(PackedBBytes(config, k, n), 0);
  ASSERT_EQ(PackB(config, k, n, b.data(), n, packed->data(), packed->size()), Error::kOk);
  ASSERT_EQ(ViewPackedB(packed->data(), packed->size(), view), Error::kOk);
}

struct Problem {
  size_t m, n, k;
  size_t lda, ldc;  // 0: dense
  bool bias;
  Epilogue epilogue;
  size_t threads = 0;  // 0: no pool
  // The epilogue's residual: none, a separate matrix (row stride N + 3), or C itself (in place).
  enum Residual { kNoResidual, kSeparate, kInPlace } residual = kNoResidual;
};

std::string Describe(const Problem& p) {
  return "M=" + std::to_string(p.m) + " N=" + std::to_string(p.n) + " K=" + std::to_string(p.k) +
         " lda=" + std::to_string(p.lda) + " ldc=" + std::to_string(p.ldc) +
         " bias=" + std::to_string(p.bias) +
         " activation=" + std::to_string(static_cast<int>(p.epilogue.activation)) +
         " threads=" + std::to_string(p.threads) + " residual=" + std::to_string(p.residual);
}

// Runs one problem on the current target and compares every element of C with a double
// reference. The bound: each product a*b is rounded once and each of the K additions (and the
// bias add) once, at float's unit roundoff u = 2^-24, whatever the order the blocking adds them
// in, so |C - exact| <= (K + 1) * u * (sum_k |a_ik * b_kj| + |bias_j|) to first order
// (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1). We allow twice that plus
// one denormal-sized absolute term; clamping is exact and commutes with the bound. A residual is
// one more addend: K + 2 roundings and |r| in the sum.
// Elements of C outside the M x N result (the ldc padding) must keep their sentinel.
void ExpectGemmMatchesReference(const Problem& p, uint32_t seed) {
  SCOPED_TRACE(Describe(p));
  std::mt19937 rng(seed);
  const size_t lda = p.lda ? p.lda : p.k, ldc = p.ldc ? p.ldc : p.n;
  const std::vector<float> a = Random(p.m * lda, &rng);
  const std::vector<float> b = Random(p.k * p.n, &rng);
  const std::vector<float> bias = Random(p.n, &rng);
  const size_t ldr = p.residual == Problem::kInPlace ? ldc : p.n + 3;
  const std::vector<float> residual = Random(p.m * ldr, &rng);

  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  std::vector<char> packed;
  PackedB view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, p.k, p.n, b, &packed, &view));

  constexpr float kSentinel = 12345.0f;
  std::vector<float> c(p.m * ldc, kSentinel);
  Epilogue epilogue = p.epilogue;
  if (p.residual == Problem::kSeparate) {
    epilogue.residual = residual.data();
    epilogue.residual_stride = ldr;
  } else if (p.residual == Problem::kInPlace) {
    for (size_t i = 0; i < p.m; ++i) {
      std::copy(residual.begin() + i * ldr, residual.begin() + i * ldr + p.n, c.begin() + i * ldc);
    }
    epilogue.residual = c.data();
    epilogue.residual_stride = ldc;
  }
  pthreadpool_t pool = p.threads == 0 ? nullptr : pthreadpool_create(p.threads);
  std::vector<char> scratch(GemmScratchBytes(config, p.m, p.threads == 0 ? 1 : p.threads));
  const Error error = Gemm(p.m, a.data(), lda, view, p.bias ? bias.data() : nullptr, c.data(), ldc,
                           epilogue, scratch.data(), scratch.size(), pool);
  if (pool != nullptr) pthreadpool_destroy(pool);
  ASSERT_EQ(error, Error::kOk);

  const double u = std::ldexp(1.0, -24);
  size_t failures = 0;
  for (size_t i = 0; i < p.m; ++i) {
    for (size_t j = 0; j < ldc; ++j) {
      const float got = c[i * ldc + j];
      if (j >= p.n) {
        ASSERT_EQ(got, kSentinel) << "wrote past N at row " << i << " column " << j;
        continue;
      }
      double exact = p.bias ? bias[j] : 0.0;
      double magnitude = p.bias ? std::fabs(bias[j]) : 0.0;
      if (p.residual != Problem::kNoResidual) {
        exact += residual[i * ldr + j];
        magnitude += std::fabs(residual[i * ldr + j]);
      }
      for (size_t kk = 0; kk < p.k; ++kk) {
        const double product = static_cast<double>(a[i * lda + kk]) * b[kk * p.n + j];
        exact += product;
        magnitude += std::fabs(product);
      }
      const double tolerance =
          ActivationTolerance(2.0 * (p.k + 2) * u * magnitude + 1e-30, exact, p.epilogue);
      exact = ReferenceActivation(exact, p.epilogue);
      if (!(std::fabs(got - exact) <= tolerance) && ++failures <= 5) {
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", expected " << exact << " +- "
                      << tolerance;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

class GemmTest : public PerTargetTest {};

// The tiles GemmForTarget cuts a block into, for every target's mr: whole tiles of mr rows but
// for the end, where a remainder too short to have enough FMA chains joins the last full tile
// and the two are split about evenly.
TEST(GemmTileRowsTest, CutsBlocksIntoTilesWithoutShortRemainders) {
  for (size_t mr : {4, 6, 12, 14}) {
    for (size_t rows = 1; rows <= 5 * mr; ++rows) {
      std::vector<size_t> tiles;
      for (size_t done = 0; done < rows; done += tiles.back()) {
        tiles.push_back(TileRowsAt(mr, rows, done));
        ASSERT_GE(tiles.back(), 1u) << "mr " << mr << ", rows " << rows;
        ASSERT_LE(tiles.back(), mr) << "mr " << mr << ", rows " << rows;
      }
      size_t sum = 0;
      for (size_t tile : tiles) sum += tile;
      EXPECT_EQ(sum, rows) << "mr " << mr;
      if (rows >= mr) {
        for (size_t tile : tiles) {
          EXPECT_GE(tile, FewestTileRows(mr)) << "mr " << mr << ", rows " << rows;
        }
      }
    }
  }
  // AVX2 (mr 6): 8 rows as 4 + 4, 9 as 6 + 3; AVX-512 (mr 14): 16 as 8 + 8.
  EXPECT_EQ(TileRowsAt(6, 8, 0), 4u);
  EXPECT_EQ(TileRowsAt(6, 8, 4), 4u);
  EXPECT_EQ(TileRowsAt(6, 9, 0), 6u);
  EXPECT_EQ(TileRowsAt(6, 9, 6), 3u);
  EXPECT_EQ(TileRowsAt(14, 16, 0), 8u);
}

// The lead tile of an implicit GEMM read by pointer (LeadTileRows): the remainder of an image's
// rows put first where it then holds only rows in the top padding, and only where whole tiles
// then skip more of the padded rows than TileRowsAt's cut does.
TEST(GemmTileRowsTest, LeadsWithTheRemainderWhereItFitsTheTopPadding) {
  const auto source = [](size_t image_rows, size_t top_rows, size_t bottom_rows) {
    IndirectRowsSource s{nullptr, nullptr, 8};
    s.image_rows = image_rows;
    s.top_rows = top_rows;
    s.bottom_rows = bottom_rows;
    return s;
  };
  // A 7 x 7 output (a stride-2 3x3 layer on 14 x 14, padding 1) on AVX-512: 7 + 14 x 3, the
  // first tile the top output row; with mr 12, 1 + 12 x 4 would leave a lone row: no lead.
  EXPECT_EQ(LeadTileRows(14, source(49, 7, 0)), 7u);
  EXPECT_EQ(LeadTileRows(12, source(49, 7, 0)), 0u);
  // Rows that fill whole tiles (14 x 14 with mr 14), no padding, no hint: nothing to move.
  EXPECT_EQ(LeadTileRows(14, source(196, 14, 14)), 0u);
  EXPECT_EQ(LeadTileRows(14, source(49, 0, 0)), 0u);
  EXPECT_EQ(LeadTileRows(14, source(0, 7, 7)), 0u);
  // A remainder wider than the padded rows would hold rows outside them.
  EXPECT_EQ(LeadTileRows(14, source(49, 5, 0)), 0u);
  // 14 x 14 with mr 6: 4 + 6 x 32 skips 4 + 6 top and 6 + 6 bottom rows, the plain cut 6 + 6 and
  // 6 + 4: level, so no lead. 3 x 5 with mr 6: 3 + 6 + 6, the first 3 rows padding (none of
  // 6 + 6 + 3 is wholly in it).
  EXPECT_EQ(LeadTileRows(6, source(196, 14, 14)), 0u);
  EXPECT_EQ(LeadTileRows(6, source(15, 5, 0)), 3u);
}

// What PlanSplit weighs: each of those tiles at the time of at least kFullChainRows rows.
TEST(GemmTileRowsTest, PricesEachTileAtLeastAsFullChains) {
  for (size_t mr : {4, 6, 12, 14}) {
    for (size_t rows = 1; rows <= 5 * mr; ++rows) {
      size_t row_time = 0;
      for (size_t done = 0; done < rows;) {
        const size_t tile = TileRowsAt(mr, rows, done);
        row_time += std::max(tile, kFullChainRows);
        done += tile;
      }
      EXPECT_DOUBLE_EQ(TileRowsCost(mr, rows), static_cast<double>(row_time) / mr)
          << "mr " << mr << ", rows " << rows;
    }
  }
  // A transformer's 128 rows on AVX2: 20 tiles of 6 and 4 + 4; on AVX-512 the 2-row remainder
  // of 16 rows costs 2 / 14 of a tile, not a third.
  EXPECT_DOUBLE_EQ(TileRowsCost(6, 128), 128.0 / 6);
  EXPECT_DOUBLE_EQ(TileRowsCost(14, 16), 16.0 / 14);
  EXPECT_DOUBLE_EQ(TileRowsCost(6, 2), 4.0 / 6);
}

TEST_P(GemmTest, DispatchesToTheForcedTarget) {
  EXPECT_EQ(CurrentKernelTarget(), ExpectedKernelTarget(GetParam()));
}

TEST(KernelTargetTest, NamesRoundTrip) {
  std::string list;
  for (KernelTarget target :
       {KernelTarget::kX86Avx512, KernelTarget::kX86Avx2, KernelTarget::kX86Sse4,
        KernelTarget::kArmNeon, KernelTarget::kPortable}) {
    KernelTarget parsed = KernelTarget::kPortable;
    ASSERT_TRUE(KernelTargetFromName(KernelTargetName(target), &parsed)) << int(target);
    EXPECT_EQ(parsed, target);
    list += (list.empty() ? "" : ", ") + std::string(KernelTargetName(target));
  }
  EXPECT_EQ(list, KernelTargetNameList());
  KernelTarget untouched = KernelTarget::kArmNeon;
  for (const char* name : {"host", "AVX2", "avx", "", "avx2 "}) {
    EXPECT_FALSE(KernelTargetFromName(name, &untouched)) << name;
  }
  EXPECT_FALSE(KernelTargetFromName(nullptr, &untouched));
  EXPECT_EQ(untouched, KernelTarget::kArmNeon);
}

// LimitKernelTarget caps the process's dispatch: every target this CPU has, from the widest down,
// is what the kernels then run, never a wider one, also after someone asks Highway for the
// supported targets (which re-detects the CPU); another family's is refused, the dispatch
// unchanged. The cap is lifted after each step (Highway's DisableTargets(0) and mock cleared).
TEST(KernelTargetTest, LimitCapsTheDispatch) {
  const KernelTarget best = CurrentKernelTarget();
  const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
  struct Case {
    KernelTarget widest;
    std::vector<KernelTarget> allowed;  // what the kernels may then run (this CPU's best of them)
  };
#if HWY_ARCH_X86
  const std::vector<Case> cases = {
      {KernelTarget::kX86Avx512,
       {KernelTarget::kX86Avx512, KernelTarget::kX86Avx2, KernelTarget::kX86Sse4,
        KernelTarget::kPortable}},
      {KernelTarget::kX86Avx2,
       {KernelTarget::kX86Avx2, KernelTarget::kX86Sse4, KernelTarget::kPortable}},
      {KernelTarget::kX86Sse4, {KernelTarget::kX86Sse4, KernelTarget::kPortable}},
      {KernelTarget::kPortable, {KernelTarget::kPortable}},
  };
  const KernelTarget other_family = KernelTarget::kArmNeon;
#elif HWY_ARCH_ARM
  // The static target is NEON on arm64: "portable" still runs NEON there.
  const std::vector<Case> cases = {
      {KernelTarget::kArmNeon, {KernelTarget::kArmNeon}},
      {KernelTarget::kPortable, {KernelTarget::kPortable, KernelTarget::kArmNeon}},
  };
  const KernelTarget other_family = KernelTarget::kX86Avx2;
#else
  const std::vector<Case> cases = {{KernelTarget::kPortable, {KernelTarget::kPortable}}};
  const KernelTarget other_family = KernelTarget::kX86Avx2;
#endif
  for (const Case& c : cases) {
    KernelTarget now = KernelTarget::kArmNeon;
    ASSERT_EQ(LimitKernelTarget(c.widest, &now), Error::kOk) << KernelTargetName(c.widest);
    EXPECT_EQ(now, CurrentKernelTarget());
    hwy::SupportedTargets();
    EXPECT_EQ(now, CurrentKernelTarget()) << "the cap lifted by SupportedTargets()";
    EXPECT_NE(std::find(c.allowed.begin(), c.allowed.end(), now), c.allowed.end())
        << "capped at " << KernelTargetName(c.widest) << ", runs " << KernelTargetName(now);
    // The best allowed target this CPU has (Highway's bits: lower is better).
    for (int64_t bits = supported; bits != 0; bits &= bits - 1) {
      const KernelTarget runs = ExpectedKernelTarget(bits & -bits);
      if (std::find(c.allowed.begin(), c.allowed.end(), runs) != c.allowed.end()) {
        EXPECT_EQ(now, runs) << "capped at " << KernelTargetName(c.widest);
        break;
      }
    }
    hwy::DisableTargets(0);
    hwy::SetSupportedTargetsForTest(0);
    EXPECT_EQ(CurrentKernelTarget(), best);
  }
  KernelTarget untouched = KernelTarget::kPortable;
  EXPECT_EQ(LimitKernelTarget(other_family, &untouched), Error::kNotSupported);
  EXPECT_EQ(untouched, KernelTarget::kPortable);
  EXPECT_EQ(CurrentKernelTarget(), best);
  EXPECT_EQ(LimitKernelTarget(static_cast<KernelTarget>(99), nullptr), Error::kNotSupported);
  EXPECT_EQ(CurrentKernelTarget(), best);
}

// Every tail of the micro-kernel: M around every target's mr (4, 6, 12, 14), N around every nr
// (8, 16, 32) and on and around the quarter-panel widths (4, 12 on AVX2; 8, 24 and 32 + 8 on
// AVX-512: N = 24 and 40 run their own kernels, straight into C), K of 1 and around one K block
// (256), which also leave every remainder of the one- and two-row tiles' K loops of 4 and 2 steps;
// the activation cycles through the kinds. M of mr + 1..3 and 2 mr + 1..3 (7-9, 13-15 for mr = 6,
// 15-17 and 29 for 14) are the edges whose last full tile and remainder run as two tiles of about
// half each (gemm.cpp TileRows).
TEST_P(GemmTest, MatchesReferenceOnTailShapes) {
  const Epilogue epilogues[] = {
      {Activation::kNone, 0, 0}, {Activation::kRelu, 0, 0}, {Activation::kClamp, -0.5f, 0.75f}};
  uint32_t seed = 1;
  for (size_t m : {1, 2, 4, 5, 6, 7, 9, 12, 13, 14, 15, 16, 17, 29}) {
    for (size_t n : {1, 3, 4, 8, 9, 12, 16, 17, 20, 24, 25, 31, 32, 33, 40, 56}) {
      for (size_t k : {1, 2, 7, 255, 256, 257}) {
        ExpectGemmMatchesReference({m, n, k, 0, 0, seed % 2 == 0, epilogues[seed % 3]}, seed);
        ++seed;
        if (HasFailure()) return;
      }
    }
  }
}

// Shapes that cross the cache blocks: M past mc (96, 112), N past nc (512), K over several kc
// blocks with a short last one, primes everywhere, and the large-K shape of a linear layer.
TEST_P(GemmTest, MatchesReferenceAcrossCacheBlocks) {
  const Epilogue relu{Activation::kRelu, 0, 0};
  const Epilogue none{};
  ExpectGemmMatchesReference({97, 101, 523, 0, 0, true, none}, 1);
  ExpectGemmMatchesReference({113, 515, 67, 0, 0, true, relu}, 2);
  ExpectGemmMatchesReference({229, 37, 1031, 0, 0, false, none}, 3);
  ExpectGemmMatchesReference({1, 1000, 512, 0, 0, true, none}, 4);
  ExpectGemmMatchesReference({2, 3, 4099, 0, 0, true, none}, 5);
}

// Shares along M (enough rows for every thread), along N (fewer rows than threads * mr, or a
// single row, or rows that split into uneven tiles: 128 rows of a transformer's linear layer,
// with a GELU applied to each tile after it is stored, and a bias only on the first columns'
// panels), and a single panel that cannot be shared; more threads than this machine's cores.
TEST_P(GemmTest, MatchesReferenceWithThreads) {
  const Epilogue relu{Activation::kRelu, 0, 0};
  for (size_t threads : {2, 3}) {
    ExpectGemmMatchesReference({128, 256, 64, 0, 0, true, {Activation::kGelu, 0, 0}, threads}, 20);
    // 128 rows over two K blocks: A is copied, so 64 + 64 rows rather than along N.
    ExpectGemmMatchesReference({128, 250, 300, 0, 0, false, relu, threads}, 26);
    ExpectGemmMatchesReference({97, 101, 523, 0, 0, true, relu, threads}, 21);
    // A 7 x 7 image's 49 rows, shared evenly (25 + 24, or 17 + 17 + 15) rather than in whole
    // tiles, over two K blocks.
    ExpectGemmMatchesReference({49, 400, 400, 0, 0, true, relu, threads}, 27);
    ExpectGemmMatchesReference({250, 64, 300, 0, 0, true, {}, threads}, 22);
    ExpectGemmMatchesReference({1, 1000, 512, 0, 0, true, {}, threads}, 23);
    ExpectGemmMatchesReference({5, 33, 300, 0, 0, false, relu, threads}, 24);
    ExpectGemmMatchesReference({7, 5, 9, 11, 13, true, {}, threads}, 25);
  }
}

// On AVX2 and AVX-512, A of up to 64 input features is read where it is whatever N (gemm.cpp: the
// copy cost a few percent of mobilenet_v2's 16 -> 96 expansion): N past 64 with K of 16-64, rows
// dense and strided, tiles of 7-14 rows (AVX-512's second base), without and with threads (other
// targets copy these rows, and must agree too).
TEST_P(GemmTest, ReadsFewFeaturesInPlaceOnWideOutputs) {
  const Epilogue relu{Activation::kRelu, 0, 0};
  const Epilogue relu6{Activation::kClamp, 0.0f, 6.0f};
  ExpectGemmMatchesReference({29, 96, 16, 0, 0, true, relu6}, 40);
  ExpectGemmMatchesReference({13, 130, 24, 30, 133, false, {}}, 41);
  ExpectGemmMatchesReference({100, 144, 24, 0, 0, true, relu, 2}, 42);
  ExpectGemmMatchesReference({7, 65, 32, 33, 70, true, relu6, 3}, 43);
  ExpectGemmMatchesReference({31, 256, 64, 70, 0, true, relu, 2}, 44);
}

TEST_P(GemmTest, HonoursRowStridesAndLeavesPaddingAlone) {
  ExpectGemmMatchesReference({13, 17, 19, 23, 29, true, {Activation::kRelu, 0, 0}}, 7);
  ExpectGemmMatchesReference({100, 40, 300, 301, 41, false, {}}, 8);
  // A row stride of kc (256) floats: A is read in place, not copied; K short of it, so the
  // random floats past K in each row must not be read; more rows than mc, and two threads.
  ExpectGemmMatchesReference({130, 40, 100, 256, 41, true, {}}, 9);
  ExpectGemmMatchesReference({130, 33, 256, 256, 0, true, {Activation::kRelu, 0, 0}, 2}, 10);
  // The same (K short of the stride) over more M blocks, where the first panel's tiles fetch
  // the next tile's rows (B small enough to stay in L2), with C over 512 KiB (its lines fetched
  // a tile ahead) and an N edge: prefetches only, the products must not change.
  ExpectGemmMatchesReference({700, 200, 16, 256, 0, true, {Activation::kRelu, 0, 0}}, 11);
  // Shorter row strides with N <= 64: A is read in place through the run-time-stride kernels
  // (the floats past K in each row must not be read), over mc and with threads; N = 65 packs it.
  ExpectGemmMatchesReference({130, 64, 40, 45, 0, true, {Activation::kClamp, 0.0f, 0.5f}}, 140);
  ExpectGemmMatchesReference({229, 24, 96, 100, 27, true, {}, 2}, 141);
  ExpectGemmMatchesReference({130, 65, 40, 45, 67, false, {}}, 142);
}

// Each activation on values that straddle its thresholds (bias pushes half of them past).
TEST_P(GemmTest, AppliesEveryEpilogue) {
  ExpectGemmMatchesReference({31, 47, 5, 0, 0, true, {Activation::kNone, 0, 0}}, 11);
  ExpectGemmMatchesReference({31, 47, 5, 0, 0, true, {Activation::kRelu, 0, 0}}, 12);
  ExpectGemmMatchesReference({31, 47, 5, 0, 0, true, {Activation::kClamp, 0.0f, 0.5f}}, 13);
  ExpectGemmMatchesReference({31, 47, 5, 0, 0, false, {Activation::kClamp, -0.25f, -0.25f}}, 14);
  ExpectGemmMatchesReference({31, 47, 300, 0, 0, true, {Activation::kClamp, -1.0f, 1.0f}}, 15);
  // GELU, both forms, over tails (N 47: a partial vector on every target) and two K blocks.
  ExpectGemmMatchesReference({31, 47, 5, 0, 0, true, {Activation::kGelu, 0, 0}}, 16);
  ExpectGemmMatchesReference({31, 47, 300, 0, 0, true, {Activation::kGelu, 0, 0}}, 17);
  ExpectGemmMatchesReference({31, 47, 300, 0, 0, false, {Activation::kGeluTanh, 0, 0}}, 18);
  // Hardswish, silu, sigmoid and hardsigmoid: the same tails and K blocks, with a residual that
  // takes values past hardswish's -3 and 3 (the sums here reach about +-6).
  uint32_t seed = 30;
  for (Activation activation : {Activation::kHardswish, Activation::kSilu, Activation::kSigmoid,
                                Activation::kHardsigmoid}) {
    ExpectGemmMatchesReference({31, 47, 5, 0, 0, true, {activation, 0, 0}}, seed++);
    ExpectGemmMatchesReference({31, 47, 300, 0, 0, false, {activation, 0, 0}}, seed++);
    Problem with_residual{15, 33, 40, 0, 0, true, {activation, 0, 0}};
    with_residual.residual = Problem::kInPlace;
    ExpectGemmMatchesReference(with_residual, seed++);
    with_residual.threads = 2;
    with_residual.m = 250;
    with_residual.residual = Problem::kSeparate;
    ExpectGemmMatchesReference(with_residual, seed++);
  }
}

// The residual on every tail (M, N around mr and nr; K of one block and of several, where it must
// be added once, not per K block), separate and in place, with each activation and with threads.
TEST_P(GemmTest, AddsTheResidual) {
  const Epilogue epilogues[] = {
      {Activation::kNone, 0, 0}, {Activation::kRelu, 0, 0}, {Activation::kClamp, -0.5f, 0.75f}};
  uint32_t seed = 100;
  for (Problem::Residual residual : {Problem::kSeparate, Problem::kInPlace}) {
    for (size_t m : {1, 5, 6, 13, 14, 15, 29}) {
      for (size_t n : {1, 8, 9, 12, 17, 24, 32, 33, 40}) {
        for (size_t k : {3, 257, 600}) {
          Problem p{m, n, k, 0, k % 2 == 0 ? 0 : n + 5, seed % 2 == 0, epilogues[seed % 3]};
          p.residual = residual;
          ExpectGemmMatchesReference(p, seed++);
          if (HasFailure()) return;
        }
      }
    }
    for (size_t threads : {2, 3}) {
      Problem along_m{250, 70, 300, 0, 0, true, epilogues[1], threads};
      along_m.residual = residual;
      ExpectGemmMatchesReference(along_m, seed++);
      Problem along_n{3, 100, 300, 0, 0, true, epilogues[2], threads};
      along_n.residual = residual;
      ExpectGemmMatchesReference(along_n, seed++);
    }
  }
}

// A residual larger than L2 (above 512 KiB of it per call: the call's M x its row stride x 4
// bytes) is added rows first, each tile across all the panels (gemm.cpp): relu, a clamp and an
// activation applied after the store with K of one block, relu with K of two (the second block
// panels first), an N tail, separate and in place, and split between threads along M (1400 rows,
// 700 each) and along N.
TEST_P(GemmTest, AddsAResidualLargerThanL2RowsFirst) {
  const Epilogue epilogues[] = {{Activation::kRelu, 0, 0},
                                {Activation::kHardswish, 0, 0},
                                {Activation::kClamp, -0.5f, 0.75f}};
  uint32_t seed = 300;
  for (Problem::Residual residual : {Problem::kSeparate, Problem::kInPlace}) {
    for (size_t i = 0; i < 4; ++i) {
      // Each epilogue with K of one block, then relu with K of two.
      Problem p{700, 200, i < 3 ? 64u : 300u, 0, 0, seed % 2 == 0, epilogues[i % 3]};
      p.residual = residual;
      ASSERT_GT(p.m * p.n * sizeof(float), 512u * 1024u);
      ExpectGemmMatchesReference(p, seed++);
      if (HasFailure()) return;
    }
    for (const Epilogue& epilogue : {epilogues[0], epilogues[1]}) {
      Problem along_m{1400, 200, 64, 0, 0, true, epilogue, 2};
      along_m.residual = residual;
      ExpectGemmMatchesReference(along_m, seed++);
    }
    Problem along_n{40, 3500, 64, 0, 0, true, epilogues[1], 2};
    along_n.residual = residual;
    ExpectGemmMatchesReference(along_n, seed++);
  }
}

TEST_P(GemmTest, ExactOnSmallIntegers) {
  // Integer-valued inputs: every partial sum is exact in float, so the result must be too.
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  const size_t m = 9, n = 21, k = 300;
  std::vector<float> a(m * k), b(k * n), bias(n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  for (size_t j = 0; j < n; ++j) bias[j] = static_cast<float>(j);
  std::vector<char> packed;
  PackedB view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, k, n, b, &packed, &view));
  std::vector<float> c(m * n);
  std::vector<char> scratch(GemmScratchBytes(config, m));
  ASSERT_EQ(
      Gemm(m, a.data(), k, view, bias.data(), c.data(), n, {}, scratch.data(), scratch.size()),
      Error::kOk);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      float expected = bias[j];
      for (size_t kk = 0; kk < k; ++kk) expected += a[i * k + kk] * b[kk * n + j];
      ASSERT_EQ(c[i * n + j], expected) << i << ", " << j;
    }
  }
}

// A by pointer (gemm_call.h's IndirectRowsSource, as the implicit GEMM reads its taps): rows of a
// dense M x K matrix given segment by segment, some segments of some rows pointing at
// kIndirectZeros (and whole tiles of segments so, which the kernels skip), against the same
// matrix with those runs zeroed; M and N edges, several M and K blocks, threads along M and N.
struct PointerRows {
  const float* a;
  size_t k;
  size_t segment_length;
};
// Row i's segment s is zero when (i / 3 + s) % 4 == 1, and every row's segments 2..3 of K block
// 1 are (whole tiles of zeros).
bool IsZeroSegment(size_t row, size_t segment, size_t segment_length, size_t kc) {
  const size_t column = segment * segment_length;
  return (row / 3 + segment) % 4 == 1 ||
         (column >= kc && column < kc + 4 * segment_length && column >= kc + 2 * segment_length);
}
void PointerRowsOf(const void* context, size_t m0, size_t rows, size_t k0, size_t kc,
                   const float** table, size_t table_stride, float* copy, size_t copy_stride) {
  const PointerRows& p = *static_cast<const PointerRows*>(context);
  GemmConfig config;
  GetGemmConfig(CurrentKernelTarget(), &config);
  const size_t length = p.segment_length;
  for (size_t s = 0; s < kc / length; ++s) {
    const size_t segment = (k0 + s * length) / length;
    for (size_t r = 0; r < rows; ++r) {
      const float* run = p.a + (m0 + r) * p.k + k0 + s * length;
      if (IsZeroSegment(m0 + r, segment, length, config.kc)) {
        run = kIndirectZeros;
      } else if (copy != nullptr) {
        float* to = copy + r * copy_stride + s * length;
        std::copy(run, run + length, to);
        run = to;
      }
      table[s * table_stride + r] = run;
    }
  }
}

TEST_P(GemmTest, ReadsRowsByPointer) {
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  struct Case {
    size_t m, n, k, segment_length, threads;
    bool copies;  // IndirectRowsSource::copies: the runs copied, then read by pointer
  };
  uint32_t seed = 900;
  for (const Case& c :
       {Case{37, 45, 3 * config.kc, 64, 0, false}, Case{config.mc + 9, 70, 96, 32, 0, false},
        Case{5, 33, 2 * config.kc, config.kc, 0, false}, Case{29, 100, 160, 8, 2, false},
        Case{4, 200, 2 * config.kc, 16, 3, false}, Case{37, 45, 3 * config.kc, 64, 0, true},
        Case{config.mc + 9, 70, 96, 32, 0, true}, Case{29, 100, 160, 32, 2, true},
        // Passes over two K blocks on AVX-512 (kPassBlocks): a short second block, and two
        // whole passes before a short single block, at the N edge and along M and N.
        Case{31, 77, config.kc + 96, 32, 0, false}, Case{45, 40, 4 * config.kc + 64, 64, 2, false},
        Case{3, 130, 2 * config.kc + 8, 8, 2, false}}) {
    SCOPED_TRACE("M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
                 " K=" + std::to_string(c.k) + " L=" + std::to_string(c.segment_length) +
                 " threads=" + std::to_string(c.threads) + (c.copies ? " copied" : ""));
    std::mt19937 rng(seed++);
    const std::vector<float> a = Random(c.m * c.k, &rng), b = Random(c.k * c.n, &rng);
    const std::vector<float> bias = Random(c.n, &rng);
    std::vector<char> packed;
    PackedB view;
    ASSERT_NO_FATAL_FAILURE(PackAndView(config, c.k, c.n, b, &packed, &view));
    const PointerRows rows{a.data(), c.k, c.segment_length};
    IndirectRowsSource source{&PointerRowsOf, &rows, c.segment_length};
    source.copies = c.copies;
    std::vector<float> out(c.m * c.n, 12345.0f);
    GemmCall call{};
    call.m = c.m;
    call.a_indirect = &source;
    call.b = &view;
    call.bias = bias.data();
    call.c = out.data();
    call.ldc = c.n;
    call.epilogue.activation = Activation::kRelu;
    const size_t threads = c.threads == 0 ? 1 : c.threads;
    std::vector<float> scratch(GemmScratchBytes(config, c.m, threads) / sizeof(float));
    call.scratch = scratch.data();
    pthreadpool_t pool = c.threads == 0 ? nullptr : pthreadpool_create(c.threads);
    const Error error = RunGemm(call, scratch.size() * sizeof(float), pool);
    if (pool != nullptr) pthreadpool_destroy(pool);
    ASSERT_EQ(error, Error::kOk);
    const double u = std::ldexp(1.0, -24);
    size_t failures = 0;
    for (size_t i = 0; i < c.m; ++i) {
      for (size_t j = 0; j < c.n; ++j) {
        double exact = bias[j], magnitude = std::fabs(bias[j]);
        for (size_t kk = 0; kk < c.k; ++kk) {
          if (IsZeroSegment(i, kk / c.segment_length, c.segment_length, config.kc)) continue;
          const double product = static_cast<double>(a[i * c.k + kk]) * b[kk * c.n + j];
          exact += product;
          magnitude += std::fabs(product);
        }
        exact = exact > 0.0 ? exact : 0.0;
        const double tolerance = 2.0 * (c.k + 2) * u * magnitude + 1e-30;
        if (!(std::fabs(out[i * c.n + j] - exact) <= tolerance) && ++failures <= 5) {
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << out[i * c.n + j] << ", expected "
                        << exact << " +- " << tolerance;
        }
      }
    }
    EXPECT_EQ(failures, 0u);
  }
}

// What RunGemm refuses of A by pointer: segments shorter than kIndirectMinSegment, longer than
// the zeros, not dividing kc or K; with an ABlockSource too, or a causal skip; a scratch not
// aligned for pointers; copied runs more than kIndirectCopyMaxSegments to a K block.
TEST_P(GemmTest, RefusesBadRowsByPointer) {
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  const size_t m = 20, n = 16, k = 2 * config.kc;
  std::mt19937 rng(950);
  const std::vector<float> a = Random(m * k, &rng), b = Random(k * n, &rng);
  std::vector<char> packed;
  PackedB view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, k, n, b, &packed, &view));
  std::vector<float> out(m * n, 0.0f);
  std::vector<float> scratch(GemmScratchBytes(config, m) / sizeof(float) + 2);
  const auto run = [&](size_t segment_length, const ABlockSource* copy, CausalSkip causal,
                       float* scratch_start, bool copies = false) {
    const PointerRows rows{a.data(), k, segment_length};
    IndirectRowsSource source{&PointerRowsOf, &rows, segment_length};
    source.copies = copies;
    GemmCall call{};
    call.m = m;
    call.a_indirect = &source;
    call.a_source = copy;
    call.b = &view;
    call.c = out.data();
    call.ldc = n;
    call.scratch = scratch_start;
    call.causal = causal;
    return RunGemm(call, GemmScratchBytes(config, m), nullptr);
  };
  const ABlockSource copy{[](const void*, size_t, size_t, size_t, size_t, float*, size_t) {},
                          nullptr};
  EXPECT_EQ(run(32, nullptr, {}, scratch.data()), Error::kOk);
  EXPECT_EQ(run(kIndirectMinSegment / 2, nullptr, {}, scratch.data()), Error::kInvalidArgument);
  EXPECT_EQ(run(2 * kIndirectZeroFloats, nullptr, {}, scratch.data()), Error::kInvalidArgument);
  EXPECT_EQ(run(24, nullptr, {}, scratch.data()), Error::kInvalidArgument);  // 256 % 24
  EXPECT_EQ(run(0, nullptr, {}, scratch.data()), Error::kInvalidArgument);
  EXPECT_EQ(run(32, &copy, {}, scratch.data()), Error::kInvalidArgument);
  EXPECT_EQ(run(32, nullptr, {CausalSkip::Kind::kColumns, 0}, scratch.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(run(32, nullptr, {}, scratch.data() + 1), Error::kOutOfMemory);
  // Copied runs: their table holds at most kIndirectCopyMaxSegments per K block.
  EXPECT_EQ(run(32, nullptr, {}, scratch.data(), true), Error::kOk);
  EXPECT_EQ(run(8, nullptr, {}, scratch.data(), true), Error::kInvalidArgument);
}

TEST_P(GemmTest, RejectsWeightsPackedForAnotherLayoutAndShortScratch) {
  GemmConfig current, other;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &current));
  ASSERT_TRUE(GetGemmConfig(
      current.target == KernelTarget::kX86Avx2 ? KernelTarget::kX86Avx512 : KernelTarget::kX86Avx2,
      &other));
  const size_t m = 3, n = 5, k = 4;
  std::vector<float> a(m * k, 1.0f), b(k * n, 1.0f), c(m * n, 0.0f);
  std::vector<char> packed;
  PackedB view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(other, k, n, b, &packed, &view));
  std::vector<char> scratch(GemmScratchBytes(current, m));
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, {}, scratch.data(), scratch.size()),
            Error::kNotSupported);

  ASSERT_NO_FATAL_FAILURE(PackAndView(current, k, n, b, &packed, &view));
  EXPECT_EQ(
      Gemm(m, a.data(), k, view, nullptr, c.data(), n, {}, scratch.data(), scratch.size() - 1),
      Error::kOutOfMemory);
  EXPECT_EQ(
      Gemm(m, a.data(), k - 1, view, nullptr, c.data(), n, {}, scratch.data(), scratch.size()),
      Error::kInvalidArgument);
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, {Activation::kClamp, 1.0f, 0.0f},
                 scratch.data(), scratch.size()),
            Error::kInvalidArgument);
  const Activation past_the_last =
      static_cast<Activation>(static_cast<uint32_t>(kLastActivation) + 1);
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, {past_the_last, 0.0f, 0.0f},
                 scratch.data(), scratch.size()),
            Error::kInvalidArgument);
  Epilogue short_residual_stride;
  short_residual_stride.residual = a.data();
  short_residual_stride.residual_stride = n - 1;
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, short_residual_stride, scratch.data(),
                 scratch.size()),
            Error::kInvalidArgument);
  // A causal skip with an epilogue, or of an unknown kind.
  const CausalSkip causal{CausalSkip::Kind::kColumns, 0};
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, {Activation::kRelu}, scratch.data(),
                 scratch.size(), nullptr, causal),
            Error::kInvalidArgument);
  Epilogue residual;
  residual.residual = a.data();
  residual.residual_stride = n;
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, residual, scratch.data(),
                 scratch.size(), nullptr, causal),
            Error::kInvalidArgument);
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, {}, scratch.data(), scratch.size(),
                 nullptr, CausalSkip{static_cast<CausalSkip::Kind>(3), 0}),
            Error::kInvalidArgument);
  EXPECT_EQ(std::count(c.begin(), c.end(), 0.0f), static_cast<long>(c.size()));
  EXPECT_EQ(Gemm(m, a.data(), k, view, nullptr, c.data(), n, {}, scratch.data(), scratch.size()),
            Error::kOk);
  EXPECT_EQ(std::count(c.begin(), c.end(), static_cast<float>(k)), static_cast<long>(c.size()));
}

struct CausalProblem {
  size_t m, n, k;
  CausalSkip::Kind kind;
  size_t offset;
  size_t threads;  // 0: no pool
};

// A causal product against the plain one on the same data, element for element (==): skipping
// a tile or the zero terms of A changes no sum. kColumns: every element C needs (column j <=
// row i + offset) is the plain product's, and the top right corner, in no needed tile, keeps its
// sentinel (the skip happened). kDepth: A is zero past its diagonal, and a NaN placed where no
// tile of row 0 reaches (column K - 1) is never read.
void ExpectCausalMatchesPlain(const CausalProblem& p, uint32_t seed) {
  SCOPED_TRACE("M=" + std::to_string(p.m) + " N=" + std::to_string(p.n) +
               " K=" + std::to_string(p.k) + " kind=" + std::to_string(static_cast<int>(p.kind)) +
               " offset=" + std::to_string(p.offset) + " threads=" + std::to_string(p.threads));
  std::mt19937 rng(seed);
  std::vector<float> a = Random(p.m * p.k, &rng);
  const std::vector<float> b = Random(p.k * p.n, &rng);
  if (p.kind == CausalSkip::Kind::kDepth) {
    for (size_t i = 0; i < p.m; ++i) {
      for (size_t kk = i + p.offset + 1; kk < p.k; ++kk) a[i * p.k + kk] = 0.0f;
    }
  }
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  std::vector<char> packed;
  PackedB view;
  ASSERT_NO_FATAL_FAILURE(PackAndView(config, p.k, p.n, b, &packed, &view));
  std::vector<char> scratch(GemmScratchBytes(config, p.m, p.threads == 0 ? 1 : p.threads));
  constexpr float kSentinel = 12345.0f;
  std::vector<float> plain(p.m * p.n, kSentinel), causal(p.m * p.n, kSentinel);
  ASSERT_EQ(Gemm(p.m, a.data(), p.k, view, nullptr, plain.data(), p.n, {}, scratch.data(),
                 scratch.size()),
            Error::kOk);
  const bool nan_probe = p.kind == CausalSkip::Kind::kDepth && p.k > 20 + p.offset;
  if (nan_probe) a[p.k - 1] = std::numeric_limits<float>::quiet_NaN();
  pthreadpool_t pool = p.threads == 0 ? nullptr : pthreadpool_create(p.threads);
  const Error error = Gemm(p.m, a.data(), p.k, view, nullptr, causal.data(), p.n, {},
                           scratch.data(), scratch.size(), pool, CausalSkip{p.kind, p.offset});
  if (pool != nullptr) pthreadpool_destroy(pool);
  ASSERT_EQ(error, Error::kOk);
  for (size_t i = 0; i < p.m; ++i) {
    for (size_t j = 0; j < p.n; ++j) {
      if (p.kind == CausalSkip::Kind::kColumns && j > i + p.offset) continue;
      ASSERT_EQ(causal[i * p.n + j], plain[i * p.n + j]) << "row " << i << " column " << j;
    }
  }
  if (p.kind == CausalSkip::Kind::kColumns && p.n > 20 + p.offset) {
    EXPECT_EQ(causal[p.n - 1], kSentinel) << "row 0's last column was computed";
  }
}

TEST_P(GemmTest, CausalProductsSkipOnlyWhatTheyMay) {
  using Kind = CausalSkip::Kind;
  uint32_t seed = 40;
  for (const CausalProblem& p : std::vector<CausalProblem>{
           {128, 128, 64, Kind::kColumns, 0, 0},  // attention's scores, a head of 64
           {128, 128, 64, Kind::kColumns, 0, 2},  // ... shared among threads
           {37, 50, 20, Kind::kColumns, 3, 0},    // tails, an offset
           {200, 300, 17, Kind::kColumns, 0, 2},  // several M blocks
           {5, 7, 3, Kind::kColumns, 100000, 0},  // an offset past every column: all computed
           {128, 64, 128, Kind::kDepth, 0, 0},    // the softmax times V
           {128, 64, 128, Kind::kDepth, 0, 2},
           {200, 33, 300, Kind::kDepth, 0, 0},  // several K blocks, some skipped whole
           {200, 33, 300, Kind::kDepth, 5, 3},
           {9, 20, 64, Kind::kDepth, 1, 0}}) {
    ExpectCausalMatchesPlain(p, seed++);
    if (HasFailure()) return;
  }
}

TORCHIR_INSTANTIATE_PER_TARGET(GemmTest);

}  // namespace
}  // namespace torchir::native
