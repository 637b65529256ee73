// Immutable bytes of a constant tensor (a weight or a lifted constant).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace torchir::ir {

// A read-only view of tensor bytes that keeps their storage alive. The storage
// may be a memory-mapped weights file (zero copy) or a buffer this object owns.
class TensorData {
 public:
  TensorData() = default;
  // Views `size` bytes at `bytes`, kept alive by `owner`.
  TensorData(std::shared_ptr<const void> owner, const uint8_t* bytes, size_t size)
      : owner_(std::move(owner)), bytes_(bytes), size_(size) {}

  // Copies `size` bytes into storage owned by the result.
  static TensorData Copy(const void* bytes, size_t size);

  const uint8_t* data() const { return bytes_; }
  size_t size() const { return size_; }
  bool empty() const { return bytes_ == nullptr; }

 private:
  std::shared_ptr<const void> owner_;
  const uint8_t* bytes_ = nullptr;
  size_t size_ = 0;
};

}  // namespace torchir::ir
