#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

enum ReduceArg : size_t { kInput, kDims, kKeepdim, kOut, kNumArgs };
enum MaxDimArg : size_t { kMaxInput, kMaxDim, kMaxKeepdim, kMaxValues, kMaxIndices, kMaxNumArgs };

// Kept innermost elements reduced side by side, their accumulators on the stack.
constexpr int64_t kChunk = 64;

// ---- What to reduce -----------------------------------------------------------------------

// Marks the dims a reduction reduces: `dims` (already checked), every dim when empty.
void MarkReducedDims(Span<const int64_t> dims, size_t rank, bool* reduced) {
  for (size_t d = 0; d < rank; ++d) reduced[d] = dims.empty();
  if (rank == 0) return;
  for (int64_t dim : dims) reduced[NormalizeDim(dim, rank)] = true;
}

// The input as groups of dims, each a size and an element stride: adjacent dims of one kind
// (kept or reduced) merged, size-1 dims dropped. Kept groups are in output order, so the
// output index of an element is its kept groups' row-major index.
struct ReductionPlan {
  int64_t kept_sizes[kMaxTensorRank];
  int64_t kept_strides[kMaxTensorRank];
  size_t kept_rank = 0;
  int64_t reduced_sizes[kMaxTensorRank];
  int64_t reduced_strides[kMaxTensorRank];
  size_t reduced_rank = 0;
  // The size of the innermost kept group when it is innermost in memory (stride 1), else 1;
  // it is not among the kept groups above.
  int64_t inner = 1;
};

ReductionPlan PlanReduction(const Tensor& input, const bool* reduced) {
  int64_t sizes[kMaxTensorRank];
  int64_t strides[kMaxTensorRank];
  bool is_reduced[kMaxTensorRank];
  size_t count = 0;  // groups, innermost first
  int64_t stride = 1;
  for (size_t d = input.dim(); d-- > 0;) {
    const int64_t size = input.size(d);
    if (size != 1) {
      if (count > 0 && is_reduced[count - 1] == reduced[d]) {
        sizes[count - 1] *= size;
      } else {
        sizes[count] = size;
        strides[count] = stride;
        is_reduced[count] = reduced[d];
        ++count;
      }
    }
    stride *= size;
  }
  ReductionPlan plan;
  size_t innermost = 0;
  if (count > 0 && !is_reduced[0]) {
    plan.inner = sizes[0];
    innermost = 1;
  }
  for (size_t g = count; g-- > innermost;) {
    if (is_reduced[g]) {
      plan.reduced_sizes[plan.reduced_rank] = sizes[g];
      plan.reduced_strides[plan.reduced_rank++] = strides[g];
    } else {
      plan.kept_sizes[plan.kept_rank] = sizes[g];
      plan.kept_strides[plan.kept_rank++] = strides[g];
    }
  }
  return plan;
}

// A row-major multi-index over `rank` dims that carries an element offset along.
class Odometer {
 public:
  Odometer(const int64_t* sizes, const int64_t* strides, size_t rank)
      : sizes_(sizes), strides_(strides), rank_(rank) {}

  int64_t offset() const { return offset_; }
  void Next() {
    for (size_t d = rank_; d-- > 0;) {
      offset_ += strides_[d];
      if (++index_[d] < sizes_[d]) return;
      offset_ -= strides_[d] * index_[d];
      index_[d] = 0;
    }
  }

 private:
  const int64_t* sizes_;
  const int64_t* strides_;
  size_t rank_;
  int64_t index_[kMaxTensorRank] = {};
  int64_t offset_ = 0;
};

int64_t Product(const int64_t* sizes, size_t rank) {
  int64_t product = 1;
  for (size_t d = 0; d < rank; ++d) product *= sizes[d];
  return product;
}

// ---- How to reduce ------------------------------------------------------------------------

// Float sums accumulate in double; integer sums wrap like the output dtype (unsigned
// arithmetic: no overflow UB).
template <typename T>
struct SumOp {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
  static Acc Init() { return 0; }
  static Acc Add(Acc acc, T x) { return acc + static_cast<Acc>(x); }
  static Acc Merge(Acc a, Acc b) { return a + b; }
  static T Finish(Acc acc, int64_t /*count*/) { return static_cast<T>(acc); }
};

// Float means (the only dtypes edge.mean takes) accumulate in double. An empty mean is
// 0 / 0 = NaN, as in PyTorch.
template <typename T>
struct MeanOp {
  using Acc = double;
  static Acc Init() { return 0.0; }
  static Acc Add(Acc acc, T x) { return acc + x; }
  static Acc Merge(Acc a, Acc b) { return a + b; }
  static T Finish(Acc acc, int64_t count) {
    return static_cast<T>(acc / static_cast<double>(count));
  }
};

