// Kernels: how the runtime calls an operator.
//
// A kernel is registered under the Edge op table's `kernel` name
// ("convolution"). Its arguments are the instruction's values, in the order
// the .pte records them: the op's tensor operands in table order (None for an
// omitted optional tensor, a TensorList for the variadic operand), then its
// attributes in table order, then its outputs.
//
// `check` runs once, at Method init: it must verify everything `run` relies
// on (argument count and kinds, dtypes, ranks, that the output shapes are what
// the inputs and attributes imply), because a program file is untrusted. `run`
// then executes without re-checking, except for data-dependent facts (an
// index tensor's values). Neither may allocate.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace torchir::runtime {

using KernelArgs = Span<EValue* const>;

// Per-call context; reserved for scratch memory and thread pools.
struct KernelContext {
  const char* instruction_name = "";
};

using KernelCheckFn = Error (*)(KernelArgs args);
using KernelRunFn = Error (*)(KernelContext& context, KernelArgs args);

struct Kernel {
  const char* name;  // the Edge op's kernel name, e.g. "add"
  KernelCheckFn check;
  KernelRunFn run;
  // How many trailing arguments the kernel writes. Method init refuses a call
  // whose output arguments are constants (read-only, possibly mapped memory),
  // so a hostile program cannot make a kernel write into the program file.
  uint32_t num_outputs = 1;
};

}  // namespace torchir::runtime
