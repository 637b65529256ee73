// Layouts inside a region: which order each rank is stored in, and which
// reinterpretations move no element.
#include "compiler/backend/layout.h"

#include <gtest/gtest.h>

namespace torchir::backend {
namespace {

using Dims = std::vector<int64_t>;

TEST(LayoutTest, ChannelsLastStoresThreeAndFourDimensionalTensorsWithChannelsInnermost) {
  EXPECT_EQ(PhysicalPermutation(Layout::kChannelsLast, 4), (Dims{0, 2, 3, 1}));
  EXPECT_EQ(PhysicalPermutation(Layout::kChannelsLast, 3), (Dims{0, 2, 1}));
  EXPECT_EQ(PhysicalPermutation(Layout::kChannelsLast, 2), (Dims{0, 1}));
  EXPECT_EQ(PhysicalPermutation(Layout::kChannelsLast, 5), (Dims{0, 1, 2, 3, 4}));
  EXPECT_EQ(PhysicalPermutation(Layout::kLogical, 4), (Dims{0, 1, 2, 3}));
  EXPECT_EQ(PhysicalDims({1, 3, 224, 200}, Layout::kChannelsLast), (Dims{1, 224, 200, 3}));
  EXPECT_EQ(PhysicalDims({1, 3, 224, 200}, Layout::kLogical), (Dims{1, 3, 224, 200}));
  EXPECT_EQ(InversePermutation({0, 2, 3, 1}), (Dims{0, 3, 1, 2}));
  EXPECT_TRUE(IsIdentityPermutation({}));
  EXPECT_FALSE(IsIdentityPermutation({1, 0}));
}

TEST(LayoutTest, NeedsCombineUnlessTheyConflict) {
  LayoutNeed combined;
  EXPECT_TRUE(CombineNeeds(LayoutNeed::kAny, LayoutNeed::kChannelsLast, &combined));
  EXPECT_EQ(combined, LayoutNeed::kChannelsLast);
  EXPECT_TRUE(CombineNeeds(LayoutNeed::kLogical, LayoutNeed::kAny, &combined));
  EXPECT_EQ(combined, LayoutNeed::kLogical);
  EXPECT_FALSE(CombineNeeds(LayoutNeed::kLogical, LayoutNeed::kChannelsLast, &combined));
  EXPECT_TRUE(Satisfies(Layout::kChannelsLast, LayoutNeed::kAny));
  EXPECT_FALSE(Satisfies(Layout::kLogical, LayoutNeed::kChannelsLast));
}

TEST(LayoutTest, PermutingOnlySizeOneDimsKeepsTheOrder) {
  EXPECT_TRUE(PermutationKeepsOrder({1, 8, 1, 1}, {0, 2, 3, 1}));
  EXPECT_TRUE(PermutationKeepsOrder({4, 1, 1, 1}, {0, 2, 3, 1}));
  EXPECT_FALSE(PermutationKeepsOrder({1, 8, 2, 1}, {0, 2, 3, 1}));
  EXPECT_TRUE(PermutationKeepsOrder({5, 6}, {0, 1}));
}

TEST(LayoutTest, BroadcastOperandsKeepTheirOrderWhenOnlyOneDimIsReal) {
  // [W] against [N, C, H, W]: broadcast view [1, 1, 1, W] is stored [1, 1, W, 1].
  EXPECT_TRUE(BroadcastKeepsOrder({5}, 4, Layout::kChannelsLast));
  // [H, W] -> stored [1, H, W, 1]: H before W either way.
  EXPECT_TRUE(BroadcastKeepsOrder({4, 5}, 4, Layout::kChannelsLast));
  // [C, 1, 1] (a 3-d tensor, stored [C, 1, 1]) -> stored [1, 1, 1, C].
  EXPECT_TRUE(BroadcastKeepsOrder({3, 1, 1}, 4, Layout::kChannelsLast));
  // [C, H, W] -> [H, W, C]: a transpose.
  EXPECT_FALSE(BroadcastKeepsOrder({3, 4, 5}, 4, Layout::kChannelsLast));
  EXPECT_TRUE(BroadcastKeepsOrder({3, 4, 5}, 4, Layout::kLogical));
  // A channels-last 4-d operand of a logical 5-d result.
  EXPECT_FALSE(BroadcastKeepsOrder({2, 3, 4, 5}, 5, Layout::kChannelsLast));
}

TEST(LayoutTest, ReshapesThatKeepChannelsLastOrder) {
  EXPECT_TRUE(ReshapeKeepsOrder({2, 8, 1, 1}, {2, 8}, Layout::kChannelsLast));
  EXPECT_TRUE(ReshapeKeepsOrder({2, 8}, {2, 8, 1, 1}, Layout::kChannelsLast));
  EXPECT_TRUE(ReshapeKeepsOrder({2, 8, 4, 4}, {2, 8, 16}, Layout::kChannelsLast));
  EXPECT_TRUE(ReshapeKeepsOrder({2, 8, 16}, {2, 8, 2, 8}, Layout::kChannelsLast));
  EXPECT_FALSE(ReshapeKeepsOrder({2, 8, 4, 4}, {2, 128}, Layout::kChannelsLast));
  EXPECT_FALSE(ReshapeKeepsOrder({2, 8, 4, 4}, {2, 4, 8, 4}, Layout::kChannelsLast));
  EXPECT_TRUE(ReshapeKeepsOrder({2, 8, 4, 4}, {2, 128}, Layout::kLogical));
}

}  // namespace
}  // namespace torchir::backend
