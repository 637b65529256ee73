#include "tools/pipeline/load_model.h"

#include "compiler/frontend/ir_reader.h"
#include "compiler/frontend/weight_binding.h"

namespace torchir::pipeline {

absl::StatusOr<LoadedModel> LoadModel(const LoadOptions& options) {
  LoadedModel model;
  frontend::ReadReport report;
  absl::StatusOr<std::unique_ptr<ir::Graph>> graph =
      frontend::ReadPytorchIrFile(options.model_path, &report);
  if (!graph.ok()) return graph.status();
  model.graph = std::move(*graph);
  if (!options.weights_path.empty()) {
    absl::StatusOr<std::unique_ptr<frontend::WeightFile>> weights =
        frontend::WeightFile::Open(options.weights_path);
    if (!weights.ok()) return weights.status();
    model.weights = std::move(*weights);
    absl::Status bound = frontend::BindWeights(*model.weights, model.graph.get(), &report);
    if (!bound.ok()) return bound;
  }
  if (options.require_all_weights) {
    absl::Status complete = frontend::CheckAllConstantsBound(*model.graph, options.model_path);
    if (!complete.ok()) return complete;
  }
  model.warnings = std::move(report.warnings);
  return model;
}

}  // namespace torchir::pipeline
