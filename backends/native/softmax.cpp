// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/softmax.h"

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/native/row_tasks.h"

// foreach_target.h includes this file again per target: define the call's struct once.
#ifndef TORCHIR_BACKENDS_NATIVE_SOFTMAX_CALL_
#define TORCHIR_BACKENDS_NATIVE_SOFTMAX_CALL_
namespace torchir::native {
namespace {

// The arguments of one share of a softmax, as they cross Highway's dispatch table.
struct SoftmaxCall {
  size_t cols;
  const float* input;
  float scale;
  const uint8_t* mask;  // null: none
  size_t mask_rows;
  float mask_fill;
  float* output;
  size_t row_begin, row_end;
  // Non-zero: a causal mask instead of `mask`: in row r only columns
  // c <= r % causal_period + causal_offset count, the rest are written as 0.
  size_t causal_period;
  size_t causal_offset;
};

}  // namespace
}  // namespace torchir::native
#endif  // TORCHIR_BACKENDS_NATIVE_SOFTMAX_CALL_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/softmax.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"
// Must follow hwy/highway.h.
#include "backends/native/activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace {

// Pass 1 over one row: y = where(mask, fill, scale * x), stored, and its maximum.
template <bool kMasked, class D>
HWY_INLINE float ScaleMaskMax(D d, const float* x, const uint8_t* mask, float scale, float fill,
                              size_t cols, float* y) {
  using V = decltype(hn::Zero(d));
  const hn::Rebind<uint8_t, D> d8;
  const hn::RebindToSigned<D> di;
  const size_t lanes = hn::Lanes(d);
  const V s = hn::Set(d, scale), f = hn::Set(d, fill);
  const V lowest = hn::Set(d, -std::numeric_limits<float>::infinity());
  V m0 = lowest, m1 = lowest;
  auto step = [&](size_t i) {
    V v = hn::Mul(hn::LoadU(d, x + i), s);
    if constexpr (kMasked) {
      const auto bytes = hn::PromoteTo(di, hn::LoadU(d8, mask + i));
      v = hn::IfThenElse(hn::RebindMask(d, hn::Ne(bytes, hn::Zero(di))), f, v);
    }
    hn::StoreU(v, d, y + i);
    return v;
  };
  size_t i = 0;
  for (; i + 2 * lanes <= cols; i += 2 * lanes) {
    m0 = hn::Max(m0, step(i));
    m1 = hn::Max(m1, step(i + lanes));
  }
  for (; i + lanes <= cols; i += lanes) m0 = hn::Max(m0, step(i));
  float max = hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
  for (; i < cols; ++i) {
    const float v = kMasked && mask[i] != 0 ? fill : scale * x[i];
    y[i] = v;
    if (v > max) max = v;
  }
  return max;
}

}  // namespace

void SoftmaxRowsForTarget(const SoftmaxCall& call) {
  const hn::ScalableTag<float> d;
  using V = decltype(hn::Zero(d));
  const size_t lanes = hn::Lanes(d);
  for (size_t r = call.row_begin; r < call.row_end; ++r) {
    const float* x = call.input + r * call.cols;
    float* y = call.output + r * call.cols;  // may be x
    size_t cols = call.cols;                 // the row's columns that count
    if (call.causal_period != 0) {
      // The last visible column; past the row's end when nothing is masked (causal_offset is at
      // most cols - 1: CausalSoftmax, so the sum cannot overflow).
      const size_t visible = r % call.causal_period + call.causal_offset;
      if (visible + 1 < cols) cols = visible + 1;
      std::memset(y + cols, 0, (call.cols - cols) * sizeof(float));
    }
    const uint8_t* mask =
        call.mask != nullptr ? call.mask + (r % call.mask_rows) * call.cols : nullptr;
    const float max = mask != nullptr
                          ? ScaleMaskMax<true>(d, x, mask, call.scale, call.mask_fill, cols, y)
                          : ScaleMaskMax<false>(d, x, mask, call.scale, call.mask_fill, cols, y);
    // Pass 2: e = exp(y - max) in place, summed in two accumulators, 0 where it would be
    // subnormal (Exponential<true>: no slow underflowing arithmetic on masked entries); the
    // tail through a padded vector (exp of the padding's -inf is 0).
    const V m = hn::Set(d, max);
    V s0 = hn::Zero(d), s1 = hn::Zero(d);
    size_t i = 0;
    for (; i + 2 * lanes <= cols; i += 2 * lanes) {
      const V e0 = Exponential<true>(d, hn::Sub(hn::LoadU(d, y + i), m));
      const V e1 = Exponential<true>(d, hn::Sub(hn::LoadU(d, y + i + lanes), m));
      hn::StoreU(e0, d, y + i);
      hn::StoreU(e1, d, y + i + lanes);
      s0 = hn::Add(s0, e0);
      s1 = hn::Add(s1, e1);
    }
    for (; i + lanes <= cols; i += lanes) {
      const V e = Exponential<true>(d, hn::Sub(hn::LoadU(d, y + i), m));
      hn::StoreU(e, d, y + i);
      s0 = hn::Add(s0, e);
    }
    if (i < cols) {
      HWY_ALIGN float tail[hn::MaxLanes(d)];
      for (size_t t = 0; t < lanes; ++t) tail[t] = -std::numeric_limits<float>::infinity();
      std::memcpy(tail, y + i, (cols - i) * sizeof(float));
      const V e = Exponential<true>(d, hn::Sub(hn::Load(d, tail), m));
      hn::Store(e, d, tail);
      std::memcpy(y + i, tail, (cols - i) * sizeof(float));
      s1 = hn::Add(s1, e);
    }
    // Pass 3: normalise.
    const V inverse = hn::Set(d, 1.0f / hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1))));
    i = 0;
    for (; i + lanes <= cols; i += lanes)
      hn::StoreU(hn::Mul(hn::LoadU(d, y + i), inverse), d, y + i);
    const float scalar_inverse = hn::GetLane(inverse);
    for (; i < cols; ++i) y[i] *= scalar_inverse;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(SoftmaxRowsForTarget);

namespace {

// Runs a share of the rows on this CPU's best target.
void RunSoftmaxCall(const SoftmaxCall& call) { HWY_DYNAMIC_DISPATCH(SoftmaxRowsForTarget)(call); }

}  // namespace

runtime::Error Softmax(size_t rows, size_t cols, const float* input, float scale,
                       const uint8_t* mask, size_t mask_rows, float mask_fill, float* output,
                       pthreadpool_t threadpool) {
  if (rows == 0 || cols == 0 || input == nullptr || output == nullptr ||
      (mask != nullptr && mask_rows == 0)) {
    return runtime::Error::kInvalidArgument;
  }
  SoftmaxCall call{cols, input, scale, mask, mask_rows, mask_fill, output, 0, rows, 0, 0};
  ShareRows<SoftmaxCall, &RunSoftmaxCall>(call, threadpool);
  return runtime::Error::kOk;
}

runtime::Error CausalSoftmax(size_t rows, size_t cols, const float* input, float scale,
                             size_t period, size_t offset, float* output,
                             pthreadpool_t threadpool) {
  if (rows == 0 || cols == 0 || period == 0 || input == nullptr || output == nullptr) {
    return runtime::Error::kInvalidArgument;
  }
  // Past the last column every row counts whole: no overflow in r % period + offset + 1.
  if (offset >= cols) offset = cols - 1;
  SoftmaxCall call{cols, input, scale, nullptr, 0, 0.0f, output, 0, rows, period, offset};
  ShareRows<SoftmaxCall, &RunSoftmaxCall>(call, threadpool);
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
