// Internal to torchir_reference (includes LibTorch): turning a node's flat
// tensor inputs and named attributes into the argument stack of one call of an
// op schema, and the results of that call back into tensors.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace torchir::reference {

// Builds the stack for calling `schema` as `node` does, `inputs` being the
// node's tensor inputs in order. The steps are described in
// reference_executor.h. Errors name the argument, not the node.
absl::StatusOr<torch::jit::Stack> BindArguments(const ir::Node& node,
                                                const c10::FunctionSchema& schema,
                                                const std::vector<at::Tensor>& inputs);

// The tensor results left on `stack` by a call, in order: a `Tensor[]` result
// contributes each element; None and non-tensor results contribute nothing
// (the IR records tensor results only).
std::vector<at::Tensor> FlattenReturns(const torch::jit::Stack& stack);

}  // namespace torchir::reference
