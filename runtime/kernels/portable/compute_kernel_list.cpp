#include "runtime/kernels/portable/compute_kernels.h"
#include "runtime/kernels/portable/kernel_lists.h"

namespace torchir::runtime::portable {

Span<const Kernel> ComputeKernels() {
  static const Kernel kKernels[] = {
      {"convolution", CheckConvolution, RunConvolution},
      {"linear", CheckLinear, RunLinear},
      {"matmul", CheckMatmul, RunMatmul},
      {"batch_norm", CheckBatchNorm, RunBatchNorm},
      {"layer_norm", CheckLayerNorm, RunLayerNorm},
      {"softmax", CheckSoftmax, RunSoftmax},
      {"log_softmax", CheckSoftmax, RunLogSoftmax},
      {"mean", CheckMean, RunMean},
      {"sum", CheckSum, RunSum},
      {"amax", CheckAmax, RunAmax},
      {"max_dim", CheckMaxDim, RunMaxDim, /*num_outputs=*/2},
      {"max_pool2d", CheckMaxPool2d, RunMaxPool2d},
      {"avg_pool2d", CheckAvgPool2d, RunAvgPool2d},
      {"adaptive_avg_pool2d", CheckAdaptiveAvgPool2d, RunAdaptiveAvgPool2d},
  };
  return Span<const Kernel>(kKernels);
}

}  // namespace torchir::runtime::portable
