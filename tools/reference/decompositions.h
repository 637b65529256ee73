// Internal to torchir_reference (includes LibTorch): ops that current
// torch.export emits but LibTorch 1.13 lacks (or declares with an older
// schema), each as its current schema plus an equivalent composition of ops
// 1.13 has. Arguments are bound to that schema like any other op's, so a
// decomposition sees a complete, typed argument list.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

#include <string_view>
#include <vector>

namespace torchir::reference {

// Computes the results of one call from its arguments, in schema order.
// Failures throw c10::Error (TORCH_CHECK), as LibTorch ops do.
using DecompositionFn = std::vector<c10::IValue> (*)(const torch::jit::Stack& arguments);

struct Decomposition {
  const char* op;      // the IR's op string: "aten.rms_norm.default"
  const char* schema;  // as current PyTorch declares it
  DecompositionFn run;
};

// All decompositions, in table order.
const std::vector<Decomposition>& Decompositions();

// The decomposition for `op`, or nullptr.
const Decomposition* FindDecomposition(std::string_view op);

// The parsed schema of `decomposition` (parsed once).
const c10::FunctionSchema& SchemaOf(const Decomposition& decomposition);

}  // namespace torchir::reference
