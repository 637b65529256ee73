#include <algorithm>
#include <initializer_list>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"
#include "runtime/kernels/portable/row_accumulate.h"

namespace torchir::runtime::portable {
namespace {

constexpr const char* kName = "convolution";
enum Arg : size_t {
  kInput,
  kWeight,
  kBias,
  kStride,
  kPadding,
  kDilation,
  kGroups,
  kOutputMin,
  kOutputMax,
  kOut,
  kNumArgs
};

// Output channels accumulated together (AccumulateRowBlock's rows).
constexpr int64_t kChannelBlock = kRowBlock;

// A convolution seen as 3-d: 1-d and 2-d ones get leading spatial dims of size 1, so one loop
// nest serves all three.
struct Geometry {
  int64_t batch;
  int64_t in_channels;
  int64_t out_channels;
  int64_t groups;
  int64_t in[3];
  int64_t out[3];
  int64_t kernel[3];
  int64_t stride[3];
  int64_t padding[3];
  int64_t dilation[3];
};

Geometry GeometryOf(KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  const Tensor& weight = args[kWeight]->to_tensor();
  const Tensor& out = args[kOut]->to_tensor();
  const size_t spatial = input.dim() - 2;
  Geometry g;
  g.batch = input.size(0);
  g.in_channels = input.size(1);
  g.out_channels = weight.size(0);
  g.groups = args[kGroups]->to_int();
  for (size_t i = 0; i < 3; ++i) {
    if (i < 3 - spatial) {
      g.in[i] = g.out[i] = g.kernel[i] = g.stride[i] = g.dilation[i] = 1;
      g.padding[i] = 0;
      continue;
    }
    const size_t j = i - (3 - spatial);
    g.in[i] = input.size(2 + j);
    g.out[i] = out.size(2 + j);
    g.kernel[i] = weight.size(2 + j);
    g.stride[i] = args[kStride]->to_int_list()[j];
    g.padding[i] = args[kPadding]->to_int_list()[j];
    g.dilation[i] = args[kDilation]->to_int_list()[j];
  }
  // A pointwise convolution with unit stride and no padding maps each input plane to one long
  // output row, which keeps the inner loop long for small spatial sizes.
  bool pointwise = true;
  for (size_t i = 0; i < 3; ++i) {
    pointwise = pointwise && g.kernel[i] == 1 && g.stride[i] == 1 && g.padding[i] == 0;
  }
  if (pointwise) {
    const int64_t plane = g.in[0] * g.in[1] * g.in[2];
    for (size_t i = 0; i < 2; ++i) g.in[i] = g.out[i] = 1;
    g.in[2] = g.out[2] = plane;
  }
  return g;
}

// Computes `count` (at most kChannelBlock) output channels of one image and group: every
// output row starts at the bias and accumulates one weight tap at a time over the whole row.
// `input` is the group's first input channel, `weight` the first channel's filters, `out` its
// output plane.
void ConvolveChannelBlock(const Geometry& g, const float* input, const float* weight,
                          const float* bias, float* out, int64_t count, OutputClamp clamp) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t group_in = g.in_channels / g.groups;
  const int64_t filter_size = group_in * g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t width = g.in[2], out_width = g.out[2];
  for (int64_t od = 0; od < g.out[0]; ++od) {
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      float* rows[kChannelBlock];
      for (int64_t b = 0; b < count; ++b) {
        rows[b] = out + b * out_plane + (od * g.out[1] + oh) * out_width;
        std::fill(rows[b], rows[b] + out_width, bias != nullptr ? bias[b] : 0.0f);
      }
      for (int64_t c = 0; c < group_in; ++c) {
        for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
          const int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
          if (id < 0 || id >= g.in[0]) continue;
          for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
            const int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
            if (ih < 0 || ih >= g.in[1]) continue;
            const float* in_row = input + c * in_plane + (id * g.in[1] + ih) * width;
            const float* taps = weight + ((c * g.kernel[0] + kd) * g.kernel[1] + kh) * g.kernel[2];
            for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
              // Input column of output column ow: ow * stride + offset; keep it in [0, width).
              const int64_t offset = kw * g.dilation[2] - g.padding[2];
              const int64_t s = g.stride[2];
              const int64_t begin = offset >= 0 ? 0 : (-offset + s - 1) / s;
              const int64_t end =
                  offset > width - 1 ? 0 : std::min(out_width, (width - 1 - offset) / s + 1);
              if (begin >= end) continue;
              // Pointers start at the first valid column: none ever points outside a row.
              const float* in = in_row + offset + begin * s;
              if (count == kChannelBlock) {
                const float w[kChannelBlock] = {taps[kw], taps[filter_size + kw],
                                                taps[2 * filter_size + kw],
                                                taps[3 * filter_size + kw]};
                AccumulateRowBlock(rows[0] + begin, rows[1] + begin, rows[2] + begin,
                                   rows[3] + begin, in, w, s, end - begin);
              } else {
                for (int64_t b = 0; b < count; ++b) {
                  AccumulateRow(rows[b] + begin, in, taps[b * filter_size + kw], s, end - begin);
                }
              }
            }
          }
        }
      }
      for (int64_t b = 0; b < count; ++b) ApplyOutputClamp(rows[b], out_width, clamp);
    }
  }
}

}  // namespace

