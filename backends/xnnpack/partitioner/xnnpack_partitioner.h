// The XNNPACK backend's compile side in one call: find what XNNPACK can run,
// group it into regions, and replace each region by a delegate call whose
// payload is the region's blob (backends/xnnpack/serialization/xnnpack_blob.fbs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/xnnpack/partitioner/region_tools.h"
#include "compiler/emit/program_emitter.h"
#include "compiler/ir/graph.h"

namespace torchir::xnnpack {

// The name the runtime's XNNPACK backend registers under.
inline constexpr char kXnnpackBackendId[] = "XnnpackBackend";

// XNN_EXTRA_BYTES: XNNPACK's kernels may read (and write) this many bytes past the end of
// the tensors they are given. Every delegate-call node carries it as the
// "read_overrun_bytes" attribute, which the memory planner honours.
inline constexpr int64_t kXnnpackExtraBytes = 16;
inline constexpr char kReadOverrunAttr[] = "read_overrun_bytes";

// An Edge node the delegates did not take, and why.
struct LeftOutNode {
  std::string node;
  std::string op;
  std::string reason;
  uint64_t macs = 0;
};

// What one delegate took.
struct DelegateSummary {
  int64_t delegate_index = 0;
  std::string call_node;  // the delegate-call node that replaced the region
  Layout layout = Layout::kLogical;
  std::vector<std::string> nodes;  // the Edge nodes taken, in graph order
  std::vector<std::string> ops;    // their ops, parallel to `nodes`
  uint64_t macs = 0;
  size_t blob_bytes = 0;
};

struct XnnpackPartitionResult {
  // payloads[i] belongs to the delegate call whose delegate_index is
  // first_delegate_index + i (emit::EmitInput::delegates).
  std::vector<emit::DelegatePayload> payloads;
  std::vector<DelegateSummary> delegates;  // parallel to `payloads`
  std::vector<LeftOutNode> left_out;       // in graph order
  uint64_t total_macs = 0;                 // of the Edge graph before partitioning
  uint64_t delegated_macs = 0;
  size_t permutes_inserted = 0;   // layout conversions added at region borders
  size_t permutes_cancelled = 0;  // conversions avoided (between regions, or undoing a permute)
  size_t constants_repacked = 0;  // filters and operands stored anew in XNNPACK's order

  // delegated_macs / total_macs (1 when the graph has no MACs).
  double DelegatedMacShare() const;
};

// Rewrites `graph`, a verified Edge graph, in place:
//   1. checks every Edge node against the capability table (op_capability.h), which gives a
//      reason for each node XNNPACK cannot take and the layout each taken node needs;
//   2. groups the taken nodes into maximal connected regions that create no cycle
//      (node_grouping.h), regions with conflicting layout needs kept apart;
//   3. leaves to the portable kernels the regions that only move data;
//   4. picks each region's layout: channels-last when a node needs it, logical when a node
//      needs that, else whichever its neighbours use more (logical on a tie);
//   5. leaves reshapes at a region's border to the portable kernels (a free view there, a
//      copy in XNNPACK) when no layout conversion would take their place;
//   6. serialises each region into its blob (subgraph_serializer.h), repacking filters;
//   7. replaces the regions by delegate-call nodes with edge.permute nodes at the layout
//      borders (delegate_rewriter.h).
// The delegate calls are numbered from `first_delegate_index` on, so that backends listed
// before XNNPACK keep theirs. Nodes that are not Edge ops (their delegate calls) are left
// alone. The result lists the payloads in delegate_index order, the nodes left out with
// their reasons and the MACs taken. The same graph gives the same graph and the same bytes.
// Errors only on internal inconsistencies (they name the node).
absl::StatusOr<XnnpackPartitionResult> PartitionForXnnpack(ir::Graph& graph,
                                                           int64_t first_delegate_index = 0);

}  // namespace torchir::xnnpack