// A NaN wins and stays (PyTorch propagates NaN through max).
template <typename T>
struct AmaxOp {
  using Acc = T;
  static Acc Init() {
    return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::lowest();
  }
  static Acc Add(Acc acc, T x) { return x > acc || x != x ? x : acc; }
  static Acc Merge(Acc a, Acc b) { return Add(a, b); }
  static T Finish(Acc acc, int64_t /*count*/) { return acc; }
};

// The mirror of AmaxOp: a NaN wins and stays.
template <typename T>
struct AminOp {
  using Acc = T;
  static Acc Init() {
    return std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::max();
  }
  static Acc Add(Acc acc, T x) { return x < acc || x != x ? x : acc; }
  static Acc Merge(Acc a, Acc b) { return Add(a, b); }
  static T Finish(Acc acc, int64_t /*count*/) { return acc; }
};

// Float products accumulate in double; integer products wrap like the output dtype (unsigned
// arithmetic: the low bits of a product do not depend on the width it is computed in). An
// empty product is 1.
template <typename T>
struct ProdOp {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
  static Acc Init() { return 1; }
  static Acc Add(Acc acc, T x) { return acc * static_cast<Acc>(x); }
  static Acc Merge(Acc a, Acc b) { return a * b; }
  static T Finish(Acc acc, int64_t /*count*/) { return static_cast<T>(acc); }
};

// Folds `length` contiguous values into `acc`, with four independent partial results so that
// additions overlap.
template <typename Op, typename T>
typename Op::Acc ReduceRun(const T* x, int64_t length, typename Op::Acc acc) {
  typename Op::Acc partial[4] = {Op::Init(), Op::Init(), Op::Init(), Op::Init()};
  int64_t i = 0;
  for (; i + 4 <= length; i += 4) {
    for (int l = 0; l < 4; ++l) partial[l] = Op::Add(partial[l], x[i + l]);
  }
  for (; i < length; ++i) partial[0] = Op::Add(partial[0], x[i]);
  return Op::Merge(acc,
                   Op::Merge(Op::Merge(partial[0], partial[1]), Op::Merge(partial[2], partial[3])));
}

template <typename Op, typename T>
void Reduce(const T* in, T* out, const ReductionPlan& plan) {
  using Acc = typename Op::Acc;
  const int64_t kept_count = Product(plan.kept_sizes, plan.kept_rank);
  const int64_t reduced_count = Product(plan.reduced_sizes, plan.reduced_rank);
  Odometer kept(plan.kept_sizes, plan.kept_strides, plan.kept_rank);
  if (plan.inner == 1 && plan.reduced_rank > 0) {
    // The innermost reduced group is contiguous: reduce it as runs.
    const size_t outer_rank = plan.reduced_rank - 1;
    const int64_t run = plan.reduced_sizes[outer_rank];
    const int64_t runs = Product(plan.reduced_sizes, outer_rank);
    for (int64_t o = 0; o < kept_count; ++o, kept.Next()) {
      Acc acc = Op::Init();
      Odometer reduced(plan.reduced_sizes, plan.reduced_strides, outer_rank);
      for (int64_t r = 0; r < runs; ++r, reduced.Next()) {
        acc = ReduceRun<Op>(in + kept.offset() + reduced.offset(), run, acc);
      }
      out[o] = Op::Finish(acc, reduced_count);
    }
    return;
  }
  // Kept elements are innermost: reduce kChunk adjacent ones side by side.
  Acc acc[kChunk];
  for (int64_t o = 0; o < kept_count; ++o, kept.Next()) {
    for (int64_t first = 0; first < plan.inner; first += kChunk) {
      const int64_t count = std::min(kChunk, plan.inner - first);
      std::fill(acc, acc + count, Op::Init());
      const T* base = in + kept.offset() + first;
      Odometer reduced(plan.reduced_sizes, plan.reduced_strides, plan.reduced_rank);
      for (int64_t r = 0; r < reduced_count; ++r, reduced.Next()) {
        const T* x = base + reduced.offset();
        for (int64_t j = 0; j < count; ++j) acc[j] = Op::Add(acc[j], x[j]);
      }
      T* y = out + o * plan.inner + first;
      for (int64_t j = 0; j < count; ++j) y[j] = Op::Finish(acc[j], reduced_count);
    }
  }
}

