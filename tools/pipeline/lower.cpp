#include "tools/pipeline/lower.h"

#include "compiler/lowering/lowering.h"

namespace torchir::pipeline {

absl::StatusOr<std::unique_ptr<ir::Graph>> LowerModel(
    const LoadedModel& model, const OptimizeOptions& options,
    std::vector<passes::PassStatistics>* statistics) {
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge = lowering::LowerToEdge(*model.graph);
  if (!edge.ok()) return edge.status();
  absl::Status optimized = OptimizeEdgeGraph(**edge, options, statistics);
  if (!optimized.ok()) return optimized;
  return edge;
}

}  // namespace torchir::pipeline
