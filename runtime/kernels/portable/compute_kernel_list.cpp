#include "runtime/kernels/portable/kernel_lists.h"

namespace torchir::runtime::portable {

Span<const Kernel> ComputeKernels() { return Span<const Kernel>(); }

}  // namespace torchir::runtime::portable
