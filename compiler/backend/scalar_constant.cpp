#include "compiler/backend/scalar_constant.h"

#include <cstring>

namespace torchir::backend {

std::optional<float> ScalarConstant(const ir::Value* value) {
  if (!value->is_constant_like() || value->dtype() != ir::DType::kFloat32 ||
      value->type().numel() != 1 || value->data().size() != sizeof(float)) {
    return std::nullopt;
  }
  float scalar;
  std::memcpy(&scalar, value->data().data(), sizeof(float));
  return scalar;
}

}  // namespace torchir::backend