template <template <typename> class Op>
Error RunReduction(KernelArgs args, const char* kernel) {
  const Tensor& input = args[kInput]->to_tensor();
  bool reduced[kMaxTensorRank];
  MarkReducedDims(args[kDims]->to_int_list(), input.dim(), reduced);
  const ReductionPlan plan = PlanReduction(input, reduced);
  const Tensor& out = args[kOut]->to_tensor();
  return TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), kernel, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    Reduce<Op<T>>(input.data_ptr<T>(), out.mutable_data_ptr<T>(), plan);
    return Error::kOk;
  });
}

// ---- Checks -------------------------------------------------------------------------------

// float32 and float64, or with `integers` also int32 and int64.
Error CheckReducibleType(KernelArgs args, size_t i, bool integers, const char* kernel) {
  return CheckTensorOperand(args, i, integers ? kRealTypes : kFloatTypes, kernel);
}

// mean, sum and amax: the output is the input without the reduced dims (size 1 with keepdim).
// `nonempty`: every reduced dim must have elements (a max of nothing has no value).
Error CheckReduction(KernelArgs args, bool integers, bool nonempty, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckReducibleType(args, kInput, integers, kernel));
  const Tensor& input = args[kInput]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, DTypeSet(input.scalar_type()), kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kDims, EValue::Tag::kIntList, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kKeepdim, EValue::Tag::kBool, kernel));
  Span<const int64_t> dims = args[kDims]->to_int_list();
  bool listed[kMaxTensorRank] = {};
  for (int64_t dim : dims) {
    const int64_t d = NormalizeDimAllowingScalar(dim, input.dim());
    TORCHIR_CHECK_OR_RETURN(d >= 0, Error::kInvalidProgram,
                            "%s: dim %lld is out of range for rank %zu", kernel,
                            static_cast<long long>(dim), input.dim());
    if (input.dim() == 0) continue;
    TORCHIR_CHECK_OR_RETURN(!listed[d], Error::kInvalidProgram, "%s: dim %lld is listed twice",
                            kernel, static_cast<long long>(dim));
    listed[d] = true;
  }
  bool reduced[kMaxTensorRank];
  MarkReducedDims(dims, input.dim(), reduced);
  const bool keepdim = args[kKeepdim]->to_bool();
  ExpectedShape expected;
  for (size_t d = 0; d < input.dim(); ++d) {
    TORCHIR_CHECK_OR_RETURN(!(nonempty && reduced[d] && input.size(d) == 0), Error::kInvalidProgram,
                            "%s: reduces the empty dim %zu", kernel, d);
    if (!reduced[d]) {
      expected.Append(input.size(d));
    } else if (keepdim) {
      expected.Append(1);
    }
  }
  return CheckOutputShape(args[kOut]->to_tensor(), expected, kernel);
}

}  // namespace

Error CheckMean(KernelArgs args) {
  return CheckReduction(args, /*integers=*/false, /*nonempty=*/false, "mean");
}

Error RunMean(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  bool reduced[kMaxTensorRank];
  MarkReducedDims(args[kDims]->to_int_list(), input.dim(), reduced);
  const ReductionPlan plan = PlanReduction(input, reduced);
  const Tensor& out = args[kOut]->to_tensor();
  if (input.scalar_type() == ScalarType::kFloat64) {
    Reduce<MeanOp<double>>(input.data_ptr<double>(), out.mutable_data_ptr<double>(), plan);
  } else {
    Reduce<MeanOp<float>>(input.data_ptr<float>(), out.mutable_data_ptr<float>(), plan);
  }
  return Error::kOk;
}

Error CheckSum(KernelArgs args) {
  return CheckReduction(args, /*integers=*/true, /*nonempty=*/false, "sum");
}

Error RunSum(KernelContext& /*context*/, KernelArgs args) {
  return RunReduction<SumOp>(args, "sum");
}

Error CheckAmax(KernelArgs args) {
  return CheckReduction(args, /*integers=*/true, /*nonempty=*/true, "amax");
}

Error RunAmax(KernelContext& /*context*/, KernelArgs args) {
  return RunReduction<AmaxOp>(args, "amax");
}

Error CheckAmin(KernelArgs args) {
  return CheckReduction(args, /*integers=*/true, /*nonempty=*/true, "amin");
}

Error RunAmin(KernelContext& /*context*/, KernelArgs args) {
  return RunReduction<AminOp>(args, "amin");
}

Error CheckProd(KernelArgs args) {
  return CheckReduction(args, /*integers=*/true, /*nonempty=*/false, "prod");
}

Error RunProd(KernelContext& /*context*/, KernelArgs args) {
  return RunReduction<ProdOp>(args, "prod");
}

