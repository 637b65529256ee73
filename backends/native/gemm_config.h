// Which micro-kernel each instruction set runs, and the cache blocking around it. One table
// (gemm_config.cpp) is read by the weight packer on the host and by every Highway target of the
// GEMM, so a packed layout and the kernel that reads it cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace torchir::native {

// The instruction-set families torchir packs weights for. Written into packed weights (and later
// into programs), so the numbers are torchir's own and never change; only append.
enum class KernelTarget : uint32_t {
  kPortable = 1,   // Highway's scalar / EMU128 fallback: plain C++ micro-kernel.
  kX86Sse4 = 2,    // SSSE3 / SSE4: 16 xmm registers of 4 floats.
  kX86Avx2 = 3,    // AVX2 + FMA: 16 ymm registers of 8 floats.
  kX86Avx512 = 4,  // AVX-512 (AVX3, AVX3_DL): 32 zmm registers of 16 floats.
  kArmNeon = 5,    // NEON (and SVE run at 128 bits): 32 q registers of 4 floats.
};

// "avx2", ... for logs, tests and benchmark labels.
const char* KernelTargetName(KernelTarget target);

// The target KernelTargetName calls `name`; false (and `*target` untouched) for any other name.
bool KernelTargetFromName(const char* name, KernelTarget* target);

// Every name KernelTargetFromName takes, widest x86-64 first: "avx512, avx2, sse4, neon, portable".
const char* KernelTargetNameList();

// The GEMM's blocking for one target. The micro-kernel computes an mr x nr tile of C with
// mr * nr / lanes accumulators held in registers; kc bounds the K extent of one packed panel
// so an nr-wide panel of B (kc * nr floats) stays in L1 while mc rows of packed A
// (mc * kc floats) stay in L2; nc bounds the N extent of one pass so the kc x nc block of B
// read for every mc block stays in L2 as well.
// A tile runs up to pass_blocks consecutive K blocks in one pass (a pass of the GEMM's K loop),
// starting C once and storing it once: AVX-512 runs two (docs/native-kernels.md, "Two K blocks a
// pass"); its A copies then hold pass_blocks * kc floats a row.
struct GemmConfig {
  KernelTarget target;
  size_t mr;
  size_t nr;
  size_t kc;
  size_t mc;  // a multiple of mr
  size_t nc;  // a multiple of nr
  size_t pass_blocks;
};

// The blocking of `target`; false (and `*config` untouched) for a value outside the enum.
bool GetGemmConfig(KernelTarget target, GemmConfig* config);

// The panel width of a grouped convolution's filter whose groups have `group_output_channels`
// output channels each, packed for `config`: nr / 2 on the x86 targets when the groups fit in it
// (regnet_x_400mf's 16 channels a group on AVX-512), else nr. Those groups run on the direct
// kernels (direct_convolution.h), which read a filter row by row whatever its width; in panels
// of nr, half of every row would be padding, which doubled the bytes each filter fetched from
// memory and, its rows 128 bytes apart with 64 used, defeated the hardware's stream prefetch
// (docs/native-kernels.md, "Narrow groups"). x86 only: nr / 2 is exactly one vector there, while
// arm64's SVE may run wider vectors than the layout's.
size_t GroupPanelWidth(const GemmConfig& config, size_t group_output_channels);

// Whether packed weights for `config.target` may have panels `nr` wide: config.nr, or the narrow
// width of GroupPanelWidth.
bool IsPanelWidth(const GemmConfig& config, size_t nr);

// Whether the filter of a grouped convolution whose groups have `group_output_channels` output
// channels each runs from panels `nr` wide on `config`: its GroupPanelWidth, or config.nr (as
// programs packed them before the narrow panels).
bool IsGroupPanelWidth(const GemmConfig& config, size_t group_output_channels, size_t nr);

// The target the GEMM dispatches to on this CPU now (Highway's best supported target, or the one
// a test forced with hwy::SetSupportedTargetsForTest).
KernelTarget CurrentKernelTarget();

// Makes every native kernel of the process dispatch to the best target this CPU has that is no
// wider than `widest` (Highway's dispatch is process-wide): `avx2` on an AVX-512 machine runs the
// AVX2 kernels a CPU without AVX-512 would (torchir-bench --native-isa), `portable` the plain C++
// ones. Call it before any delegate is initialised: a delegate checks its weights' layout against
// the target at init, and a kernel refuses weights packed for another one (kNotSupported) rather
// than read them. kPortable is below every target; sse4 < avx2 < avx512 on x86-64, and a target of
// the other family (neon on x86-64, avx2 on arm64) is kNotSupported, the dispatch unchanged.
// Returns the target now in use in `*now` (may be null).
runtime::Error LimitKernelTarget(KernelTarget widest, KernelTarget* now);

}  // namespace torchir::native
