// Storage for the benchmarks' buffers aligned as the runtime aligns its own. Header only, without
// Google Benchmark: torchir_ab_layer's modules use it too.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace torchir::benchmarks {

// Storage aligned to kBytes (a power of two): by default 64, as the runtime's memory plan places
// every tensor and a program's constant segments place packed weights. A plain std::vector's large
// buffers come from mmap at 16 bytes past a page: half of the 32-byte loads from them cross a
// cache line, which slowed the depthwise layers by 15-25 % (docs/native-kernels.md), so the
// kernels' buffers use this.
template <class T, size_t kBytes = 64>
struct CacheLineAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = CacheLineAllocator<U, kBytes>;
  };
  static constexpr std::align_val_t kAlignment{kBytes};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U, kBytes>&) {}  // NOLINT: rebinding is implicit
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const CacheLineAllocator<U, kBytes>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U, kBytes>&) const {
    return false;
  }
};
using Floats = std::vector<float, CacheLineAllocator<float>>;
// Page-aligned: buffers whose offsets within a page are the same wherever they are allocated.
using PageFloats = std::vector<float, CacheLineAllocator<float, 4096>>;

}  // namespace torchir::benchmarks
