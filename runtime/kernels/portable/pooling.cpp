#include <algorithm>
#include <cmath>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

enum MaxPoolArg : size_t {
  kMaxInput,
  kMaxKernelSize,
  kMaxStride,
  kMaxPadding,
  kMaxDilation,
  kMaxCeilMode,
  kMaxOut,
  kMaxNumArgs
};
enum AvgPoolArg : size_t {
  kAvgInput,
  kAvgKernelSize,
  kAvgStride,
  kAvgPadding,
  kAvgCeilMode,
  kAvgCountIncludePad,
  kAvgOut,
  kAvgNumArgs
};
enum AdaptiveArg : size_t { kAdaptiveInput, kAdaptiveOutputSize, kAdaptiveOut, kAdaptiveNumArgs };

// The input as planes: every dim but the last two is a plane index.
struct Planes {
  int64_t count;
  int64_t height;
  int64_t width;
  int64_t out_height;
  int64_t out_width;
};

Planes PlanesOf(const Tensor& input, const Tensor& out) {
  const size_t rank = input.dim();
  return {SizeProduct(input, 0, rank - 2), input.size(rank - 2), input.size(rank - 1),
          out.size(rank - 2), out.size(rank - 1)};
}

// The taps [*begin, *end) of a window starting at `start` (possibly in the padding) whose
// positions start + tap * dilation fall inside [0, length).
void TapsInside(int64_t start, int64_t taps, int64_t dilation, int64_t length, int64_t* begin,
                int64_t* end) {
  *begin = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  *end = start > length - 1 ? 0 : std::min(taps, (length - 1 - start) / dilation + 1);
}

// Common to max_pool2d and avg_pool2d: the input, the window attributes (each two entries)
// and the output's sizes. `dilation_index` is kMaxNumArgs for avg_pool2d, which has none.
Error CheckPool2d(KernelArgs args, size_t num_args, size_t dilation_index, size_t ceil_index,
                  const char* kernel) {
  // The leading arguments are laid out alike in both ops.
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, num_args, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kFloat32Only, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, num_args - 1, kFloat32Only, kernel));
  const size_t list_args[] = {kMaxKernelSize, kMaxStride, kMaxPadding, dilation_index};
  for (size_t i : list_args) {
    if (i >= num_args) continue;
    TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, i, EValue::Tag::kIntList, kernel));
    TORCHIR_CHECK_OR_RETURN(args[i]->to_int_list().size() == 2, Error::kInvalidProgram,
                            "%s: kernel_size, stride, padding and dilation need 2 entries", kernel);
  }
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, ceil_index, EValue::Tag::kBool, kernel));
  const Tensor& input = args[0]->to_tensor();
  TORCHIR_CHECK_OR_RETURN(input.dim() == 3 || input.dim() == 4, Error::kInvalidProgram,
                          "%s: input must be [N, C, H, W] or [C, H, W]", kernel);
  Span<const int64_t> kernel_size = args[kMaxKernelSize]->to_int_list();
  Span<const int64_t> stride = args[kMaxStride]->to_int_list();
  Span<const int64_t> padding = args[kMaxPadding]->to_int_list();
  ExpectedShape expected;
  for (size_t d = 0; d + 2 < input.dim(); ++d) expected.Append(input.size(d));
  for (size_t i = 0; i < 2; ++i) {
    const int64_t dilation = dilation_index < num_args ? args[dilation_index]->to_int_list()[i] : 1;
    int64_t length = 0;
    TORCHIR_RETURN_IF_ERROR(SlidingWindowCount(input.size(input.dim() - 2 + i), kernel_size[i],
                                               stride[i], padding[i], dilation,
                                               args[ceil_index]->to_bool(), kernel, &length));
    TORCHIR_CHECK_OR_RETURN(padding[i] <= kernel_size[i] / 2, Error::kInvalidProgram,
                            "%s: padding %lld exceeds half the kernel %lld", kernel,
                            static_cast<long long>(padding[i]),
                            static_cast<long long>(kernel_size[i]));
    expected.Append(length);
  }
  return CheckOutputShape(args[num_args - 1]->to_tensor(), expected, kernel);
}

