// The whole compile pipeline, shared by every tool that writes a program:
// lower and optimise (lower.h), hand what the backend can run to it (the XNNPACK
// partitioner), plan activation memory (graph_memory_plan.h), emit the .pte bytes
// (compiler/emit/program_emitter.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"
#include "compiler/emit/program_emitter.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor_limits.h"
#include "passes/pass_statistics.h"
#include "tools/pipeline/graph_memory_plan.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/optimize.h"

namespace torchir::pipeline {

struct CompileOptions {
  // Where supported subgraphs run; one of AvailableBackends(). "xnnpack" hands
  // every region XNNPACK can run to the XNNPACK delegate and the rest to the
  // portable kernels; "portable" runs every node on the portable kernels.
  std::string backend = "xnnpack";
  OptimizeOptions optimize;
  // The most memory the program may need: planned arenas plus constants plus
  // delegate blobs (memory_limit.h); torchir-compile --max-memory.
  uint64_t max_memory_bytes = ir::kDefaultMaxProgramBytes;
};

// A compiled model: the program's bytes plus the stages' results behind them,
// for reports. The Edge graph views the LoadedModel's weights, so the model
// must outlive it.
struct CompiledProgram {
  std::unique_ptr<ir::Graph> edge_graph;  // after partitioning: it holds the delegate calls
  // What the XNNPACK partitioner took and left (backend "xnnpack" only).
  std::optional<xnnpack::XnnpackPartitionResult> xnnpack;
  std::vector<passes::PassStatistics> pass_statistics;
  GraphMemoryPlan plan;        // its pointers point into edge_graph
  std::vector<uint8_t> bytes;  // the whole .pte file
  emit::EmitStats stats;
};

// The names CompileOptions::backend accepts, in --help order.
std::vector<std::string> AvailableBackends();

// Runs `backend`'s partitioner on an optimised Edge graph, replacing what the
// backend takes by delegate-call nodes, and checks the result: every other node
// still passes the Edge verifier (delegate calls are not Edge ops and are
// skipped). Nothing happens for "portable". InvalidArgument for an unknown backend.
absl::StatusOr<std::optional<xnnpack::XnnpackPartitionResult>> PartitionForBackend(
    ir::Graph& graph, const std::string& backend);

// Lowers `model` to Edge, optimises it, partitions it for the backend, plans its
// memory (one arena), checks the total against options.max_memory_bytes
// (ResourceExhausted) and emits the program (with the backend's delegate
// payloads) in the plan's node order. InvalidArgument for an unknown backend
// (listing the available ones); other errors come from the stages and name
// the node or tensor.
absl::StatusOr<CompiledProgram> CompileProgram(const LoadedModel& model,
                                               const CompileOptions& options = {});

}  // namespace torchir::pipeline
