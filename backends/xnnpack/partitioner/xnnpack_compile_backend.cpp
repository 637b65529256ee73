#include "backends/xnnpack/partitioner/xnnpack_compile_backend.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/partitioner/op_capability.h"
#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/dialect/node_macs.h"

namespace torchir::xnnpack {
namespace {

std::string Plural(size_t n, const char* noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

class XnnpackCompileBackend : public backend::Backend {
 public:
  std::string name() const override { return kXnnpackBackendName; }

  std::string description() const override {
    return "what XNNPACK can run goes to its delegates, regions with spatial ops channels-last";
  }

  backend::Capability CheckNode(const ir::Node& node) const override {
    Support support = CheckXnnpackSupport(node);
    if (support.ok()) return backend::Capability::Yes();
    return backend::Capability::No(std::move(support.reason));
  }

  absl::StatusOr<backend::PartitionResult> Partition(ir::Graph& graph,
                                                     int64_t first_delegate_index) const override {
    // The nodes as they were: PartitionForXnnpack erases the ones it takes.
    std::vector<backend::NodeDecision> decisions;
    for (const ir::Node* node : graph.nodes()) {
      if (!dialect::IsEdgeOpName(node->op())) continue;
      backend::NodeDecision decision;
      decision.node = node->name();
      decision.op = node->op();
      decision.macs = dialect::NodeMacs(*node);
      decisions.push_back(std::move(decision));
    }
    absl::StatusOr<XnnpackPartitionResult> partition =
        PartitionForXnnpack(graph, first_delegate_index);
    if (!partition.ok()) return partition.status();

    backend::PartitionResult result;
    std::unordered_map<std::string, int64_t> taken;
    for (DelegateSummary& delegate : partition->delegates) {
      for (const std::string& node : delegate.nodes) taken[node] = delegate.delegate_index;
      backend::DelegateSummary summary;
      summary.delegate_index = delegate.delegate_index;
      summary.call_node = std::move(delegate.call_node);
      summary.nodes = std::move(delegate.nodes);
      summary.ops = std::move(delegate.ops);
      summary.macs = delegate.macs;
      summary.blob_bytes = delegate.blob_bytes;
      summary.detail = std::string(LayoutName(delegate.layout));
      result.delegates.push_back(std::move(summary));
    }
    std::unordered_map<std::string, std::string> left_out;
    for (LeftOutNode& node : partition->left_out) left_out[node.node] = std::move(node.reason);
    for (backend::NodeDecision& decision : decisions) {
      if (auto it = taken.find(decision.node); it != taken.end()) {
        decision.taken = true;
        decision.delegate_index = it->second;
      } else if (auto reason = left_out.find(decision.node); reason != left_out.end()) {
        decision.reason = std::move(reason->second);
      } else {
        return absl::InternalError(absl::StrCat("XNNPACK partitioning neither took node '",
                                                decision.node, "' (", decision.op,
                                                ") nor gave a reason"));
      }
    }
    result.decisions = std::move(decisions);
    result.payloads = std::move(partition->payloads);
    result.notes.push_back(
        absl::StrCat("layout: ", Plural(partition->permutes_inserted, "permute"),
                     " inserted at region borders, ", partition->permutes_cancelled, " avoided; ",
                     Plural(partition->constants_repacked, "constant"), " repacked"));
    return result;
  }
};

}  // namespace

std::unique_ptr<backend::Backend> MakeXnnpackCompileBackend() {
  return std::make_unique<XnnpackCompileBackend>();
}

}  // namespace torchir::xnnpack
