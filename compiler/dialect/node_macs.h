// Multiply-accumulate counts of Edge nodes: the measure of work that partitioning
// reports (how much of a model a backend takes) and that tools print.
#pragma once

#include <cstdint>

#include "compiler/ir/graph.h"

namespace torchir::dialect {

// The multiply-accumulates one execution of `node` performs:
//   - edge.convolution: output numel * C_in / groups * prod(kernel), i.e. output numel times
//     the weight's per-output-channel volume (weight sizes [O, C_in/groups, k...]);
//   - edge.linear: output numel * K (the input's last dim);
//   - edge.matmul: output numel * K (self's last dim);
//   - everything else (elementwise, pooling, data movement, non-Edge ops): 0.
// Saturates at UINT64_MAX; 0 for malformed nodes rather than an error.
uint64_t NodeMacs(const ir::Node& node);

// The sum of NodeMacs over the graph's nodes (saturating).
uint64_t GraphMacs(const ir::Graph& graph);

}  // namespace torchir::dialect
