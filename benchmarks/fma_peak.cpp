// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "benchmarks/fma_peak.h"

#include <time.h>

#include <algorithm>
#include <random>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/fma_peak.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::benchmarks {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 12 independent FMA chains on full vectors for `iterations` steps; returns the lane count.
size_t PeakFma(uint64_t iterations, float* sink) {
  const hn::ScalableTag<float> d;
  const auto x = hn::Set(d, 0.9999999f);
  const auto y = hn::Set(d, 1e-7f);
  auto c0 = hn::Set(d, 1.0f), c1 = hn::Set(d, 1.1f), c2 = hn::Set(d, 1.2f), c3 = hn::Set(d, 1.3f);
  auto c4 = hn::Set(d, 1.4f), c5 = hn::Set(d, 1.5f), c6 = hn::Set(d, 1.6f), c7 = hn::Set(d, 1.7f);
  auto c8 = hn::Set(d, 1.8f), c9 = hn::Set(d, 1.9f), c10 = hn::Set(d, 2.0f), c11 = hn::Set(d, 2.1f);
  for (uint64_t i = 0; i < iterations; ++i) {
    c0 = hn::MulAdd(c0, x, y);
    c1 = hn::MulAdd(c1, x, y);
    c2 = hn::MulAdd(c2, x, y);
    c3 = hn::MulAdd(c3, x, y);
    c4 = hn::MulAdd(c4, x, y);
    c5 = hn::MulAdd(c5, x, y);
    c6 = hn::MulAdd(c6, x, y);
    c7 = hn::MulAdd(c7, x, y);
    c8 = hn::MulAdd(c8, x, y);
    c9 = hn::MulAdd(c9, x, y);
    c10 = hn::MulAdd(c10, x, y);
    c11 = hn::MulAdd(c11, x, y);
  }
  const auto sum = hn::Add(hn::Add(hn::Add(c0, c1), hn::Add(c2, c3)),
                           hn::Add(hn::Add(hn::Add(c4, c5), hn::Add(c6, c7)),
                                   hn::Add(hn::Add(c8, c9), hn::Add(c10, c11))));
  *sink = hn::GetLane(sum);
  return hn::Lanes(d);
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::benchmarks
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::benchmarks {

HWY_EXPORT(PeakFma);

double RunFmaPeakLoop(uint64_t iterations) {
  float sink = 0;
  const size_t lanes = HWY_DYNAMIC_DISPATCH(PeakFma)(iterations, &sink);
  benchmark::DoNotOptimize(sink);
  return 2.0 * 12 * static_cast<double>(lanes) * static_cast<double>(iterations);
}

double MedianFmaPeak() {
  std::vector<double> runs;
  for (int i = 0; i < 5; ++i) {
    const double start = ThreadCpuSeconds();
    const double flops = RunFmaPeakLoop(20'000'000);
    runs.push_back(flops / (ThreadCpuSeconds() - start));
  }
  std::sort(runs.begin(), runs.end());
  return runs[2];
}

void FmaPeakBenchmark(benchmark::State& state) {
  double flops = 0;
  for (auto _ : state) flops = RunFmaPeakLoop(1'000'000);
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec * 1e-9;
}

Floats RandomFloats(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Floats values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

}  // namespace torchir::benchmarks
#endif  // HWY_ONCE
