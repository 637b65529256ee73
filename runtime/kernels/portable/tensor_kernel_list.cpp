#include "runtime/kernels/portable/kernel_lists.h"

namespace torchir::runtime::portable {

Span<const Kernel> TensorKernels() { return Span<const Kernel>(); }

}  // namespace torchir::runtime::portable
