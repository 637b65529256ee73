// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/layer_norm.h"

#include <pthreadpool.h>

#include <cmath>
#include <cstddef>

#include "backends/native/row_tasks.h"

// foreach_target.h includes this file again per target: define the call's struct once.
#ifndef TORCHIR_BACKENDS_NATIVE_LAYER_NORM_CALL_
#define TORCHIR_BACKENDS_NATIVE_LAYER_NORM_CALL_
namespace torchir::native {
namespace {

// The arguments of one share of a layer norm, as they cross Highway's dispatch table.
struct LayerNormCall {
  size_t cols;
  const float* input;
  const float* weight;  // null: 1
  const float* bias;    // null: 0
  float epsilon;
  float* output;
  size_t row_begin, row_end;
};

}  // namespace
}  // namespace torchir::native
#endif  // TORCHIR_BACKENDS_NATIVE_LAYER_NORM_CALL_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/layer_norm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace {

// The sum over x[0, cols) of f(x[i]) for f(x) = x (kSquares false) or (x - center)^2, in four
// vector accumulators (independent chains; each lane sums every fourth vector's lane), then the
// scalar tail.
template <bool kSquares, class D>
HWY_INLINE float RowSum(D d, const float* HWY_RESTRICT x, size_t cols, float center) {
  using V = decltype(hn::Zero(d));
  const size_t lanes = hn::Lanes(d);
  const V c = hn::Set(d, center);
  V s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  auto add = [&](V sum, const float* p) {
    if constexpr (kSquares) {
      const V centered = hn::Sub(hn::LoadU(d, p), c);
      return hn::MulAdd(centered, centered, sum);
    } else {
      return hn::Add(sum, hn::LoadU(d, p));
    }
  };
  size_t i = 0;
  for (; i + 4 * lanes <= cols; i += 4 * lanes) {
    s0 = add(s0, x + i);
    s1 = add(s1, x + i + lanes);
    s2 = add(s2, x + i + 2 * lanes);
    s3 = add(s3, x + i + 3 * lanes);
  }
  for (; i + lanes <= cols; i += lanes) s0 = add(s0, x + i);
  float sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < cols; ++i) {
    const float centered = x[i] - center;
    sum += kSquares ? centered * centered : x[i];
  }
  return sum;
}

}  // namespace

void LayerNormRowsForTarget(const LayerNormCall& call) {
  const hn::ScalableTag<float> d;
  using V = decltype(hn::Zero(d));
  const size_t lanes = hn::Lanes(d);
  const size_t cols = call.cols;
  const float count = static_cast<float>(cols);
  for (size_t r = call.row_begin; r < call.row_end; ++r) {
    const float* HWY_RESTRICT x = call.input + r * cols;
    float* y = call.output + r * cols;
    const float mean = RowSum<false>(d, x, cols, 0.0f) / count;
    const float variance = RowSum<true>(d, x, cols, mean) / count;
    const float rstd = 1.0f / std::sqrt(variance + call.epsilon);
    const V m = hn::Set(d, mean), s = hn::Set(d, rstd);
    size_t i = 0;
    for (; i + lanes <= cols; i += lanes) {
      V value = hn::Mul(hn::Sub(hn::LoadU(d, x + i), m), s);
      if (call.weight != nullptr) value = hn::Mul(value, hn::LoadU(d, call.weight + i));
      if (call.bias != nullptr) value = hn::Add(value, hn::LoadU(d, call.bias + i));
      hn::StoreU(value, d, y + i);
    }
    for (; i < cols; ++i) {
      float value = (x[i] - mean) * rstd;
      if (call.weight != nullptr) value *= call.weight[i];
      if (call.bias != nullptr) value += call.bias[i];
      y[i] = value;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(LayerNormRowsForTarget);

namespace {

// Runs a share of the rows on this CPU's best target.
void RunLayerNormCall(const LayerNormCall& call) {
  HWY_DYNAMIC_DISPATCH(LayerNormRowsForTarget)(call);
}

}  // namespace

runtime::Error LayerNorm(size_t rows, size_t cols, const float* input, const float* weight,
                         const float* bias, float epsilon, float* output,
                         pthreadpool_t threadpool) {
  if (rows == 0 || cols == 0 || input == nullptr || output == nullptr || !(epsilon >= 0.0f)) {
    return runtime::Error::kInvalidArgument;
  }
  LayerNormCall call{cols, input, weight, bias, epsilon, output, 0, rows};
  ShareRows<LayerNormCall, &RunLayerNormCall>(call, threadpool);
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
