// Every portable kernel's check and run function, declared from the one list
// (kernel_list.h, which documents each kernel's arguments). The kernel sources include this;
// an app includes portable_kernels.h instead.
#pragma once

#include "runtime/core/error.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// Kernels sharing a check declare it more than once, which C++ allows.
#define TORCHIR_PORTABLE_KERNEL(name, check, run, num_outputs) \
  Error check(KernelArgs args);                                \
  Error run(KernelContext& context, KernelArgs args);
#include "runtime/kernels/portable/kernel_list.h"
#undef TORCHIR_PORTABLE_KERNEL

}  // namespace torchir::runtime::portable
