// A two-node model (relu(linear(x)), x: float32[1, 2]) in the pytorch-ir format,
// and a helper to make float32 tensors, shared by the tests that drive the CLIs.
#pragma once

#include <string>
#include <vector>

#include "compiler/frontend/weight_file.h"

namespace torchir::testing {

// Weights "fc.weight" [2, 2] and "fc.bias" [2]; output "relu".
inline constexpr char kTinyLinearModel[] = R"json({
  "model_name": "TinyLinear", "pytorch_version": "2.8.0",
  "graph_inputs": [{"name": "x", "shape": [1, 2], "dtype": "float32"}],
  "graph_outputs": [{"name": "relu", "shape": [1, 2], "dtype": "float32"}],
  "weights": [{"name": "fc.weight", "shape": [2, 2], "dtype": "float32"},
              {"name": "fc.bias", "shape": [2], "dtype": "float32"}],
  "weight_name_mapping": {"p_fc_weight": "fc.weight", "p_fc_bias": "fc.bias"},
  "nodes": [
    {"name": "linear", "op_type": "aten.linear.default",
     "inputs": [{"name": "x", "shape": [1, 2], "dtype": "float32", "producer_node": "x",
                 "producer_output_idx": 0},
                {"name": "p_fc_weight", "shape": [2, 2], "dtype": "float32"},
                {"name": "p_fc_bias", "shape": [2], "dtype": "float32"}],
     "outputs": [{"name": "linear", "shape": [1, 2], "dtype": "float32"}], "attrs": {}},
    {"name": "relu", "op_type": "aten.relu.default",
     "inputs": [{"name": "linear", "shape": [1, 2], "dtype": "float32",
                 "producer_node": "linear", "producer_output_idx": 0}],
     "outputs": [{"name": "relu", "shape": [1, 2], "dtype": "float32"}], "attrs": {}}
  ]
})json";

// A float32 tensor named `name` holding `values`.
inline frontend::StoredTensor Floats(const std::string& name, std::vector<int64_t> shape,
                                     const std::vector<float>& values) {
  frontend::StoredTensor tensor;
  tensor.name = name;
  tensor.dtype = ir::DType::kFloat32;
  tensor.shape = std::move(shape);
  tensor.data = ir::TensorData::Copy(values.data(), values.size() * sizeof(float));
  return tensor;
}

}  // namespace torchir::testing
