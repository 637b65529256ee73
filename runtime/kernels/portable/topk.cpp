#include <cstdint>
#include <type_traits>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

enum Arg : size_t { kInput, kK, kDim, kLargest, kValues, kIndices, kNumArgs };

// True when `a` comes before `b`: larger first (or smaller first), a NaN counting as larger than
// every number, as PyTorch's sort and topk order it.
template <typename T>
bool Before(T a, T b, bool largest) {
  const bool a_nan = a != a;
  const bool b_nan = b != b;
  if (a_nan || b_nan) return largest ? a_nan && !b_nan : !a_nan && b_nan;
  return largest ? a > b : a < b;
}

// The k first entries of each slice along the dim, kept in the outputs themselves (no scratch):
// each entry, in index order, is inserted after the kept entries it does not come before, so
// ties keep their index order (a stable sort); O(length x k) per slice.
template <typename T>
void TopK(const T* in, T* values, int64_t* indices, int64_t outer, int64_t length, int64_t inner,
          int64_t k, bool largest) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      const T* x = in + o * length * inner + j;
      T* v = values + o * k * inner + j;
      int64_t* ix = indices + o * k * inner + j;
      int64_t kept = 0;
      for (int64_t l = 0; l < length; ++l) {
        const T value = x[l * inner];
        int64_t position = kept;
        while (position > 0 && Before(value, v[(position - 1) * inner], largest)) --position;
        if (position >= k) continue;
        for (int64_t p = (kept < k ? kept : k - 1); p > position; --p) {
          v[p * inner] = v[(p - 1) * inner];
          ix[p * inner] = ix[(p - 1) * inner];
        }
        v[position * inner] = value;
        ix[position * inner] = l;
        if (kept < k) ++kept;
      }
    }
  }
}

}  // namespace

Error CheckTopK(KernelArgs args) {
  const char* kernel = "topk";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kRealTypes, kernel));
  const Tensor& input = args[kInput]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(
      CheckTensorOperand(args, kValues, DTypeSet(input.scalar_type()), kernel));
  TORCHIR_RETURN_IF_ERROR(
      CheckTensorOperand(args, kIndices, DTypeSet(ScalarType::kInt64), kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kK, EValue::Tag::kInt, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kDim, EValue::Tag::kInt, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kLargest, EValue::Tag::kBool, kernel));
  const int64_t dim = NormalizeDimAllowingScalar(args[kDim]->to_int(), input.dim());
  TORCHIR_CHECK_OR_RETURN(dim >= 0, Error::kInvalidProgram,
                          "%s: dim %lld is out of range for rank %zu", kernel,
                          static_cast<long long>(args[kDim]->to_int()), input.dim());
  const int64_t k = args[kK]->to_int();
  const int64_t length = input.dim() == 0 ? 1 : input.size(static_cast<size_t>(dim));
  TORCHIR_CHECK_OR_RETURN(k >= 0 && k <= length, Error::kInvalidProgram,
                          "%s: k %lld is out of range for a dim of %lld", kernel,
                          static_cast<long long>(k), static_cast<long long>(length));
  ExpectedShape expected;
  for (size_t d = 0; d < input.dim(); ++d) {
    expected.Append(static_cast<int64_t>(d) == dim ? k : input.size(d));
  }
  TORCHIR_RETURN_IF_ERROR(CheckOutputShape(args[kValues]->to_tensor(), expected, kernel));
  return CheckOutputShape(args[kIndices]->to_tensor(), expected, kernel);
}

Error RunTopK(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  const size_t dim =
      static_cast<size_t>(NormalizeDimAllowingScalar(args[kDim]->to_int(), input.dim()));
  // A 0-d input is one slice of one value.
  const int64_t outer = input.dim() == 0 ? 1 : SizeProduct(input, 0, dim);
  const int64_t length = input.dim() == 0 ? 1 : input.size(dim);
  const int64_t inner = input.dim() == 0 ? 1 : SizeProduct(input, dim + 1, input.dim());
  const int64_t k = args[kK]->to_int();
  if (k == 0) return Error::kOk;
  int64_t* indices = args[kIndices]->to_tensor().mutable_data_ptr<int64_t>();
  return TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), "topk", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    TopK(input.data_ptr<T>(), args[kValues]->to_tensor().mutable_data_ptr<T>(), indices, outer,
         length, inner, k, args[kLargest]->to_bool());
    return Error::kOk;
  });
}

}  // namespace torchir::runtime::portable
