#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/strided_copy.h"

namespace torchir::runtime::portable {
namespace {

enum Arg : size_t { kInput, kIndex, kSrc, kDim, kAccumulate, kOut, kNumArgs };

// out = input, then out[.., index[p], ..] = src[p] (the coordinate along `dim` replaced) for
// every position p of the index, in row-major order (a repeated target takes the last write;
// with kAdd, += : integers wrap through unsigned arithmetic). False when an index is outside
// [0, size of dim).
template <typename Word, typename Index, bool kAdd = false>
bool Scatter(const Tensor& input, const Tensor& index, const Tensor& src, size_t dim,
             const Tensor& out) {
  const size_t rank = input.dim();
  Word* y = out.mutable_data_ptr<Word>();
  if (out.numel() > 0) std::memcpy(y, input.data_ptr<Word>(), out.nbytes());
  const Index* picks = index.data_ptr<Index>();
  const Word* values = src.data_ptr<Word>();
  int64_t out_strides[kMaxTensorRank];
  int64_t src_strides[kMaxTensorRank];
  int64_t out_stride = 1, src_stride = 1;
  for (size_t d = rank; d-- > 0;) {
    out_strides[d] = out_stride;
    src_strides[d] = src_stride;
    out_stride *= input.size(d);
    src_stride *= src.size(d);
  }
  int64_t coordinate[kMaxTensorRank] = {};
  const int64_t count = index.numel();
  const int64_t limit = input.size(dim);
  for (int64_t p = 0; p < count; ++p) {
    const int64_t pick = static_cast<int64_t>(picks[p]);
    if (pick < 0 || pick >= limit) return false;
    int64_t target = 0, source = 0;
    for (size_t d = 0; d < rank; ++d) {
      target += (d == dim ? pick : coordinate[d]) * out_strides[d];
      source += coordinate[d] * src_strides[d];
    }
    if constexpr (kAdd) {
      if constexpr (std::is_integral_v<Word>) {
        using Unsigned = std::make_unsigned_t<Word>;
        y[target] = static_cast<Word>(static_cast<Unsigned>(y[target]) +
                                      static_cast<Unsigned>(values[source]));
      } else {
        y[target] += values[source];
      }
    } else {
      y[target] = values[source];
    }
    for (size_t d = rank; d-- > 0;) {
      if (++coordinate[d] < index.size(d)) break;
      coordinate[d] = 0;
    }
  }
  return true;
}

// Scatter with the index dtype the tensor has.
template <typename Word, bool kAdd>
bool ScatterAnyIndex(const Tensor& input, const Tensor& index, const Tensor& src, size_t dim,
                     const Tensor& out) {
  if (index.scalar_type() == ScalarType::kInt32) {
    return Scatter<Word, int32_t, kAdd>(input, index, src, dim, out);
  }
  return Scatter<Word, int64_t, kAdd>(input, index, src, dim, out);
}

template <typename T>
bool ScatterAdding(const Tensor& input, const Tensor& index, const Tensor& src, size_t dim,
                   const Tensor& out) {
  return ScatterAnyIndex<T, true>(input, index, src, dim, out);
}

}  // namespace

Error CheckScatter(KernelArgs args) {
  const char* kernel = "scatter";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kAllTypes, kernel));
  const Tensor& input = args[kInput]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(
      args, kIndex, DTypeSet{ScalarType::kInt32, ScalarType::kInt64}, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kSrc, DTypeSet(input.scalar_type()), kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, DTypeSet(input.scalar_type()), kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kDim, EValue::Tag::kInt, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kAccumulate, EValue::Tag::kBool, kernel));
  if (args[kAccumulate]->to_bool()) {
    TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kRealTypes, kernel));
  }
  const Tensor& index = args[kIndex]->to_tensor();
  const Tensor& src = args[kSrc]->to_tensor();
  const int64_t dim = args[kDim]->to_int();
  TORCHIR_CHECK_OR_RETURN(input.dim() > 0 && dim >= 0 && dim < static_cast<int64_t>(input.dim()),
                          Error::kInvalidProgram, "%s: dim %lld is out of range for rank %zu",
                          kernel, static_cast<long long>(dim), input.dim());
  TORCHIR_CHECK_OR_RETURN(index.dim() == input.dim() && src.dim() == input.dim(),
                          Error::kShapeMismatch, "%s: index and src must have the input's rank",
                          kernel);
  for (size_t d = 0; d < input.dim(); ++d) {
    TORCHIR_CHECK_OR_RETURN(
        index.size(d) <= src.size(d) &&
            (static_cast<int64_t>(d) == dim || index.size(d) <= input.size(d)),
        Error::kShapeMismatch, "%s: the index is larger than src or the input in dim %zu",
        kernel, d);
  }
  TORCHIR_CHECK_OR_RETURN(SameSizes(args[kOut]->to_tensor(), input), Error::kShapeMismatch,
                          "%s: output sizes differ from the input's", kernel);
  return Error::kOk;
}

Error RunScatter(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  const Tensor& index = args[kIndex]->to_tensor();
  const Tensor& src = args[kSrc]->to_tensor();
  const Tensor& out = args[kOut]->to_tensor();
  const size_t dim = static_cast<size_t>(args[kDim]->to_int());
  bool in_range = true;
  Error error = Error::kOk;
  if (args[kAccumulate]->to_bool()) {
    error = TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), "scatter", [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      in_range = ScatterAdding<T>(input, index, src, dim, out);
      return Error::kOk;
    });
  } else {
    error = tensor_ops::SwitchElementSize(out.element_size(), [&](auto* tag) -> Error {
      using Word = std::remove_pointer_t<decltype(tag)>;
      in_range = ScatterAnyIndex<Word, /*kAdd=*/false>(input, index, src, dim, out);
      return Error::kOk;
    });
  }
  TORCHIR_RETURN_IF_ERROR(error);
  TORCHIR_CHECK_OR_RETURN(in_range, Error::kIndexOutOfRange, "scatter: an index is outside [0, %lld)",
                          static_cast<long long>(input.size(dim)));
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
