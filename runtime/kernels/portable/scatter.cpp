#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/strided_copy.h"

namespace torchir::runtime::portable {
namespace {

enum Arg : size_t { kInput, kIndex, kSrc, kDim, kReduce, kIncludeSelf, kOut, kNumArgs };

// How an entry of src meets the output entry it lands on. kNone writes (the last write wins);
// the others combine as scatter_reduce does (its "mean" is a sum and a count, divided by the
// compiler's lowering, so the kernel needs no scratch memory for the counts).
enum class Reduce { kNone, kSum, kProd, kAmax, kAmin, kUnknown };

Reduce ParseReduce(Span<const char> text) {
  auto is = [&](const char* name) {
    return text.size() == std::strlen(name) && std::memcmp(text.data(), name, text.size()) == 0;
  };
  if (is("none")) return Reduce::kNone;
  if (is("sum")) return Reduce::kSum;
  if (is("prod")) return Reduce::kProd;
  if (is("amax")) return Reduce::kAmax;
  if (is("amin")) return Reduce::kAmin;
  return Reduce::kUnknown;
}

// The value a target starts from when include_self is false (the reduction's identity).
template <typename T>
T Identity(Reduce reduce) {
  using Limits = std::numeric_limits<T>;
  switch (reduce) {
    case Reduce::kProd:
      return T(1);
    case Reduce::kAmax:
      return Limits::has_infinity ? -Limits::infinity() : Limits::lowest();
    case Reduce::kAmin:
      return Limits::has_infinity ? Limits::infinity() : Limits::max();
    default:
      return T(0);
  }
}

// y `reduce` v as ATen's CPU scatter_reduce: integers wrap (unsigned arithmetic) and a NaN
// source wins amax/amin (a NaN already in y stays, std::max/min keep their first argument).
template <typename T>
T Combine(Reduce reduce, T y, T v) {
  if constexpr (std::is_integral_v<T>) {
    using Unsigned = std::make_unsigned_t<T>;
    if (reduce == Reduce::kSum) {
      return static_cast<T>(static_cast<Unsigned>(y) + static_cast<Unsigned>(v));
    }
    if (reduce == Reduce::kProd) {
      return static_cast<T>(static_cast<Unsigned>(y) * static_cast<Unsigned>(v));
    }
  } else {
    if (reduce == Reduce::kSum) return y + v;
    if (reduce == Reduce::kProd) return y * v;
    if (std::isnan(v)) return v;
  }
  if (reduce == Reduce::kAmax) return y < v ? v : y;
  return v < y ? v : y;
}

// Calls visit(target, source) for every position p of the index in row-major order: target is
// the flat output offset of p with its coordinate along `dim` replaced by index[p], source the
// flat offset of p in src. False (before any visit) when an index is outside [0, size of dim).
template <typename Index, typename Visit>
bool ForEachTarget(const Tensor& input, const Tensor& index, const Tensor& src, size_t dim,
                   Visit visit) {
  const size_t rank = input.dim();
  const Index* picks = index.data_ptr<Index>();
  const int64_t count = index.numel();
  const int64_t limit = input.size(dim);
  for (int64_t p = 0; p < count; ++p) {
    const int64_t pick = static_cast<int64_t>(picks[p]);
    if (pick < 0 || pick >= limit) return false;
  }
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
  for (int64_t p = 0; p < count; ++p) {
    const int64_t pick = static_cast<int64_t>(picks[p]);
    int64_t target = 0, source = 0;
    for (size_t d = 0; d < rank; ++d) {
      target += (d == dim ? pick : coordinate[d]) * out_strides[d];
      source += coordinate[d] * src_strides[d];
    }
    visit(target, source);
    for (size_t d = rank; d-- > 0;) {
      if (++coordinate[d] < index.size(d)) break;
      coordinate[d] = 0;
    }
  }
  return true;
}

template <typename Visit>
bool ForEachTargetAnyIndex(const Tensor& input, const Tensor& index, const Tensor& src, size_t dim,
                           Visit visit) {
  if (index.scalar_type() == ScalarType::kInt32) {
    return ForEachTarget<int32_t>(input, index, src, dim, visit);
  }
  return ForEachTarget<int64_t>(input, index, src, dim, visit);
}

// out = input with src's entries written where the index points (any dtype: words moved).
template <typename Word>
bool ScatterWrite(const Tensor& input, const Tensor& index, const Tensor& src, size_t dim,
                  const Tensor& out) {
  Word* y = out.mutable_data_ptr<Word>();
  if (out.numel() > 0) std::memcpy(y, input.data_ptr<Word>(), out.nbytes());
  const Word* values = src.data_ptr<Word>();
  return ForEachTargetAnyIndex(input, index, src, dim,
                               [&](int64_t target, int64_t source) { y[target] = values[source]; });
}

// out = input, then (without include_self) every target set to the identity, then every src
// entry combined into its target in row-major order of the index.
template <typename T>
bool ScatterReduce(const Tensor& input, const Tensor& index, const Tensor& src, size_t dim,
                   Reduce reduce, bool include_self, const Tensor& out) {
  T* y = out.mutable_data_ptr<T>();
  if (out.numel() > 0) std::memcpy(y, input.data_ptr<T>(), out.nbytes());
  const T* values = src.data_ptr<T>();
  if (!include_self) {
    const T identity = Identity<T>(reduce);
    if (!ForEachTargetAnyIndex(input, index, src, dim,
                               [&](int64_t target, int64_t) { y[target] = identity; })) {
      return false;
    }
  }
  return ForEachTargetAnyIndex(input, index, src, dim, [&](int64_t target, int64_t source) {
    y[target] = Combine<T>(reduce, y[target], values[source]);
  });
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
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kReduce, EValue::Tag::kString, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kIncludeSelf, EValue::Tag::kBool, kernel));
  const Reduce reduce = ParseReduce(args[kReduce]->to_string());
  TORCHIR_CHECK_OR_RETURN(reduce != Reduce::kUnknown, Error::kInvalidProgram,
                          "%s: reduce must be 'none', 'sum', 'prod', 'amax' or 'amin'", kernel);
  if (reduce != Reduce::kNone) {
    TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kRealTypes, kernel));
  }
  TORCHIR_CHECK_OR_RETURN(reduce != Reduce::kNone || args[kIncludeSelf]->to_bool(),
                          Error::kInvalidProgram, "%s: a plain write must include self", kernel);
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
  const Reduce reduce = ParseReduce(args[kReduce]->to_string());
  const bool include_self = args[kIncludeSelf]->to_bool();
  bool in_range = true;
  Error error = Error::kOk;
  if (reduce == Reduce::kNone) {
    error = tensor_ops::SwitchElementSize(out.element_size(), [&](auto* tag) -> Error {
      using Word = std::remove_pointer_t<decltype(tag)>;
      in_range = ScatterWrite<Word>(input, index, src, dim, out);
      return Error::kOk;
    });
  } else {
    error = TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), "scatter", [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      in_range = ScatterReduce<T>(input, index, src, dim, reduce, include_self, out);
      return Error::kOk;
    });
  }
  TORCHIR_RETURN_IF_ERROR(error);
  TORCHIR_CHECK_OR_RETURN(in_range, Error::kIndexOutOfRange, "scatter: an index is outside [0, %lld)",
                          static_cast<long long>(input.size(dim)));
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
