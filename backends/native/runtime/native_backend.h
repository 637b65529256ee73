// The native delegate: runs the convolutions and linear layers the compiler's native
// backend wrote as blobs (backends/native/serialization/native_blob.fbs) on torchir's own
// kernels (backends/native/).
//
// Init, for one delegate call:
//   1. verifies the blob (FlatBuffers verifier, identifier "TNV1", version 1), as untrusted
//      as the program it comes from;
//   2. checks each node's geometry (no zero sizes, no overflow) and its arguments: float32
//      contiguous tensors whose element counts and channel dims match the geometry, an output
//      that is not a constant, packed weights (a constant uint8 tensor) whose header passes
//      ViewPackedB and whose K x N is the node's (Winograd nodes: ViewPackedWinograd, C and K);
//   3. when the weights were packed for another CPU family than the one the kernels dispatch
//      to here (--target of torchir-compile), unpacks and repacks them once, into memory from
//      the Method's allocator, and logs that it did (compile for this CPU to avoid it);
//   4. declares the scratch the nodes need (serialization/delegate_scratch.h, for this CPU's
//      blocking and the thread count), which the Method binds: the bytes the compiler planned
//      for the call when they suffice, else a buffer shared by the Method's delegates; and takes
//      the process's shared thread pool (backends/common/).
// Execute then runs the kernels on the arguments' memory: no allocation, no copies of
// weights (they are read in place from the program's constant segment).
#pragma once

#include <cstdint>

#include "runtime/core/error.h"

namespace torchir::runtime::native {

// The id the compiler writes into BackendDelegate.backend_id.
inline constexpr char kNativeBackendId[] = "NativeBackend";

struct NativeOptions {
  // Threads each delegate runs on (1: the calling thread only, no pool). Delegates of every
  // backend initialised with the same count share one pool.
  uint32_t num_threads = 1;
};

// Registers the backend under kNativeBackendId. Idempotent: a later call only changes the
// thread count for delegates initialised after it. kInvalidArgument for 0 threads.
Error RegisterNativeBackend(const NativeOptions& options = {});

// Makes the kernels of the whole process run the widest instruction set this CPU has that is no
// wider than `widest`: "avx512", "avx2", "sse4" (x86-64), "neon" (arm64) or "portable" (plain
// C++). "avx2" on an AVX-512 machine runs the kernels a CPU without AVX-512 would. Call it before
// any program is loaded: delegates repack weights for the kernels in use at init, and a kernel
// refuses weights packed for another set (kNotSupported) rather than misread them;
// NativeKernelsInUse then names the set in use. kInvalidArgument for an unknown name,
// kNotSupported for another CPU family's (neon on x86-64), the kernels then unchanged.
Error LimitNativeKernels(const char* widest);

// The name of the instruction set the kernels run now ("avx512", ...).
const char* NativeKernelsInUse();

// The names LimitNativeKernels takes: "avx512, avx2, sse4, neon, portable".
const char* NativeKernelNames();

}  // namespace torchir::runtime::native
