// Helpers private to the compute kernels (convolution, matrix products,
// normalisation, softmax, reductions, pooling): argument checks for their
// init-time check functions and the little arithmetic their run functions
// share. The generic checks every portable kernel uses live in kernel_util.h.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernels/portable/kernel_util.h"

namespace torchir::runtime::portable {

// A shape built on the stack by a check function: what an output's sizes must
// be. Appending past kMaxTensorRank marks it as matching no tensor.
class ExpectedShape {
 public:
  void Append(int64_t size) {
    if (rank_ < kMaxTensorRank) sizes_[rank_] = size;
    ++rank_;
  }
  bool Matches(const Tensor& t) const {
    if (rank_ > kMaxTensorRank || t.dim() != rank_) return false;
    for (size_t d = 0; d < rank_; ++d) {
      if (t.size(d) != sizes_[d]) return false;
    }
    return true;
  }

 private:
  int64_t sizes_[kMaxTensorRank] = {};
  size_t rank_ = 0;
};

// args[i] is a contiguous tensor of `type` whose rank the stack arrays of the
// kernels can hold.
inline Error CheckTensorOfType(KernelArgs args, size_t i, ScalarType type, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckTensorArg(args, i, kernel));
  const Tensor& t = args[i]->to_tensor();
  TORCHIR_CHECK_OR_RETURN(t.scalar_type() == type, Error::kInvalidType,
                          "%s: argument %zu is %s, expected %s", kernel, i,
                          ScalarTypeName(t.scalar_type()), ScalarTypeName(type));
  TORCHIR_CHECK_OR_RETURN(t.dim() <= kMaxTensorRank, Error::kInvalidProgram,
                          "%s: argument %zu has rank %zu", kernel, i, t.dim());
  return Error::kOk;
}

// args[i] is None (an omitted optional operand) or a tensor as above.
inline Error CheckOptionalTensorOfType(KernelArgs args, size_t i, ScalarType type,
                                       const char* kernel) {
  if (args[i]->is_none()) return Error::kOk;
  return CheckTensorOfType(args, i, type, kernel);
}

// args[i] has the attribute kind `tag`.
inline Error CheckAttributeArg(KernelArgs args, size_t i, EValue::Tag tag, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(args[i]->tag() == tag, Error::kInvalidType,
                          "%s: attribute argument %zu has the wrong kind", kernel, i);
  return Error::kOk;
}

// `out` has exactly the sizes `shape`.
inline Error CheckOutputShape(const Tensor& out, const ExpectedShape& shape, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(shape.Matches(out), Error::kShapeMismatch,
                          "%s: output sizes differ from what the inputs imply", kernel);
  return Error::kOk;
}

// The data of an optional float operand, or nullptr when it was omitted.
inline const float* OptionalFloatData(const EValue& arg) {
  return arg.is_none() ? nullptr : arg.to_tensor().data_ptr<float>();
}

// Normalises `dim` like the compiler's shape rules do: a 0-d tensor accepts
// dims -1 and 0 (PyTorch treats it as having one dim). -1 when out of range.
inline int64_t NormalizeDimAllowingScalar(int64_t dim, size_t rank) {
  return NormalizeDim(dim, rank == 0 ? 1 : rank);
}

// The product of t.size(d) for d in [begin, end).
inline int64_t SizeProduct(const Tensor& t, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t d = begin; d < end; ++d) product *= t.size(d);
  return product;
}

// The number of windows a sliding window takes over `length` (PyTorch's
// convolution and pooling formula, shape_rules.cpp's WindowOutput). Checked
// arithmetic: the attributes come from an untrusted program, and once this
// succeeds every window index the kernels compute fits in int64.
inline Error SlidingWindowCount(int64_t length, int64_t kernel_size, int64_t stride,
                                int64_t padding, int64_t dilation, bool ceil_mode,
                                const char* kernel, int64_t* count) {
  TORCHIR_CHECK_OR_RETURN(
      kernel_size > 0 && stride > 0 && dilation > 0 && padding >= 0, Error::kInvalidProgram,
      "%s: kernel size %lld, stride %lld, dilation %lld must be positive and "
      "padding %lld non-negative",
      kernel, static_cast<long long>(kernel_size), static_cast<long long>(stride),
      static_cast<long long>(dilation), static_cast<long long>(padding));
  int64_t span = 0;
  int64_t padded = 0;
  int64_t limit = 0;
  const bool overflow = __builtin_mul_overflow(dilation, kernel_size - 1, &span) ||
                        __builtin_add_overflow(span, 1, &span) ||
                        __builtin_mul_overflow(padding, 2, &padded) ||
                        __builtin_add_overflow(padded, length, &padded) ||
                        __builtin_add_overflow(padded, stride, &limit);
  TORCHIR_CHECK_OR_RETURN(!overflow, Error::kInvalidProgram, "%s: window attributes overflow",
                          kernel);
  const int64_t numerator = padded - span;
  TORCHIR_CHECK_OR_RETURN(numerator >= 0, Error::kInvalidProgram,
                          "%s: a window of %lld does not fit length %lld with padding %lld", kernel,
                          static_cast<long long>(span), static_cast<long long>(length),
                          static_cast<long long>(padding));
  int64_t windows = (ceil_mode ? (numerator + stride - 1) / stride : numerator / stride) + 1;
  // With ceil_mode the last window must start inside the input or its left padding.
  if (ceil_mode && (windows - 1) * stride >= length + padding) --windows;
  *count = windows;
  return Error::kOk;
}

// Checks the fused output clamp bounds of convolution and linear: NaN bounds
// come from no activation and would make the clamp order-dependent.
inline Error CheckClampBounds(KernelArgs args, size_t min_index, size_t max_index,
                              const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckAttributeArg(args, min_index, EValue::Tag::kDouble, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeArg(args, max_index, EValue::Tag::kDouble, kernel));
  TORCHIR_CHECK_OR_RETURN(
      !std::isnan(args[min_index]->to_double()) && !std::isnan(args[max_index]->to_double()),
      Error::kInvalidProgram, "%s: output clamp bounds must not be NaN", kernel);
  return Error::kOk;
}

// The fused output clamp as float bounds (+-inf stay infinite).
struct OutputClamp {
  float min;
  float max;
};

inline OutputClamp ClampFromArgs(KernelArgs args, size_t min_index, size_t max_index) {
  return {static_cast<float>(args[min_index]->to_double()),
          static_cast<float>(args[max_index]->to_double())};
}

// Clamps `count` values in place like at::clamp: a NaN stays NaN and min > max
// gives max.
inline void ApplyOutputClamp(float* values, int64_t count, OutputClamp clamp) {
  if (clamp.min == -INFINITY && clamp.max == INFINITY) return;
  for (int64_t i = 0; i < count; ++i) {
    const float v = values[i];
    const float low = v < clamp.min ? clamp.min : v;
    values[i] = low > clamp.max ? clamp.max : low;
  }
}

}  // namespace torchir::runtime::portable
