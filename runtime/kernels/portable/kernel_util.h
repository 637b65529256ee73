// Small helpers shared by the portable kernels: dims, sizes, sliding windows, the
// fused output clamp, and a dtype switch for `run`. The init-time argument checks
// are in argument_checks.h.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// Both tensors have the same sizes.
inline bool SameSizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (size_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d)) return false;
  }
  return true;
}

// Normalises a possibly negative dim against `rank`; -1 when out of range.
inline int64_t NormalizeDim(int64_t dim, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (dim < 0) dim += r;
  return dim >= 0 && dim < r ? dim : -1;
}

// The (before, after) padding of `dim` of a rank-`rank` tensor from a pad list of (before,
// after) pairs, innermost dim first (PyTorch's F.pad order); 0 for dims the list does not reach.
inline void PadsOf(Span<const int64_t> pad, size_t rank, size_t dim, int64_t* before,
                   int64_t* after) {
  const size_t from_inner = rank - 1 - dim;
  *before = from_inner < pad.size() / 2 ? pad[2 * from_inner] : 0;
  *after = from_inner < pad.size() / 2 ? pad[2 * from_inner + 1] : 0;
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

// The fused output clamp as bounds of the output's type T (+-inf stay infinite).
template <typename T>
struct TypedOutputClamp {
  T min;
  T max;
};
using OutputClamp = TypedOutputClamp<float>;

template <typename T = float>
inline TypedOutputClamp<T> ClampFromArgs(KernelArgs args, size_t min_index, size_t max_index) {
  return {static_cast<T>(args[min_index]->to_double()),
          static_cast<T>(args[max_index]->to_double())};
}

// Clamps `count` values in place like at::clamp: a NaN stays NaN and min > max
// gives max.
template <typename T>
inline void ApplyOutputClamp(T* values, int64_t count, TypedOutputClamp<T> clamp) {
  if (clamp.min == -INFINITY && clamp.max == INFINITY) return;
  for (int64_t i = 0; i < count; ++i) {
    const T v = values[i];
    const T low = v < clamp.min ? clamp.min : v;
    values[i] = low > clamp.max ? clamp.max : low;
  }
}

}  // namespace torchir::runtime::portable

// Calls `body` (a generic lambda taking a typed null pointer `auto* tag`) with
// the C++ type of `scalar_type` among float32, float64, int32, int64; returns
// kInvalidType for others. Usage:
//   return TORCHIR_SWITCH_REAL_TYPES(t.scalar_type(), "add", [&](auto* tag) {
//     using T = std::remove_pointer_t<decltype(tag)>; ...; return Error::kOk; });
#define TORCHIR_SWITCH_REAL_TYPES(scalar_type, kernel, body)                      \
  [&]() -> ::torchir::runtime::Error {                                            \
    switch (scalar_type) {                                                        \
      case ::torchir::runtime::ScalarType::kFloat32: return body((float*)nullptr); \
      case ::torchir::runtime::ScalarType::kFloat64: return body((double*)nullptr); \
      case ::torchir::runtime::ScalarType::kInt32: return body((int32_t*)nullptr); \
      case ::torchir::runtime::ScalarType::kInt64: return body((int64_t*)nullptr); \
      default:                                                                    \
        ::torchir::runtime::Log(::torchir::runtime::LogLevel::kError,             \
                                "%s: unsupported dtype %s", kernel,               \
                                ::torchir::runtime::ScalarTypeName(scalar_type)); \
        return ::torchir::runtime::Error::kInvalidType;                           \
    }                                                                             \
  }()
