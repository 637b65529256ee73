// The whole compile pipeline, shared by every tool that writes a program:
// lower and optimise (lower.h), plan activation memory (graph_memory_plan.h),
// emit the .pte bytes (compiler/emit/program_emitter.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/emit/program_emitter.h"
#include "compiler/ir/graph.h"
#include "passes/pass_statistics.h"
#include "tools/pipeline/graph_memory_plan.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/optimize.h"

namespace torchir::pipeline {

struct CompileOptions {
  // Where supported subgraphs run; one of AvailableBackends(). "portable" runs
  // every node on the portable kernels.
  std::string backend = "portable";
  OptimizeOptions optimize;
};

// A compiled model: the program's bytes plus the stages' results behind them,
// for reports. The Edge graph views the LoadedModel's weights, so the model
// must outlive it.
struct CompiledProgram {
  std::unique_ptr<ir::Graph> edge_graph;
  std::vector<passes::PassStatistics> pass_statistics;
  GraphMemoryPlan plan;        // its pointers point into edge_graph
  std::vector<uint8_t> bytes;  // the whole .pte file
  emit::EmitStats stats;
};

// The names CompileOptions::backend accepts, in --help order.
std::vector<std::string> AvailableBackends();

// Lowers `model` to Edge, optimises it, plans its memory (one arena) and emits
// the program in the plan's node order. InvalidArgument for an unknown backend
// (listing the available ones); other errors come from the stages and name
// the node or tensor.
absl::StatusOr<CompiledProgram> CompileProgram(const LoadedModel& model,
                                               const CompileOptions& options = {});

}  // namespace torchir::pipeline
