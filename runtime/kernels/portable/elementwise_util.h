// The loops of the elementwise kernels: a flat map over same-shaped tensors and
// a broadcasting map over N inputs (binary ops, comparisons, where).
//
// Broadcasting (numpy rules) is planned per call, in O(rank):
//   1. Inputs are aligned at their trailing dim; an input walks a dim with its
//      contiguous stride, or stride 0 where it has size 1.
//   2. Output dims of size 1 are dropped and neighbouring dims that every input
//      walks as one block are merged. Same-shaped operands thus become a single
//      flat dim, a scalar (0-d or one-element) operand a stride-0 dim.
//   3. After step 2 each input's stride in the innermost dim is 0 or 1. That dim
//      runs as a tight loop compiled once per pattern of stride-0 inputs, so the
//      same-shape and scalar cases vectorise; the outer dims advance through a
//      counter array, keeping the whole map linear in the output size.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/portable/argument_checks.h"

namespace torchir::runtime::portable {

// The dtype classes of the elementwise kernel lists (unary_ops.h, binary_ops.h): each names
// its DTypeSet and calls `body` (a generic lambda taking a typed null pointer `auto* tag`) with
// the C++ type of a dtype of the class, so that a kernel's formula is compiled only for the
// types its class holds. bool is stored as one byte, 0 or 1, and runs as uint8_t (no Edge
// elementwise op takes uint8 itself).
// float32 and float64; float64 computes in double throughout, as PyTorch's CPU kernels do.
struct FloatTypes {
  static constexpr DTypeSet kDTypes = kFloatTypes;
  template <typename Body>
  static Error Switch(ScalarType type, Body&& body) {
    switch (type) {
      case ScalarType::kFloat32:
        return body(static_cast<float*>(nullptr));
      case ScalarType::kFloat64:
        return body(static_cast<double*>(nullptr));
      default:
        return Error::kInvalidType;
    }
  }
};

// float32, float64, int32, int64.
struct RealTypes {
  static constexpr DTypeSet kDTypes = kRealTypes;
  template <typename Body>
  static Error Switch(ScalarType type, Body&& body) {
    switch (type) {
      case ScalarType::kFloat32:
        return body(static_cast<float*>(nullptr));
      case ScalarType::kFloat64:
        return body(static_cast<double*>(nullptr));
      case ScalarType::kInt32:
        return body(static_cast<int32_t*>(nullptr));
      case ScalarType::kInt64:
        return body(static_cast<int64_t*>(nullptr));
      default:
        return Error::kInvalidType;
    }
  }
};

// The bitwise ops' dtypes: int32, int64 and bool.
struct BitsTypes {
  static constexpr DTypeSet kDTypes{ScalarType::kInt32, ScalarType::kInt64, ScalarType::kBool};
  template <typename Body>
  static Error Switch(ScalarType type, Body&& body) {
    switch (type) {
      case ScalarType::kInt32:
        return body(static_cast<int32_t*>(nullptr));
      case ScalarType::kInt64:
        return body(static_cast<int64_t*>(nullptr));
      case ScalarType::kBool:
        return body(static_cast<uint8_t*>(nullptr));
      default:
        return Error::kInvalidType;
    }
  }
};

}  // namespace torchir::runtime::portable

