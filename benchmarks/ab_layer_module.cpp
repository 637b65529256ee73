// One build of the native convolution kernels as a loadable module: torchir_ab_layer
// (ab_layer.cpp) loads two builds of it, before and after a change, into one process and runs
// them call by call on the same layer. Linked with -Bsymbolic, so each module's calls stay
// inside its own copy of the kernels. The C interface is ab_layer_module.h.
#include "benchmarks/ab_layer_module.h"

#include <cstddef>
#include <new>
#include <vector>

#include "backends/native/convolution.h"
#include "backends/native/depthwise.h"
#include "backends/native/gemm_config.h"
#include "backends/native/winograd.h"
#include "runtime/core/error.h"

namespace {

using torchir::native::Activation;
using torchir::native::Convolution2dShape;
using torchir::runtime::Error;

}  // namespace

struct TorchirAbLayer {
  Convolution2dShape shape;
  size_t groups = 1;
  bool depthwise = false;
  torchir::native::Epilogue epilogue;
  const float* bias = nullptr;
  std::vector<float> packed, scratch;
  std::vector<torchir::native::PackedB> gemm_weights;
  torchir::native::PackedDepthwise depthwise_weights;
  size_t winograd_tile = 0;
  torchir::native::PackedWinograd winograd_weights;
};

extern "C" TorchirAbLayer* torchir_ab_layer_create(const TorchirAbLayerSpec* spec,
                                                   const float* weights, const float* bias) {
  auto* layer = new (std::nothrow) TorchirAbLayer;
  if (layer == nullptr || spec->groups == 0 || spec->input_channels % spec->groups != 0 ||
      spec->output_channels % spec->groups != 0 || spec->stride == 0 || spec->kernel == 0) {
    delete layer;
    return nullptr;
  }
  Convolution2dShape& s = layer->shape;
  s = {1,
       spec->size,
       spec->size,
       spec->input_channels,
       spec->output_channels,
       spec->kernel,
       spec->kernel,
       spec->stride,
       spec->stride,
       1,
       1,
       spec->padding,
       spec->padding,
       spec->padding,
       spec->padding};
  s.input_channels_first = spec->channels_first != 0;
  layer->groups = spec->groups;
  layer->depthwise = spec->groups > 1 && spec->groups == spec->input_channels &&
                     spec->groups == spec->output_channels;
  if (spec->relu != 0) layer->epilogue.activation = Activation::kRelu;
  layer->bias = bias;
  bool ok;
  if (layer->depthwise) {
    layer->packed.resize(torchir::native::DepthwisePackedWeightsBytes(s) / sizeof(float) + 1);
    ok =
        torchir::native::PackDepthwiseWeights(s, weights, layer->packed.data(),
                                              layer->packed.size() * sizeof(float)) == Error::kOk &&
        torchir::native::ViewPackedDepthwise(layer->packed.data(),
                                             layer->packed.size() * sizeof(float),
                                             &layer->depthwise_weights) == Error::kOk;
  } else if (spec->winograd_tile != 0) {
    torchir::native::GemmConfig config;
    layer->winograd_tile = spec->winograd_tile;
    ok = (spec->winograd_tile == 2 || spec->winograd_tile == 4) &&
         torchir::native::WinogradGroupedApplies(s, spec->groups) &&
         torchir::native::GetGemmConfig(torchir::native::CurrentKernelTarget(), &config);
    if (ok) {
      layer->packed.resize(torchir::native::WinogradPackedWeightsBytes(
                               config, s, spec->winograd_tile, spec->groups) /
                               sizeof(float) +
                           1);
      layer->scratch.resize(
          torchir::native::WinogradScratchBytes(config, s, spec->winograd_tile, 1, spec->groups) /
              sizeof(float) +
          1);
      ok = torchir::native::PackWinogradWeights(
               config, s, spec->winograd_tile, weights, layer->packed.data(),
               layer->packed.size() * sizeof(float), spec->groups) == Error::kOk &&
           torchir::native::ViewPackedWinograd(layer->packed.data(),
                                               layer->packed.size() * sizeof(float),
                                               &layer->winograd_weights) == Error::kOk;
    }
  } else {
    torchir::native::GemmConfig config;
    ok = torchir::native::GetGemmConfig(torchir::native::CurrentKernelTarget(), &config);
    if (ok) {
      layer->packed.resize(
          torchir::native::GroupedConvolutionPackedWeightsBytes(config, s, spec->groups) /
              sizeof(float) +
          1);
      layer->scratch.resize(torchir::native::ConvolutionScratchBytes(config, s, 1) / sizeof(float) +
                            1);
      layer->gemm_weights.resize(spec->groups);
      ok = torchir::native::PackGroupedConvolutionWeights(
               config, s, spec->groups, weights, layer->packed.data(),
               layer->packed.size() * sizeof(float)) == Error::kOk &&
           torchir::native::ViewPackedGroupedWeights(
               layer->packed.data(), layer->packed.size() * sizeof(float), s, spec->groups,
               layer->gemm_weights.data()) == Error::kOk;
    }
  }
  if (!ok) {
    delete layer;
    return nullptr;
  }
  return layer;
}

extern "C" size_t torchir_ab_layer_output_floats(const TorchirAbLayer* layer) {
  const Convolution2dShape& s = layer->shape;
  return s.output_height() * s.output_width() * s.output_channels;
}

extern "C" int torchir_ab_layer_run(TorchirAbLayer* layer, const float* input, float* output) {
  if (layer->winograd_tile != 0) {
    return torchir::native::WinogradConvolution2d(
               layer->shape, input, layer->winograd_weights, layer->bias, output, layer->epilogue,
               layer->scratch.data(), layer->scratch.size() * sizeof(float)) == Error::kOk
               ? 0
               : 1;
  }
  const Error error =
      layer->depthwise
          ? torchir::native::DepthwiseConvolution2d(layer->shape, input, layer->depthwise_weights,
                                                    layer->bias, output, layer->epilogue)
          : torchir::native::GroupedConvolution2d(
                layer->shape, layer->groups, input, layer->gemm_weights.data(), layer->bias, output,
                layer->epilogue, layer->scratch.data(), layer->scratch.size() * sizeof(float));
  return error == Error::kOk ? 0 : 1;
}

extern "C" void torchir_ab_layer_destroy(TorchirAbLayer* layer) { delete layer; }

extern "C" int torchir_ab_layer_limit_target(const char* name) {
  torchir::native::KernelTarget widest;
  return torchir::native::KernelTargetFromName(name, &widest) &&
                 torchir::native::LimitKernelTarget(widest, nullptr) == Error::kOk
             ? 0
             : 1;
}
