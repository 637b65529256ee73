// edge.upsample_bilinear2d: bilinear resizing of the last two dims of a 4-d float32 tensor to
// output_size, as PyTorch's CPU kernel computes it (its float arithmetic):
//   align_corners   source = dst * (in - 1) / (out - 1) (0 for a single output);
//   otherwise       source = (dst + 0.5) * ratio - 0.5, clamped at 0, where ratio is
//                   1 / scale when a positive scale was given, else in / out;
// then two taps per dim, i0 = floor(source) and i0 + 1 (clamped), weighted by the fraction.
#include <algorithm>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

constexpr int64_t kMaxOutputSize = int64_t{1} << 24;  // taps are computed per output row/column

struct Tap {
  int64_t i0 = 0;
  int64_t i1 = 0;
  float w0 = 1.0f;
  float w1 = 0.0f;
};

// The taps of output index `o` of a dim resized from `in` to `out`; 0 <= i0 <= i1 < in.
Tap TapOf(int64_t o, int64_t in, int64_t out, bool align_corners, double scale) {
  float source = 0.0f;
  if (align_corners) {
    const float ratio =
        out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
    source = ratio * static_cast<float>(o);
  } else {
    const float ratio = scale > 0.0 ? static_cast<float>(1.0 / scale)
                                    : static_cast<float>(in) / static_cast<float>(out);
    source = std::max(ratio * (static_cast<float>(o) + 0.5f) - 0.5f, 0.0f);
  }
  Tap tap;
  tap.i0 = std::min(static_cast<int64_t>(source), in - 1);
  tap.i1 = tap.i0 + (tap.i0 < in - 1 ? 1 : 0);
  tap.w1 = std::clamp(source - static_cast<float>(tap.i0), 0.0f, 1.0f);
  tap.w0 = 1.0f - tap.w1;
  return tap;
}

}  // namespace

// (input, output_size, align_corners, scales_h, scales_w, out); a scale <= 0 means none.
Error CheckUpsampleBilinear2d(KernelArgs args) {
  const char* kName = "upsample_bilinear2d";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, 6, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 0, kFloat32Only, kName));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 1, EValue::Tag::kIntList, kName));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 2, EValue::Tag::kBool, kName));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 3, EValue::Tag::kDouble, kName));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, 4, EValue::Tag::kDouble, kName));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, 5, kFloat32Only, kName));
  const Tensor& input = args[0]->to_tensor();
  Span<const int64_t> size = args[1]->to_int_list();
  TORCHIR_CHECK_OR_RETURN(input.dim() == 4, Error::kInvalidProgram,
                          "%s: input must be 4-d, got rank %zu", kName, input.dim());
  TORCHIR_CHECK_OR_RETURN(input.size(input.dim() - 1) > 0 && input.size(input.dim() - 2) > 0,
                          Error::kInvalidProgram, "%s: the input's spatial dims are empty", kName);
  TORCHIR_CHECK_OR_RETURN(size.size() == 2 && size[0] > 0 && size[1] > 0 &&
                              size[0] <= kMaxOutputSize && size[1] <= kMaxOutputSize,
                          Error::kInvalidProgram,
                          "%s: output_size must be 2 sizes in [1, 2^24]", kName);
  int64_t sizes[4];
  for (size_t d = 0; d + 2 < input.dim(); ++d) sizes[d] = input.size(d);
  sizes[input.dim() - 2] = size[0];
  sizes[input.dim() - 1] = size[1];
  return CheckSizes(args[5]->to_tensor(), Span<const int64_t>(sizes, input.dim()), kName);
}

Error RunUpsampleBilinear2d(KernelContext&, KernelArgs args) {
  const Tensor& input = args[0]->to_tensor();
  const Tensor& out = args[5]->to_tensor();
  const bool align_corners = args[2]->to_bool();
  const size_t rank = input.dim();
  const int64_t in_h = input.size(rank - 2), in_w = input.size(rank - 1);
  const int64_t out_h = out.size(rank - 2), out_w = out.size(rank - 1);
  int64_t planes = 1;
  for (size_t d = 0; d + 2 < rank; ++d) planes *= input.size(d);
  const auto* src = static_cast<const float*>(input.data());
  auto* dst = static_cast<float*>(out.mutable_data());
  const double scale_h = args[3]->to_double(), scale_w = args[4]->to_double();
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = src + p * in_h * in_w;
    for (int64_t oy = 0; oy < out_h; ++oy) {
      const Tap ty = TapOf(oy, in_h, out_h, align_corners, scale_h);
      const float* row0 = plane + ty.i0 * in_w;
      const float* row1 = plane + ty.i1 * in_w;
      float* out_row = dst + (p * out_h + oy) * out_w;
      for (int64_t ox = 0; ox < out_w; ++ox) {
        const Tap tx = TapOf(ox, in_w, out_w, align_corners, scale_w);
        out_row[ox] = ty.w0 * (tx.w0 * row0[tx.i0] + tx.w1 * row0[tx.i1]) +
                      ty.w1 * (tx.w0 * row1[tx.i0] + tx.w1 * row1[tx.i1]);
      }
    }
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
