#include "compiler/ir/checked_math.h"

#include <gtest/gtest.h>

#include <limits>

#include "compiler/ir/tensor_limits.h"

namespace torchir::ir {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedMathTest, SignedArithmeticReportsOverflow) {
  int64_t out = 0;
  EXPECT_TRUE(CheckedAdd(kMax - 1, 1, &out));
  EXPECT_EQ(out, kMax);
  EXPECT_FALSE(CheckedAdd(kMax, 1, &out));
  EXPECT_FALSE(CheckedAdd(kMin, -1, &out));
  EXPECT_TRUE(CheckedSub(0, kMax, &out));
  EXPECT_EQ(out, -kMax);
  EXPECT_FALSE(CheckedSub(0, kMin, &out));
  EXPECT_TRUE(CheckedMul(int64_t{1} << 31, int64_t{1} << 31, &out));
  EXPECT_EQ(out, int64_t{1} << 62);
  EXPECT_FALSE(CheckedMul(int64_t{1} << 32, int64_t{1} << 31, &out));
  EXPECT_FALSE(CheckedMul(kMin, int64_t{-1}, &out));
}

TEST(CheckedMathTest, UnsignedArithmeticReportsWrapAround) {
  uint64_t out = 0;
  EXPECT_FALSE(CheckedAdd(std::numeric_limits<uint64_t>::max(), uint64_t{1}, &out));
  EXPECT_FALSE(CheckedMul(uint64_t{1} << 32, uint64_t{1} << 32, &out));
  EXPECT_TRUE(CheckedMul(uint64_t{1} << 31, uint64_t{1} << 32, &out));
  EXPECT_EQ(out, uint64_t{1} << 63);
}

TEST(CheckedMathTest, ProductRefusesNegativeSizesAndOverflow) {
  int64_t out = 0;
  EXPECT_TRUE(CheckedProduct({}, &out));
  EXPECT_EQ(out, 1);
  EXPECT_TRUE(CheckedProduct({2, 3, 0}, &out));
  EXPECT_EQ(out, 0);
  EXPECT_FALSE(CheckedProduct({2, -3}, &out));
  EXPECT_FALSE(CheckedProduct({int64_t{1} << 32, int64_t{1} << 32}, &out));
}

TEST(TensorLimitsTest, SizeProblemsAreNamed) {
  EXPECT_EQ(TensorSizeProblem({DType::kFloat32, {1, 3, 224, 224}}), "");
  EXPECT_EQ(TensorSizeProblem({DType::kFloat32, {}}), "");
  EXPECT_EQ(TensorSizeProblem({DType::kFloat32, {2, -1}}), "size -1 of dim 1 is negative");
  EXPECT_EQ(TensorSizeProblem({DType::kFloat32, {kMax, 2}}), "its element count overflows 64 bits");
  // 2^60 elements fit int64; 2^63 bytes of float64 exceed the 2^62-byte limit.
  EXPECT_EQ(TensorSizeProblem({DType::kFloat64, {int64_t{1} << 60}}),
            "its byte size exceeds the limit of 2^62 bytes per tensor");
  EXPECT_EQ(TensorSizeProblem({DType::kBool, {int64_t{1} << 62}}), "");
}

}  // namespace
}  // namespace torchir::ir
