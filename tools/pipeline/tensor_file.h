// Reading the tensors a tool feeds or checks a model with (.safetensors or
// .pt, keyed by graph input or output names).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "tools/reference/host_tensor.h"

namespace torchir::pipeline {

// The tensors of `path` named `names`, in order, viewing the file's memory
// (kept alive by each HostTensor). Each must have its type in `types` and the
// file must hold nothing else. `role` ("graph input") names the tensors in
// messages; every missing, extra or mismatched tensor is reported, one per line.
absl::StatusOr<std::vector<reference::HostTensor>> ReadNamedTensors(
    const std::string& path, const std::vector<std::string>& names,
    const std::vector<ir::TensorType>& types, const std::string& role);

}  // namespace torchir::pipeline
