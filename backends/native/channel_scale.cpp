// Compiled once per Highway target (foreach_target.h re-includes this file); the part after
// HWY_ONCE is compiled once and dispatches.
#include "backends/native/channel_scale.h"

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "backends/native/row_tasks.h"

// foreach_target.h includes this file again per target: define the call's struct once.
#ifndef TORCHIR_BACKENDS_NATIVE_CHANNEL_SCALE_CALL_
#define TORCHIR_BACKENDS_NATIVE_CHANNEL_SCALE_CALL_
namespace torchir::native {
namespace {

// The arguments of one share of a channel scaling: pixels [row_begin, row_end) of batch *
// pixels, each `channels` floats.
struct ChannelScaleCall {
  size_t pixels, channels, scale_batch_stride;
  const float* input;
  const float* scale;
  float* output;
  size_t row_begin, row_end;
};

}  // namespace
}  // namespace torchir::native
#endif  // TORCHIR_BACKENDS_NATIVE_CHANNEL_SCALE_CALL_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/native/channel_scale.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h (clang-format: keep the order).
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void ScaleChannelsForTarget(const ChannelScaleCall& call) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t channels = call.channels;
  for (size_t row = call.row_begin; row < call.row_end; ++row) {
    const float* HWY_RESTRICT scale = call.scale + row / call.pixels * call.scale_batch_stride;
    // Not restrict: the output may be the input.
    const float* in = call.input + row * channels;
    float* out = call.output + row * channels;
    size_t c = 0;
    for (; c + 4 * lanes <= channels; c += 4 * lanes) {
      const auto v0 = hn::Mul(hn::LoadU(d, in + c), hn::LoadU(d, scale + c));
      const auto v1 = hn::Mul(hn::LoadU(d, in + c + lanes), hn::LoadU(d, scale + c + lanes));
      const auto v2 =
          hn::Mul(hn::LoadU(d, in + c + 2 * lanes), hn::LoadU(d, scale + c + 2 * lanes));
      const auto v3 =
          hn::Mul(hn::LoadU(d, in + c + 3 * lanes), hn::LoadU(d, scale + c + 3 * lanes));
      hn::StoreU(v0, d, out + c);
      hn::StoreU(v1, d, out + c + lanes);
      hn::StoreU(v2, d, out + c + 2 * lanes);
      hn::StoreU(v3, d, out + c + 3 * lanes);
    }
    for (; c + lanes <= channels; c += lanes) {
      hn::StoreU(hn::Mul(hn::LoadU(d, in + c), hn::LoadU(d, scale + c)), d, out + c);
    }
    for (; c < channels; ++c) out[c] = in[c] * scale[c];
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace torchir::native {

HWY_EXPORT(ScaleChannelsForTarget);

namespace {

void RunChannelScaleCall(const ChannelScaleCall& call) {
  HWY_DYNAMIC_DISPATCH(ScaleChannelsForTarget)(call);
}

}  // namespace

runtime::Error ScaleChannels(size_t batch, size_t pixels, size_t channels, const float* input,
                             const float* scale, size_t scale_batch_stride, float* output,
                             pthreadpool_t threadpool) {
  constexpr size_t kMaxFloats = std::numeric_limits<size_t>::max() / sizeof(float);
  if (batch == 0 || pixels == 0 || channels == 0 || input == nullptr || scale == nullptr ||
      output == nullptr || (scale_batch_stride != 0 && scale_batch_stride != channels) ||
      pixels > kMaxFloats / batch || channels > kMaxFloats / (batch * pixels)) {
    return runtime::Error::kInvalidArgument;
  }
  const ChannelScaleCall call{pixels, channels, scale_batch_stride, input, scale,
                              output, 0,        batch * pixels};
  ShareRows<ChannelScaleCall, &RunChannelScaleCall>(call, threadpool);
  return runtime::Error::kOk;
}

}  // namespace torchir::native
#endif  // HWY_ONCE
