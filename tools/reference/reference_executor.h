// The reference executor: runs an ATen-level ir::Graph op by op on the CPU
// through LibTorch's c10 dispatcher. It is the numerical ground truth the
// compiler's later stages are checked against, so it knows no op by hand:
// every call is rebuilt from the op's schema.
//
// For each node, in order:
//   1. The op string `aten.<name>.<overload>` names a schema (overload
//      `default` is the unnamed one) of the linked LibTorch, the torch 2.x
//      wheel's (cmake/ReferenceLibTorch.cmake): the torch that wrote the IR.
//   2. The flat tensor inputs are dealt to the schema's tensor arguments in
//      order: `Tensor[]` / `Tensor?[]` arguments take the counts recorded in
//      tensor_list_sizes() (with None re-inserted from tensor_list_none_masks()),
//      a `Tensor` argument given as a scalar attribute (`x * 0.5`) becomes a
//      wrapped-number 0-d tensor, and optional tensors that were passed as None
//      (and so left no input) are placed by the schema and per-op rules; what
//      stays ambiguous is an error.
//   3. Every other argument comes from the attribute of the same name,
//      converted to the schema's type (a single int fills an `int[N]`), or from
//      the schema default when absent.
//   4. The op runs on real tensors, so in-place ops and views alias exactly as
//      in PyTorch. Each result is checked against the dtype and shape the graph
//      recorded for it. `getitem` picks one result of a multi-output node.
//
// Errors name the node and op: "node 'conv2d' (aten.conv2d.default): argument
// 'stride': ...". LibTorch exceptions are caught and returned as statuses.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "tools/reference/host_tensor.h"

namespace torchir::reference {

// Runs `graph` on `inputs`, one per graph input in graph.inputs() order, whose
// dtypes and shapes must match the graph's. Every weight and constant must
// carry its data. Returns the graph outputs in graph.outputs() order.
absl::StatusOr<std::vector<HostTensor>> RunReference(const ir::Graph& graph,
                                                     const std::vector<HostTensor>& inputs);

// Fails, listing each, when nodes of `graph` name ops LibTorch does not know.
// RunReference performs this check first.
absl::Status CheckOpsKnown(const ir::Graph& graph);

}  // namespace torchir::reference
