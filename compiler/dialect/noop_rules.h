// When an Edge node does nothing, and how chains of one data-movement op collapse: the
// rules the op table (edge_ops.cpp) attaches to rows as `is_noop` and `collapse_chain`, and
// remove_noop_ops applies. Each takes a node that passed VerifyEdgeNode.
#pragma once

#include "compiler/ir/graph.h"

namespace torchir::dialect::noop_rules {

// No-op rules (EdgeOpDef::is_noop): true when the output equals input 0.
// The output type equals the input's (reshape or expand to the same shape, cast to the same
// dtype).
bool SameType(const ir::Node& node);
// One input only (a concatenation of one tensor).
bool SingleInput(const ir::Node& node);
// `dims` is 0, 1, ..., rank - 1.
bool IdentityPermutation(const ir::Node& node);
// start 0, step 1 and end the dim's size: the slice covers the whole dim.
bool WholeSlice(const ir::Node& node);

// Chain rules (EdgeOpDef::collapse_chain): `node` reads `inner`'s output; afterwards it reads
// `inner`'s input and means the same.
// reshape(reshape(x)) = reshape(x): the outer shape alone decides.
void SkipInner(ir::Node& node, const ir::Node& inner);
// permute(permute(x, first), outer) = permute(x, composed), composed[i] = first[outer[i]].
void ComposePermutations(ir::Node& node, const ir::Node& inner);

}  // namespace torchir::dialect::noop_rules
