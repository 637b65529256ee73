// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/activation.h"

#include <cstddef>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/activation.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"
// Must follow hwy/highway.h.
#include "backends/native/activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {

void ApplyActivationForTarget(const Epilogue& epilogue, float* data, size_t count) {
  if (IsAppliedAfterStore(epilogue.activation)) {
    ActivationRows(epilogue.activation, data, 1, count, count);
    return;
  }
  if (epilogue.activation == Activation::kNone) return;
  const float lo = epilogue.activation == Activation::kRelu ? 0.0f : epilogue.min;
  for (size_t i = 0; i < count; ++i) {
    float value = data[i] < lo ? lo : data[i];
    if (epilogue.activation == Activation::kClamp && value > epilogue.max) value = epilogue.max;
    data[i] = value;
  }
}

// y[i] = function(d, x[i]) for i < count, vector by vector; the tail through a zeroed buffer.
template <class Function>
void MapFloats(const float* x, float* y, size_t count, Function function) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= count; i += lanes) hn::StoreU(function(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < count) {
    HWY_ALIGN float tail[hn::MaxLanes(d)] = {};
    std::memcpy(tail, x + i, (count - i) * sizeof(float));
    hn::Store(function(d, hn::Load(d, tail)), d, tail);
    std::memcpy(y + i, tail, (count - i) * sizeof(float));
  }
}

void ExpForTarget(const float* x, float* y, size_t count) {
  MapFloats(x, y, count, [](auto d, auto v) { return Exponential(d, v); });
}

void ErfForTarget(const float* x, float* y, size_t count) {
  MapFloats(x, y, count, [](auto d, auto v) { return Erf(d, v); });
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(ApplyActivationForTarget);
HWY_EXPORT(ExpForTarget);
HWY_EXPORT(ErfForTarget);

void ApplyActivation(const Epilogue& epilogue, float* data, size_t count) {
  HWY_DYNAMIC_DISPATCH(ApplyActivationForTarget)(epilogue, data, count);
}

void Exp(const float* x, float* y, size_t count) {
  HWY_DYNAMIC_DISPATCH(ExpForTarget)(x, y, count);
}

void Erf(const float* x, float* y, size_t count) {
  HWY_DYNAMIC_DISPATCH(ErfForTarget)(x, y, count);
}

}  // namespace torchir::native
#endif  // HWY_ONCE