namespace {

// max_dim and min_dim: values of the input's dtype and int64 indices, without the dim (size 1
// with keepdim); the reduced dim must have elements.
Error CheckExtremumDim(KernelArgs args, const char* kernel) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kMaxNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckReducibleType(args, kMaxInput, /*integers=*/true, kernel));
  const Tensor& input = args[kMaxInput]->to_tensor();
  TORCHIR_RETURN_IF_ERROR(
      CheckTensorOperand(args, kMaxValues, DTypeSet(input.scalar_type()), kernel));
  TORCHIR_RETURN_IF_ERROR(
      CheckTensorOperand(args, kMaxIndices, DTypeSet(ScalarType::kInt64), kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kMaxDim, EValue::Tag::kInt, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kMaxKeepdim, EValue::Tag::kBool, kernel));
  const int64_t dim = NormalizeDimAllowingScalar(args[kMaxDim]->to_int(), input.dim());
  TORCHIR_CHECK_OR_RETURN(dim >= 0, Error::kInvalidProgram,
                          "%s: dim %lld is out of range for rank %zu", kernel,
                          static_cast<long long>(args[kMaxDim]->to_int()), input.dim());
  ExpectedShape expected;
  for (size_t d = 0; d < input.dim(); ++d) {
    if (static_cast<int64_t>(d) != dim) {
      expected.Append(input.size(d));
      continue;
    }
    TORCHIR_CHECK_OR_RETURN(input.size(d) > 0, Error::kInvalidProgram,
                            "%s: reduces the empty dim %zu", kernel, d);
    if (args[kMaxKeepdim]->to_bool()) expected.Append(1);
  }
  TORCHIR_RETURN_IF_ERROR(CheckOutputShape(args[kMaxValues]->to_tensor(), expected, kernel));
  return CheckOutputShape(args[kMaxIndices]->to_tensor(), expected, kernel);
}

// True when `x` replaces `best` as the running maximum: strictly greater keeps the first
// maximum; the first NaN wins and stays.
struct Greater {
  template <typename T>
  static bool Replaces(T x, T best) {
    return x > best || (x != x && best == best);
  }
};
// The same for the minimum.
struct Less {
  template <typename T>
  static bool Replaces(T x, T best) {
    return x < best || (x != x && best == best);
  }
};

template <typename Order>
Error RunExtremumDim(KernelArgs args, const char* kernel) {
  const Tensor& input = args[kMaxInput]->to_tensor();
  // A 0-d input is one slab of one value.
  const size_t dim =
      static_cast<size_t>(NormalizeDimAllowingScalar(args[kMaxDim]->to_int(), input.dim()));
  const int64_t outer = input.dim() == 0 ? 1 : SizeProduct(input, 0, dim);
  const int64_t length = input.dim() == 0 ? 1 : input.size(dim);
  const int64_t inner = input.dim() == 0 ? 1 : SizeProduct(input, dim + 1, input.dim());
  int64_t* indices = args[kMaxIndices]->to_tensor().mutable_data_ptr<int64_t>();
  return TORCHIR_SWITCH_REAL_TYPES(input.scalar_type(), kernel, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = input.data_ptr<T>();
    T* values = args[kMaxValues]->to_tensor().mutable_data_ptr<T>();
    // The outputs are the running maxima: each slab row updates them in place, contiguously.
    for (int64_t o = 0; o < outer; ++o) {
      const T* slab = in + o * length * inner;
      T* best = values + o * inner;
      int64_t* where = indices + o * inner;
      for (int64_t j = 0; j < inner; ++j) {
        best[j] = slab[j];
        where[j] = 0;
      }
      for (int64_t l = 1; l < length; ++l) {
        const T* row = slab + l * inner;
        for (int64_t j = 0; j < inner; ++j) {
          if (Order::Replaces(row[j], best[j])) {
            best[j] = row[j];
            where[j] = l;
          }
        }
      }
    }
    return Error::kOk;
  });
}

}  // namespace

Error CheckMaxDim(KernelArgs args) { return CheckExtremumDim(args, "max_dim"); }

Error RunMaxDim(KernelContext& /*context*/, KernelArgs args) {
  return RunExtremumDim<Greater>(args, "max_dim");
}

Error CheckMinDim(KernelArgs args) { return CheckExtremumDim(args, "min_dim"); }

Error RunMinDim(KernelContext& /*context*/, KernelArgs args) {
  return RunExtremumDim<Less>(args, "min_dim");
}

}  // namespace torchir::runtime::portable
