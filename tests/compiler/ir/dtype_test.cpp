#include "compiler/ir/dtype.h"

#include <gtest/gtest.h>

namespace torchir::ir {
namespace {

TEST(DTypeTest, NamesRoundTripForEveryDType) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto dtype = static_cast<DType>(i);
    std::optional<DType> parsed = ParseDType(DTypeName(dtype));
    ASSERT_TRUE(parsed.has_value()) << DTypeName(dtype);
    EXPECT_EQ(*parsed, dtype);
    EXPECT_EQ(ParseDType("torch." + std::string(DTypeName(dtype))), dtype);
  }
}

TEST(DTypeTest, AcceptsPyTorchAliasesAndRejectsUnknown) {
  EXPECT_EQ(ParseDType("torch.float"), DType::kFloat32);
  EXPECT_EQ(ParseDType("torch.long"), DType::kInt64);
  EXPECT_EQ(ParseDType("half"), DType::kFloat16);
  EXPECT_FALSE(ParseDType("float33").has_value());
  EXPECT_FALSE(ParseDType("").has_value());
  EXPECT_FALSE(ParseDType("torch.").has_value());
}

TEST(DTypeTest, SizesMatchPyTorch) {
  EXPECT_EQ(DTypeSize(DType::kFloat32), 4u);
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kBool), 1u);
  EXPECT_EQ(DTypeSize(DType::kComplex128), 16u);
  EXPECT_EQ(DTypeSize(DType::kInt64), 8u);
}

TEST(DTypeTest, TorchScalarTypeCodes) {
  EXPECT_EQ(DTypeFromTorchScalarType(6), DType::kFloat32);
  EXPECT_EQ(DTypeFromTorchScalarType(4), DType::kInt64);
  EXPECT_EQ(DTypeFromTorchScalarType(11), DType::kBool);
  EXPECT_EQ(DTypeFromTorchScalarType(15), DType::kBFloat16);
  EXPECT_FALSE(DTypeFromTorchScalarType(99).has_value());
  EXPECT_FALSE(DTypeFromTorchScalarType(-1).has_value());
}

TEST(DTypeTest, Categories) {
  EXPECT_TRUE(IsFloatingPoint(DType::kFloat16));
  EXPECT_FALSE(IsFloatingPoint(DType::kInt32));
  EXPECT_TRUE(IsIntegral(DType::kUInt8));
  EXPECT_FALSE(IsIntegral(DType::kBool));
}

}  // namespace
}  // namespace torchir::ir
