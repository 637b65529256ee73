// The convolution layers the per-layer suites measure (native_convolution_benchmark.cpp) and
// torchir_ab_layer runs by name (ab_layer.cpp): batch 1, a square input and kernel, symmetric
// padding, dilation 1.
#pragma once

#include <cstddef>

namespace torchir::benchmarks {

struct ConvolutionLayer {
  const char* name;
  size_t size, cin, cout, kernel, stride, pad;  // square input, square kernel, symmetric padding
  size_t groups = 1;                            // cin == cout == groups: depthwise

  bool depthwise() const { return groups > 1 && groups == cin && groups == cout; }
};

// resnet18's distinct convolutions, resnet50's that resnet18 does not have (its bottleneck 1x1
// layers, the stride-2 3x3 of each stage's first block, the stride-2 1x1 downsamples), then
// mobilenet_v2's stem and its distinct depthwise and pointwise ones, then regnet_x_400mf's (its
// stem is mobilenet_v2's): per stage the first block's stride-2 1x1 shortcut, 1x1 and stride-2
// grouped 3x3, then the 1x1 and grouped 3x3 of the stage's width.
inline constexpr ConvolutionLayer kConvolutionLayers[] = {
    {"resnet18_conv1_7x7_224", 224, 3, 64, 7, 2, 3},
    {"resnet18_3x3_56", 56, 64, 64, 3, 1, 1},
    {"resnet18_3x3s2_56", 56, 64, 128, 3, 2, 1},
    {"resnet18_3x3_28", 28, 128, 128, 3, 1, 1},
    {"resnet18_1x1s2_56", 56, 64, 128, 1, 2, 0},
    {"resnet18_3x3s2_28", 28, 128, 256, 3, 2, 1},
    {"resnet18_3x3_14", 14, 256, 256, 3, 1, 1},
    {"resnet18_1x1s2_28", 28, 128, 256, 1, 2, 0},
    {"resnet18_3x3s2_14", 14, 256, 512, 3, 2, 1},
    {"resnet18_3x3_7", 7, 512, 512, 3, 1, 1},
    {"resnet18_1x1s2_14", 14, 256, 512, 1, 2, 0},
    {"resnet50_1x1_56_64to64", 56, 64, 64, 1, 1, 0},
    {"resnet50_1x1_56_64to256", 56, 64, 256, 1, 1, 0},
    {"resnet50_1x1_56_256to64", 56, 256, 64, 1, 1, 0},
    {"resnet50_1x1_56_256to128", 56, 256, 128, 1, 1, 0},
    {"resnet50_3x3s2_56_128", 56, 128, 128, 3, 2, 1},
    {"resnet50_1x1_28_128to512", 28, 128, 512, 1, 1, 0},
    {"resnet50_1x1s2_56_256to512", 56, 256, 512, 1, 2, 0},
    {"resnet50_1x1_28_512to128", 28, 512, 128, 1, 1, 0},
    {"resnet50_1x1_28_512to256", 28, 512, 256, 1, 1, 0},
    {"resnet50_3x3s2_28_256", 28, 256, 256, 3, 2, 1},
    {"resnet50_1x1_14_256to1024", 14, 256, 1024, 1, 1, 0},
    {"resnet50_1x1s2_28_512to1024", 28, 512, 1024, 1, 2, 0},
    {"resnet50_1x1_14_1024to256", 14, 1024, 256, 1, 1, 0},
    {"resnet50_1x1_14_1024to512", 14, 1024, 512, 1, 1, 0},
    {"resnet50_3x3s2_14_512", 14, 512, 512, 3, 2, 1},
    {"resnet50_1x1_7_512to2048", 7, 512, 2048, 1, 1, 0},
    {"resnet50_1x1s2_14_1024to2048", 14, 1024, 2048, 1, 2, 0},
    {"resnet50_1x1_7_2048to512", 7, 2048, 512, 1, 1, 0},
    {"mobilenet_v2_conv1_3x3s2_224", 224, 3, 32, 3, 2, 1},
    {"mobilenet_v2_dw_112x32", 112, 32, 32, 3, 1, 1, 32},
    {"mobilenet_v2_dws2_112x96", 112, 96, 96, 3, 2, 1, 96},
    {"mobilenet_v2_dw_56x144", 56, 144, 144, 3, 1, 1, 144},
    {"mobilenet_v2_dws2_56x144", 56, 144, 144, 3, 2, 1, 144},
    {"mobilenet_v2_dw_28x192", 28, 192, 192, 3, 1, 1, 192},
    {"mobilenet_v2_dws2_28x192", 28, 192, 192, 3, 2, 1, 192},
    {"mobilenet_v2_dw_14x384", 14, 384, 384, 3, 1, 1, 384},
    {"mobilenet_v2_dw_14x576", 14, 576, 576, 3, 1, 1, 576},
    {"mobilenet_v2_dws2_14x576", 14, 576, 576, 3, 2, 1, 576},
    {"mobilenet_v2_dw_7x960", 7, 960, 960, 3, 1, 1, 960},
    {"mobilenet_v2_pw_112_32to16", 112, 32, 16, 1, 1, 0},
    {"mobilenet_v2_pw_112_16to96", 112, 16, 96, 1, 1, 0},
    {"mobilenet_v2_pw_56_96to24", 56, 96, 24, 1, 1, 0},
    {"mobilenet_v2_pw_56_24to144", 56, 24, 144, 1, 1, 0},
    {"mobilenet_v2_pw_56_144to24", 56, 144, 24, 1, 1, 0},
    {"mobilenet_v2_pw_28_144to32", 28, 144, 32, 1, 1, 0},
    {"mobilenet_v2_pw_28_32to192", 28, 32, 192, 1, 1, 0},
    {"mobilenet_v2_pw_28_192to32", 28, 192, 32, 1, 1, 0},
    {"mobilenet_v2_pw_14_192to64", 14, 192, 64, 1, 1, 0},
    {"mobilenet_v2_pw_14_64to384", 14, 64, 384, 1, 1, 0},
    {"mobilenet_v2_pw_14_384to64", 14, 384, 64, 1, 1, 0},
    {"mobilenet_v2_pw_14_384to96", 14, 384, 96, 1, 1, 0},
    {"mobilenet_v2_pw_14_96to576", 14, 96, 576, 1, 1, 0},
    {"mobilenet_v2_pw_14_576to96", 14, 576, 96, 1, 1, 0},
    {"mobilenet_v2_pw_7_576to160", 7, 576, 160, 1, 1, 0},
    {"mobilenet_v2_pw_7_160to960", 7, 160, 960, 1, 1, 0},
    {"mobilenet_v2_pw_7_960to160", 7, 960, 160, 1, 1, 0},
    {"mobilenet_v2_pw_7_960to320", 7, 960, 320, 1, 1, 0},
    {"mobilenet_v2_pw_7_320to1280", 7, 320, 1280, 1, 1, 0},
    {"regnet_x_400mf_1x1s2_112_32to32", 112, 32, 32, 1, 2, 0},
    {"regnet_x_400mf_1x1_112_32to32", 112, 32, 32, 1, 1, 0},
    {"regnet_x_400mf_3x3s2g2_112_32", 112, 32, 32, 3, 2, 1, 2},
    {"regnet_x_400mf_1x1_56_32to32", 56, 32, 32, 1, 1, 0},
    {"regnet_x_400mf_1x1s2_56_32to64", 56, 32, 64, 1, 2, 0},
    {"regnet_x_400mf_1x1_56_32to64", 56, 32, 64, 1, 1, 0},
    {"regnet_x_400mf_3x3s2g4_56_64", 56, 64, 64, 3, 2, 1, 4},
    {"regnet_x_400mf_1x1_28_64to64", 28, 64, 64, 1, 1, 0},
    {"regnet_x_400mf_3x3g4_28_64", 28, 64, 64, 3, 1, 1, 4},
    {"regnet_x_400mf_1x1s2_28_64to160", 28, 64, 160, 1, 2, 0},
    {"regnet_x_400mf_1x1_28_64to160", 28, 64, 160, 1, 1, 0},
    {"regnet_x_400mf_3x3s2g10_28_160", 28, 160, 160, 3, 2, 1, 10},
    {"regnet_x_400mf_1x1_14_160to160", 14, 160, 160, 1, 1, 0},
    {"regnet_x_400mf_3x3g10_14_160", 14, 160, 160, 3, 1, 1, 10},
    {"regnet_x_400mf_1x1s2_14_160to400", 14, 160, 400, 1, 2, 0},
    {"regnet_x_400mf_1x1_14_160to400", 14, 160, 400, 1, 1, 0},
    {"regnet_x_400mf_3x3s2g25_14_400", 14, 400, 400, 3, 2, 1, 25},
    {"regnet_x_400mf_1x1_7_400to400", 7, 400, 400, 1, 1, 0},
    {"regnet_x_400mf_3x3g25_7_400", 7, 400, 400, 3, 1, 1, 25},
};

}  // namespace torchir::benchmarks
