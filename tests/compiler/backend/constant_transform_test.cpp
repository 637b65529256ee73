// Repacking constants into XNNPACK's order, checked element by element.
#include "compiler/backend/constant_transform.h"

#include <gtest/gtest.h>

#include <cstring>

namespace torchir::backend {
namespace {

using Dims = std::vector<int64_t>;

std::vector<float> Iota(int64_t count) {
  std::vector<float> values(static_cast<size_t>(count));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  return values;
}

std::vector<float> Repack(const std::vector<float>& values, const ConstantTransform& transform) {
  ir::TensorData data = ApplyTransform(
      ir::TensorData::Copy(values.data(), values.size() * sizeof(float)), sizeof(float), transform);
  std::vector<float> result(data.size() / sizeof(float));
  if (!result.empty()) std::memcpy(result.data(), data.data(), data.size());
  return result;
}

TEST(ConstantTransformTest, ConvolutionFiltersBecomeOhwi) {
  const Dims oihw = {3, 2, 2, 4};  // O, I, kh, kw
  ConstantTransform transform = ConvolutionFilterTransform(oihw);
  EXPECT_EQ(transform.Dims(), (Dims{3, 2, 4, 2}));
  const std::vector<float> source = Iota(3 * 2 * 2 * 4);
  const std::vector<float> packed = Repack(source, transform);
  ASSERT_EQ(packed.size(), source.size());
  for (int o = 0; o < 3; ++o) {
    for (int i = 0; i < 2; ++i) {
      for (int h = 0; h < 2; ++h) {
        for (int w = 0; w < 4; ++w) {
          EXPECT_EQ(packed[((o * 2 + h) * 4 + w) * 2 + i], source[((o * 2 + i) * 2 + h) * 4 + w]);
        }
      }
    }
  }
}

TEST(ConstantTransformTest, OneDimensionalFiltersHaveHeightOne) {
  ConstantTransform transform = ConvolutionFilterTransform({3, 2, 5});  // O, I, k
  EXPECT_EQ(transform.Dims(), (Dims{3, 1, 5, 2}));
  const std::vector<float> packed = Repack(Iota(30), transform);
  // [o][0][k][i] = source[o][i][k]
  EXPECT_EQ(packed[(1 * 5 + 3) * 2 + 1], static_cast<float>((1 * 2 + 1) * 5 + 3));
}

TEST(ConstantTransformTest, DepthwiseFiltersPutChannelsLast) {
  ConstantTransform transform = DepthwiseFilterTransform({6, 1, 3, 3});  // C*m, 1, kh, kw
  EXPECT_EQ(transform.Dims(), (Dims{1, 3, 3, 6}));
  const std::vector<float> source = Iota(6 * 9);
  const std::vector<float> packed = Repack(source, transform);
  for (int c = 0; c < 6; ++c) {
    for (int k = 0; k < 9; ++k) EXPECT_EQ(packed[k * 6 + c], source[c * 9 + k]);
  }
  EXPECT_EQ(DepthwiseFilterTransform({4, 1, 5}).Dims(), (Dims{1, 1, 5, 4}));
}

TEST(ConstantTransformTest, ElementwiseOperandsFollowTheRegionLayout) {
  ConstantTransform nchw = OperandTransform({1, 2, 3, 4}, 4, Layout::kChannelsLast);
  EXPECT_EQ(nchw.Dims(), (Dims{1, 3, 4, 2}));
  const std::vector<float> packed = Repack(Iota(24), nchw);
  EXPECT_EQ(packed[(1 * 4 + 2) * 2 + 1], static_cast<float>((1 * 3 + 1) * 4 + 2));
  // Lower ranks are broadcast to the result's rank first: [C, 1, 1] -> [1, 1, 1, C].
  EXPECT_EQ(OperandTransform({5, 1, 1}, 4, Layout::kChannelsLast).Dims(), (Dims{1, 1, 1, 5}));
  EXPECT_EQ(OperandTransform({4}, 4, Layout::kChannelsLast).Dims(), (Dims{1, 1, 4, 1}));
  // Scalars and logical regions need nothing.
  EXPECT_TRUE(OperandTransform({}, 4, Layout::kChannelsLast).IsNoop({}));
  EXPECT_TRUE(OperandTransform({2, 3}, 2, Layout::kLogical).IsNoop({2, 3}));
}

TEST(ConstantTransformTest, UnboundDataStaysUnbound) {
  EXPECT_TRUE(ApplyTransform({}, 4, ConvolutionFilterTransform({2, 2, 1, 1})).empty());
}

}  // namespace
}  // namespace torchir::backend
