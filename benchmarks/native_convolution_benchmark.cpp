// torchir's native convolutions (backends/native/convolution.h, depthwise.h) on every distinct
// convolution of resnet18, the depthwise and pointwise layers of mobilenet_v2 and the distinct
// layers of regnet_x_400mf (grouped 3x3, 16 channels a group; 224 x 224 input, batch 1), side by
// side in one run with a register-only FMA peak loop and XNNPACK's
// convolution operator, at 1 thread.
//
//   Peak/<when>                12 independent FMA chains on registers only (as in
//                              native_gemm_benchmark.cpp): the FMA throughput of the dispatch
//                              target's vectors, at the start, middle and end of the run
//   Native/<layer>             Convolution2d, GroupedConvolution2d or DepthwiseConvolution2d on
//                              weights packed before the timing, bias, no activation
//   Xnnpack/<layer>            xnn_create_convolution2d_nhwc_f32 (packs at create, outside the
//                              timing), xnn_run_operator without a pool
//   Native/<layer>/residual    Convolution2d with a residual add and relu (what a ResNet block
//                              ends with): on the 3x3 stride-1 layers and the 1x1 expansions
//   Native/<layer>/im2col      the layers whose A may be read by pointer (input channels a
//                              multiple of kIndirectMinRun) with ImplicitGemmA::kIm2col: the
//                              k x k ones through the im2col copy, the 1x1 ones as the GEMM
//                              reads or copies its rows
//   Native/<layer>/pointer     the same layers with A by pointer wherever its runs allow
//                              (ImplicitGemmA::kIndirect)
//   Native/<layer>/nchw        the stems (at most 4 input channels) on an NCHW input, as a
//                              program runs them on a network's image (no permute before them)
//   Native/<layer>/cold        (x86-64) as Native/<layer>, but the packed weights are flushed
//                              from every cache level (clflush, outside the timing) before each
//                              iteration: the layer as it runs inside a model whose weights do
//                              not stay in the caches between inferences (resnet50: 100 MB),
//                              with the input still warm as the previous layer left it
//   Winograd/<layer>           WinogradConvolution2d (winograd.h) on the 3x3 stride-1 layers,
//                              filter transformed and packed before the timing, bias, no
//                              activation; GFLOPS count the direct convolution's FLOPs
//                              (effective rate); .../residual with a residual add and relu,
//                              .../cold (x86-64) with U flushed as in Native/<layer>/cold
//   Winograd2x2/<layer>        the same by F(2x2, 3x3) (16 matrices of U, 2.25x fewer
//                              multiplies than the direct convolution), and .../cold; both also
//                              on the grouped 3x3 stride-1 layers (regnet_x_400mf's), beside
//                              Native/<layer>/direct, without the cold and residual rows
//   LibTorch/<layer>           at::conv2d on channels-last tensors, 1 thread, oneDNN enabled
//                              (libtorch_layers.h; the label names the backend ATen picked),
//                              when the build has LibTorch (TORCHIR_BUILD_TOOLS)
//   OneDnn/<layer>             the layer as TorchScript + oneDNN runs it inside a frozen network:
//                              at::mkldnn_convolution on weights reordered once and an input in
//                              oneDNN's blocked layout (libtorch_layers.h, kOneDnnPrepacked)
//   InvertedResidual/<block>/layers, /fused
//                              three of mobilenet_v2's inverted-residual blocks (expansion,
//                              depthwise, projection) layer by layer over whole tensors, or with
//                              the expansion and the depthwise layer fused (ExpandDepthwise:
//                              bands whose expanded rows stay in L2); the fused rows check their
//                              output against the layers' bit for bit first
//   GroupedPair/<pair>/layers, /fused
//                              regnet_x_400mf's 1x1 and the grouped 3x3 over it (first and second
//                              stage), layer by layer or fused by ExpandDepthwise in bands
//
// Each layer runs Native, Xnnpack, Native again (A-B-A; with LibTorch, LibTorch/<layer> and
// OneDnn/<layer> run between Xnnpack and Native again); 3x3 stride-1 layers then run Winograd,
// Native, Winograd again (B-A-B against the direct implicit GEMM). Counters: GFLOPS (2
// multiply-adds per tap and channel pair) and of_peak (fraction of the median peak measured at
// start-up). Use --benchmark_repetitions for the spread. Results and commands:
// docs/native-kernels.md.
#include <benchmark/benchmark.h>
#include <time.h>
#include <xnnpack.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/native/convolution.h"
#include "backends/native/depthwise.h"
#include "backends/native/direct_convolution.h"
#include "backends/native/expand_depthwise.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "backends/native/winograd.h"
#include "benchmarks/convolution_layers.h"
#include "benchmarks/fma_peak.h"
#include "benchmarks/native_layer.h"
#include "hwy/targets.h"
#if TORCHIR_BENCH_LIBTORCH
#include "benchmarks/libtorch_layers.h"
#endif

