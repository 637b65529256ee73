// The process-wide table of kernels, filled before programs are loaded (e.g.
// by RegisterPortableKernels()). Fixed capacity: registering never allocates.
#pragma once

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime {

inline constexpr size_t kMaxRegisteredKernels = 256;

// Adds kernels; fails with kInvalidArgument on a duplicate name and
// kOutOfMemory when the table is full (nothing is added then).
Error RegisterKernels(Span<const Kernel> kernels);

// The kernel registered under `name`, or nullptr.
const Kernel* FindKernel(const char* name, size_t name_length);

// All registered kernels, in registration order.
Span<const Kernel> RegisteredKernels();

}  // namespace torchir::runtime
