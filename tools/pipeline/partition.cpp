#include "tools/pipeline/partition.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/dialect/node_macs.h"
#include "compiler/ir/tensor_limits.h"

namespace torchir::pipeline {
namespace {

// The Edge verifier for a partitioned graph: delegate calls are not Edge ops, so
// they are skipped here, and only here; every other node must still verify. Each
// delegate call must name its own payload.
absl::Status VerifyPartitionedGraph(const ir::Graph& graph, size_t payload_count) {
  std::vector<std::string> problems = graph.CheckInvariants();
  std::vector<std::string> callers(payload_count);
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() != dialect::kDelegateCallOp) {
      absl::Status status = dialect::VerifyEdgeNode(*node);
      if (!status.ok()) problems.emplace_back(status.message());
      continue;
    }
    const ir::AttrValue* index = node->FindAttr(dialect::kDelegateIndexAttr);
    if (index == nullptr || index->kind() != ir::AttrValue::Kind::kInt || index->as_int() < 0 ||
        static_cast<uint64_t>(index->as_int()) >= payload_count) {
      problems.push_back(absl::StrCat("delegate call '", node->name(),
                                      "' has no delegate_index below ", payload_count));
      continue;
    }
    std::string& caller = callers[static_cast<size_t>(index->as_int())];
    if (!caller.empty()) {
      problems.push_back(absl::StrCat("delegate calls '", caller, "' and '", node->name(),
                                      "' share delegate_index ", index->as_int()));
    }
    caller = node->name();
  }
  for (size_t i = 0; i < callers.size(); ++i) {
    if (callers[i].empty()) problems.push_back(absl::StrCat("delegate ", i, " has no call"));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("the partitioned graph is invalid:\n", absl::StrJoin(problems, "\n")));
}

// A backend's result must number its delegates on from `first`, one payload each.
absl::Status CheckNumbering(const std::string& backend, const backend::PartitionResult& result,
                            int64_t first) {
  if (result.payloads.size() != result.delegates.size()) {
    return absl::InternalError(absl::StrCat("backend '", backend, "' returned ",
                                            result.payloads.size(), " payloads for ",
                                            result.delegates.size(), " delegates"));
  }
  for (size_t i = 0; i < result.delegates.size(); ++i) {
    if (result.delegates[i].delegate_index != first + static_cast<int64_t>(i)) {
      return absl::InternalError(absl::StrCat("backend '", backend, "' numbered its delegate ", i,
                                              " as ", result.delegates[i].delegate_index,
                                              " instead of ", first + static_cast<int64_t>(i)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> BackendNames(const backend::BackendRegistry& registry) {
  std::vector<std::string> names = registry.Names();
  names.push_back(backend::kPortableBackendName);
  return names;
}

std::string DescribeBackends(const backend::BackendRegistry& registry) {
  std::string text;
  for (const std::string& name : registry.Names()) {
    absl::StrAppend(&text, name, ": ", registry.Find(name)->description(), "; ");
  }
  absl::StrAppend(&text, backend::kPortableBackendName,
                  ", alone: every node runs on the portable kernels");
  return text;
}

absl::StatusOr<std::vector<const backend::Backend*>> ResolveBackendList(
    const std::string& list, const backend::BackendRegistry& registry) {
  const std::vector<std::string> names = absl::StrSplit(list, ',');
  std::vector<const backend::Backend*> backends;
  for (const std::string& name : names) {
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("backend list '", list, "' has an empty entry"));
    }
    if (name == backend::kPortableBackendName) {
      if (names.size() == 1) return backends;
      return absl::InvalidArgumentError(absl::StrCat(
          "backend list '", list, "': '", name,
          "' means nothing is delegated and cannot be listed with other backends (what no "
          "listed backend takes runs on the portable kernels anyway)"));
    }
    const backend::Backend* found = registry.Find(name);
    if (found == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown backend '", name,
                       "' (available: ", absl::StrJoin(BackendNames(registry), ", "), ")"));
    }
    if (std::find(backends.begin(), backends.end(), found) != backends.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("backend list '", list, "' names '", name, "' twice"));
    }
    backends.push_back(found);
  }
  return backends;
}

