// The native backend's compile side: which Edge nodes torchir's own kernels run, and each
// one's delegate call with its weights packed at compile time for one CPU family.
//
// It takes every float32 2-d convolution and linear layer its kernels implement, each as its
// own delegate call, with what follows it fused when that is its only reader: a residual
// edge.add of a tensor of the same shape, then an edge.clamp (relu, relu6, hardtanh). A
// convolution's delegate reads and writes NHWC (channels-last): the region tools of
// compiler/backend/ insert layout conversions at the borders and cancel them between two
// channels-last delegates, of this backend or a later one. The filter or weight matrix becomes
// a uint8 constant holding packed B (backends/native/packed_weights.h) for the target's
// blocking; the blob (serialization/native_blob.fbs) holds the geometry and argument indices.
// A matrix product of run-time operands (attention) takes, when each is the only reader of what
// comes before it, an edge.mul / edge.div by a scalar, an edge.where mask and an edge.softmax
// over the last dim after it (run on each batch's rows right after they are computed), and
// the edge.permute nodes that make its operands from the linear layers' outputs or its output
// back into them: it reads and writes those tensors through strides instead (the blob's
// `strided` fields). Layer norms over the last dim are delegates of their own.
// 3x3 stride-1 convolutions with enough channels and output tiles run by Winograd F(4x4, 3x3),
// those with too few 4x4 tiles but 64+ channels by F(2x2, 3x3) (backends/native/winograd.h),
// their filters transformed at compile time; the environment variable
// TORCHIR_NATIVE_WINOGRAD=off turns it off (=all: F(4x4) wherever it applies, =2x2: F(2x2)),
// --explain says which delegates use which.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/native/gemm_config.h"
#include "compiler/backend/backend.h"

namespace torchir::native {

// The name users give in --backend lists, and the id the runtime delegate registers under.
inline constexpr char kNativeBackendName[] = "native";
inline constexpr char kNativeBackendId[] = "NativeBackend";

// The CPU family a program's weights are packed for, from a --target name: "host" (this
// machine's best), "avx512", "avx2", "sse4", "neon" or "portable". InvalidArgument naming the
// accepted names otherwise.
absl::StatusOr<KernelTarget> ParseKernelTarget(const std::string& name);

// The names ParseKernelTarget accepts, for --help: "host (here: avx512), avx512, avx2, sse4,
// neon, portable".
std::string KernelTargetNames();

// The native backend, packing weights for `target`.
std::unique_ptr<backend::Backend> MakeNativeCompileBackend(KernelTarget target);

}  // namespace torchir::native
