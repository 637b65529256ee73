// edge.upsample_bilinear2d (upsample.cpp) against LibTorch's at::upsample_bilinear2d: up and
// down, corners aligned or not, with and without a given scale; and the init-time
// check against malformed calls.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_harness.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;
using A = ir::AttrValue;

Operand In(Shape sizes) { return {TypeOf(DType::kFloat32, std::move(sizes)), std::nullopt}; }

struct Case {
  Shape input;
  Shape output_size;
  double scale_h, scale_w;  // 0: none
};

TEST(UpsampleBilinearKernelTest, MatchesLibTorch) {
  const std::vector<Case> cases = {
      {{1, 2, 5, 7}, {10, 14}, 0, 0}, {{2, 3, 4, 4}, {3, 9}, 0, 0},
      {{1, 1, 6, 5}, {2, 2}, 0, 0},   {{1, 2, 5, 7}, {12, 17}, 2.5, 2.5},
      {{1, 2, 4, 3}, {1, 1}, 0, 0},   {{3, 4, 6, 2}, {8, 11}, 0, 0},
      {{1, 1, 1, 1}, {4, 3}, 0, 0},   {{1, 2, 5, 7}, {5, 7}, 0, 0}};
  for (bool align_corners : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(align_corners ? "aligned " : "") + "rank " +
                   std::to_string(c.input.size()) + " to " + std::to_string(c.output_size[0]) +
                   "x" + std::to_string(c.output_size[1]));
      auto graph = OpGraph("edge.upsample_bilinear2d", {In(c.input)},
                           {{"output_size", A::IntList(c.output_size)},
                            {"align_corners", A::Bool(align_corners)},
                            {"scales_h", A::Double(c.scale_h)},
                            {"scales_w", A::Double(c.scale_w)}});
      ASSERT_NE(graph, nullptr);
      EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 7, -3, 3, -3, 3))));
    }
  }
}

// Worked by hand: [0 2] to 4 wide samples at 0, 0.25, 0.75, 1 of the step (pixel centres).
TEST(UpsampleBilinearKernelTest, SamplesPixelCentres) {
  auto graph = OpGraph("edge.upsample_bilinear2d", {In({1, 1, 1, 2})},
                       {{"output_size", A::IntList({1, 4})},
                        {"align_corners", A::Bool(false)},
                        {"scales_h", A::Double(0)},
                        {"scales_w", A::Double(0)}});
  ASSERT_NE(graph, nullptr);
  KernelOnlyResult r = RunKernelOnly(
      *graph, {HostTensorOf(TypeOf(DType::kFloat32, {1, 1, 1, 2}), std::vector<float>{0, 2})});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<float>(r.outputs[0]), (std::vector<float>{0, 0.5f, 1.5f, 2}));
}

TEST(UpsampleBilinearKernelTest, RefusesMalformedCalls) {
  auto check = [](Shape input, Shape size, Shape out) {
    auto graph = OpGraph("edge.upsample_bilinear2d", {In(std::move(input))},
                         {{"output_size", A::IntList(std::move(size))},
                          {"align_corners", A::Bool(false)},
                          {"scales_h", A::Double(0)},
                          {"scales_w", A::Double(0)}},
                         TypeOf(DType::kFloat32, std::move(out)));
    return CheckKernel(*graph);
  };
  EXPECT_EQ(check({1, 1, 2, 2}, {4, 4}, {1, 1, 4, 4}), runtime::Error::kOk);
  EXPECT_NE(check({1, 1, 2, 2}, {4, 4}, {1, 1, 4, 5}), runtime::Error::kOk);  // wrong out
  EXPECT_NE(check({1, 1, 2, 2}, {4}, {1, 1, 4, 4}), runtime::Error::kOk);     // one size
  EXPECT_NE(check({1, 1, 2, 2}, {0, 4}, {1, 1, 0, 4}), runtime::Error::kOk);  // empty out
  EXPECT_NE(check({1, 1, 0, 2}, {4, 4}, {1, 1, 4, 4}), runtime::Error::kOk);  // empty in
  EXPECT_NE(check({1, 4, 4}, {4, 4}, {1, 4, 4}), runtime::Error::kOk);        // rank 3
}

}  // namespace
}  // namespace torchir::testing
