#include "tools/verify/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace torchir::verify {
namespace {

using ir::DType;
using reference::HostTensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
HostTensor Tensor(DType dtype, std::vector<int64_t> sizes, const std::vector<T>& values) {
  return {{dtype, std::move(sizes)},
          ir::TensorData::Copy(values.data(), values.size() * sizeof(T))};
}

HostTensor Floats(const std::vector<float>& values) {
  return Tensor(DType::kFloat32, {static_cast<int64_t>(values.size())}, values);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(CompareTest, EqualTensorsPassWithZeroError) {
  Comparison c = Compare(Floats({1, 2, 3}), Floats({1, 2, 3}), {});
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.max_abs_error, 0.0);
  EXPECT_EQ(c.max_rel_error, 0.0);
}

TEST(CompareTest, ToleranceIsAtolPlusRtolTimesExpected) {
  // |a - e| <= atol + rtol * |e|: for e = 100, atol 0.1 and rtol 0.01 allow 1.1.
  Tolerance tolerance{0.1, 0.01};
  EXPECT_TRUE(Compare(Floats({101.0f}), Floats({100.0f}), tolerance).passed);
  EXPECT_TRUE(Compare(Floats({98.95f}), Floats({100.0f}), tolerance).passed);
  EXPECT_FALSE(Compare(Floats({101.2f}), Floats({100.0f}), tolerance).passed);
  // The rule is asymmetric, like torch.allclose: rtol scales the expected value.
  EXPECT_FALSE(Compare(Floats({0.0f}), Floats({1.0f}), {0.0, 0.5}).passed);
  EXPECT_TRUE(Compare(Floats({1.0f}), Floats({2.0f}), {0.0, 0.5}).passed);
}

TEST(CompareTest, ReportsMaxErrorsAndFirstMismatch) {
  HostTensor actual = Tensor(DType::kFloat32, {2, 2}, std::vector<float>{1, 2, 3.5f, 4.25f});
  HostTensor expected = Tensor(DType::kFloat32, {2, 2}, std::vector<float>{1, 2, 3, 4});
  Comparison c = Compare(actual, expected, {0.1, 0.0});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.elements, 4);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(c.max_rel_error, 0.5 / 3);
  EXPECT_THAT(c.first_mismatch, ElementsAre(1, 0));
  EXPECT_EQ(c.first_actual, 3.5);
  EXPECT_EQ(c.first_expected, 3.0);
  EXPECT_EQ(Describe(c),
            "max abs error 0.5, max rel error 0.166667; 2 of 4 element(s) outside tolerance, "
            "first at [1, 0]: got 3.5, expected 3");
}

TEST(CompareTest, NaNMatchesOnlyNaN) {
  EXPECT_TRUE(Compare(Floats({kNaN, 1}), Floats({kNaN, 1}), {}).passed);
  EXPECT_FALSE(Compare(Floats({kNaN}), Floats({1}), {}).passed);
  EXPECT_FALSE(Compare(Floats({1}), Floats({kNaN}), {1e9, 1e9}).passed);
}

TEST(CompareTest, InfinityMatchesOnlyTheSameInfinity) {
  EXPECT_TRUE(Compare(Floats({kInf, -kInf}), Floats({kInf, -kInf}), {}).passed);
  EXPECT_FALSE(Compare(Floats({kInf}), Floats({-kInf}), {}).passed);
  EXPECT_FALSE(Compare(Floats({3e38f}), Floats({kInf}), {1e9, 1e9}).passed);
}

TEST(CompareTest, RelativeErrorAgainstZeroIsInfinite) {
  Comparison c = Compare(Floats({1e-7f}), Floats({0.0f}), {1e-5, 0.0});
  EXPECT_TRUE(c.passed);
  EXPECT_TRUE(std::isinf(c.max_rel_error));
}

