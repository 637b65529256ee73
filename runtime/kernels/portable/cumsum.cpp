#include <cstdint>
#include <type_traits>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

enum Arg : size_t { kInput, kDim, kOut, kNumArgs };

// Float sums run in double, as ATen's CPU kernel does; integer sums wrap like the dtype
// (unsigned arithmetic: no overflow UB).
template <typename T>
using ScanAcc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

// Running sums along the dim, the `inner` columns of each slab side by side so that every
// pass reads a contiguous row; the running totals are the previous output row.
template <typename T>
void CumulativeSum(const T* x, T* y, int64_t outer, int64_t length, int64_t inner) {
  constexpr int64_t kColumns = 64;
  ScanAcc<T> total[kColumns];
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t base = o * length * inner;
    for (int64_t first = 0; first < inner; first += kColumns) {
      const int64_t count = inner - first < kColumns ? inner - first : kColumns;
      for (int64_t j = 0; j < count; ++j) total[j] = 0;
      for (int64_t l = 0; l < length; ++l) {
        const T* row = x + base + l * inner + first;
        T* out = y + base + l * inner + first;
        for (int64_t j = 0; j < count; ++j) {
          total[j] += static_cast<ScanAcc<T>>(row[j]);
          out[j] = static_cast<T>(total[j]);
        }
      }
    }
  }
}

}  // namespace

Error CheckCumsum(KernelArgs args) {
  const char* kernel = "cumsum";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kRealTypes, kernel));
  const Tensor& input = args[kInput]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, DTypeSet(input.scalar_type()), kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kDim, EValue::Tag::kInt, kernel));
  TORCHIR_CHECK_OR_RETURN(NormalizeDimAllowingScalar(args[kDim]->to_int(), input.dim()) >= 0,
                          Error::kInvalidProgram, "%s: dim %lld is out of range for rank %zu",
                          kernel, static_cast<long long>(args[kDim]->to_int()), input.dim());
  TORCHIR_CHECK_OR_RETURN(SameSizes(args[kOut]->to_tensor(), input), Error::kShapeMismatch,
                          "%s: output sizes differ from the input's", kernel);
  return Error::kOk;
}

Error RunCumsum(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  const size_t dim =
      static_cast<size_t>(NormalizeDimAllowingScalar(args[kDim]->to_int(), input.dim()));
  // A 0-d input is one column of one value.
  const int64_t outer = input.dim() == 0 ? 1 : SizeProduct(input, 0, dim);
  const int64_t length = input.dim() == 0 ? 1 : input.size(dim);
  const int64_t inner = input.dim() == 0 ? 1 : SizeProduct(input, dim + 1, input.dim());
  return TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), "cumsum", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    CumulativeSum(input.data_ptr<T>(), args[kOut]->to_tensor().mutable_data_ptr<T>(), outer,
                  length, inner);
    return Error::kOk;
  });
}

}  // namespace torchir::runtime::portable
