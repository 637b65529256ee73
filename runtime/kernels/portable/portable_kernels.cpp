#include "runtime/kernels/portable/portable_kernels.h"

#include <initializer_list>

#include "runtime/kernel/kernel_registry.h"
#include "runtime/kernels/portable/kernel_lists.h"

namespace torchir::runtime::portable {

Span<const Kernel> PortableKernels() {
  static Kernel all[kMaxRegisteredKernels];
  static size_t count = [] {
    size_t n = 0;
    for (Span<const Kernel> part : {ComputeKernels(), TensorKernels()}) {
      for (const Kernel& kernel : part) {
        if (n < kMaxRegisteredKernels) all[n++] = kernel;
      }
    }
    return n;
  }();
  return Span<const Kernel>(all, count);
}

Error RegisterPortableKernels() {
  static Error result = RegisterKernels(PortableKernels());
  return result;
}

}  // namespace torchir::runtime::portable
