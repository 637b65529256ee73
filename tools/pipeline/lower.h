// The second pipeline stage, shared by every tool: lower the loaded ATen graph
// to the Edge dialect and optimise it.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "passes/pass_statistics.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/optimize.h"

namespace torchir::pipeline {

// Lowers `model`'s ATen graph into a fresh Edge graph that has passed
// dialect::VerifyEdgeGraph, then runs the optimisation passes (optimize.h) on it.
// Its weights and constants view the same bytes as the ATen graph's, so `model`
// must outlive it. Every unsupported op is listed at once, one per line.
// `statistics` (optional) receives the pass statistics.
absl::StatusOr<std::unique_ptr<ir::Graph>> LowerModel(
    const LoadedModel& model, const OptimizeOptions& options = {},
    std::vector<passes::PassStatistics>* statistics = nullptr);

}  // namespace torchir::pipeline
