// The first pipeline stage, shared by every tool: read the IR, validate it and
// bind the weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/frontend/weight_file.h"
#include "compiler/ir/graph.h"

namespace torchir::pipeline {

struct LoadedModel {
  std::unique_ptr<ir::Graph> graph;
  // Keeps the mapped weights alive while the graph views them.
  std::unique_ptr<frontend::WeightFile> weights;
  std::vector<std::string> warnings;
};

struct LoadOptions {
  std::string model_path;    // the pytorch-ir JSON
  std::string weights_path;  // .safetensors or .pt; empty: no weights
  // When set, loading fails if a weight or constant is left without a value.
  bool require_all_weights = false;
};

absl::StatusOr<LoadedModel> LoadModel(const LoadOptions& options);

}  // namespace torchir::pipeline
