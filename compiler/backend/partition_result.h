// What a backend's partitioning produced (backend.h), and what an ordered list of
// backends produced together: the delegate payloads for the emitter, a summary per
// delegate and a decision per node for reports (explain.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/emit/program_emitter.h"  // emit::DelegatePayload, a plain struct

namespace torchir::backend {

// What one backend decided for one Edge node.
struct NodeDecision {
  std::string node;
  std::string op;
  bool taken = false;
  int64_t delegate_index = -1;  // when taken: the delegate that runs it
  std::string reason;           // when not taken: why not
  uint64_t macs = 0;
};

// What one delegate took.
struct DelegateSummary {
  int64_t delegate_index = 0;
  std::string call_node;           // the delegate-call node that replaced the nodes
  std::vector<std::string> nodes;  // the Edge nodes taken, in graph order
  std::vector<std::string> ops;    // their ops, parallel to `nodes`
  uint64_t macs = 0;
  size_t blob_bytes = 0;
  std::string detail;  // backend-specific, shown in parentheses (XNNPACK: the layout)
};

// One backend's partitioning of a graph.
struct PartitionResult {
  // payloads[i] belongs to the delegate call whose delegate_index is the
  // first_delegate_index the backend was given plus i.
  std::vector<emit::DelegatePayload> payloads;
  std::vector<DelegateSummary> delegates;  // parallel to `payloads`
  std::vector<NodeDecision> decisions;     // every Edge node the backend saw, in graph order
  // Backend-specific lines for --explain (XNNPACK: layout conversions, repacked constants).
  std::vector<std::string> notes;

  uint64_t DelegatedMacs() const;
};

// One backend of an ordered list and what it did.
struct BackendPartition {
  std::string backend;
  PartitionResult result;
};

// What an ordered list of backends did to one graph, in list order.
struct Partitioning {
  std::vector<BackendPartition> backends;
  // Every backend's payloads, indexed by delegate_index (emit::EmitInput::delegates).
  std::vector<emit::DelegatePayload> payloads;
  uint64_t total_macs = 0;  // of the Edge graph before partitioning

  size_t DelegateCount() const { return payloads.size(); }
  uint64_t DelegatedMacs() const;
  // DelegatedMacs() / total_macs (1 when the graph has no MACs).
  double DelegatedMacShare() const;
};

}  // namespace torchir::backend
