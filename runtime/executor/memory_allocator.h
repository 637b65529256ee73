// Allocators for the memory a Method needs at init: its value table, tensor
// views, instruction table and (unless the app supplies them) the planned
// arenas. Nothing allocates after init.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "runtime/core/span.h"

namespace torchir::runtime {

class MemoryAllocator {
 public:
  virtual ~MemoryAllocator() = default;
  // `alignment` is a power of two. nullptr when out of memory.
  virtual void* Allocate(size_t size, size_t alignment) = 0;

  // Typed helper: `count` default-constructed objects, or nullptr.
  template <typename T>
  T* AllocateArray(size_t count) {
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    void* memory = Allocate(count * sizeof(T), alignof(T));
    if (memory == nullptr) return nullptr;
    T* items = static_cast<T*>(memory);
    for (size_t i = 0; i < count; ++i) new (&items[i]) T();
    return items;
  }
};

// Bump allocation inside a buffer the app provides (e.g. a static array on a
// microcontroller-like target). Frees nothing; reuse by making a new one.
class BufferAllocator : public MemoryAllocator {
 public:
  explicit BufferAllocator(Span<uint8_t> buffer) : buffer_(buffer) {}
  void* Allocate(size_t size, size_t alignment) override;
  size_t used() const { return used_; }

 private:
  Span<uint8_t> buffer_;
  size_t used_ = 0;
};

// Heap allocation; everything is freed when the allocator is destroyed.
class MallocAllocator : public MemoryAllocator {
 public:
  MallocAllocator() = default;
  MallocAllocator(const MallocAllocator&) = delete;
  MallocAllocator& operator=(const MallocAllocator&) = delete;
  ~MallocAllocator() override;
  void* Allocate(size_t size, size_t alignment) override;
  size_t allocated_bytes() const { return allocated_bytes_; }

 private:
  struct Block;
  Block* blocks_ = nullptr;
  size_t allocated_bytes_ = 0;
};

}  // namespace torchir::runtime
