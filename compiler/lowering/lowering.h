// ATen -> Edge: lowers a graph read from pytorch-ir (either ATen vocabulary)
// into a new graph of Edge ops.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace torchir::lowering {

// Lowers `aten` (weights bound or not) into a fresh Edge graph:
//   1. every op without a lowering rule is listed at once, with its node count
//      and first nodes, and lowering stops; then the graph must pass
//      VerifyAtenGraph (all problems reported at once);
//   2. inputs keep their names and types; weights and constants are brought over
//      on first use, sharing their data;
//   3. nodes are lowered in order by their op's rule (rule_table.h); getitem
//      forwards the chosen output; an in-place op's result also replaces its
//      first input for every later reader (functionalisation);
//   4. each lowered output must have exactly the type the ATen graph records;
//   5. the result passes dialect::VerifyEdgeGraph.
// Errors name the node and op.
absl::StatusOr<std::unique_ptr<ir::Graph>> LowerToEdge(const ir::Graph& aten);

// The ATen op types that have a lowering rule, sorted.
std::vector<std::string> SupportedAtenOps();

}  // namespace torchir::lowering
