// torchir's native f32 GEMM (backends/native/) on GEMM shapes of real layers, side by side in
// one run with a register-only FMA peak loop and XNNPACK's fully-connected operator, at 1 thread
// (and at 2 threads at the end).
//
//   Peak/<target>                      12 independent FMA chains on registers only: the
//                                      machine's FMA throughput for that vector width
//   Native/<target>/M/N/K              Gemm() on pre-packed B, bias, no activation
//   Native/best/<fc1 layer>/M/N/K/gelu the same with the GELU epilogue (erf form) that follows
//                                      a transformer's first feed-forward product
//   Xnnpack/M/N/K                      xnn_create_fully_connected_nc_f32 (packs at create,
//                                      outside the timing), xnn_run_operator without a pool
//   LibTorch/M/N/K                     at::linear on 1 thread (libtorch_layers.h), when the
//                                      build has LibTorch (TORCHIR_BUILD_TOOLS)
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
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/native/gemm.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "benchmarks/fma_peak.h"
#include "hwy/targets.h"
#if TORCHIR_BENCH_LIBTORCH
#include "benchmarks/libtorch_layers.h"
#endif

namespace torchir::native::bench {
namespace {

using ::torchir::benchmarks::Floats;
using ::torchir::benchmarks::FmaPeakBenchmark;
using ::torchir::benchmarks::MedianFmaPeak;
using ::torchir::benchmarks::RandomFloats;

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
// K = in channels x 9), then 1x1 convolutions and linear layers; then every distinct linear layer
// of the zoo's transformers (M = tokens): tiny_gpt (dim 64, 16 tokens: q/k/v/out projections,
// fc1, fc2, lm_head) and gpt_small / encoder_small (dim 256, 128 tokens; gpt_small_qkv is its
// q, k and v projections as one product, against three gpt_small_proj), and gpt_small's
// attention products per head (q k^T: 128 x 128 over 64; p v: 128 x 64 over 128), here with B
// packed ahead like a weight: in the model B is packed on every call.
constexpr Shape kShapes[] = {
    {"resnet18_conv3x3_56", 3136, 64, 576},
    {"resnet18_conv3x3_28", 784, 128, 1152},
    {"resnet18_conv3x3_14", 196, 256, 2304},
    {"resnet18_conv3x3_7", 49, 512, 4608},
    {"resnet18_fc", 1, 1000, 512},
    {"tiny_gpt_linear", 16, 256, 256},
    {"conv1x1_56", 3136, 64, 64},
    {"tiny_gpt_proj", 16, 64, 64},
    {"tiny_gpt_fc1", 16, 256, 64},
    {"tiny_gpt_fc2", 16, 64, 256},
    {"tiny_gpt_lm_head", 16, 100, 64},
    {"gpt_small_proj", 128, 256, 256},
    {"gpt_small_qkv", 128, 768, 256},
    {"gpt_small_fc1", 128, 1024, 256},
    {"gpt_small_fc2", 128, 256, 1024},
    {"gpt_small_lm_head", 128, 1000, 256},
    {"gpt_small_scores", 128, 128, 64},
    {"gpt_small_context", 128, 64, 128},
};

int64_t g_avx2 = 0;  // HWY_AVX2 when the CPU has it and something wider, else 0
double g_peak_best = 0, g_peak_avx2 = 0;  // FLOP/s, medians at start-up

double MedianPeak(int64_t target) {
  ForcedTarget forced(target);
  return MedianFmaPeak();
}

void BM_Peak(benchmark::State& state, int64_t target) {
  ForcedTarget forced(target);
  FmaPeakBenchmark(state);
}

void ReportRate(benchmark::State& state, const Shape& shape, double peak) {
  const double flops = 2.0 * shape.m * shape.n * shape.k;
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["of_peak"] =
      benchmark::Counter(flops / peak, benchmark::Counter::kIsIterationInvariantRate);
}

pthreadpool_t g_pool2 = nullptr;  // 2 threads, for the threads:2 rows

void BM_Native(benchmark::State& state, Shape shape, int64_t target, pthreadpool_t pool,
               Activation activation) {
  ForcedTarget forced(target);
  GemmConfig config;
  if (!GetGemmConfig(CurrentKernelTarget(), &config)) {
    state.SkipWithError("no GEMM config for this target");
    return;
  }
  const Floats a = RandomFloats(shape.m * shape.k, 1);
  const Floats b = RandomFloats(shape.k * shape.n, 2);
  const Floats bias = RandomFloats(shape.n, 3);
  Floats c(shape.m * shape.n);
  // float storage keeps the packed panels and the scratch 4-byte aligned; the header is 64 bytes.
  Floats packed(PackedBBytes(config, shape.k, shape.n) / sizeof(float) + 16);
  const size_t threads = pool == nullptr ? 1 : pthreadpool_get_threads_count(pool);
  Floats scratch(GemmScratchBytes(config, shape.m, threads) / sizeof(float) + 16);
  PackedB view;
  if (PackB(config, shape.k, shape.n, b.data(), shape.n, packed.data(),
            packed.size() * sizeof(float)) != runtime::Error::kOk ||
      ViewPackedB(packed.data(), packed.size() * sizeof(float), &view) != runtime::Error::kOk) {
    state.SkipWithError("packing failed");
    return;
  }
  Epilogue epilogue;
  epilogue.activation = activation;
  for (auto _ : state) {
    const runtime::Error error =
        Gemm(shape.m, a.data(), shape.k, view, bias.data(), c.data(), shape.n, epilogue,
             scratch.data(), scratch.size() * sizeof(float), pool);
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
  const Floats a = RandomFloats(shape.m * shape.k, 1);
  const Floats b = RandomFloats(shape.k * shape.n, 2);
  const Floats bias = RandomFloats(shape.n, 3);
  Floats kernel(shape.n * shape.k);  // XNNPACK's weights are N x K
  for (size_t k = 0; k < shape.k; ++k) {
    for (size_t n = 0; n < shape.n; ++n) kernel[n * shape.k + k] = b[k * shape.n + n];
  }
  Floats c(shape.m * shape.n);
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

#if TORCHIR_BENCH_LIBTORCH
void BM_LibTorch(benchmark::State& state, Shape shape) {
  std::string error;
  std::unique_ptr<::torchir::benchmarks::LibTorchLinear> linear =
      ::torchir::benchmarks::LibTorchLinear::Create(shape.m, shape.n, shape.k, &error);
  if (linear == nullptr) {
    state.SkipWithError(("LibTorch refused the shape: " + error).c_str());
    return;
  }
  for (auto _ : state) {
    linear->Run();
    benchmark::ClobberMemory();
  }
  ReportRate(state, shape, g_peak_best);
}
#endif

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
                                 nullptr, Activation::kNone);
    benchmark::RegisterBenchmark(("Xnnpack/" + name).c_str(), BM_Xnnpack, shape, nullptr);
#if TORCHIR_BENCH_LIBTORCH
    benchmark::RegisterBenchmark(("LibTorch/" + name).c_str(), BM_LibTorch, shape);
#endif
    benchmark::RegisterBenchmark(("Native/best/" + name + "/again").c_str(), BM_Native, shape,
                                 int64_t{0}, nullptr, Activation::kNone);
    // The feed-forward layers' first product is followed by GELU (erf form) in the transformers.
    if (name.find("_fc1") != std::string::npos) {
      benchmark::RegisterBenchmark(("Native/best/" + name + "/gelu").c_str(), BM_Native, shape,
                                   int64_t{0}, nullptr, Activation::kGelu);
    }
    if (g_avx2 != 0) {
      benchmark::RegisterBenchmark(("Native/avx2/" + name).c_str(), BM_Native, shape, g_avx2,
                                   nullptr, Activation::kNone);
    }
    if (++index == std::size(kShapes) / 2) RegisterPeaks("middle");
  }
  RegisterPeaks("end");
  // Both cores (this machine has 2, shared with other work: noisier than the rows above).
  for (const Shape& shape : kShapes) {
    const std::string name = ShapeName(shape) + "/threads:2";
    // Wall-clock time: CPU time would count the calling thread only.
    benchmark::RegisterBenchmark(("Native/best/" + name).c_str(), BM_Native, shape, int64_t{0},
                                 g_pool2, Activation::kNone)
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