TEST(CompareTest, IntegersMustMatchExactlyWhateverTheTolerance) {
  HostTensor a = Tensor(DType::kInt64, {2}, std::vector<int64_t>{(int64_t{1} << 53) + 1, 5});
  HostTensor b = Tensor(DType::kInt64, {2}, std::vector<int64_t>{int64_t{1} << 53, 5});
  // The two first values are equal as doubles; only the bits tell them apart.
  EXPECT_FALSE(Compare(a, b, {10.0, 10.0}).passed);
  EXPECT_TRUE(Compare(b, b, {0.0, 0.0}).passed);
  HostTensor t = Tensor(DType::kBool, {2}, std::vector<uint8_t>{1, 0});
  HostTensor f = Tensor(DType::kBool, {2}, std::vector<uint8_t>{1, 1});
  EXPECT_FALSE(Compare(t, f, {1.0, 1.0}).passed);
}

TEST(CompareTest, HalfAndBFloat16AreDecoded) {
  // 1.0 and 1.5 in binary16 and bfloat16.
  HostTensor half = Tensor(DType::kFloat16, {2}, std::vector<uint16_t>{0x3c00, 0x3e00});
  HostTensor half_expected = Tensor(DType::kFloat16, {2}, std::vector<uint16_t>{0x3c00, 0x3c00});
  Comparison c = Compare(half, half_expected, {0.0, 0.0});
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  HostTensor bf16 = Tensor(DType::kBFloat16, {1}, std::vector<uint16_t>{0x3fc0});
  HostTensor bf16_expected = Tensor(DType::kBFloat16, {1}, std::vector<uint16_t>{0x3f80});
  EXPECT_DOUBLE_EQ(Compare(bf16, bf16_expected, {}).max_abs_error, 0.5);
}

// float64 is held to min(tolerance, float64_atol/rtol): a float64 result off by one float32
// rounding (6e-8 relative) fails the float32-sized tolerance a caller passes, while float32
// data off by the same amount passes it.
TEST(CompareTest, Float64IsHeldToItsOwnTighterTolerance) {
  const double third = 1.0 / 3.0;
  const double third_in_float = static_cast<float>(third);
  HostTensor f64 = Tensor(DType::kFloat64, {1}, std::vector<double>{third_in_float});
  HostTensor f64_expected = Tensor(DType::kFloat64, {1}, std::vector<double>{third});
  EXPECT_FALSE(Compare(f64, f64_expected, {1e-5, 1e-4}).passed);
  EXPECT_TRUE(Compare(f64, f64_expected, {1e-5, 1e-4, 1e-7, 1e-7}).passed);
  HostTensor f64_close = Tensor(DType::kFloat64, {1}, std::vector<double>{third + 1e-14});
  EXPECT_TRUE(Compare(f64_close, f64_expected, {1e-5, 1e-4}).passed);
  // A caller's tighter tolerance still applies.
  EXPECT_FALSE(Compare(f64_close, f64_expected, {0, 0}).passed);
  EXPECT_TRUE(Compare(Floats({static_cast<float>(third) * (1 + 1e-7f)}),
                      Floats({static_cast<float>(third)}), {1e-5, 1e-4})
                  .passed);
}

TEST(CompareTest, ComplexElementsFailOnceEvenIfBothPartsDiffer) {
  HostTensor a = Tensor(DType::kComplex64, {2}, std::vector<float>{1, 1, 5, 5});
  HostTensor b = Tensor(DType::kComplex64, {2}, std::vector<float>{1, 1, 0, 0});
  Comparison c = Compare(a, b, {});
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_THAT(c.first_mismatch, ElementsAre(1));
}

TEST(CompareTest, DTypeOrShapeDifferenceIsAProblem) {
  HostTensor ints = Tensor(DType::kInt32, {2}, std::vector<int32_t>{1, 2});
  Comparison c = Compare(ints, Floats({1, 2}), {});
  EXPECT_FALSE(c.passed);
  EXPECT_THAT(c.problem, HasSubstr("dtype differs: got int32, expected float32"));
  c = Compare(Floats({1, 2}), Floats({1, 2, 3}), {});
  EXPECT_FALSE(c.passed);
  EXPECT_THAT(Describe(c), HasSubstr("shape differs: got float32[2], expected float32[3]"));
}

TEST(CompareTest, EmptyTensorsPass) { EXPECT_TRUE(Compare(Floats({}), Floats({}), {}).passed); }

}  // namespace
}  // namespace torchir::verify
