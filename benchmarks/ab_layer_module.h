// The C interface of ab_layer_module.cpp: one layer on one build of the native kernels, looked
// up by name (dlsym) in each module torchir_ab_layer loads. A module that computes on data of its
// own (ab_layer_onednn.cpp: oneDNN's layouts) also exports torchir_ab_layer_own_data, returning
// nonzero: its run ignores the input and output given, and no outputs are compared.
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// A square convolution of batch 1: groups == input == output channels is depthwise.
typedef struct TorchirAbLayerSpec {
  size_t size, input_channels, output_channels, kernel, stride, padding, groups;
  int channels_first;    // the input NCHW (at most 4 input channels take the direct kernel so)
  int relu;              // the epilogue: bias, then relu; else bias only
  size_t winograd_tile;  // 4 or 2: Winograd F(4x4, 3x3) or F(2x2, 3x3); 0: the other kernels
} TorchirAbLayerSpec;

typedef struct TorchirAbLayer TorchirAbLayer;

// The layer with its filter (`weights`: PyTorch's [Cout, Cin / groups, k, k]) packed by this
// build, and the bias; null when the shape is invalid or the filter cannot be packed for this
// CPU. The caller keeps `bias` alive.
TorchirAbLayer* torchir_ab_layer_create(const TorchirAbLayerSpec* spec, const float* weights,
                                        const float* bias);
// Floats of the output (NHWC).
size_t torchir_ab_layer_output_floats(const TorchirAbLayer* layer);
// The convolution of `input` (NHWC, or NCHW with channels_first) into `output`; 0 on success.
// The caller owns both, so that two builds run on the same memory.
int torchir_ab_layer_run(TorchirAbLayer* layer, const float* input, float* output);
void torchir_ab_layer_destroy(TorchirAbLayer* layer);
// Optional (see above).
int torchir_ab_layer_own_data(void);
// Makes the native kernels dispatch to the widest of this CPU's targets no wider than `name`
// ("avx2", "portable", ...: KernelTargetName); 0 on success. Highway's dispatch is process-wide,
// so this sets it for both builds.
int torchir_ab_layer_limit_target(const char* name);

#ifdef __cplusplus
}
#endif
