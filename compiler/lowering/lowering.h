// ATen -> Edge: lowers a graph read from pytorch-ir (either ATen vocabulary)
// into a new graph of Edge ops.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
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
// Errors name the node and op. An op that is refused on purpose (RuleTable::Refuse) is listed
// as "refused op ..." with its reason instead of "unsupported op ...".
// `trace` (optional) receives what each ATen op lowered to (docs/op-coverage.md's source).
struct LoweringTrace;
absl::StatusOr<std::unique_ptr<ir::Graph>> LowerToEdge(const ir::Graph& aten,
                                                       LoweringTrace* trace = nullptr);

// What the rules made of each ATen op met while lowering, accumulated over calls: the Edge ops
// they emitted or, for a node that emitted none, one of the markers below.
struct LoweringTrace {
  std::map<std::string, std::set<std::string>> edge_ops;  // ATen op type -> what it became
};
inline constexpr std::string_view kTraceConstant = "(compile-time constant)";
inline constexpr std::string_view kTraceIdentity = "(no node: an existing value)";
inline constexpr std::string_view kTraceCheck = "(no node: a compile-time check)";

// The ATen op types that have a lowering rule, sorted.
std::vector<std::string> SupportedAtenOps();

// The ATen op types refused on purpose, each with its reason, sorted.
const std::map<std::string, std::string>& RefusedAtenOps();

}  // namespace torchir::lowering
