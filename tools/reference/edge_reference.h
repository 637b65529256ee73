// The Edge reference executor: runs a graph of Edge ops (docs/edge-dialect.md)
// on the CPU with LibTorch, as the ground truth for everything after lowering.
//
// Each Edge op is run from its meaning in the dialect table and nothing else: it
// knows no lowering rule, so running a lowered graph here checks lowering
// against PyTorch independently. Most ops mean what the ATen op named like
// their kernel means (edge.atan2 is aten::atan2) and run as that op through
// the dispatcher; the few that differ have a small hand-written implementation.
//
// For each node, in order:
//   1. The op's hand-written implementation is found by name, else the one
//      overload of aten::<kernel> its inputs and attributes fit; ops with
//      neither are all listed before anything runs.
//   2. It reads the node's tensor inputs (table order) and attributes (each
//      must be present with its table kind) and computes the outputs with
//      LibTorch ops, e.g. edge.convolution is at::convolution followed by
//      at::clamp when output_min/output_max are finite.
//   3. Each result must have exactly the dtype and shape the graph records.
//
// Errors name the node and op; LibTorch exceptions become statuses.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "tools/reference/host_tensor.h"

namespace torchir::reference {

// Runs the Edge graph `graph` on `inputs`, one per graph input in
// graph.inputs() order, whose types must match the graph's. Every weight and
// constant must carry its data. Returns the graph outputs in order.
absl::StatusOr<std::vector<HostTensor>> RunEdgeReference(const ir::Graph& graph,
                                                         const std::vector<HostTensor>& inputs);

// The Edge ops ("edge.add", ...) that RunEdgeReference implements, sorted. A
// test checks that this covers dialect::EdgeOps().
std::vector<std::string> EdgeReferenceOps();

}  // namespace torchir::reference
