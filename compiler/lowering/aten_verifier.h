// The verifier of the ATen stage: the graph the frontend produced is well formed.
#pragma once

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace torchir::lowering {

// Checks, reporting every problem at once (one per line):
//   1. the graph invariants (use lists, topological order, unique names), and
//      that every tensor (input, weight, constant, node output) has
//      non-negative sizes and at most ir::kMaxTensorBytes bytes; the rest is
//      checked only when these hold;
//   2. every node is a getitem with an integer index that picks one of its
//      inputs, or an ATen op whose schema torchir knows and whose inputs and
//      attributes bind to it (dialect::BindAtenCall);
//   3. every graph output is a value of the graph.
// Unsupported-but-known ops pass: supporting them is lowering's question.
absl::Status VerifyAtenGraph(const ir::Graph& graph);

}  // namespace torchir::lowering
