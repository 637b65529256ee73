// The FMA peak the native kernel benchmarks report against, measured in the same run: 12
// independent FMA chains on full vectors held in registers, compiled for every Highway target
// and dispatched to the CPU's best (or to the one hwy::SetSupportedTargetsForTest forces).
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>

#include "benchmarks/cache_line_allocator.h"

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

// `count` floats uniform in [-1, 1) from `seed`, 64-byte aligned.
Floats RandomFloats(size_t count, uint32_t seed);

}  // namespace torchir::benchmarks
