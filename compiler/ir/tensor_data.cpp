#include "compiler/ir/tensor_data.h"

#include <cstring>
#include <vector>

namespace torchir::ir {

TensorData TensorData::Copy(const void* bytes, size_t size) {
  auto storage = std::make_shared<std::vector<uint8_t>>(size);
  if (size > 0) std::memcpy(storage->data(), bytes, size);
  const uint8_t* view = storage->data();
  return TensorData(std::move(storage), view, size);
}

}  // namespace torchir::ir
