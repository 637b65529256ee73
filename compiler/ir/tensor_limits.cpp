#include "compiler/ir/tensor_limits.h"

#include "compiler/ir/checked_math.h"

namespace torchir::ir {

std::string TensorSizeProblem(const TensorType& type) {
  for (size_t i = 0; i < type.sizes.size(); ++i) {
    if (type.sizes[i] < 0) {
      return "size " + std::to_string(type.sizes[i]) + " of dim " + std::to_string(i) +
             " is negative";
    }
  }
  int64_t numel = 0;
  uint64_t bytes = 0;
  if (!CheckedProduct(type.sizes, &numel)) return "its element count overflows 64 bits";
  if (!CheckedMul(static_cast<uint64_t>(numel), uint64_t{DTypeSize(type.dtype)}, &bytes) ||
      bytes > kMaxTensorBytes) {
    return "its byte size exceeds the limit of 2^62 bytes per tensor";
  }
  return "";
}

}  // namespace torchir::ir
