#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

enum Arg : size_t { kInput, kDim, kOut, kNumArgs };

// Softmax along a non-innermost dim handles this many adjacent columns at once, so that each
// pass reads contiguous memory; their running maxima and sums live on the stack.
constexpr int64_t kColumnChunk = 32;

// Softmax (or log-softmax) of `count` columns of `length` values, `stride` apart, starting at
// x; results go to the same positions of y. T is float or double; the sums are double either way.
template <bool kLog, typename T>
void SoftmaxColumns(const T* x, T* y, int64_t length, int64_t stride, int64_t count) {
  T max[kColumnChunk];
  double sum[kColumnChunk];
  std::fill(max, max + count, -std::numeric_limits<T>::infinity());
  std::fill(sum, sum + count, 0.0);
  for (int64_t l = 0; l < length; ++l) {
    const T* row = x + l * stride;
    for (int64_t j = 0; j < count; ++j) max[j] = row[j] > max[j] ? row[j] : max[j];
  }
  for (int64_t l = 0; l < length; ++l) {
    const T* row = x + l * stride;
    T* out = y + l * stride;
    for (int64_t j = 0; j < count; ++j) {
      const T e = std::exp(row[j] - max[j]);
      sum[j] += e;
      if (!kLog) out[j] = e;
    }
  }
  // Shifted by the maximum then by log(sum), as ATen does, rather than log(exp(..)).
  T factor[kColumnChunk];
  for (int64_t j = 0; j < count; ++j) {
    factor[j] = kLog ? static_cast<T>(std::log(sum[j])) : static_cast<T>(1.0 / sum[j]);
  }
  for (int64_t l = 0; l < length; ++l) {
    const T* row = x + l * stride;
    T* out = y + l * stride;
    for (int64_t j = 0; j < count; ++j) {
      out[j] = kLog ? row[j] - max[j] - factor[j] : out[j] * factor[j];
    }
  }
}

template <bool kLog, typename T>
Error RunSoftmaxAlongDim(KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  const size_t dim =
      static_cast<size_t>(NormalizeDimAllowingScalar(args[kDim]->to_int(), input.dim()));
  // A 0-d input is one column of one value.
  const int64_t outer = input.dim() == 0 ? 1 : SizeProduct(input, 0, dim);
  const int64_t length = input.dim() == 0 ? 1 : input.size(dim);
  const int64_t inner = input.dim() == 0 ? 1 : SizeProduct(input, dim + 1, input.dim());
  const T* x = input.data_ptr<T>();
  T* y = args[kOut]->to_tensor().mutable_data_ptr<T>();
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t base = o * length * inner;
    for (int64_t j = 0; j < inner; j += kColumnChunk) {
      SoftmaxColumns<kLog>(x + base + j, y + base + j, length, inner,
                           std::min(kColumnChunk, inner - j));
    }
  }
  return Error::kOk;
}

}  // namespace

Error CheckSoftmax(KernelArgs args) {
  const char* kernel = "softmax";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kFloatTypes, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, kFloatTypes, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kDim, EValue::Tag::kInt, kernel));
  const Tensor& input = args[kInput]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckSameDType(input, args[kOut]->to_tensor(), kernel));
  TORCHIR_CHECK_OR_RETURN(NormalizeDimAllowingScalar(args[kDim]->to_int(), input.dim()) >= 0,
                          Error::kInvalidProgram, "%s: dim %lld is out of range for rank %zu",
                          kernel, static_cast<long long>(args[kDim]->to_int()), input.dim());
  TORCHIR_CHECK_OR_RETURN(SameSizes(args[kOut]->to_tensor(), input), Error::kShapeMismatch,
                          "%s: output sizes differ from the input's", kernel);
  return Error::kOk;
}

Error RunSoftmax(KernelContext& /*context*/, KernelArgs args) {
  if (args[kInput]->to_tensor().scalar_type() == ScalarType::kFloat64) {
    return RunSoftmaxAlongDim</*kLog=*/false, double>(args);
  }
  return RunSoftmaxAlongDim</*kLog=*/false, float>(args);
}

Error RunLogSoftmax(KernelContext& /*context*/, KernelArgs args) {
  if (args[kInput]->to_tensor().scalar_type() == ScalarType::kFloat64) {
    return RunSoftmaxAlongDim</*kLog=*/true, double>(args);
  }
  return RunSoftmaxAlongDim</*kLog=*/true, float>(args);
}

}  // namespace torchir::runtime::portable
