#include "passes/edge/constant_data.h"

#include <cstring>

namespace torchir::passes {

std::optional<std::vector<float>> ReadFloat32(const ir::Value* value) {
  if (value == nullptr || !value->is_constant_like() || value->dtype() != ir::DType::kFloat32) {
    return std::nullopt;
  }
  const size_t count = static_cast<size_t>(value->type().numel());
  if (value->data().size() != count * sizeof(float)) return std::nullopt;
  std::vector<float> values(count);
  if (count > 0) std::memcpy(values.data(), value->data().data(), count * sizeof(float));
  return values;
}

ir::Value* AddFloat32Constant(ir::Graph& graph, const std::string& base,
                              const std::vector<int64_t>& sizes, const std::vector<float>& values) {
  ir::Value* constant =
      graph.AddConstant(graph.UniqueValueName(base), ir::TensorType{ir::DType::kFloat32, sizes},
                        ir::TensorData::Copy(values.data(), values.size() * sizeof(float)));
  return constant;
}

}  // namespace torchir::passes
