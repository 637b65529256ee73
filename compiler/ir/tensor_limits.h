// Limits on the sizes a compiled program may declare, shared by the compiler
// stages that check them (the ATen and Edge verifiers, lowering, constant
// folding, the memory-plan check in tools/pipeline/).
#pragma once

#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"

namespace torchir::ir {

// The largest byte size of one tensor: the runtime's own bound on a tensor in
// a .pte file (runtime/executor/program_validation.cpp), so the compiler never
// writes what the runtime would refuse.
inline constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 62;

// The default limit on the memory a program needs (its planned arenas plus its
// constants); torchir-compile --max-memory changes it.
inline constexpr uint64_t kDefaultMaxProgramBytes = uint64_t{16} << 30;

// Empty when every size of `type` is non-negative and its byte size is at most
// kMaxTensorBytes; otherwise why not ("size -3 of dim 1 is negative",
// "its element count overflows", ...), to follow "tensor 'x' float32[...]: ".
std::string TensorSizeProblem(const TensorType& type);

}  // namespace torchir::ir