Error CheckConvolution(KernelArgs args) {
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kFloat32Only, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kWeight, kFloat32Only, kName));
  TORCHIR_RETURN_IF_ERROR(CheckOptionalTensorOperand(args, kBias, kFloat32Only, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, kFloat32Only, kName));
  for (size_t i : {kStride, kPadding, kDilation}) {
    TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, i, EValue::Tag::kIntList, kName));
  }
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kGroups, EValue::Tag::kInt, kName));
  TORCHIR_RETURN_IF_ERROR(CheckClampBounds(args, kOutputMin, kOutputMax, kName));

  const Tensor& input = args[kInput]->to_tensor();
  const Tensor& weight = args[kWeight]->to_tensor();
  TORCHIR_CHECK_OR_RETURN(input.dim() >= 3 && input.dim() <= 5, Error::kInvalidProgram,
                          "%s: input must be [N, C, spatial...] with 1 to 3 spatial dims", kName);
  TORCHIR_CHECK_OR_RETURN(weight.dim() == input.dim(), Error::kInvalidProgram,
                          "%s: weight rank %zu differs from input rank %zu", kName, weight.dim(),
                          input.dim());
  const size_t spatial = input.dim() - 2;
  Span<const int64_t> stride = args[kStride]->to_int_list();
  Span<const int64_t> padding = args[kPadding]->to_int_list();
  Span<const int64_t> dilation = args[kDilation]->to_int_list();
  TORCHIR_CHECK_OR_RETURN(
      stride.size() == spatial && padding.size() == spatial && dilation.size() == spatial,
      Error::kInvalidProgram, "%s: stride, padding and dilation need %zu entries each", kName,
      spatial);
  const int64_t groups = args[kGroups]->to_int();
  const int64_t channels = input.size(1);
  const int64_t out_channels = weight.size(0);
  TORCHIR_CHECK_OR_RETURN(groups >= 1 && channels % groups == 0 && out_channels % groups == 0 &&
                              channels / groups == weight.size(1),
                          Error::kInvalidProgram,
                          "%s: weight with groups %lld does not fit %lld input channels", kName,
                          static_cast<long long>(groups), static_cast<long long>(channels));
  if (!args[kBias]->is_none()) {
    const Tensor& bias = args[kBias]->to_tensor();
    TORCHIR_CHECK_OR_RETURN(bias.dim() == 1 && bias.size(0) == out_channels, Error::kInvalidProgram,
                            "%s: bias must be [%lld]", kName, static_cast<long long>(out_channels));
  }
  ExpectedShape expected;
  expected.Append(input.size(0));
  expected.Append(out_channels);
  for (size_t i = 0; i < spatial; ++i) {
    int64_t length = 0;
    TORCHIR_RETURN_IF_ERROR(SlidingWindowCount(input.size(2 + i), weight.size(2 + i), stride[i],
                                               padding[i], dilation[i], /*ceil_mode=*/false, kName,
                                               &length));
    expected.Append(length);
  }
  return CheckOutputShape(args[kOut]->to_tensor(), expected, kName);
}

Error RunConvolution(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& out = args[kOut]->to_tensor();
  // Also keeps a huge `groups` with no channels from looping over nothing.
  if (out.numel() == 0) return Error::kOk;
  const Geometry g = GeometryOf(args);
  const float* input = args[kInput]->to_tensor().data_ptr<float>();
  const float* weight = args[kWeight]->to_tensor().data_ptr<float>();
  const float* bias = OptionalFloatData(*args[kBias]);
  float* output = out.mutable_data_ptr<float>();
  const OutputClamp clamp = ClampFromArgs(args, kOutputMin, kOutputMax);

  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t group_in = g.in_channels / g.groups;
  const int64_t group_out = g.out_channels / g.groups;
  const int64_t filter_size = group_in * g.kernel[0] * g.kernel[1] * g.kernel[2];
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t group = 0; group < g.groups; ++group) {
      const float* group_input = input + (n * g.in_channels + group * group_in) * in_plane;
      for (int64_t first = 0; first < group_out; first += kChannelBlock) {
        const int64_t oc = group * group_out + first;
        ConvolveChannelBlock(g, group_input, weight + oc * filter_size,
                             bias != nullptr ? bias + oc : nullptr,
                             output + (n * g.out_channels + oc) * out_plane,
                             std::min(kChannelBlock, group_out - first), clamp);
      }
    }
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