namespace torchir::runtime::portable::tensor_ops {

// How N inputs are walked to produce a contiguous output; see the file comment.
template <size_t N>
struct BroadcastPlan {
  size_t rank = 0;  // >= 1 after PlanBroadcast succeeds
  int64_t sizes[kMaxTensorRank] = {};
  int64_t strides[N][kMaxTensorRank] = {};  // in elements
};

// Plans computing `out` from `inputs` broadcast together. False when `out`'s
// sizes are not exactly the inputs' broadcast shape (or ranks exceed
// kMaxTensorRank): check functions use it to validate output shapes, so the
// run that replans can never step outside a tensor.
template <size_t N>
bool PlanBroadcast(const Tensor& out, const Tensor* const (&inputs)[N], BroadcastPlan<N>* plan) {
  const size_t rank = out.dim();
  if (rank > kMaxTensorRank) return false;
  size_t max_rank = 0;
  for (const Tensor* input : inputs) {
    if (input->dim() > max_rank) max_rank = input->dim();
  }
  if (max_rank != rank) return false;
  // Built innermost dim first, reversed at the end.
  int64_t sizes[kMaxTensorRank];
  int64_t strides[N][kMaxTensorRank];
  int64_t contiguous[N];
  for (size_t i = 0; i < N; ++i) contiguous[i] = 1;
  size_t kept = 0;
  for (size_t k = 0; k < rank; ++k) {
    int64_t broadcast_size = 1;
    int64_t stride[N];
    for (size_t i = 0; i < N; ++i) {
      const Tensor& input = *inputs[i];
      const int64_t size = k < input.dim() ? input.size(input.dim() - 1 - k) : 1;
      if (size != 1) {
        if (broadcast_size != 1 && broadcast_size != size) return false;
        broadcast_size = size;
      }
      stride[i] = size == 1 ? 0 : contiguous[i];
      contiguous[i] *= size;
    }
    const int64_t out_size = out.size(rank - 1 - k);
    if (out_size != broadcast_size) return false;
    if (out_size == 1) continue;
    bool merge = kept > 0;
    for (size_t i = 0; merge && i < N; ++i) {
      merge = strides[i][kept - 1] * sizes[kept - 1] == stride[i];
    }
    if (merge) {
      sizes[kept - 1] *= out_size;
      continue;
    }
    sizes[kept] = out_size;
    for (size_t i = 0; i < N; ++i) strides[i][kept] = stride[i];
    ++kept;
  }
  if (kept == 0) {  // a single element
    sizes[0] = 1;
    for (size_t i = 0; i < N; ++i) strides[i][0] = 0;
    kept = 1;
  }
  plan->rank = kept;
  for (size_t d = 0; d < kept; ++d) {
    plan->sizes[d] = sizes[kept - 1 - d];
    for (size_t i = 0; i < N; ++i) plan->strides[i][d] = strides[i][kept - 1 - d];
  }
  return true;
}

// out[j] = op(in[j]) for j < n.
template <typename Out, typename In, typename Op>
void MapElements(Out* out, const In* in, int64_t n, const Op& op) {
  for (int64_t j = 0; j < n; ++j) out[j] = op(in[j]);
}

namespace internal {

template <unsigned kBroadcastMask, typename Out, typename Op, size_t... I, typename... In>
void RowWithMask(Out* out, int64_t n, const Op& op, std::index_sequence<I...>, const In*... in) {
  // Bit I of the mask set: input I has stride 0 here (a compile-time choice).
  for (int64_t j = 0; j < n; ++j) out[j] = op(in[((kBroadcastMask >> I) & 1u) ? 0 : j]...);
}

template <unsigned kBroadcastMask, typename Out, typename Op, typename... In>
void Row(Out* out, int64_t n, const Op& op, const In*... in) {
  RowWithMask<kBroadcastMask>(out, n, op, std::index_sequence_for<In...>{}, in...);
}

// One inner-loop function per pattern of stride-0 inputs.
template <typename Out, typename Op, typename... In>
struct RowTable {
  using RowFn = void (*)(Out*, int64_t, const Op&, const In*...);
  template <unsigned... kMasks>
  static constexpr std::array<RowFn, sizeof...(kMasks)> Make(
      std::integer_sequence<unsigned, kMasks...>) {
    return {&Row<kMasks, Out, Op, In...>...};
  }
  static constexpr std::array<RowFn, (1u << sizeof...(In))> kRows =
      Make(std::make_integer_sequence<unsigned, (1u << sizeof...(In))>{});
};

// One inner loop for every pattern, input I stepping by steps[I] (0 or 1) read at run time.
template <typename Out, typename Op, size_t... I, typename... In>
void RowWithSteps(Out* out, int64_t n, const Op& op, const int64_t* steps,
                  std::index_sequence<I...>, const In*... in) {
  for (int64_t j = 0; j < n; ++j) out[j] = op(in[j * steps[I]]...);
}

template <bool kCompact, typename Out, typename Op, size_t... I, typename... In>
void BroadcastMapImpl(const BroadcastPlan<sizeof...(In)>& plan, Out* out, const Op& op,
                      std::index_sequence<I...>, const In*... in) {
  const size_t inner = plan.rank - 1;
  const int64_t row_length = plan.sizes[inner];
  int64_t rows = 1;
  for (size_t d = 0; d < inner; ++d) rows *= plan.sizes[d];
  if (rows == 0 || row_length == 0) return;
  unsigned mask = 0;
  ((mask |= plan.strides[I][inner] == 0 ? 1u << I : 0u), ...);
  [[maybe_unused]] const int64_t steps[sizeof...(In)] = {plan.strides[I][inner]...};
  [[maybe_unused]] const auto row = [&] {
    if constexpr (kCompact) {
      return nullptr;
    } else {
      return RowTable<Out, Op, In...>::kRows[mask];
    }
  }();
  int64_t counter[kMaxTensorRank] = {};
  int64_t offset[sizeof...(In)] = {};
  for (int64_t r = 0; r < rows; ++r, out += row_length) {
    if constexpr (kCompact) {
      RowWithSteps(out, row_length, op, steps, std::index_sequence<I...>{}, (in + offset[I])...);
    } else {
      row(out, row_length, op, (in + offset[I])...);
    }
    // Advance the outer dims like an odometer.
    for (size_t d = inner; d-- > 0;) {
      if (++counter[d] < plan.sizes[d]) {
        ((offset[I] += plan.strides[I][d]), ...);
        break;
      }
      counter[d] = 0;
      ((offset[I] -= plan.strides[I][d] * (plan.sizes[d] - 1)), ...);
    }
  }
}

}  // namespace internal

// For every element of the (contiguous) output: out = op(in_0, ..., in_N-1),
// each input read where `plan` (from PlanBroadcast) broadcasts it.
template <typename Out, typename Op, typename... In>
void BroadcastMap(const BroadcastPlan<sizeof...(In)>& plan, Out* out, const Op& op,
                  const In*... in) {
  internal::BroadcastMapImpl<false>(plan, out, op, std::index_sequence_for<In...>{}, in...);
}

// As BroadcastMap, with one inner loop for every pattern of stride-0 inputs instead of one per
// pattern: a quarter of the code of a binary op, its inner loop no longer specialised (the
// scalar and same-shape cases vectorise less). For dtypes that are rarely on a hot path and
// would otherwise cost the runtime size most (float64: docs/runtime-size.md).
template <typename Out, typename Op, typename... In>
void BroadcastMapCompact(const BroadcastPlan<sizeof...(In)>& plan, Out* out, const Op& op,
                         const In*... in) {
  internal::BroadcastMapImpl<true>(plan, out, op, std::index_sequence_for<In...>{}, in...);
}

}  // namespace torchir::runtime::portable::tensor_ops
