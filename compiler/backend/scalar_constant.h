// The value of a one-element constant, as the backends read a scalar operand folded into a
// kernel's parameters (XNNPACK's elementwise ops, the native backend's softmax scale and mask
// fill).
#pragma once

#include <optional>

#include "compiler/ir/graph.h"

namespace torchir::backend {

// The single float32 element of a constant with bound data; nullopt otherwise.
std::optional<float> ScalarConstant(const ir::Value* value);

}  // namespace torchir::backend
