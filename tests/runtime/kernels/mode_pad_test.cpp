// edge.pad (mode_pad.cpp): reflect, replicate and circular padding against LibTorch's at::pad,
// on ranks 1 to 5 and several dtypes; and the init-time check against malformed calls.
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

Operand In(DType dtype, Shape sizes) { return {TypeOf(dtype, std::move(sizes)), std::nullopt}; }

struct Case {
  Shape input;
  Shape pad;
};

TEST(ModePadKernelTest, MatchesLibTorchInEveryMode) {
  // at::pad's non-constant modes pad the trailing 1-3 dims of a tensor with 1-2 more in front.
  const std::vector<Case> cases = {
      {{2, 5}, {1, 2}},           {{2, 5}, {0, 0}},          {{1, 3, 6}, {2, 3}},
      {{2, 3, 4, 5}, {1, 1, 2, 3}}, {{1, 2, 4, 5}, {0, 3, 1, 0}}, {{1, 2, 3, 4, 5}, {1, 2, 0, 1, 2, 1}},
      {{2, 3, 1}, {0, 0}},        {{1, 2, 3, 3}, {2, 2, 2, 2}}};
  for (const char* mode : {"reflect", "replicate", "circular"}) {
    for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kFloat16}) {
      for (const Case& c : cases) {
        SCOPED_TRACE(std::string(mode) + " " + std::string(ir::DTypeName(dtype)) + " pad size " +
                     std::to_string(c.pad.size()) + " rank " + std::to_string(c.input.size()));
        auto graph = OpGraph("edge.pad", {In(dtype, c.input)},
                             {{"pad", A::IntList(c.pad)}, {"mode", A::String(mode)}});
        ASSERT_NE(graph, nullptr);
        EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 5, -9, 9, -9, 9))));
      }
    }
  }
}

// Worked by hand: [1 2 3] padded by (2, 2).
TEST(ModePadKernelTest, PlacesEveryElementAsPyTorchDoes) {
  const std::vector<std::pair<const char*, std::vector<int32_t>>> expected = {
      {"reflect", {3, 2, 1, 2, 3, 2, 1}},
      {"replicate", {1, 1, 1, 2, 3, 3, 3}},
      {"circular", {2, 3, 1, 2, 3, 1, 2}}};
  for (const auto& [mode, values] : expected) {
    auto graph = OpGraph("edge.pad", {In(DType::kInt32, {1, 3})},
                         {{"pad", A::IntList({2, 2})}, {"mode", A::String(mode)}});
    ASSERT_NE(graph, nullptr);
    KernelOnlyResult r = RunKernelOnly(
        *graph, {HostTensorOf(TypeOf(DType::kInt32, {1, 3}), std::vector<int32_t>{1, 2, 3})});
    ASSERT_EQ(r.run, runtime::Error::kOk) << mode;
    EXPECT_EQ(ValuesOf<int32_t>(r.outputs[0]), values) << mode;
  }
}

TEST(ModePadKernelTest, RefusesWhatTheModeCannotFill) {
  auto pad = [](Shape input, Shape pads, const char* mode, Shape out) {
    auto graph = OpGraph("edge.pad", {In(DType::kFloat32, std::move(input))},
                         {{"pad", A::IntList(std::move(pads))}, {"mode", A::String(mode)}},
                         TypeOf(DType::kFloat32, std::move(out)));
    return CheckKernel(*graph);
  };
  EXPECT_EQ(pad({2, 3}, {2, 2}, "reflect", {2, 7}), runtime::Error::kOk);
  EXPECT_NE(pad({2, 3}, {3, 0}, "reflect", {2, 6}), runtime::Error::kOk);  // pad = size
  EXPECT_EQ(pad({2, 3}, {3, 3}, "circular", {2, 9}), runtime::Error::kOk);
  EXPECT_NE(pad({2, 3}, {4, 0}, "circular", {2, 7}), runtime::Error::kOk);  // pad > size
  EXPECT_EQ(pad({2, 3}, {9, 9}, "replicate", {2, 21}), runtime::Error::kOk);
  EXPECT_NE(pad({2, 0}, {1, 0}, "replicate", {2, 1}), runtime::Error::kOk);  // empty dim
  EXPECT_NE(pad({2, 3}, {-1, 0}, "replicate", {2, 2}), runtime::Error::kOk);  // negative
  EXPECT_NE(pad({2, 3}, {1, 1}, "constant", {2, 5}), runtime::Error::kOk);   // not a mode here
  EXPECT_NE(pad({2, 3}, {1, 1, 1}, "reflect", {2, 5}), runtime::Error::kOk);  // odd
  EXPECT_NE(pad({2, 3}, {1, 1}, "reflect", {2, 6}), runtime::Error::kOk);     // wrong out
  EXPECT_NE(pad({3}, {0, 0, 1, 1}, "reflect", {5}), runtime::Error::kOk);     // past the rank
}

}  // namespace
}  // namespace torchir::testing
