#include "passes/op_properties.h"

#include <gtest/gtest.h>

#include "tests/support/graph_builder.h"

namespace torchir::passes {
namespace {

using testing::F32;
using testing::GraphBuilder;

TEST(InPlaceAtenOp, TrailingUnderscoreMeansInPlace) {
  EXPECT_TRUE(IsInPlaceAtenOp("aten.add_.Tensor"));
  EXPECT_TRUE(IsInPlaceAtenOp("aten.relu_.default"));
  EXPECT_TRUE(IsInPlaceAtenOp("aten._foreach_add_.Scalar"));
  EXPECT_FALSE(IsInPlaceAtenOp("aten.add.Tensor"));
  EXPECT_FALSE(IsInPlaceAtenOp("aten._softmax.default"));
}

TEST(InPlaceAtenOp, DunderOpsAreInPlaceOnlyWithTheIPrefix) {
  EXPECT_TRUE(IsInPlaceAtenOp("aten.__iand__.Tensor"));
  EXPECT_FALSE(IsInPlaceAtenOp("aten.__and__.Tensor"));
}

TEST(InPlaceAtenOp, OtherNamespacesAreNotAten) {
  EXPECT_FALSE(IsInPlaceAtenOp("edge.add_"));
  EXPECT_FALSE(IsInPlaceAtenOp("custom.relu_.default"));
}

class DefaultOpPropertiesTest : public ::testing::Test {
 protected:
  bool IsPure(const std::string& op, int num_outputs = 1) {
    std::vector<ir::TensorType> types(num_outputs, F32({2}));
    return properties_.IsPure(*builder_.Op(op, {x_}).Emit(types));
  }

  DefaultOpProperties properties_;
  GraphBuilder builder_;
  ir::Value* x_ = builder_.Input("x", F32({2}));
};

TEST_F(DefaultOpPropertiesTest, FunctionalOpsArePure) {
  EXPECT_TRUE(IsPure("aten.relu.default"));
  EXPECT_TRUE(IsPure("aten.max.dim", 2));
  EXPECT_TRUE(IsPure("edge.conv2d"));
}

TEST_F(DefaultOpPropertiesTest, InPlaceOpsAreImpure) {
  EXPECT_FALSE(IsPure("aten.relu_.default"));
  EXPECT_FALSE(IsPure("aten.__ior__.Tensor"));
}

TEST_F(DefaultOpPropertiesTest, OutOverloadsAreImpure) { EXPECT_FALSE(IsPure("aten.add.out")); }

TEST_F(DefaultOpPropertiesTest, NodesWithoutOutputsAreImpure) {
  EXPECT_FALSE(IsPure("aten._assert_async.msg", 0));
}

TEST_F(DefaultOpPropertiesTest, RandomOpsAreImpure) {
  EXPECT_FALSE(IsPure("aten.rand_like.default"));
  EXPECT_FALSE(IsPure("aten.dropout.default"));
  EXPECT_FALSE(IsPure("aten.bernoulli.p"));
}

TEST_F(DefaultOpPropertiesTest, NothingIsCommutative) {
  ir::Value* y = builder_.Input("y", F32({2}));
  EXPECT_FALSE(
      properties_.IsCommutative(*builder_.Op("aten.mul.Tensor", {x_, y}).Emit({F32({2})})));
}

TEST(GetDefaultOpProperties, ReturnsOneSharedInstance) {
  EXPECT_EQ(&GetDefaultOpProperties(), &GetDefaultOpProperties());
}

}  // namespace
}  // namespace torchir::passes
