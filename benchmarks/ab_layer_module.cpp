// One build of the native convolution kernels as a loadable module: torchir_ab_layer
// (ab_layer.cpp) loads two builds of it, before and after a change, into one process and runs
// them call by call on the same layer. Linked with -Bsymbolic, so each module's calls stay
// inside its own copy of the kernels. The C interface is ab_layer_module.h.
#include "benchmarks/ab_layer_module.h"

#include <cstddef>
#include <new>

#include "backends/native/convolution.h"
#include "backends/native/gemm_config.h"
#include "benchmarks/native_layer.h"
#include "runtime/core/error.h"

struct TorchirAbLayer {
  torchir::benchmarks::NativeConvolution convolution;
  torchir::native::Epilogue epilogue;
  const float* bias = nullptr;
};

extern "C" TorchirAbLayer* torchir_ab_layer_create(const TorchirAbLayerSpec* spec,
                                                   const float* weights, const float* bias) {
  if (spec->groups == 0 || spec->input_channels % spec->groups != 0 ||
      spec->output_channels % spec->groups != 0 || spec->stride == 0 || spec->kernel == 0) {
    return nullptr;
  }
  auto* layer = new (std::nothrow) TorchirAbLayer;
  if (layer == nullptr) return nullptr;
  torchir::native::Convolution2dShape s = torchir::benchmarks::SquareConvolutionShape(
      spec->size, spec->input_channels, spec->output_channels, spec->kernel, spec->stride,
      spec->padding);
  s.input_channels_first = spec->channels_first != 0;
  if (spec->relu != 0) layer->epilogue.activation = torchir::native::Activation::kRelu;
  layer->bias = bias;
  if (!layer->convolution.Pack(s, spec->groups, spec->winograd_tile, weights)) {
    delete layer;
    return nullptr;
  }
  return layer;
}

extern "C" size_t torchir_ab_layer_output_floats(const TorchirAbLayer* layer) {
  const torchir::native::Convolution2dShape& s = layer->convolution.shape();
  return s.output_height() * s.output_width() * s.output_channels;
}

extern "C" int torchir_ab_layer_run(TorchirAbLayer* layer, const float* input, float* output) {
  return layer->convolution.Run(input, layer->bias, output, layer->epilogue) ==
                 torchir::runtime::Error::kOk
             ? 0
             : 1;
}

extern "C" void torchir_ab_layer_destroy(TorchirAbLayer* layer) { delete layer; }

extern "C" int torchir_ab_layer_limit_target(const char* name) {
  torchir::native::KernelTarget widest;
  return torchir::native::KernelTargetFromName(name, &widest) &&
                 torchir::native::LimitKernelTarget(widest, nullptr) == torchir::runtime::Error::kOk
             ? 0
             : 1;
}
