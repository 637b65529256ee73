// The FMA peak the native kernel benchmarks report against, measured in the same run: 12
// independent FMA chains on full vectors held in registers, compiled for every Highway target
// and dispatched to the CPU's best (or to the one hwy::SetSupportedTargetsForTest forces).
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace torchir::benchmarks {

// Floating-point operations of `iterations` steps of the loop, run now.
double RunFmaPeakLoop(uint64_t iterations);

// FLOP/s per CPU second of this thread (the machine is shared: time other processes take is not
// the loop's), the median of 5 loops of 20M steps.
double MedianFmaPeak();

// A Google Benchmark body running the loop (1M steps per iteration), with a GFLOPS counter.
void FmaPeakBenchmark(benchmark::State& state);

// CPU seconds this thread has used.
double ThreadCpuSeconds();

// Storage aligned to 64 bytes, as the runtime's memory plan places every tensor and a program's
// constant segments place packed weights. A plain std::vector's large buffers come from mmap at 16
// bytes past a page: half of the 32-byte loads from them cross a cache line, which slowed the
// depthwise layers by 15-25 % (docs/native-kernels.md), so the kernels' buffers use this.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}  // NOLINT: rebinding is implicit
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const {
    return false;
  }
};
using Floats = std::vector<float, CacheLineAllocator<float>>;

// `count` floats uniform in [-1, 1) from `seed`, 64-byte aligned.
Floats RandomFloats(size_t count, uint32_t seed);

}  // namespace torchir::benchmarks