namespace torchir::native::conv_bench {
namespace {

using ::torchir::benchmarks::Floats;
using ::torchir::benchmarks::FmaPeakBenchmark;
using ::torchir::benchmarks::MedianFmaPeak;
using ::torchir::benchmarks::RandomFloats;

using Layer = ::torchir::benchmarks::ConvolutionLayer;
constexpr const auto& kLayers = ::torchir::benchmarks::kConvolutionLayers;

Convolution2dShape ShapeOf(const Layer& l) {
  return ::torchir::benchmarks::SquareConvolutionShape(l.size, l.cin, l.cout, l.kernel, l.stride,
                                                       l.pad);
}

double Flops(const Layer& l) {
  const Convolution2dShape s = ShapeOf(l);
  const double pixels = static_cast<double>(s.output_height() * s.output_width());
  const double taps = static_cast<double>(l.kernel * l.kernel);
  return 2.0 * pixels * taps * static_cast<double>(l.cin / l.groups) * l.cout;
}

double g_peak = 0;  // FLOP/s, median at start-up

void BM_Peak(benchmark::State& state) { FmaPeakBenchmark(state); }

void ReportRate(benchmark::State& state, const Layer& layer) {
  const double flops = Flops(layer);
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["of_peak"] =
      benchmark::Counter(flops / g_peak, benchmark::Counter::kIsIterationInvariantRate);
}

enum class Run { kPlain, kResidual, kColdWeights, kChannelsFirst, kIm2col, kPointer };

// This target's GEMM blocking into *config; false (the benchmark skipped) when there is none.
bool ConfigOrSkip(benchmark::State& state, GemmConfig* config) {
  if (GetGemmConfig(CurrentKernelTarget(), config)) return true;
  state.SkipWithError("no GEMM config for this target");
  return false;
}

// Times run_fused() (fuse) or run_layers(), each true on success, at `flops` a call. The fused
// run is first checked against the layers bit for bit (`same()` after one call of each): the
// same kernels on the same rows.
template <class Layers, class Fused, class Same>
void TimeLayersOrFused(benchmark::State& state, bool fuse, const Layers& run_layers,
                       const Fused& run_fused, const Same& same, double flops) {
  if (fuse && (!run_layers() || !run_fused() || !same())) {
    state.SkipWithError("the fused layers differ from the layers");
    return;
  }
  for (auto _ : state) {
    if (!(fuse ? run_fused() : run_layers())) {
      state.SkipWithError("a convolution failed");
      return;
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

#if defined(__x86_64__)
// Evicts [data, data + bytes) from every cache level of every core.
void FlushFromCaches(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  for (size_t offset = 0; offset < bytes; offset += 64) _mm_clflush(p + offset);
  _mm_mfence();
}
#endif

// Run::kColdWeights: evicts the packed weights before the next iteration, outside the timing.
void FlushWhenCold(benchmark::State& state, Run run,
                   const ::torchir::benchmarks::PageFloats& packed) {
#if defined(__x86_64__)
  if (run == Run::kColdWeights) {
    state.PauseTiming();
    FlushFromCaches(packed.data(), packed.size() * sizeof(float));
    state.ResumeTiming();
  }
#else
  (void)state;
  (void)run;
  (void)packed;
#endif
}

// The layer's input, filter, bias and output, and the epilogue Run asks for.
struct LayerData {
  LayerData(const Layer& layer, const Convolution2dShape& s, Run run)
      : input(RandomFloats(s.input_height * s.input_width * s.input_channels, 1)),
        weights(RandomFloats(
            s.output_channels * (s.input_channels / layer.groups) * layer.kernel * layer.kernel,
            2)),
        bias(RandomFloats(s.output_channels, 3)),
        skip(RandomFloats(s.output_height() * s.output_width() * s.output_channels, 4)),
        output(skip.size()) {
    if (run == Run::kResidual) {
      epilogue.activation = Activation::kRelu;
      epilogue.residual = skip.data();
      epilogue.residual_stride = s.output_channels;
    }
  }
  const Floats input, weights, bias, skip;
  Floats output;
  Epilogue epilogue;
};

// The layer on the native kernels (NativeConvolution: the implicit GEMM or the depthwise kernel,
// or Winograd F(tile x tile) when tile is not 0).
void TimeNative(benchmark::State& state, const Layer& layer, Run run, size_t tile) {
  Convolution2dShape s = ShapeOf(layer);
  s.input_channels_first = run == Run::kChannelsFirst;
  LayerData data(layer, s, run);
  ::torchir::benchmarks::NativeConvolution convolution;
  if (!convolution.Pack(s, layer.groups, tile, data.weights.data())) {
    state.SkipWithError("no GEMM config for this target, or packing failed");
    return;
  }
  const ImplicitGemmA a_mode = run == Run::kIm2col    ? ImplicitGemmA::kIm2col
                               : run == Run::kPointer ? ImplicitGemmA::kIndirect
                                                      : ImplicitGemmA::kAuto;
  for (auto _ : state) {
    FlushWhenCold(state, run, convolution.packed());
    if (convolution.Run(data.input.data(), data.bias.data(), data.output.data(), data.epilogue,
                        a_mode) != runtime::Error::kOk) {
      state.SkipWithError("the convolution failed");
      return;
    }
    benchmark::ClobberMemory();
  }
  state.SetLabel(KernelTargetName(convolution.config().target));
  ReportRate(state, layer);
}

void BM_Native(benchmark::State& state, Layer layer, Run run) { TimeNative(state, layer, run, 0); }

void BM_Winograd(benchmark::State& state, Layer layer, Run run, size_t tile) {
  TimeNative(state, layer, run, tile);
}

void BM_Xnnpack(benchmark::State& state, Layer layer) {
  const Convolution2dShape s = ShapeOf(layer);
  const Floats input = RandomFloats(s.input_height * s.input_width * s.input_channels, 1);
  const size_t groups = layer.groups;
  const size_t group_in = s.input_channels / groups, group_out = s.output_channels / groups;
  // OHWI (per group): the values are random, only the amount matters.
  const Floats kernel = RandomFloats(s.output_channels * group_in * layer.kernel * layer.kernel, 2);
  const Floats bias = RandomFloats(s.output_channels, 3);
  Floats output(s.output_height() * s.output_width() * s.output_channels);
  const float inf = std::numeric_limits<float>::infinity();
  const uint32_t pad = static_cast<uint32_t>(layer.pad);
  const uint32_t k = static_cast<uint32_t>(layer.kernel);
  const uint32_t stride = static_cast<uint32_t>(layer.stride);
  xnn_operator_t op = nullptr;
  if (xnn_create_convolution2d_nhwc_f32(pad, pad, pad, pad, k, k, stride, stride, 1, 1,
                                        static_cast<uint32_t>(groups), group_in, group_out,
                                        s.input_channels, s.output_channels, kernel.data(),
                                        bias.data(), -inf, inf, 0, &op) != xnn_status_success ||
      xnn_setup_convolution2d_nhwc_f32(op, 1, s.input_height, s.input_width, input.data(),
                                       output.data(), nullptr) != xnn_status_success) {
    state.SkipWithError("XNNPACK refused the layer");
    xnn_delete_operator(op);
    return;
  }
  for (auto _ : state) {
    if (xnn_run_operator(op, nullptr) != xnn_status_success) {
      state.SkipWithError("xnn_run_operator failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  xnn_delete_operator(op);
  ReportRate(state, layer);
}

#if TORCHIR_BENCH_LIBTORCH
void BM_LibTorch(benchmark::State& state, Layer layer,
                 ::torchir::benchmarks::LibTorchConvolution::Path path) {
  const size_t groups = layer.groups;
  const ::torchir::benchmarks::TorchConvolutionShape shape{
      layer.size, layer.cin, layer.cout, layer.kernel, layer.stride, layer.pad, groups};
  std::string error;
  std::unique_ptr<::torchir::benchmarks::LibTorchConvolution> convolution =
      ::torchir::benchmarks::LibTorchConvolution::Create(shape, &error, path);
  if (convolution == nullptr) {
    state.SkipWithError(("LibTorch refused the layer: " + error).c_str());
    return;
  }
  for (auto _ : state) {
    convolution->Run();
    benchmark::ClobberMemory();
  }
  state.SetLabel(convolution->backend());
  ReportRate(state, layer);
}
#endif

// An inverted-residual block of mobilenet_v2 (1x1 expansion + relu6, 3x3 depthwise + relu6, 1x1
// projection, the input added when the block keeps its shape), run two ways on the same packed
// weights: layer by layer over whole tensors (as the runtime ran its delegates before session
// 27), and with the expansion and the depthwise layer fused by ExpandDepthwise (expand_depthwise.h:
// the expanded rows a band needs in a buffer that stays in L2), then the projection. The
// question it answers: what keeping the 6x wider tensor out of L3 saves (docs/native-kernels.md,
// "Fusing an inverted-residual block" and "An expansion and its depthwise layer, in bands").
// With `groups`, a RegNet block's first two layers instead (BM_GroupedPair): a 1x1 from cin to
// `expanded` channels, then a grouped 3x3 in `groups` groups (cout unused).
struct Block {
  const char* name;
  size_t size, cin, expanded, stride, cout;
  size_t groups = 0;
};

constexpr Block kBlocks[] = {
    {"mobilenet_v2_112_16x6_s2", 112, 16, 96, 2, 24},
    {"mobilenet_v2_56_24x6", 56, 24, 144, 1, 24},
    {"mobilenet_v2_28_32x6", 28, 32, 192, 1, 32},
    {"regnet_x_400mf_112_32_g2_s2", 112, 32, 32, 2, 0, 2},
    {"regnet_x_400mf_56_32to64_g4_s2", 56, 32, 64, 2, 0, 4},
};

double BlockFlops(const Block& b) {
  const double in_pixels = static_cast<double>(b.size * b.size);
  const size_t out_size = (b.size - 1) / b.stride + 1;
  const double out_pixels = static_cast<double>(out_size * out_size);
  return 2.0 * (in_pixels * b.cin * b.expanded + out_pixels * b.expanded * 9 +
                out_pixels * b.expanded * b.cout);
}

// fuse: the expansion and the depthwise layer by ExpandDepthwise; else layer by layer.
void BM_InvertedResidual(benchmark::State& state, Block block, bool fuse) {
  GemmConfig config;
  if (!ConfigOrSkip(state, &config)) return;
  const Convolution2dShape expand =
      ShapeOf(Layer{block.name, block.size, block.cin, block.expanded, 1, 1, 0});
  const Convolution2dShape depthwise =
      ShapeOf(Layer{block.name, block.size, block.expanded, block.expanded, 3, block.stride, 1});
  const size_t out_size = depthwise.output_height();
  const Convolution2dShape project =
      ShapeOf(Layer{block.name, out_size, block.expanded, block.cout, 1, 1, 0});
  const bool residual = block.stride == 1 && block.cin == block.cout;
  const size_t width = block.size;
  const Floats input = RandomFloats(width * width * block.cin, 1);
  const Floats w_expand = RandomFloats(block.expanded * block.cin, 2);
  const Floats w_depthwise = RandomFloats(block.expanded * 9, 3);
  const Floats w_project = RandomFloats(block.cout * block.expanded, 4);
  const Floats b_expand = RandomFloats(block.expanded, 5);
  const Floats b_depthwise = RandomFloats(block.expanded, 6);
  const Floats b_project = RandomFloats(block.cout, 7);
  Floats packed_expand(ConvolutionPackedWeightsBytes(config, expand) / sizeof(float));
  Floats packed_project(ConvolutionPackedWeightsBytes(config, project) / sizeof(float));
  Floats packed_depthwise(DepthwisePackedWeightsBytes(depthwise) / sizeof(float));
  PackedB view_expand, view_project;
  PackedDepthwise view_depthwise;
  if (PackConvolutionWeights(config, expand, w_expand.data(), packed_expand.data(),
                             packed_expand.size() * sizeof(float)) != runtime::Error::kOk ||
      PackConvolutionWeights(config, project, w_project.data(), packed_project.data(),
                             packed_project.size() * sizeof(float)) != runtime::Error::kOk ||
      PackDepthwiseWeights(depthwise, w_depthwise.data(), packed_depthwise.data(),
                           packed_depthwise.size() * sizeof(float)) != runtime::Error::kOk ||
      ViewPackedB(packed_expand.data(), packed_expand.size() * sizeof(float), &view_expand) !=
          runtime::Error::kOk ||
      ViewPackedB(packed_project.data(), packed_project.size() * sizeof(float), &view_project) !=
          runtime::Error::kOk ||
      ViewPackedDepthwise(packed_depthwise.data(), packed_depthwise.size() * sizeof(float),
                          &view_depthwise) != runtime::Error::kOk) {
    state.SkipWithError("packing failed");
    return;
  }
  Epilogue relu6;
  relu6.activation = Activation::kClamp;
  relu6.min = 0.0f;
  relu6.max = 6.0f;
  const size_t scratch_bytes = std::max(ConvolutionScratchBytes(config, expand, 1),
                                        ConvolutionScratchBytes(config, project, 1));
  Floats scratch(scratch_bytes / sizeof(float) + 1);
  // Layer by layer: the whole expanded and depthwise tensors.
  Floats expanded(width * width * block.expanded);
  Floats filtered(out_size * out_size * block.expanded);
  Floats layered(out_size * out_size * block.cout);
  Floats fused(layered.size());
  // The projection's epilogue: the block's input, when the block keeps its shape.
  Epilogue project_epilogue;
  if (residual) {
    project_epilogue.residual = input.data();
    project_epilogue.residual_stride = block.cout;
  }
  auto run_layers = [&]() {
    return Convolution2d(expand, input.data(), view_expand, b_expand.data(), expanded.data(), relu6,
                         scratch.data(), scratch_bytes) == runtime::Error::kOk &&
           DepthwiseConvolution2d(depthwise, expanded.data(), view_depthwise, b_depthwise.data(),
                                  filtered.data(), relu6) == runtime::Error::kOk &&
           Convolution2d(project, filtered.data(), view_project, b_project.data(), layered.data(),
                         project_epilogue, scratch.data(), scratch_bytes) == runtime::Error::kOk;
  };
  // The expansion and the depthwise layer fused (ExpandDepthwise: bands whose expanded rows stay
  // in L2), then the projection over the whole tensor.
  // The 1x1's fields first (ExpandDepthwiseCall's order), the depthwise layer's below.
  ExpandDepthwiseCall call{expand, input.data(), &view_expand, b_expand.data(), relu6};
  call.depthwise = depthwise;
  call.depthwise_weights = &view_depthwise;
  call.depthwise_bias = b_depthwise.data();
  call.depthwise_epilogue = relu6;
  call.output = filtered.data();
  Floats band_scratch(ExpandDepthwiseScratchBytes(config, expand, depthwise, 1) / sizeof(float) +
                      1);
  auto run_fused = [&]() {
    return ExpandDepthwise(call, band_scratch.data(), band_scratch.size() * sizeof(float)) ==
               runtime::Error::kOk &&
           Convolution2d(project, filtered.data(), view_project, b_project.data(), fused.data(),
                         project_epilogue, scratch.data(), scratch_bytes) == runtime::Error::kOk;
  };
  TimeLayersOrFused(
      state, fuse, run_layers, run_fused, [&]() { return layered == fused; }, BlockFlops(block));
}

// A RegNet block's first two layers (1x1 + relu, then a grouped 3x3 + relu, stride 2 at a
// stage's first block), layer by layer over whole tensors or fused by ExpandDepthwise with a
// grouped second layer (bands whose 1x1 output rows stay in L2): regnet_x_400mf's first block,
// whose 1x1 output is 1.6 MB (docs/native-kernels.md, "A 1x1 and its grouped layer, in bands").
void BM_GroupedPair(benchmark::State& state, Block pair, bool fuse) {
  const size_t width = pair.expanded;
  GemmConfig config;
  if (!ConfigOrSkip(state, &config)) return;
  const Convolution2dShape first = ShapeOf(Layer{pair.name, pair.size, pair.cin, width, 1, 1, 0});
  const Convolution2dShape second =
      ShapeOf(Layer{pair.name, pair.size, width, width, 3, pair.stride, 1});
  const Floats input = RandomFloats(pair.size * pair.size * pair.cin, 1);
  const Floats w_first = RandomFloats(width * pair.cin, 2);
  const Floats w_second = RandomFloats(width * (width / pair.groups) * 9, 3);
  const Floats b_first = RandomFloats(width, 4);
  const Floats b_second = RandomFloats(width, 5);
  Floats packed_first(ConvolutionPackedWeightsBytes(config, first) / sizeof(float));
  Floats packed_second(GroupedConvolutionPackedWeightsBytes(config, second, pair.groups) /
                       sizeof(float));
  PackedB view_first;
  std::vector<PackedB> view_second(pair.groups);
  if (PackConvolutionWeights(config, first, w_first.data(), packed_first.data(),
                             packed_first.size() * sizeof(float)) != runtime::Error::kOk ||
      ViewPackedB(packed_first.data(), packed_first.size() * sizeof(float), &view_first) !=
          runtime::Error::kOk ||
      PackGroupedConvolutionWeights(config, second, pair.groups, w_second.data(),
                                    packed_second.data(),
                                    packed_second.size() * sizeof(float)) != runtime::Error::kOk ||
      ViewPackedGroupedWeights(packed_second.data(), packed_second.size() * sizeof(float), second,
                               pair.groups, view_second.data()) != runtime::Error::kOk) {
    state.SkipWithError("packing failed");
    return;
  }
  Epilogue relu;
  relu.activation = Activation::kRelu;
  const size_t scratch_bytes = std::max(ConvolutionScratchBytes(config, first, 1),
                                        ConvolutionScratchBytes(config, second, 1));
  Floats scratch(scratch_bytes / sizeof(float) + 1);
  Floats middle(pair.size * pair.size * width);
  Floats layered(second.output_height() * second.output_width() * width);
  Floats fused(layered.size());
  auto run_layers = [&]() {
    return Convolution2d(first, input.data(), view_first, b_first.data(), middle.data(), relu,
                         scratch.data(), scratch_bytes) == runtime::Error::kOk &&
           GroupedConvolution2d(second, pair.groups, middle.data(), view_second.data(),
                                b_second.data(), layered.data(), relu, scratch.data(),
                                scratch_bytes) == runtime::Error::kOk;
  };
  ExpandDepthwiseCall call{first, input.data(), &view_first, b_first.data(), relu};
  call.depthwise = second;
  call.depthwise_weights = nullptr;
  call.groups = pair.groups;
  call.group_weights = view_second.data();
  call.depthwise_bias = b_second.data();
  call.depthwise_epilogue = relu;
  call.output = fused.data();
  Floats band_scratch(
      ExpandDepthwiseScratchBytes(config, first, second, 1, pair.groups) / sizeof(float) + 1);
  auto run_fused = [&]() {
    return ExpandDepthwise(call, band_scratch.data(), band_scratch.size() * sizeof(float)) ==
           runtime::Error::kOk;
  };
  const double flops = 2.0 * (static_cast<double>(pair.size * pair.size) * pair.cin * width +
                              static_cast<double>(second.output_height() * second.output_width()) *
                                  9 * (width / pair.groups) * width);
  TimeLayersOrFused(
      state, fuse, run_layers, run_fused, [&]() { return layered == fused; }, flops);
}

void RegisterAll() {
  benchmark::RegisterBenchmark("Peak/start", BM_Peak);
  size_t index = 0;
  for (const Layer& layer : kLayers) {
    const std::string name = layer.name;
    benchmark::RegisterBenchmark(("Native/" + name).c_str(), BM_Native, layer, Run::kPlain);
    benchmark::RegisterBenchmark(("Xnnpack/" + name).c_str(), BM_Xnnpack, layer);
#if TORCHIR_BENCH_LIBTORCH
    benchmark::RegisterBenchmark(("LibTorch/" + name).c_str(), BM_LibTorch, layer,
                                 ::torchir::benchmarks::LibTorchConvolution::Path::kEager);
    benchmark::RegisterBenchmark(
        ("OneDnn/" + name).c_str(), BM_LibTorch, layer,
        ::torchir::benchmarks::LibTorchConvolution::Path::kOneDnnPrepacked);
#endif
    benchmark::RegisterBenchmark(("Native/" + name + "/again").c_str(), BM_Native, layer,
                                 Run::kPlain);
#if defined(__x86_64__)
    benchmark::RegisterBenchmark(("Native/" + name + "/cold").c_str(), BM_Native, layer,
                                 Run::kColdWeights);
#endif
    if (layer.cin <= kDirectMaxInputChannels) {
      benchmark::RegisterBenchmark(("Native/" + name + "/nchw").c_str(), BM_Native, layer,
                                   Run::kChannelsFirst);
    }
    // The layers whose A may be read by pointer: the k x k ones through the im2col copy
    // instead, the 1x1 ones as the GEMM reads or copies its rows (ImplicitGemmA::kIm2col), and
    // both by pointer wherever runs allow (kIndirect), beside Native/<layer> (kAuto).
    if (layer.groups == 1 && layer.cin % kIndirectMinRun == 0) {
      benchmark::RegisterBenchmark(("Native/" + name + "/im2col").c_str(), BM_Native, layer,
                                   Run::kIm2col);
      benchmark::RegisterBenchmark(("Native/" + name + "/pointer").c_str(), BM_Native, layer,
                                   Run::kPointer);
    }
    if (layer.groups == 1 && layer.kernel == 3 && layer.stride == 1) {
      benchmark::RegisterBenchmark(("Native/" + name + "/residual").c_str(), BM_Native, layer,
                                   Run::kResidual);
      benchmark::RegisterBenchmark(("Winograd/" + name).c_str(), BM_Winograd, layer, Run::kPlain,
                                   4);
      benchmark::RegisterBenchmark(("Native/" + name + "/direct").c_str(), BM_Native, layer,
                                   Run::kPlain);
      benchmark::RegisterBenchmark(("Winograd/" + name + "/again").c_str(), BM_Winograd, layer,
                                   Run::kPlain, 4);
      benchmark::RegisterBenchmark(("Winograd2x2/" + name).c_str(), BM_Winograd, layer, Run::kPlain,
                                   2);
#if defined(__x86_64__)
      benchmark::RegisterBenchmark(("Winograd/" + name + "/cold").c_str(), BM_Winograd, layer,
                                   Run::kColdWeights, 4);
      benchmark::RegisterBenchmark(("Winograd2x2/" + name + "/cold").c_str(), BM_Winograd, layer,
                                   Run::kColdWeights, 2);
#endif
      benchmark::RegisterBenchmark(("Winograd/" + name + "/residual").c_str(), BM_Winograd, layer,
                                   Run::kResidual, 4);
    }
    // Grouped 3x3 stride-1 layers (regnet_x_400mf's) by Winograd, block-diagonal products.
    if (layer.groups > 1 && !layer.depthwise() && layer.kernel == 3 && layer.stride == 1) {
      benchmark::RegisterBenchmark(("Winograd/" + name).c_str(), BM_Winograd, layer, Run::kPlain,
                                   4);
      benchmark::RegisterBenchmark(("Native/" + name + "/direct").c_str(), BM_Native, layer,
                                   Run::kPlain);
      benchmark::RegisterBenchmark(("Winograd2x2/" + name).c_str(), BM_Winograd, layer, Run::kPlain,
                                   2);
      benchmark::RegisterBenchmark(("Winograd/" + name + "/again").c_str(), BM_Winograd, layer,
                                   Run::kPlain, 4);
    }
    // The 1x1 expansions that end a bottleneck block (resnet50's 64 -> 256 and the like) add its
    // residual: that residual is as large as the output and larger than L2 in stage 1.
    if (layer.groups == 1 && layer.kernel == 1 && layer.stride == 1 && layer.cout > layer.cin) {
      benchmark::RegisterBenchmark(("Native/" + name + "/residual").c_str(), BM_Native, layer,
                                   Run::kResidual);
    }
    if (++index == std::size(kLayers) / 2) benchmark::RegisterBenchmark("Peak/middle", BM_Peak);
  }
  benchmark::RegisterBenchmark("Peak/end", BM_Peak);
  // Layers, fused, layers again (A-B-A).
  for (const Block& block : kBlocks) {
    const auto bench = block.groups != 0 ? BM_GroupedPair : BM_InvertedResidual;
    const std::string name =
        std::string(block.groups != 0 ? "GroupedPair/" : "InvertedResidual/") + block.name;
    benchmark::RegisterBenchmark((name + "/layers").c_str(), bench, block, false);
    benchmark::RegisterBenchmark((name + "/fused").c_str(), bench, block, true);
    benchmark::RegisterBenchmark((name + "/layers/again").c_str(), bench, block, false);
  }
}

}  // namespace
}  // namespace torchir::native::conv_bench

int main(int argc, char** argv) {
  using namespace torchir::native::conv_bench;
  benchmark::Initialize(&argc, argv);
  // --native_isa=avx2: the native rows run the kernels of at most that instruction set (on an
  // AVX-512 machine, what a CPU without AVX-512 runs), the peak loop too; XNNPACK and oneDNN
  // pick their own (DNNL_MAX_CPU_ISA=AVX2 caps oneDNN).
  for (int i = 1; i < argc; ++i) {
    const char* prefix = "--native_isa=";
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) != 0) {
      std::fprintf(stderr, "error: unknown argument %s\n", argv[i]);
      return 2;
    }
    torchir::native::KernelTarget widest;
    if (!torchir::native::KernelTargetFromName(argv[i] + std::strlen(prefix), &widest) ||
        torchir::native::LimitKernelTarget(widest, nullptr) != torchir::runtime::Error::kOk) {
      std::fprintf(stderr, "error: %s: not an instruction set of this CPU\n", argv[i]);
      return 2;
    }
  }
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "error: xnn_initialize failed\n");
    return 1;
  }
  g_peak = MedianFmaPeak();
  std::printf("dispatch target: %s; start-up FMA peak (median of 5): %.1f GFLOP/s\n",
              hwy::TargetName(hwy::SupportedAndGeneratedTargets().front()), g_peak * 1e-9);
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  xnn_deinitialize();
  return 0;
}
