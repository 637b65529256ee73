// Helpers shared by the portable kernels: argument checks for the init-time
// `check` functions and a dtype switch for `run`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime::portable {

// The kernel's arguments have the expected count.
inline Error CheckArgCount(KernelArgs args, size_t expected, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(args.size() == expected, Error::kInvalidProgram,
                          "%s: %zu arguments, expected %zu", kernel, args.size(), expected);
  for (EValue* arg : args) {
    TORCHIR_CHECK_OR_RETURN(arg != nullptr, Error::kInvalidProgram, "%s: null argument", kernel);
  }
  return Error::kOk;
}

// args[i] is a tensor whose dim order is contiguous (empty or 0..n-1).
inline Error CheckTensorArg(KernelArgs args, size_t i, const char* kernel) {
  TORCHIR_CHECK_OR_RETURN(args[i]->is_tensor(), Error::kInvalidType,
                          "%s: argument %zu is not a tensor", kernel, i);
  const Tensor& t = args[i]->to_tensor();
  Span<const uint8_t> order = t.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    TORCHIR_CHECK_OR_RETURN(order[d] == d, Error::kNotSupported,
                            "%s: argument %zu is not contiguous", kernel, i);
  }
  // The product of the non-zero sizes fits int64, so every partial product a kernel forms
  // (outer and inner extents, merged dims) does too, even when a zero size makes the tensor
  // empty (the program's validation bounds only the total).
  int64_t product = 1;
  for (int64_t size : t.sizes()) {
    if (size == 0) continue;
    TORCHIR_CHECK_OR_RETURN(size > 0 && !__builtin_mul_overflow(product, size, &product),
                            Error::kInvalidProgram, "%s: argument %zu has too many elements",
                            kernel, i);
  }
  return Error::kOk;
}

// Both tensors have the same sizes.
inline bool SameSizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (size_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d)) return false;
  }
  return true;
}

// `out` has the broadcast shape of `a` and `b` (numpy rules, aligned at the
// trailing dimension).
inline bool IsBroadcastOf(const Tensor& out, const Tensor& a, const Tensor& b) {
  const size_t rank = a.dim() > b.dim() ? a.dim() : b.dim();
  if (out.dim() != rank) return false;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t sa = i < a.dim() ? a.size(a.dim() - 1 - i) : 1;
    const int64_t sb = i < b.dim() ? b.size(b.dim() - 1 - i) : 1;
    const int64_t so = out.size(rank - 1 - i);
    if (sa != sb && sa != 1 && sb != 1) return false;
    if (so != (sa == 1 ? sb : sa)) return false;
  }
  return true;
}

// Normalises a possibly negative dim against `rank`; -1 when out of range.
inline int64_t NormalizeDim(int64_t dim, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (dim < 0) dim += r;
  return dim >= 0 && dim < r ? dim : -1;
}

}  // namespace torchir::runtime::portable

// Calls `body` (a generic lambda taking a typed null pointer `auto* tag`) with
// the C++ type of `scalar_type` among float32, int32, int64; returns
// kInvalidType for others. Usage:
//   return TORCHIR_SWITCH_REAL_TYPES(t.scalar_type(), "add", [&](auto* tag) {
//     using T = std::remove_pointer_t<decltype(tag)>; ...; return Error::kOk; });
#define TORCHIR_SWITCH_REAL_TYPES(scalar_type, kernel, body)                      \
  [&]() -> ::torchir::runtime::Error {                                            \
    switch (scalar_type) {                                                        \
      case ::torchir::runtime::ScalarType::kFloat32: return body((float*)nullptr); \
      case ::torchir::runtime::ScalarType::kInt32: return body((int32_t*)nullptr); \
      case ::torchir::runtime::ScalarType::kInt64: return body((int64_t*)nullptr); \
      default:                                                                    \
        ::torchir::runtime::Log(::torchir::runtime::LogLevel::kError,             \
                                "%s: unsupported dtype %s", kernel,               \
                                ::torchir::runtime::ScalarTypeName(scalar_type)); \
        return ::torchir::runtime::Error::kInvalidType;                           \
    }                                                                             \
  }()