// PyTorch's adaptive window bounds: [floor(o * in / out), ceil((o + 1) * in / out)), written
// so that the intermediate products stay small.
int64_t AdaptiveStart(int64_t o, int64_t out_size, int64_t in_size) {
  return (o / out_size) * in_size + ((o % out_size) * in_size) / out_size;
}
int64_t AdaptiveEnd(int64_t o, int64_t out_size, int64_t in_size) {
  return 1 + ((o + 1) * in_size - 1) / out_size;
}

}  // namespace

Error CheckMaxPool2d(KernelArgs args) {
  return CheckPool2d(args, kMaxNumArgs, kMaxDilation, kMaxCeilMode, "max_pool2d");
}

Error RunMaxPool2d(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kMaxInput]->to_tensor();
  const Tensor& out = args[kMaxOut]->to_tensor();
  const Planes p = PlanesOf(input, out);
  Span<const int64_t> kernel_size = args[kMaxKernelSize]->to_int_list();
  Span<const int64_t> stride = args[kMaxStride]->to_int_list();
  Span<const int64_t> padding = args[kMaxPadding]->to_int_list();
  Span<const int64_t> dilation = args[kMaxDilation]->to_int_list();
  const float* in = input.data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for (int64_t plane = 0; plane < p.count; ++plane) {
    const float* x = in + plane * p.height * p.width;
    for (int64_t oh = 0; oh < p.out_height; ++oh) {
      const int64_t h0 = oh * stride[0] - padding[0];
      int64_t kh_begin, kh_end;
      TapsInside(h0, kernel_size[0], dilation[0], p.height, &kh_begin, &kh_end);
      for (int64_t ow = 0; ow < p.out_width; ++ow) {
        const int64_t w0 = ow * stride[1] - padding[1];
        int64_t kw_begin, kw_end;
        TapsInside(w0, kernel_size[1], dilation[1], p.width, &kw_begin, &kw_end);
        // A window entirely in the padding gives -inf, as in PyTorch.
        float best = -INFINITY;
        for (int64_t kh = kh_begin; kh < kh_end; ++kh) {
          const int64_t h = h0 + kh * dilation[0];
          for (int64_t kw = kw_begin; kw < kw_end; ++kw) {
            const float v = x[h * p.width + w0 + kw * dilation[1]];
            if (v > best || std::isnan(v)) best = v;
          }
        }
        *y++ = best;
      }
    }
  }
  return Error::kOk;
}

Error CheckAvgPool2d(KernelArgs args) {
  const char* kernel = "avg_pool2d";
  TORCHIR_RETURN_IF_ERROR(
      CheckPool2d(args, kAvgNumArgs, /*dilation_index=*/kAvgNumArgs, kAvgCeilMode, kernel));
  return CheckAttributeKind(args, kAvgCountIncludePad, EValue::Tag::kBool, kernel);
}

