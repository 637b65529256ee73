// What XNNPACK can take: one entry per Edge op, holding its support check (with the
// reason when it says no) and its serialisation into blob nodes. The partitioner, the
// preprocess step and --explain all read this one table; adding an op is one entry.
//
// The entries live with their family (convolution_capabilities.cpp,
// elementwise_capabilities.cpp, pooling_capabilities.cpp, data_movement_capabilities.cpp);
// refused_ops.cpp says why the ops without an entry are refused.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "backends/xnnpack/partitioner/region_tools.h"
#include "backends/xnnpack/partitioner/subgraph_serializer.h"
#include "compiler/ir/graph.h"

namespace torchir::xnnpack {

// The answer of a support check: supported (empty reason) with the layout the node needs,
// or the exact problem (dtype, attribute value, rank, layout, ...).
struct Support {
  std::string reason;
  LayoutNeed need = LayoutNeed::kAny;

  bool ok() const { return reason.empty(); }
  static Support Yes(LayoutNeed need = LayoutNeed::kAny) { return {"", need}; }
  static Support No(std::string reason) { return {std::move(reason), LayoutNeed::kAny}; }
};

// One Edge op XNNPACK can run.
struct OpCapability {
  std::string_view op;  // "edge.convolution"
  // The op-specific check; runs after the generic ones (CheckXnnpackSupport).
  Support (*check)(const ir::Node& node);
  // Appends the node's XNNPACK nodes to its region's blob (one or several); only called for
  // nodes the check accepted, in a region whose layout satisfies the node's need.
  absl::Status (*serialize)(const ir::Node& node, SubgraphSerializer& subgraph);
  // False for pure data movement (reshape, pad): a region of only such nodes costs a
  // delegate call and a copy for nothing and is left to the portable kernels.
  bool computes = true;
};

// The table, in a stable order (by family, then op).
const std::vector<OpCapability>& XnnpackCapabilities();

// The entry for `op`, or nullptr.
const OpCapability* FindXnnpackCapability(std::string_view op);

// Whether XNNPACK takes `node`: the op has an entry (else why it is refused), every tensor
// it reads and its first output are float32 with at most 6 dims, none empty, then the
// entry's own check.
Support CheckXnnpackSupport(const ir::Node& node);

// Why an op without an entry is refused ("XNNPACK (2022-02-16) has no batch matrix
// multiply ..."), or a generic reason naming the op.
std::string RefusalReason(std::string_view op);

// The families' entries (one file each).
std::vector<OpCapability> ConvolutionCapabilities();
std::vector<OpCapability> ElementwiseCapabilities();
std::vector<OpCapability> PoolingCapabilities();
std::vector<OpCapability> DataMovementCapabilities();

}  // namespace torchir::xnnpack
