// The B side torchir_ab_layer (ab_layer.cpp) can time native kernels against: the layer as
// TorchScript + oneDNN runs it inside a frozen network (LibTorchConvolution's
// kOneDnnPrepacked: weights reordered once, input in oneDNN's blocked layout), one thread,
// behind the same C interface as ab_layer_module.cpp. It computes on its own tensors (oneDNN's
// layouts, its own random values: LibTorchConvolution checks them against at::conv2d when it
// is made), so it exports torchir_ab_layer_own_data and its run ignores the buffers given.
#include <cstddef>
#include <cstdio>
#include <memory>
#include <new>
#include <string>

#include "benchmarks/ab_layer_module.h"
#include "benchmarks/libtorch_layers.h"

struct TorchirAbLayer {
  std::unique_ptr<torchir::benchmarks::LibTorchConvolution> convolution;
  size_t output_floats = 0;
};

extern "C" TorchirAbLayer* torchir_ab_layer_create(const TorchirAbLayerSpec* spec,
                                                   const float* /*weights*/,
                                                   const float* /*bias*/) {
  if (spec->stride == 0 || spec->size + 2 * spec->padding < spec->kernel) return nullptr;
  const torchir::benchmarks::TorchConvolutionShape shape{
      spec->size,   spec->input_channels, spec->output_channels, spec->kernel,
      spec->stride, spec->padding,        spec->groups};
  std::string error;
  auto convolution = torchir::benchmarks::LibTorchConvolution::Create(
      shape, &error, torchir::benchmarks::LibTorchConvolution::Path::kOneDnnPrepacked);
  if (convolution == nullptr) {
    std::fprintf(stderr, "oneDNN: %s\n", error.c_str());
    return nullptr;
  }
  auto* layer = new (std::nothrow) TorchirAbLayer;
  if (layer == nullptr) return nullptr;
  layer->convolution = std::move(convolution);
  const size_t out = (spec->size + 2 * spec->padding - spec->kernel) / spec->stride + 1;
  layer->output_floats = out * out * spec->output_channels;
  return layer;
}

extern "C" size_t torchir_ab_layer_output_floats(const TorchirAbLayer* layer) {
  return layer->output_floats;
}

extern "C" int torchir_ab_layer_run(TorchirAbLayer* layer, const float* /*input*/,
                                    float* /*output*/) {
  layer->convolution->Run();
  return 0;
}

extern "C" void torchir_ab_layer_destroy(TorchirAbLayer* layer) { delete layer; }

extern "C" int torchir_ab_layer_own_data(void) { return 1; }
