// Multiply-accumulate counts of Edge nodes: the measure of work that partitioning
// reports (how much of a model a backend takes) and that tools print. Each op's count is
// its table row's `macs` rule (edge_ops.cpp); ops without one count 0.
#pragma once

#include <cstdint>

#include "compiler/ir/graph.h"

namespace torchir::dialect {

// The multiply-accumulates one execution of `node` performs: its Edge row's `macs` rule,
// 0 for rows without one (elementwise, pooling, data movement) and for non-Edge ops.
// Saturates at UINT64_MAX; 0 for malformed nodes rather than an error.
uint64_t NodeMacs(const ir::Node& node);

// The sum of NodeMacs over the graph's nodes (saturating).
uint64_t GraphMacs(const ir::Graph& graph);

// The rules rows use (EdgeOpDef::macs).
namespace mac_rules {
// Output numel * the weight's (input 1, [O, C_in/groups, k...]) per-output-channel volume:
// one output element reduces over C_in/groups * prod(kernel) inputs.
uint64_t Convolution(const ir::Node& node);
// Output numel * K, input 0's last dim (linear: input [..., K]; matmul: self [..., M, K]).
uint64_t MatrixProduct(const ir::Node& node);
}  // namespace mac_rules

}  // namespace torchir::dialect
