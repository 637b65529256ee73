// Compile-time evaluation of Edge ops on constants: the rules the op table (edge_ops.cpp)
// attaches to rows as `fold`, and fold_constants applies (e.g. to core ATen's t(weight), so
// weights reach the backends in the layout their consumer reads, or to the comparison that turns
// a transformer's mask buffer into a bool mask). Each takes a node that passed VerifyEdgeNode,
// whose inputs are all constants holding data and whose one output is non-empty, and returns the
// output's bytes (empty: not folded). The data-movement rules move raw bytes, so any dtype.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace torchir::dialect::fold_rules {

std::vector<uint8_t> Reshape(const ir::Node& node);
std::vector<uint8_t> Permute(const ir::Node& node);
std::vector<uint8_t> Slice(const ir::Node& node);
std::vector<uint8_t> Expand(const ir::Node& node);
std::vector<uint8_t> Concatenate(const ir::Node& node);
// edge.eq, ne, lt, le, gt, ge on float32, float64, int32 or int64 inputs of one dtype,
// broadcast: bool bytes (0 or 1), compared in the inputs' own type (NaN is unequal to all).
std::vector<uint8_t> Compare(const ir::Node& node);

}  // namespace torchir::dialect::fold_rules
