// Compile-time evaluation of Edge data-movement ops on constants: the rules the op table
// (edge_ops.cpp) attaches to rows as `fold`, and fold_constants applies (e.g. to core ATen's
// t(weight), so weights reach the backends in the layout their consumer reads). Each takes a
// node that passed VerifyEdgeNode, whose inputs are all constants holding data and whose one
// output is non-empty, and returns the output's bytes. They move raw bytes, so any dtype.
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

}  // namespace torchir::dialect::fold_rules
