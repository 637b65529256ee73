// The portable edge.grid_sampler_2d kernel against LibTorch's at::grid_sampler_2d: every
// interpolation mode with every padding mode, both align_corners, grid points well outside
// [-1, 1] (the random grid spans [-2, 2)), more output than input points, and refused calls.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using runtime::Error;

std::unique_ptr<ir::Graph> GridSample(std::vector<int64_t> input, std::vector<int64_t> grid,
                                      int64_t interpolation, int64_t padding, bool align_corners,
                                      std::vector<int64_t> out) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32(input));
  ir::Value* g = b.Input("grid", F32(grid));
  b.Output(b.Op("edge.grid_sampler_2d", {x, g})
               .Attr("interpolation_mode", interpolation)
               .Attr("padding_mode", padding)
               .Attr("align_corners", align_corners)
               .Out(F32(out)));
  return b.Build();
}

// interpolation_mode, padding_mode, align_corners.
using Modes = std::tuple<int64_t, int64_t, bool>;

class GridSampler2dKernel : public ::testing::TestWithParam<Modes> {};

std::string ModesName(const ::testing::TestParamInfo<Modes>& info) {
  static const char* const kInterpolation[] = {"Bilinear", "Nearest", "Bicubic"};
  static const char* const kPadding[] = {"Zeros", "Border", "Reflection"};
  return std::string(kInterpolation[std::get<0>(info.param)]) + kPadding[std::get<1>(info.param)] +
         (std::get<2>(info.param) ? "AlignCorners" : "");
}

TEST_P(GridSampler2dKernel, MatchesLibTorch) {
  const auto [interpolation, padding, align_corners] = GetParam();
  const uint32_t seed =
      static_cast<uint32_t>(100 + interpolation * 10 + padding * 2 + align_corners);
  ExpectMatchesReference(
      *GridSample({2, 3, 5, 7}, {2, 4, 6, 2}, interpolation, padding, align_corners, {2, 3, 4, 6}),
      seed);
  // Upsampling-like: more points than pixels, a one-row image (reflection about one line).
  ExpectMatchesReference(
      *GridSample({1, 2, 1, 4}, {1, 9, 8, 2}, interpolation, padding, align_corners, {1, 2, 9, 8}),
      seed + 1000);
}

INSTANTIATE_TEST_SUITE_P(EveryMode, GridSampler2dKernel,
                         ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Values(0, 1, 2),
                                            ::testing::Bool()),
                         ModesName);

// Grid points at NaN, +-inf and far beyond int64: the kernel compares in float before any
// integer cast, so these never read out of bounds. With zeros padding the results are
// LibTorch's (NaN where a weight is NaN, 0 where every tap is outside); border and reflection
// clamp a NaN coordinate to a different edge pixel than LibTorch's vectorised clamps do, so
// there only the run itself is checked (any difference is in the values, not an error).
TEST_P(GridSampler2dKernel, NonFiniteAndHugeGridPointsStayInBounds) {
  const auto [interpolation, padding, align_corners] = GetParam();
  auto graph =
      GridSample({1, 2, 3, 4}, {1, 2, 4, 2}, interpolation, padding, align_corners, {1, 2, 2, 4});
  std::vector<reference::HostTensor> inputs = RandomInputs(*graph, 7);
  const float inf = std::numeric_limits<float>::infinity();
  const float points[16] = {std::nanf(""), 0.5f,   0.5f,  std::nanf(""), inf, 0.0f, -inf,  0.0f,
                            1e30f,         -1e30f, 0.25f, -inf,          inf, inf,  -0.5f, 1e20f};
  inputs[1].data = ir::TensorData::Copy(reinterpret_cast<const uint8_t*>(points), sizeof(points));
  absl::Status compared = CompareKernelWithReference(*graph, inputs);
  if (padding == 0) {
    EXPECT_TRUE(compared.ok()) << compared.message();
  } else if (!compared.ok()) {
    EXPECT_THAT(std::string(compared.message()), ::testing::HasSubstr("outside tolerance"));
  }
}

TEST(GridSampler2dKernelCheck, RefusesBadCalls) {
  // Unknown modes.
  ExpectRefused(*GridSample({1, 1, 4, 4}, {1, 2, 2, 2}, 3, 0, false, {1, 1, 2, 2}),
                Error::kInvalidProgram);
  ExpectRefused(*GridSample({1, 1, 4, 4}, {1, 2, 2, 2}, 0, -1, false, {1, 1, 2, 2}),
                Error::kInvalidProgram);
  // Grid batch differs, grid points not pairs, a 3-d input.
  ExpectRefused(*GridSample({2, 1, 4, 4}, {1, 2, 2, 2}, 0, 0, false, {2, 1, 2, 2}),
                Error::kInvalidProgram);
  ExpectRefused(*GridSample({1, 1, 4, 4}, {1, 2, 2, 3}, 0, 0, false, {1, 1, 2, 2}),
                Error::kInvalidProgram);
  ExpectRefused(*GridSample({1, 4, 4}, {1, 2, 2, 2}, 0, 0, false, {1, 1, 2, 2}),
                Error::kInvalidProgram);
  // An image without pixels (LibTorch refuses it too).
  ExpectRefused(*GridSample({1, 1, 0, 4}, {1, 2, 2, 2}, 0, 0, false, {1, 1, 2, 2}),
                Error::kInvalidProgram);
  // A wrong output shape.
  ExpectRefused(*GridSample({1, 1, 4, 4}, {1, 2, 3, 2}, 0, 0, false, {1, 1, 3, 2}),
                Error::kShapeMismatch);
}

}  // namespace
}  // namespace torchir::testing
