// Tensor: a non-owning view of a dense tensor. Sizes and dim order point into
// the loaded program; data points into a planned arena, a constant segment or
// memory the app provides. The runtime only creates tensors whose bytes it has
// checked to fit their storage.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace torchir::runtime {

// The largest rank the runtime accepts in a program.
inline constexpr size_t kMaxTensorRank = 16;

class Tensor {
 public:
  Tensor() = default;
  Tensor(ScalarType type, Span<const int64_t> sizes, Span<const uint8_t> dim_order, void* data)
      : type_(type), sizes_(sizes), dim_order_(dim_order), data_(data) {
    // In uint64: a validated tensor's element count fits int64, but with a zero dim the
    // product of the dims before it need not (Program validation bounds the total only).
    uint64_t numel = 1;
    for (int64_t size : sizes) numel *= static_cast<uint64_t>(size);
    numel_ = static_cast<int64_t>(numel);
  }

  ScalarType scalar_type() const { return type_; }
  size_t dim() const { return sizes_.size(); }
  Span<const int64_t> sizes() const { return sizes_; }
  int64_t size(size_t d) const { return sizes_[d]; }
  // Empty when contiguous (row-major).
  Span<const uint8_t> dim_order() const { return dim_order_; }
  int64_t numel() const { return numel_; }
  size_t element_size() const { return ElementSize(type_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * ElementSize(type_); }

  void* mutable_data() const { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* mutable_data_ptr() const { return static_cast<T*>(data_); }
  template <typename T>
  const T* data_ptr() const { return static_cast<const T*>(data_); }

  void set_data(void* data) { data_ = data; }

  // True for tensors whose bytes live in the program's constant segments:
  // read-only, never a kernel's or delegate's output.
  bool is_constant() const { return constant_; }
  void set_constant(bool constant) { constant_ = constant; }

 private:
  ScalarType type_ = ScalarType::kFloat32;
  Span<const int64_t> sizes_;
  Span<const uint8_t> dim_order_;
  void* data_ = nullptr;
  int64_t numel_ = 1;
  bool constant_ = false;
};

}  // namespace torchir::runtime
