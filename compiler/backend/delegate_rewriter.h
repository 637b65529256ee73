// The graph side of preprocess, shared by every backend that delegates regions: replacing
// each region by one delegate-call node, converting layouts at the region borders with
// edge.permute nodes (run by the portable kernels), and handing the delegate its repacked
// constants. Layout conversions cancel between two regions that store a tensor the same
// way, whichever backends the regions belong to: a later backend's region reads what an
// earlier one's permute converted from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/backend/constant_transform.h"
#include "compiler/ir/graph.h"

namespace torchir::backend {

// One argument of the delegate call, in the blob's `argument` numbering.
struct SubgraphArgument {
  enum class Kind { kActivation, kConstant, kOutput };
  Kind kind = Kind::kActivation;
  // The graph value: an activation the region reads, a constant before repacking, or a
  // region node's output.
  ir::Value* value = nullptr;
  // kConstant: how the constant is repacked (IsNoop: passed as it is).
  ConstantTransform transform;
  // kConstant, instead of `transform`: the backend's own encoding of the constant (the
  // native backend's packed weights), passed as a new graph constant.
  struct Encoded {
    ir::TensorType type;
    ir::TensorData data;
  };
  std::optional<Encoded> encoded;
  // kActivation, kOutput: the physical order (PhysicalPermutation of the region's layout);
  // not the identity means the program holds the tensor logically and a permute converts.
  std::vector<int64_t> perm;
  // The dims the backend sees; the tensor passed must have exactly these sizes.
  std::vector<int64_t> dims;
};

// A region ready for the program: its blob and the arguments its delegate call passes.
struct SerializedSubgraph {
  std::vector<SubgraphArgument> arguments;  // the inputs (activations, constants), then outputs
  size_t num_inputs = 0;
  std::vector<uint8_t> blob;
};

// One serialised region to put in the graph.
struct RegionRewrite {
  std::vector<ir::Node*> members;  // graph order
  SerializedSubgraph subgraph;
  int64_t delegate_index = 0;
  // Names what the rewrite creates: "<tag>_delegate_<index>" for the call, "<value>_<tag>"
  // for outputs stored logically and for repacked constants.
  std::string tag;
  // Int attributes for the delegate-call node besides delegate_index
  // (read_overrun_bytes).
  std::vector<std::pair<std::string, int64_t>> attributes;
};

// What the rewrite did, for reports and tests.
struct RewriteStats {
  std::vector<std::string> delegate_nodes;  // the delegate-call node of each region
  // edge.permute nodes added at region borders (a conversion that only moves dims of size 1
  // is an edge.reshape, a free view, and not counted)
  size_t permutes_inserted = 0;
  size_t permutes_cancelled = 0;  // conversions not needed: between two channels-last
                                  // regions, or undoing a permute the graph already had
  size_t constants_repacked = 0;  // new constants (filters, operands) in the XNNPACK order
};

// Replaces every region (members disjoint, each convex) of `graph`:
//   1. a delegate-call node per region (dialect/delegate_call.h) whose outputs are the
//      region's outputs in the order and physical shape of its blob's arguments;
//   2. its inputs: each activation in the stored order the region reads; a channels-last
//      input is the physical output of the region that wrote it when there is one (the
//      permute pair cancels), the input of a graph edge.permute that did the opposite
//      conversion, or else a new edge.permute of the logical value (shared by all readers);
//      then the constants, repacked into new graph constants where the blob says so
//      (a conversion that only moves dims of size 1 is an edge.reshape: a view, no copy);
//   3. outside readers and graph outputs of a region output read its logical value: the
//      delegate's output, or an edge.permute back to logical order after it (removed again
//      when its readers are only graph edge.permutes that undo it);
//   4. the region nodes are erased, and with them the constants only they used that were
//      repacked, and graph edge.permutes the cancellations left unread;
//   5. the nodes are put back in a topological order that keeps the graph's order where
//      it can: a delegate call at its region's first node, a border permute beside its
//      delegate call.
// Errors only on internal inconsistencies.
absl::StatusOr<RewriteStats> ReplaceRegionsWithDelegateCalls(
    ir::Graph& graph, const std::vector<RegionRewrite>& regions);

}  // namespace torchir::backend
