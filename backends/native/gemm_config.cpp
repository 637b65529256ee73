#include "backends/native/gemm_config.h"

#include <cstring>

namespace torchir::native {
namespace {

// mr x nr is sized to the register file: accumulators + 2 vectors of B + 1 broadcast of A must
// fit without a spill (docs/native-kernels.md). kc = 256 keeps a B panel at 16-32 KiB (L1 is
// 32 KiB on the x86 cores we target, 64 KiB on big arm64 cores); mc * kc * 4 bytes is about
// 100-200 KiB of packed A, half of a typical 512 KiB-1 MiB L2; kc * nc * 4 = 512 KiB of B is
// re-read for every mc block from L2/L3. pass_blocks: AVX-512's tiles run two K blocks a pass,
// where the tile's start and end were a measurable share of its time (the last column).
constexpr GemmConfig kConfigs[] = {
    // 4 x 8 scalar accumulators: a compiler keeps them in 16-32 scalar registers.
    {KernelTarget::kPortable, 4, 8, 256, 64, 512, 1},
    // 6 x 2 xmm accumulators + 2 B + 1 broadcast = 15 of 16 xmm.
    {KernelTarget::kX86Sse4, 6, 8, 256, 96, 512, 1},
    // 6 x 2 ymm accumulators + 2 B + 1 broadcast = 15 of 16 ymm.
    {KernelTarget::kX86Avx2, 6, 16, 256, 96, 512, 1},
    // 14 x 2 zmm accumulators + 2 B + 1 broadcast = 31 of 32 zmm.
    {KernelTarget::kX86Avx512, 14, 32, 256, 112, 512, 2},
    // 12 x 2 q accumulators + 2 B + 1 broadcast = 27 of 32 q registers.
    {KernelTarget::kArmNeon, 12, 8, 256, 96, 512, 1},
};

// In the order of KernelTargetNameList (KernelTargetTest.NamesRoundTrip checks the two agree).
constexpr KernelTarget kNamedTargets[] = {KernelTarget::kX86Avx512, KernelTarget::kX86Avx2,
                                          KernelTarget::kX86Sse4, KernelTarget::kArmNeon,
                                          KernelTarget::kPortable};

}  // namespace

const char* KernelTargetNameList() { return "avx512, avx2, sse4, neon, portable"; }

bool KernelTargetFromName(const char* name, KernelTarget* target) {
  if (name == nullptr) return false;
  for (KernelTarget candidate : kNamedTargets) {
    if (std::strcmp(name, KernelTargetName(candidate)) == 0) {
      *target = candidate;
      return true;
    }
  }
  return false;
}

const char* KernelTargetName(KernelTarget target) {
  switch (target) {
    case KernelTarget::kPortable:
      return "portable";
    case KernelTarget::kX86Sse4:
      return "sse4";
    case KernelTarget::kX86Avx2:
      return "avx2";
    case KernelTarget::kX86Avx512:
      return "avx512";
    case KernelTarget::kArmNeon:
      return "neon";
  }
  return "unknown";
}

namespace {

// nr / 2 where that is one vector of the target's fixed width; 0 elsewhere.
size_t NarrowPanelWidth(const GemmConfig& config) {
  switch (config.target) {
    case KernelTarget::kX86Sse4:
    case KernelTarget::kX86Avx2:
    case KernelTarget::kX86Avx512:
      return config.nr / 2;
    case KernelTarget::kPortable:
    case KernelTarget::kArmNeon:
      return 0;
  }
  return 0;
}

}  // namespace

size_t GroupPanelWidth(const GemmConfig& config, size_t group_output_channels) {
  const size_t narrow = NarrowPanelWidth(config);
  return narrow != 0 && group_output_channels <= narrow ? narrow : config.nr;
}

bool IsPanelWidth(const GemmConfig& config, size_t nr) {
  return nr == config.nr || (nr != 0 && nr == NarrowPanelWidth(config));
}

bool IsGroupPanelWidth(const GemmConfig& config, size_t group_output_channels, size_t nr) {
  return nr == config.nr || nr == GroupPanelWidth(config, group_output_channels);
}

bool GetGemmConfig(KernelTarget target, GemmConfig* config) {
  for (const GemmConfig& candidate : kConfigs) {
    if (candidate.target == target) {
      *config = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace torchir::native
