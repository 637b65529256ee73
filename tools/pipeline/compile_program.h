// The whole compile pipeline, shared by every tool that writes a program:
// lower and optimise (lower.h), hand what the listed backends can run to them
// (partition.h, through the backend interface only), plan activation memory (graph_memory_plan.h),
// emit the .pte bytes (compiler/emit/program_emitter.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/backend/backend_registry.h"
#include "compiler/backend/partition_result.h"
#include "compiler/emit/program_emitter.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor_limits.h"
#include "passes/pass_statistics.h"
#include "tools/pipeline/graph_memory_plan.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/optimize.h"

namespace torchir::pipeline {

struct CompileOptions {
  // Where supported subgraphs run: a comma-separated list of backend names in order
  // of preference ("xnnpack", "native,xnnpack"). Each node goes to the first listed
  // backend that takes it, the rest to the portable kernels; "portable" alone runs
  // every node on the portable kernels.
  std::string backend = "xnnpack";
  // Where the names are looked up; nullptr: BuiltinBackends(target) (builtin_backends.h).
  const backend::BackendRegistry* backends = nullptr;
  // The CPU family the native backend packs weights for: "host" (this machine's), "avx512",
  // "avx2", "sse4", "neon", "portable" (builtin_backends.h's ParseTarget).
  std::string target = "host";
  // The most threads a delegate of the program will run on: the delegates' scratch
  // (their working memory) is planned into the arena for this many, so it shares bytes
  // with tensors dead during each call. A runtime that runs more threads gives the
  // delegates that then need more memory of their own at init. torchir-compile --threads;
  // 1 is the runtime's default (docs/decisions.md).
  uint32_t threads = 1;
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
  // What each listed backend took and left (no backends for "portable").
  backend::Partitioning partitioning;
  std::vector<passes::PassStatistics> pass_statistics;
  GraphMemoryPlan plan;        // its pointers point into edge_graph
  std::vector<uint8_t> bytes;  // the whole .pte file
  emit::EmitStats stats;
};

// The names CompileOptions::backend lists may hold with the built-in backends, in
// --help order ("portable" last).
std::vector<std::string> AvailableBackends();

// What each of AvailableBackends() does, for --help (partition.h's DescribeBackends).
std::string DescribeAvailableBackends();

// OK when `list` is a valid CompileOptions::backend for the built-in backends, else
// InvalidArgument naming the problem ("unknown backend 'x' (available: ...)").
absl::Status CheckBackendList(const std::string& list);

// Runs the backends of `list` (looked up in `registry`, nullptr: the built-in ones)
// on an optimised Edge graph in order, replacing what each takes by delegate-call
// nodes, and checks the result (partition.h). Nothing happens for "portable".
// InvalidArgument for an invalid list.
absl::StatusOr<backend::Partitioning> PartitionForBackend(
    ir::Graph& graph, const std::string& list, const backend::BackendRegistry* registry = nullptr);

// Lowers `model` to Edge, optimises it, partitions it for the backend, plans its
// memory (one arena, with the delegates' scratch for options.threads), checks the total against
// options.max_memory_bytes (ResourceExhausted) and emits the program (with the backends' delegate
// payloads) in the plan's node order. InvalidArgument for an invalid backend list
// (an unknown name lists the available ones); other errors come from the stages and name
// the node or tensor.
absl::StatusOr<CompiledProgram> CompileProgram(const LoadedModel& model,
                                               const CompileOptions& options = {});

}  // namespace torchir::pipeline
