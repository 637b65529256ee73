#include <cmath>
#include <initializer_list>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

enum BatchNormArg : size_t {
  kBnInput,
  kBnMean,
  kBnVar,
  kBnWeight,
  kBnBias,
  kBnEps,
  kBnOut,
  kBnNumArgs
};
enum LayerNormArg : size_t {
  kLnInput,
  kLnWeight,
  kLnBias,
  kLnNormalizedShape,
  kLnEps,
  kLnOut,
  kLnNumArgs
};

// A per-channel operand is a [channels] tensor of the input's dtype.
Error CheckPerChannel(KernelArgs args, size_t i, int64_t channels, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(
      CheckTensorOperand(args, i, DTypeSet(args[kBnInput]->to_tensor().scalar_type()), kernel));
  const Tensor& t = args[i]->to_tensor();
  TORCHIR_CHECK_OR_RETURN(t.dim() == 1 && t.size(0) == channels, Error::kInvalidProgram,
                          "%s: argument %zu must be [%lld]", kernel, i,
                          static_cast<long long>(channels));
  return Error::kOk;
}

// The optional weight or bias of layer_norm has the input's dtype and exactly the sizes
// normalized_shape.
Error CheckNormalizedOperand(KernelArgs args, size_t i, Span<const int64_t> shape) {
  const char* kernel = "layer_norm";
  if (args[i]->is_none()) return Error::kOk;
  TORCHIR_RETURN_IF_ERROR(
      CheckTensorOperand(args, i, DTypeSet(args[kLnInput]->to_tensor().scalar_type()), kernel));
  const Tensor& t = args[i]->to_tensor();
  bool same = t.dim() == shape.size();
  for (size_t d = 0; same && d < shape.size(); ++d) same = t.size(d) == shape[d];
  TORCHIR_CHECK_OR_RETURN(same, Error::kInvalidProgram,
                          "%s: weight/bias must have the sizes normalized_shape", kernel);
  return Error::kOk;
}

}  // namespace

Error CheckBatchNorm(KernelArgs args) {
  const char* kernel = "batch_norm";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kBnNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kBnInput, kFloatTypes, kernel));
  const Tensor& input = args[kBnInput]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kBnOut, DTypeSet(input.scalar_type()), kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kBnEps, EValue::Tag::kDouble, kernel));
  TORCHIR_CHECK_OR_RETURN(input.dim() >= 2, Error::kInvalidProgram,
                          "%s: input needs a channel dim (rank >= 2)", kernel);
  const int64_t channels = input.size(1);
  TORCHIR_RETURN_IF_ERROR(CheckPerChannel(args, kBnMean, channels, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckPerChannel(args, kBnVar, channels, kernel));
  for (size_t i : {kBnWeight, kBnBias}) {
    if (!args[i]->is_none()) TORCHIR_RETURN_IF_ERROR(CheckPerChannel(args, i, channels, kernel));
  }
  TORCHIR_CHECK_OR_RETURN(SameSizes(args[kBnOut]->to_tensor(), input), Error::kShapeMismatch,
                          "%s: output sizes differ from the input's", kernel);
  return Error::kOk;
}

namespace {

// batch_norm in T (float or double), every operand of that type.
template <typename T>
void BatchNormAs(KernelArgs args) {
  const Tensor& input = args[kBnInput]->to_tensor();
  const int64_t batch = input.size(0);
  const int64_t channels = input.size(1);
  const int64_t inner = SizeProduct(input, 2, input.dim());
  auto optional = [&](size_t i) -> const T* {
    return args[i]->is_none() ? nullptr : args[i]->to_tensor().data_ptr<T>();
  };
  const T* in = input.data_ptr<T>();
  const T* mean = args[kBnMean]->to_tensor().data_ptr<T>();
  const T* var = args[kBnVar]->to_tensor().data_ptr<T>();
  const T* weight = optional(kBnWeight);
  const T* bias = optional(kBnBias);
  const T eps = static_cast<T>(args[kBnEps]->to_double());
  T* out = args[kBnOut]->to_tensor().mutable_data_ptr<T>();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      // One multiply-add per element, with the terms folded as ATen folds them.
      const T invstd = T(1) / std::sqrt(var[c] + eps);
      const T scale = invstd * (weight != nullptr ? weight[c] : T(1));
      const T shift = (bias != nullptr ? bias[c] : T(0)) - mean[c] * scale;
      const int64_t base = (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) out[base + i] = in[base + i] * scale + shift;
    }
  }
}

}  // namespace

