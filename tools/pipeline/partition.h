// The partition stage: hands what the backends of an ordered list take to them,
// in list order, so that each node goes to the first backend that takes it; what
// no backend takes stays on the portable kernels. Only the backend interface
// (compiler/backend/backend.h) is used here.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/backend/backend_registry.h"
#include "compiler/backend/partition_result.h"
#include "compiler/ir/graph.h"

namespace torchir::pipeline {

// The names a --backend list may hold, in --help order: the registered backends,
// then "portable".
std::vector<std::string> BackendNames(const backend::BackendRegistry& registry);

// "xnnpack: <its description>; ...; portable, alone: ...": every name BackendNames()
// gives with what it does, for --help.
std::string DescribeBackends(const backend::BackendRegistry& registry);

// The backends of `list`, a comma-separated list of names ("xnnpack",
// "native,xnnpack"), in order; "portable" alone is the empty list. InvalidArgument,
// naming the problem, for an unknown name ("unknown backend 'x' (available: ...)"),
// an empty entry, a name given twice, or "portable" together with other names.
absl::StatusOr<std::vector<const backend::Backend*>> ResolveBackendList(
    const std::string& list, const backend::BackendRegistry& registry);

// Runs `backends` on an optimised Edge graph in order, each on what the ones before
// it left, numbering delegates on from where the previous backend stopped, then
// checks the result: every node other than a delegate call still passes the Edge
// verifier, and the delegate calls' indices are unique and cover the payloads.
// Errors name the backend.
absl::StatusOr<backend::Partitioning> PartitionForBackends(
    ir::Graph& graph, const std::vector<const backend::Backend*>& backends);

// Asks the backend behind each delegate call of a partitioned `graph` (the backend of
// `partitioning` whose payloads hold the call's delegate_index, looked up by name in
// `registry`) how much scratch one call needs on up to `max_threads` threads
// (backend::Backend::ScratchBytes), and records it on the call node
// (dialect::kDelegateScratchAttr, left off for 0) for the memory planner. Errors name
// the backend and the call.
absl::Status DeclareDelegateScratch(ir::Graph& graph, const backend::Partitioning& partitioning,
                                    const backend::BackendRegistry& registry, uint32_t max_threads);

}  // namespace torchir::pipeline
