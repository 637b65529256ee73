#include "runtime/kernels/portable/portable_kernels.h"

#include "runtime/kernel/kernel_registry.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {

Span<const Kernel> PortableKernels() {
  static const Kernel kKernels[] = {
#define TORCHIR_PORTABLE_KERNEL(name, check, run, num_outputs) {#name, check, run, num_outputs},
#include "runtime/kernels/portable/kernel_list.h"
#undef TORCHIR_PORTABLE_KERNEL
  };
  return Span<const Kernel>(kKernels);
}

Error RegisterPortableKernels() {
  static Error result = RegisterKernels(PortableKernels());
  return result;
}

}  // namespace torchir::runtime::portable