Error RunBatchNorm(KernelContext& /*context*/, KernelArgs args) {
  if (args[kBnInput]->to_tensor().scalar_type() == ScalarType::kFloat64) {
    BatchNormAs<double>(args);
  } else {
    BatchNormAs<float>(args);
  }
  return Error::kOk;
}

Error CheckLayerNorm(KernelArgs args) {
  const char* kernel = "layer_norm";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kLnNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kLnInput, kFloatTypes, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kLnOut, kFloatTypes, kernel));
  TORCHIR_RETURN_IF_ERROR(
      CheckSameDType(args[kLnInput]->to_tensor(), args[kLnOut]->to_tensor(), kernel));
  TORCHIR_RETURN_IF_ERROR(
      CheckAttributeKind(args, kLnNormalizedShape, EValue::Tag::kIntList, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kLnEps, EValue::Tag::kDouble, kernel));
  const Tensor& input = args[kLnInput]->to_tensor();
  Span<const int64_t> shape = args[kLnNormalizedShape]->to_int_list();
  bool suffix = !shape.empty() && shape.size() <= input.dim();
  for (size_t i = 0; suffix && i < shape.size(); ++i) {
    suffix = shape[i] == input.size(input.dim() - shape.size() + i);
  }
  TORCHIR_CHECK_OR_RETURN(suffix, Error::kInvalidProgram,
                          "%s: normalized_shape is not a suffix of the input's sizes", kernel);
  TORCHIR_RETURN_IF_ERROR(CheckNormalizedOperand(args, kLnWeight, shape));
  TORCHIR_RETURN_IF_ERROR(CheckNormalizedOperand(args, kLnBias, shape));
  TORCHIR_CHECK_OR_RETURN(SameSizes(args[kLnOut]->to_tensor(), input), Error::kShapeMismatch,
                          "%s: output sizes differ from the input's", kernel);
  return Error::kOk;
}

namespace {

// layer_norm over rows of `inner` T values (float or double); statistics in double.
template <typename T>
void LayerNormRows(KernelArgs args, int64_t rows, int64_t inner) {
  const T* in = args[kLnInput]->to_tensor().data_ptr<T>();
  const T* weight =
      args[kLnWeight]->is_none() ? nullptr : args[kLnWeight]->to_tensor().data_ptr<T>();
  const T* bias = args[kLnBias]->is_none() ? nullptr : args[kLnBias]->to_tensor().data_ptr<T>();
  const double eps = args[kLnEps]->to_double();
  T* out = args[kLnOut]->to_tensor().mutable_data_ptr<T>();
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = in + r * inner;
    T* y = out + r * inner;
    // Two passes in double: the mean first, so that the variance does not cancel.
    double sum = 0.0;
    for (int64_t i = 0; i < inner; ++i) sum += x[i];
    const double mean = sum / static_cast<double>(inner);
    double squares = 0.0;
    for (int64_t i = 0; i < inner; ++i) {
      const double centered = x[i] - mean;
      squares += centered * centered;
    }
    const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(inner) + eps);
    for (int64_t i = 0; i < inner; ++i) {
      double value = (x[i] - mean) * rstd;
      if (weight != nullptr) value *= weight[i];
      if (bias != nullptr) value += bias[i];
      y[i] = static_cast<T>(value);
    }
  }
}

}  // namespace

Error RunLayerNorm(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kLnInput]->to_tensor();
  const size_t normalized_rank = args[kLnNormalizedShape]->to_int_list().size();
  const int64_t inner = SizeProduct(input, input.dim() - normalized_rank, input.dim());
  if (inner == 0) return Error::kOk;
  const int64_t rows = input.numel() / inner;
  if (input.scalar_type() == ScalarType::kFloat64) {
    LayerNormRows<double>(args, rows, inner);
  } else {
    LayerNormRows<float>(args, rows, inner);
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
