// The loop both reference executors share: bind inputs and weights as LibTorch
// tensors, run each node through a callback, check results against the types
// the graph records, and hand the graph outputs back as HostTensors. Internal
// to the reference library (it exposes LibTorch types).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "tools/reference/host_tensor.h"

namespace torchir::reference {

// Computes one node's results from its input tensors. LibTorch exceptions it
// throws become errors naming the node.
using NodeRunner = std::function<absl::StatusOr<std::vector<at::Tensor>>(
    const ir::Node& node, const std::vector<at::Tensor>& inputs)>;

struct RunOptions {
  // Check every result's type; when false, results nothing reads may differ
  // (PyTorch versions disagree on unused statistics such as batch norm's saved
  // mean), and nodes with no outputs are not checked.
  bool check_unread_results = true;
};

// Runs `graph` on `inputs` (in graph input order):
//   1. inputs must have the graph's input types; weights and constants must have
//      data; all are copied into fresh tensors (in-place ops may write to them);
//   2. nodes run in order through `run_node`; each result must have its output's
//      recorded type;
//   3. the graph outputs are returned as dense HostTensors.
// Errors name the node, input or output concerned.
absl::StatusOr<std::vector<HostTensor>> RunGraph(const ir::Graph& graph,
                                                 const std::vector<HostTensor>& inputs,
                                                 const NodeRunner& run_node,
                                                 const RunOptions& options = {});

// "node 'conv' (aten.conv2d.default)": how messages name a node.
std::string NodeContext(const ir::Node& node);

}  // namespace torchir::reference
