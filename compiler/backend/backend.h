// The compile-side backend interface: what every backend that takes Edge nodes
// away from the portable kernels implements (XNNPACK, torchir's native kernels).
// The pipeline runs the backends a user lists in order (tools/pipeline/
// partition.h); each sees the graph the previous ones left, so a node
// goes to the first backend that takes it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "compiler/backend/partition_result.h"
#include "compiler/ir/graph.h"

namespace torchir::backend {

// Whether a backend can run one node, with the reason when it cannot.
struct Capability {
  bool supported = false;
  std::string reason;  // empty when supported

  static Capability Yes() { return {true, {}}; }
  static Capability No(std::string reason) { return {false, std::move(reason)}; }
};

class Backend {
 public:
  virtual ~Backend() = default;

  // The name users give in --backend lists: lower case, no commas, unique in a registry.
  virtual std::string name() const = 0;
  // One sentence for --help: what the backend runs and where.
  virtual std::string description() const = 0;

  // Whether the backend can run `node` by itself. Partition may still leave a node it
  // can run to the backends after it (e.g. a region that would only move data), and
  // gives the reason then.
  virtual Capability CheckNode(const ir::Node& node) const = 0;

  // Rewrites `graph` in place: replaces what the backend takes by delegate-call nodes
  // (compiler/dialect/delegate_call.h) numbered first_delegate_index, +1, ... and
  // leaves every other node as it was. Nodes that are not Edge ops (other backends'
  // delegate calls) are neither taken nor reported. The result's payloads are in
  // delegate_index order starting at first_delegate_index; it has a decision for every
  // Edge node the backend saw. The same graph must give the same graph and bytes.
  virtual absl::StatusOr<PartitionResult> Partition(ir::Graph& graph,
                                                    int64_t first_delegate_index) const = 0;

  // Bytes of working memory one call of `payload` (one this backend's Partition
  // returned) needs when its runtime delegate runs on up to `max_threads` threads
  // on the CPU the backend compiles for: computed as the runtime delegate computes
  // what it asks (runtime Backend::ScratchBytes), so that the planned bytes cover it.
  // The pipeline hands the number to the memory planner, which places it in the
  // planned arena live during that call only. 0 (the default): the delegate needs
  // none, or keeps its own (XNNPACK).
  virtual absl::StatusOr<uint64_t> ScratchBytes(const emit::DelegatePayload& /*payload*/,
                                                uint32_t /*max_threads*/) const {
    return uint64_t{0};
  }
};

}  // namespace torchir::backend
