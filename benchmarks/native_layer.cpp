#include "benchmarks/native_layer.h"

namespace torchir::benchmarks {

using runtime::Error;

native::Convolution2dShape SquareConvolutionShape(size_t size, size_t input_channels,
                                                  size_t output_channels, size_t kernel,
                                                  size_t stride, size_t padding) {
  return {1,      size, size, input_channels, output_channels, kernel,  kernel, stride,
          stride, 1,    1,    padding,        padding,         padding, padding};
}

bool NativeConvolution::Pack(const native::Convolution2dShape& shape, size_t groups,
                             size_t winograd_tile, const float* weights) {
  shape_ = shape;
  groups_ = groups;
  depthwise_ = groups > 1 && groups == shape.input_channels && groups == shape.output_channels;
  winograd_tile_ = winograd_tile;
  if (!native::GetGemmConfig(native::CurrentKernelTarget(), &config_)) return false;
  if (depthwise_) {
    packed_.resize(native::DepthwisePackedWeightsBytes(shape) / sizeof(float) + 1);
    return native::PackDepthwiseWeights(shape, weights, packed_.data(),
                                        packed_.size() * sizeof(float)) == Error::kOk &&
           native::ViewPackedDepthwise(packed_.data(), packed_.size() * sizeof(float),
                                       &depthwise_weights_) == Error::kOk;
  }
  if (winograd_tile != 0) {
    if ((winograd_tile != 2 && winograd_tile != 4) ||
        !native::WinogradGroupedApplies(shape, groups)) {
      return false;
    }
    packed_.resize(native::WinogradPackedWeightsBytes(config_, shape, winograd_tile, groups) /
                       sizeof(float) +
                   1);
    scratch_.resize(
        native::WinogradScratchBytes(config_, shape, winograd_tile, 1, groups) / sizeof(float) + 1);
    return native::PackWinogradWeights(config_, shape, winograd_tile, weights, packed_.data(),
                                       packed_.size() * sizeof(float), groups) == Error::kOk &&
           native::ViewPackedWinograd(packed_.data(), packed_.size() * sizeof(float),
                                      &winograd_weights_) == Error::kOk;
  }
  packed_.resize(
      native::GroupedConvolutionPackedWeightsBytes(config_, shape, groups) / sizeof(float) + 1);
  scratch_.resize(native::ConvolutionScratchBytes(config_, shape, 1) / sizeof(float) + 1);
  gemm_weights_.resize(groups);
  return native::PackGroupedConvolutionWeights(config_, shape, groups, weights, packed_.data(),
                                               packed_.size() * sizeof(float)) == Error::kOk &&
         native::ViewPackedGroupedWeights(packed_.data(), packed_.size() * sizeof(float), shape,
                                          groups, gemm_weights_.data()) == Error::kOk;
}

Error NativeConvolution::Run(const float* input, const float* bias, float* output,
                             const native::Epilogue& epilogue, native::ImplicitGemmA a_mode) {
  if (winograd_tile_ != 0) {
    return native::WinogradConvolution2d(shape_, input, winograd_weights_, bias, output, epilogue,
                                         scratch_.data(), scratch_.size() * sizeof(float));
  }
  if (depthwise_) {
    return native::DepthwiseConvolution2d(shape_, input, depthwise_weights_, bias, output,
                                          epilogue);
  }
  return native::GroupedConvolution2d(shape_, groups_, input, gemm_weights_.data(), bias, output,
                                      epilogue, scratch_.data(), scratch_.size() * sizeof(float),
                                      nullptr, a_mode);
}

}  // namespace torchir::benchmarks