Error RunAvgPool2d(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kAvgInput]->to_tensor();
  const Tensor& out = args[kAvgOut]->to_tensor();
  const Planes p = PlanesOf(input, out);
  Span<const int64_t> kernel_size = args[kAvgKernelSize]->to_int_list();
  Span<const int64_t> stride = args[kAvgStride]->to_int_list();
  Span<const int64_t> padding = args[kAvgPadding]->to_int_list();
  const bool count_include_pad = args[kAvgCountIncludePad]->to_bool();
  const float* in = input.data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for (int64_t plane = 0; plane < p.count; ++plane) {
    const float* x = in + plane * p.height * p.width;
    for (int64_t oh = 0; oh < p.out_height; ++oh) {
      for (int64_t ow = 0; ow < p.out_width; ++ow) {
        // ATen's window: clipped to the padded input for the count_include_pad divisor, then
        // to the input for the sum; a ceil_mode window may hang past both.
        int64_t h0 = oh * stride[0] - padding[0];
        int64_t w0 = ow * stride[1] - padding[1];
        int64_t h1 = std::min(h0 + kernel_size[0], p.height + padding[0]);
        int64_t w1 = std::min(w0 + kernel_size[1], p.width + padding[1]);
        const int64_t padded_count = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, p.height);
        w1 = std::min(w1, p.width);
        if (h0 >= h1 || w0 >= w1) {
          *y++ = 0.0f;
          continue;
        }
        float sum = 0.0f;
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) sum += x[h * p.width + w];
        }
        const int64_t divisor = count_include_pad ? padded_count : (h1 - h0) * (w1 - w0);
        *y++ = sum / static_cast<float>(divisor);
      }
    }
  }
  return Error::kOk;
}

Error CheckAdaptiveAvgPool2d(KernelArgs args) {
  const char* kernel = "adaptive_avg_pool2d";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kAdaptiveNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kAdaptiveInput, kFloat32Only, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kAdaptiveOut, kFloat32Only, kernel));
  TORCHIR_RETURN_IF_ERROR(
      CheckAttributeKind(args, kAdaptiveOutputSize, EValue::Tag::kIntList, kernel));
  const Tensor& input = args[kAdaptiveInput]->to_tensor();
  Span<const int64_t> size = args[kAdaptiveOutputSize]->to_int_list();
  TORCHIR_CHECK_OR_RETURN(
      (input.dim() == 3 || input.dim() == 4) && size.size() == 2 && size[0] > 0 && size[1] > 0,
      Error::kInvalidProgram, "%s: input must be 3-d or 4-d and output_size 2 positive sizes",
      kernel);
  // PyTorch refuses empty non-batch dims: a window over nothing has no average.
  for (size_t d = input.dim() == 4 ? 1 : 0; d < input.dim(); ++d) {
    TORCHIR_CHECK_OR_RETURN(input.size(d) > 0, Error::kInvalidProgram,
                            "%s: non-batch dim %zu is empty", kernel, d);
  }
  ExpectedShape expected;
  for (size_t d = 0; d + 2 < input.dim(); ++d) expected.Append(input.size(d));
  for (size_t i = 0; i < 2; ++i) {
    int64_t product = 0;
    TORCHIR_CHECK_OR_RETURN(
        !__builtin_mul_overflow(size[i], input.size(input.dim() - 2 + i), &product),
        Error::kInvalidProgram, "%s: output_size overflows the window arithmetic", kernel);
    expected.Append(size[i]);
  }
  return CheckOutputShape(args[kAdaptiveOut]->to_tensor(), expected, kernel);
}

Error RunAdaptiveAvgPool2d(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kAdaptiveInput]->to_tensor();
  const Tensor& out = args[kAdaptiveOut]->to_tensor();
  const Planes p = PlanesOf(input, out);
  const float* in = input.data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for (int64_t plane = 0; plane < p.count; ++plane) {
    const float* x = in + plane * p.height * p.width;
    for (int64_t oh = 0; oh < p.out_height; ++oh) {
      const int64_t h0 = AdaptiveStart(oh, p.out_height, p.height);
      const int64_t h1 = AdaptiveEnd(oh, p.out_height, p.height);
      for (int64_t ow = 0; ow < p.out_width; ++ow) {
        const int64_t w0 = AdaptiveStart(ow, p.out_width, p.width);
        const int64_t w1 = AdaptiveEnd(ow, p.out_width, p.width);
        float sum = 0.0f;
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) sum += x[h * p.width + w];
        }
        // Two divisions, in ATen's order.
        *y++ = sum / static_cast<float>(h1 - h0) / static_cast<float>(w1 - w0);
      }
    }
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
