// A tensor held on the host as plain bytes: how tools exchange tensors with the
// reference executor without seeing LibTorch.
#pragma once

#include <string>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor_data.h"

namespace torchir::reference {

// Dense, row-major, little-endian elements of `type`. `data` may view memory
// owned elsewhere (a mapped .safetensors file) and need not be aligned.
struct HostTensor {
  ir::TensorType type;
  ir::TensorData data;

  // True when `data` holds exactly type.nbytes() bytes.
  bool HasConsistentSize() const { return data.size() == type.nbytes(); }
};

}  // namespace torchir::reference