absl::StatusOr<backend::Partitioning> PartitionForBackends(
    ir::Graph& graph, const std::vector<const backend::Backend*>& backends) {
  backend::Partitioning partitioning;
  for (const ir::Node* node : graph.nodes()) {
    if (dialect::IsEdgeOpName(node->op())) partitioning.total_macs += dialect::NodeMacs(*node);
  }
  for (const backend::Backend* backend : backends) {
    const std::string name = backend->name();
    const auto first = static_cast<int64_t>(partitioning.payloads.size());
    absl::StatusOr<backend::PartitionResult> result = backend->Partition(graph, first);
    if (!result.ok()) {
      return absl::Status(result.status().code(),
                          absl::StrCat("backend '", name, "': ", result.status().message()));
    }
    if (absl::Status status = CheckNumbering(name, *result, first); !status.ok()) return status;
    for (size_t i = 0; i < result->payloads.size(); ++i) {
      partitioning.payloads.push_back(result->payloads[i]);
      // The delegate call's debug handle in the program: the nodes it took.
      partitioning.payloads.back().node_names = result->delegates[i].nodes;
    }
    partitioning.backends.push_back({name, std::move(*result)});
  }
  if (absl::Status status = VerifyPartitionedGraph(graph, partitioning.payloads.size());
      !status.ok()) {
    return status;
  }
  return partitioning;
}

absl::Status DeclareDelegateScratch(ir::Graph& graph, const backend::Partitioning& partitioning,
                                    const backend::BackendRegistry& registry,
                                    uint32_t max_threads) {
  // Delegate indices run on from one backend of the list to the next (PartitionForBackends).
  std::vector<uint64_t> scratch;
  std::vector<std::string> owner;
  for (const backend::BackendPartition& partition : partitioning.backends) {
    const backend::Backend* backend = registry.Find(partition.backend);
    if (backend == nullptr) {
      return absl::InternalError(absl::StrCat("backend '", partition.backend,
                                              "' partitioned the graph but is not in the "
                                              "registry asked for its scratch"));
    }
    for (const emit::DelegatePayload& payload : partition.result.payloads) {
      absl::StatusOr<uint64_t> bytes = backend->ScratchBytes(payload, max_threads);
      if (!bytes.ok()) {
        return absl::Status(bytes.status().code(),
                            absl::StrCat("backend '", partition.backend, "', delegate ",
                                         scratch.size(), ": ", bytes.status().message()));
      }
      scratch.push_back(*bytes);
      owner.push_back(partition.backend);
    }
  }
  for (ir::Node* node : graph.NodeSnapshot()) {
    if (node->op() != dialect::kDelegateCallOp) continue;
    const ir::AttrValue* index = node->FindAttr(dialect::kDelegateIndexAttr);
    if (index == nullptr || index->kind() != ir::AttrValue::Kind::kInt || index->as_int() < 0 ||
        static_cast<uint64_t>(index->as_int()) >= scratch.size()) {
      return absl::InternalError(
          absl::StrCat("delegate call '", node->name(), "' names no delegate of the partitioning"));
    }
    const uint64_t bytes = scratch[static_cast<size_t>(index->as_int())];
    if (bytes > static_cast<uint64_t>(ir::kMaxTensorBytes)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("backend '", owner[static_cast<size_t>(index->as_int())], "' declares ",
                       bytes, " bytes of scratch for delegate call '", node->name(), "'"));
    }
    if (bytes > 0) {
      node->SetAttr(dialect::kDelegateScratchAttr, ir::AttrValue::Int(static_cast<int64_t>(bytes)));
    }
  }
  return absl::OkStatus();
}

}  // namespace torchir::pipeline
