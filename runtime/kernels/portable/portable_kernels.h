// The portable kernels: one per Edge op, registered under the Edge op table's
// `kernel` names, all listed once in kernel_list.h. Plain C++ written for clarity
// first and reasonable speed second; they run everything no delegate took.
#pragma once

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// Every portable kernel.
Span<const Kernel> PortableKernels();

// Adds PortableKernels() to the kernel registry. Idempotent: later calls do
// nothing and return kOk.
Error RegisterPortableKernels();

}  // namespace torchir::runtime::portable
