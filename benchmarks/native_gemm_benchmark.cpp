// torchir's native f32 GEMM (backends/native/) on GEMM shapes of real layers, side by side in
// one run with a register-only FMA peak loop and XNNPACK's fully-connected operator, at 1 thread
// (and at 2 threads at the end).
//
//   Peak/<target>                      12 independent FMA chains on registers only: the
//                                      machine's FMA throughput for that vector width
//   Native/<target>/M/N/K              Gemm() on pre-packed B, bias, no activation
//   Xnnpack/M/N/K                      xnn_create_fully_connected_nc_f32 (packs at create,
//                                      outside the timing), xnn_run_operator without a pool
//
// <target> is "best" (what dispatch picks on this CPU) and, when the CPU has something wider,
// "avx2" forced through hwy::SetSupportedTargetsForTest. Rows ending in threads:2 run both on a
// 2-thread pthreadpool. Each shape runs Native, Xnnpack, Native
// again (A-B-A), and the peak loops run at the start, middle and end, so drift shows. Counters:
// GFLOPS (2*M*N*K per iteration) and of_peak (the fraction of the median peak of the same vector
// width measured at start-up in this run). Use --benchmark_repetitions for the spread.
// Results and commands: docs/native-kernels.md.
#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <time.h>
#include <xnnpack.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/native/gemm.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/native_gemm_benchmark.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native::bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Runs `iterations` steps of 12 independent FMA chains on full vectors and returns the lane
// count (for the FLOP count). 12 chains cover FMA latency x FMA ports on current x86 cores and
// fit AVX2's 16 registers with the two operands. The multiplier is just below 1 so the values
// neither overflow nor turn denormal.
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
}  // namespace torchir::native::bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native::bench {
namespace {

HWY_EXPORT(PeakFma);

// A dispatch target forced for the duration of a benchmark (0: the CPU's best).
class ForcedTarget {
 public:
  explicit ForcedTarget(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~ForcedTarget() { hwy::SetSupportedTargetsForTest(0); }
};

struct Shape {
  const char* layer;
  size_t m, n, k;
};

// resnet18's 3x3 convolutions as im2col GEMMs (M = output pixels, N = out channels,
// K = in channels x 9), then 1x1 convolutions and linear layers.
constexpr Shape kShapes[] = {
    {"resnet18_conv3x3_56", 3136, 64, 576},
    {"resnet18_conv3x3_28", 784, 128, 1152},
    {"resnet18_conv3x3_14", 196, 256, 2304},
    {"resnet18_conv3x3_7", 49, 512, 4608},
    {"resnet18_fc", 1, 1000, 512},
    {"tiny_gpt_linear", 16, 256, 256},
    {"conv1x1_56", 3136, 64, 64},
};

int64_t g_avx2 = 0;  // HWY_AVX2 when the CPU has it and something wider, else 0
double g_peak_best = 0, g_peak_avx2 = 0;  // FLOP/s, medians at start-up

double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec * 1e-9;
}

double MeasurePeakOnce(int64_t target) {
  ForcedTarget forced(target);
  float sink;
  const uint64_t iterations = 20'000'000;
  // CPU time, as Google Benchmark's rates use: the machine is shared, and time other processes
  // take from this thread is not the kernel's.
  const double start = ThreadCpuSeconds();
  const size_t lanes = HWY_DYNAMIC_DISPATCH(PeakFma)(iterations, &sink);
  const double seconds = ThreadCpuSeconds() - start;
  benchmark::DoNotOptimize(sink);
  return 2.0 * 12 * lanes * iterations / seconds;
}

double MedianPeak(int64_t target) {
  std::vector<double> runs;
  for (int i = 0; i < 5; ++i) runs.push_back(MeasurePeakOnce(target));
  std::sort(runs.begin(), runs.end());
  return runs[2];
}

void BM_Peak(benchmark::State& state, int64_t target) {
  ForcedTarget forced(target);
  float sink = 0;
  size_t lanes = 0;
  const uint64_t iterations = 1'000'000;
  for (auto _ : state) {
    lanes = HWY_DYNAMIC_DISPATCH(PeakFma)(iterations, &sink);
    benchmark::DoNotOptimize(sink);
  }
  const double flops = 2.0 * 12 * lanes * iterations;
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

std::vector<float> Random(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

void ReportRate(benchmark::State& state, const Shape& shape, double peak) {
  const double flops = 2.0 * shape.m * shape.n * shape.k;
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["of_peak"] =
      benchmark::Counter(flops / peak, benchmark::Counter::kIsIterationInvariantRate);
}

pthreadpool_t g_pool2 = nullptr;  // 2 threads, for the threads:2 rows

void BM_Native(benchmark::State& state, Shape shape, int64_t target, pthreadpool_t pool) {
  ForcedTarget forced(target);
  GemmConfig config;
  if (!GetGemmConfig(CurrentKernelTarget(), &config)) {
    state.SkipWithError("no GEMM config for this target");
    return;
  }
  const std::vector<float> a = Random(shape.m * shape.k, 1);
  const std::vector<float> b = Random(shape.k * shape.n, 2);
  const std::vector<float> bias = Random(shape.n, 3);
  std::vector<float> c(shape.m * shape.n);
  // float storage keeps the packed panels and the scratch 4-byte aligned; the header is 64 bytes.
  std::vector<float> packed(PackedBBytes(config, shape.k, shape.n) / sizeof(float) + 16);
  const size_t threads = pool == nullptr ? 1 : pthreadpool_get_threads_count(pool);
  std::vector<float> scratch(GemmScratchBytes(config, shape.m, threads) / sizeof(float) + 16);
  PackedB view;
  if (PackB(config, shape.k, shape.n, b.data(), shape.n, packed.data(),
            packed.size() * sizeof(float)) != runtime::Error::kOk ||
      ViewPackedB(packed.data(), packed.size() * sizeof(float), &view) != runtime::Error::kOk) {
    state.SkipWithError("packing failed");
    return;
  }
  for (auto _ : state) {
    const runtime::Error error = Gemm(shape.m, a.data(), shape.k, view, bias.data(), c.data(),
                                      shape.n, {}, scratch.data(), scratch.size() * sizeof(float));
    if (error != runtime::Error::kOk) {
      state.SkipWithError("Gemm failed");
      return;
    }
    benchmark::ClobberMemory();
  }
  state.SetLabel(KernelTargetName(config.target));
  // of_peak stays per core: with 2 threads it may reach 2.
  ReportRate(state, shape, target == g_avx2 && g_avx2 != 0 ? g_peak_avx2 : g_peak_best);
}

void BM_Xnnpack(benchmark::State& state, Shape shape, pthreadpool_t pool) {
  const std::vector<float> a = Random(shape.m * shape.k, 1);
  const std::vector<float> b = Random(shape.k * shape.n, 2);
  const std::vector<float> bias = Random(shape.n, 3);
  std::vector<float> kernel(shape.n * shape.k);  // XNNPACK's weights are N x K
  for (size_t k = 0; k < shape.k; ++k) {
    for (size_t n = 0; n < shape.n; ++n) kernel[n * shape.k + k] = b[k * shape.n + n];
  }
  std::vector<float> c(shape.m * shape.n);
  xnn_operator_t op = nullptr;
  const float inf = std::numeric_limits<float>::infinity();
  if (xnn_create_fully_connected_nc_f32(shape.k, shape.n, shape.k, shape.n, kernel.data(),
                                        bias.data(), -inf, inf, 0, &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(op, shape.m, a.data(), c.data(), pool) !=
          xnn_status_success) {
    state.SkipWithError("XNNPACK refused the shape");
    xnn_delete_operator(op);
    return;
  }
  for (auto _ : state) {
    if (xnn_run_operator(op, pool) != xnn_status_success) {
      state.SkipWithError("xnn_run_operator failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  xnn_delete_operator(op);
  ReportRate(state, shape, g_peak_best);
}

std::string ShapeName(const Shape& s) {
  return std::string(s.layer) + "/" + std::to_string(s.m) + "/" + std::to_string(s.n) + "/" +
         std::to_string(s.k);
}

void RegisterPeaks(const char* when) {
  benchmark::RegisterBenchmark((std::string("Peak/best/") + when).c_str(), BM_Peak, int64_t{0});
  if (g_avx2 != 0) {
    benchmark::RegisterBenchmark((std::string("Peak/avx2/") + when).c_str(), BM_Peak, g_avx2);
  }
}

void RegisterAll() {
  RegisterPeaks("start");
  size_t index = 0;
  for (const Shape& shape : kShapes) {
    const std::string name = ShapeName(shape);
    benchmark::RegisterBenchmark(("Native/best/" + name).c_str(), BM_Native, shape, int64_t{0},
                                 nullptr);
    benchmark::RegisterBenchmark(("Xnnpack/" + name).c_str(), BM_Xnnpack, shape, nullptr);
    benchmark::RegisterBenchmark(("Native/best/" + name + "/again").c_str(), BM_Native, shape,
                                 int64_t{0}, nullptr);
    if (g_avx2 != 0) {
      benchmark::RegisterBenchmark(("Native/avx2/" + name).c_str(), BM_Native, shape, g_avx2,
                                   nullptr);
    }
    if (++index == std::size(kShapes) / 2) RegisterPeaks("middle");
  }
  RegisterPeaks("end");
  // Both cores (this machine has 2, shared with other work: noisier than the rows above).
  for (const Shape& shape : kShapes) {
    const std::string name = ShapeName(shape) + "/threads:2";
    // Wall-clock time: CPU time would count the calling thread only.
    benchmark::RegisterBenchmark(("Native/best/" + name).c_str(), BM_Native, shape, int64_t{0},
                                 g_pool2)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("Xnnpack/" + name).c_str(), BM_Xnnpack, shape, g_pool2)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace torchir::native::bench

int main(int argc, char** argv) {
  using namespace torchir::native::bench;
  benchmark::Initialize(&argc, argv);
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "error: xnn_initialize failed\n");
    return 1;
  }
  const int64_t best = hwy::SupportedAndGeneratedTargets().front();
  if ((hwy::SupportedTargets() & HWY_AVX2) != 0 && best != HWY_AVX2) g_avx2 = HWY_AVX2;
  g_peak_best = MedianPeak(0);
  if (g_avx2 != 0) g_peak_avx2 = MedianPeak(g_avx2);
  std::printf("dispatch target: %s; start-up FMA peak (median of 5): %s %.1f GFLOP/s",
              hwy::TargetName(best), hwy::TargetName(best), g_peak_best * 1e-9);
  if (g_avx2 != 0) std::printf(", AVX2 %.1f GFLOP/s", g_peak_avx2 * 1e-9);
  std::printf("\n");
  g_pool2 = pthreadpool_create(2);
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  pthreadpool_destroy(g_pool2);
  xnn_deinitialize();
  return 0;
}
#endif  // HWY_ONCE
