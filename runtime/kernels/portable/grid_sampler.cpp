#include <algorithm>
#include <cmath>
#include <cstdint>

#include "runtime/kernels/portable/argument_checks.h"
#include "runtime/kernels/portable/kernel_util.h"
#include "runtime/kernels/portable/kernels.h"

namespace torchir::runtime::portable {
namespace {

enum Arg : size_t { kInput, kGrid, kInterpolation, kPadding, kAlignCorners, kOut, kNumArgs };
enum Interpolation : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// The functions below follow ATen's grid sampler step by step (the same float operations in
// the same order), so that results agree to rounding.

// A grid coordinate in [-1, 1] as a pixel coordinate: -1 and 1 are the centres of the corner
// pixels with align_corners, their outer edges without.
float Unnormalize(float coord, int64_t size, bool align_corners) {
  if (align_corners) return (coord + 1) / 2 * static_cast<float>(size - 1);
  return ((coord + 1) * static_cast<float>(size) - 1) / 2;
}

float Clip(float x, int64_t size) {
  return std::min(static_cast<float>(size - 1), std::max(x, 0.0f));
}

// x reflected about the bounds twice_low / 2 and twice_high / 2 until it falls between them.
float Reflect(float x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0.0f;
  const float low = static_cast<float>(twice_low) / 2;
  const float span = static_cast<float>(twice_high - twice_low) / 2;
  x = std::fabs(x - low);
  const float extra = std::fmod(x, span);
  // The parity of the flip count, kept in float: casting an infinite count to an int would be
  // undefined (a non-finite x ends as NaN here, which the clip then moves to an edge).
  const float flips = std::floor(x / span);
  if (std::fmod(flips, 2.0f) == 0.0f) return extra + low;
  return span - extra + low;
}

// A pixel coordinate moved inside by the padding mode (unchanged for zeros).
float ApplyPadding(float x, int64_t size, int64_t padding, bool align_corners) {
  if (padding == kBorder) return Clip(x, size);
  if (padding == kReflection) {
    x = align_corners ? Reflect(x, 0, 2 * (size - 1)) : Reflect(x, -1, 2 * size - 1);
    return Clip(x, size);
  }
  return x;
}

// Whether the pixel at integral-valued coordinate `f` (truncated toward zero, as ATen casts it)
// lies in [0, size), with its index. Compared in float first: NaN, infinities and values beyond
// int64 never reach the cast.
bool Inside(float f, int64_t size, int64_t* index) {
  if (!(f > -1.0f && f < static_cast<float>(size))) return false;
  *index = static_cast<int64_t>(f);
  return *index >= 0 && *index < size;
}

float CubicNear(float x, float a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
float CubicFar(float x, float a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

// Cubic convolution (A = -0.75, as PyTorch) of four neighbours at fraction t past the second.
float CubicInterpolate(const float v[4], float t) {
  const float a = -0.75f;
  return v[0] * CubicFar(t + 1, a) + v[1] * CubicNear(t, a) + v[2] * CubicNear(1 - t, a) +
         v[3] * CubicFar(2 - t, a);
}

struct Image {
  const float* data;  // one [H, W] plane
  int64_t height;
  int64_t width;
};

float Bilinear(const Image& image, float ix, float iy) {
  const float x0 = std::floor(ix);
  const float y0 = std::floor(iy);
  const float x1 = x0 + 1;
  const float y1 = y0 + 1;
  const float xs[2] = {x0, x1};
  const float ys[2] = {y0, y1};
  // nw, ne, sw, se.
  const float weights[4] = {(x1 - ix) * (y1 - iy), (ix - x0) * (y1 - iy), (x1 - ix) * (iy - y0),
                            (ix - x0) * (iy - y0)};
  // A tap outside reads 0 and is still weighted, as ATen's CPU kernel does: a point whose
  // weights are NaN (a non-finite grid coordinate) gives NaN, not 0.
  float sum = 0.0f;
  for (int tap = 0; tap < 4; ++tap) {
    int64_t x = 0, y = 0;
    const bool inside =
        Inside(xs[tap % 2], image.width, &x) && Inside(ys[tap / 2], image.height, &y);
    sum += (inside ? image.data[y * image.width + x] : 0.0f) * weights[tap];
  }
  return sum;
}

float Nearest(const Image& image, float ix, float iy) {
  int64_t x = 0, y = 0;
  // nearbyint rounds halves to even, as ATen does.
  if (Inside(std::nearbyint(ix), image.width, &x) && Inside(std::nearbyint(iy), image.height, &y)) {
    return image.data[y * image.width + x];
  }
  return 0.0f;
}

// Bicubic: ix, iy are unpadded pixel coordinates; every one of the 4x4 taps is moved inside by
// the padding mode on its own (zeros: read as 0 outside).
float Bicubic(const Image& image, float ix, float iy, int64_t padding, bool align_corners) {
  const float x0 = std::floor(ix);
  const float y0 = std::floor(iy);
  float rows[4];
  for (int i = 0; i < 4; ++i) {
    float row[4];
    for (int j = 0; j < 4; ++j) {
      const float fx =
          ApplyPadding(x0 - 1 + static_cast<float>(j), image.width, padding, align_corners);
      const float fy =
          ApplyPadding(y0 - 1 + static_cast<float>(i), image.height, padding, align_corners);
      int64_t x = 0, y = 0;
      row[j] = Inside(fx, image.width, &x) && Inside(fy, image.height, &y)
                   ? image.data[y * image.width + x]
                   : 0.0f;
    }
    rows[i] = CubicInterpolate(row, ix - x0);
  }
  return CubicInterpolate(rows, iy - y0);
}

}  // namespace

Error CheckGridSampler2d(KernelArgs args) {
  const char* kernel = "grid_sampler_2d";
  TORCHIR_RETURN_IF_ERROR(CheckArgCount(args, kNumArgs, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kInput, kFloat32Only, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kGrid, kFloat32Only, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckTensorOperand(args, kOut, kFloat32Only, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kInterpolation, EValue::Tag::kInt, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kPadding, EValue::Tag::kInt, kernel));
  TORCHIR_RETURN_IF_ERROR(CheckAttributeKind(args, kAlignCorners, EValue::Tag::kBool, kernel));
  const int64_t interpolation = args[kInterpolation]->to_int();
  const int64_t padding = args[kPadding]->to_int();
  TORCHIR_CHECK_OR_RETURN(
      interpolation >= kBilinear && interpolation <= kBicubic && padding >= kZeros &&
          padding <= kReflection,
      Error::kInvalidProgram, "%s: interpolation_mode %lld and padding_mode %lld must be 0, 1 or 2",
      kernel, static_cast<long long>(interpolation), static_cast<long long>(padding));
  const Tensor& input = args[kInput]->to_tensor();
  const Tensor& grid = args[kGrid]->to_tensor();
  TORCHIR_CHECK_OR_RETURN(
      input.dim() == 4 && grid.dim() == 4 && grid.size(0) == input.size(0) && grid.size(3) == 2,
      Error::kInvalidProgram, "%s: input must be [N, C, H, W] and grid [N, Ho, Wo, 2]", kernel);
  // As ATen: an image without pixels has nothing to sample.
  TORCHIR_CHECK_OR_RETURN(input.size(2) > 0 && input.size(3) > 0, Error::kInvalidProgram,
                          "%s: input has empty spatial dims", kernel);
  ExpectedShape expected;
  expected.Append(input.size(0));
  expected.Append(input.size(1));
  expected.Append(grid.size(1));
  expected.Append(grid.size(2));
  return CheckOutputShape(args[kOut]->to_tensor(), expected, kernel);
}

Error RunGridSampler2d(KernelContext& /*context*/, KernelArgs args) {
  const Tensor& input = args[kInput]->to_tensor();
  const Tensor& grid = args[kGrid]->to_tensor();
  const int64_t interpolation = args[kInterpolation]->to_int();
  const int64_t padding = args[kPadding]->to_int();
  const bool align_corners = args[kAlignCorners]->to_bool();
  const int64_t batch = input.size(0);
  const int64_t channels = input.size(1);
  const int64_t height = input.size(2);
  const int64_t width = input.size(3);
  const int64_t out_height = grid.size(1);
  const int64_t out_width = grid.size(2);
  const int64_t plane = height * width;
  const int64_t out_plane = out_height * out_width;
  const float* in = input.data_ptr<float>();
  const float* g = grid.data_ptr<float>();
  float* out = args[kOut]->to_tensor().mutable_data_ptr<float>();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t p = 0; p < out_plane; ++p) {
      const float* point = g + (n * out_plane + p) * 2;
      float ix = Unnormalize(point[0], width, align_corners);
      float iy = Unnormalize(point[1], height, align_corners);
      // Bicubic pads each tap; the other modes pad the sampling point.
      if (interpolation != kBicubic) {
        ix = ApplyPadding(ix, width, padding, align_corners);
        iy = ApplyPadding(iy, height, padding, align_corners);
      }
      for (int64_t c = 0; c < channels; ++c) {
        const Image image{in + (n * channels + c) * plane, height, width};
        float value = 0.0f;
        switch (interpolation) {
          case kBilinear:
            value = Bilinear(image, ix, iy);
            break;
          case kNearest:
            value = Nearest(image, ix, iy);
            break;
          default:
            value = Bicubic(image, ix, iy, padding, align_corners);
            break;
        }
        out[(n * channels + c) * out_plane + p] = value;
      }
    }
  }
  return Error::kOk;
}

}  // namespace torchir::runtime::portable
