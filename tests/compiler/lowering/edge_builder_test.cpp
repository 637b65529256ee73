// EdgeBuilder: nodes checked against the Edge table as they are made, and operands of a dtype
// an op does not take computed in the wider dtype PyTorch's CPU kernels use.
#include "compiler/lowering/edge_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace torchir::lowering {
namespace {

using ir::DType;

std::vector<std::string> Ops(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node* node : graph.nodes()) ops.push_back(node->op());
  return ops;
}

TEST(EdgeBuilderTest, Float32OperandsGoStraightToTheOp) {
  ir::Graph graph;
  EdgeBuilder builder(&graph);
  ir::Value* a = graph.AddInput("a", {DType::kFloat32, {2, 3}});
  ir::Value* b = graph.AddInput("b", {DType::kFloat32, {2, 3}});
  auto sum = builder.Emit1("edge.add", {a, b});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(Ops(graph), std::vector<std::string>{"edge.add"});
  EXPECT_EQ((*sum)->dtype(), DType::kFloat32);
}

TEST(EdgeBuilderTest, ReducedFloatsComputeInFloat32AndRoundBack) {
  for (DType narrow : {DType::kBFloat16, DType::kFloat16}) {
    ir::Graph graph;
    EdgeBuilder builder(&graph);
    ir::Value* a = graph.AddInput("a", {narrow, {4}});
    ir::Value* b = graph.AddInput("b", {narrow, {4}});
    auto sum = builder.Emit1("edge.add", {a, b});
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(Ops(graph),
              (std::vector<std::string>{"edge.cast", "edge.cast", "edge.add", "edge.cast"}));
    EXPECT_EQ((*sum)->dtype(), narrow);
    const ir::Node* add = (*sum)->producer()->input(0)->producer();
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->op(), "edge.add");
    EXPECT_EQ(add->input(0)->dtype(), DType::kFloat32);
    EXPECT_EQ(add->input(1)->dtype(), DType::kFloat32);
  }
}

TEST(EdgeBuilderTest, NarrowIntegersComputeInInt32) {
  ir::Graph graph;
  EdgeBuilder builder(&graph);
  ir::Value* a = graph.AddInput("a", {DType::kInt8, {5}});
  auto negated = builder.Emit1("edge.neg", {a});
  ASSERT_TRUE(negated.ok()) << negated.status();
  EXPECT_EQ(Ops(graph), (std::vector<std::string>{"edge.cast", "edge.neg", "edge.cast"}));
  EXPECT_EQ((*negated)->dtype(), DType::kInt8);
  EXPECT_EQ((*negated)->producer()->input(0)->dtype(), DType::kInt32);
}

TEST(EdgeBuilderTest, OutputsOfAFixedDtypeAreNotCastBack) {
  ir::Graph graph;
  EdgeBuilder builder(&graph);
  ir::Value* a = graph.AddInput("a", {DType::kFloat16, {3}});
  ir::Value* b = graph.AddInput("b", {DType::kFloat16, {3}});
  auto equal = builder.Emit1("edge.eq", {a, b});
  ASSERT_TRUE(equal.ok()) << equal.status();
  EXPECT_EQ(Ops(graph), (std::vector<std::string>{"edge.cast", "edge.cast", "edge.eq"}));
  EXPECT_EQ((*equal)->dtype(), DType::kBool);
}

TEST(EdgeBuilderTest, OpsThatTakeEveryDtypeAreLeftAlone) {
  ir::Graph graph;
  EdgeBuilder builder(&graph);
  ir::Value* a = graph.AddInput("a", {DType::kBFloat16, {2, 3}});
  auto moved = builder.Emit1("edge.permute", {a}, {{"dims", ir::AttrValue::IntList({1, 0})}});
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(Ops(graph), std::vector<std::string>{"edge.permute"});
  EXPECT_EQ((*moved)->dtype(), DType::kBFloat16);
}

// float64 computes as itself where the op takes it, with no cast around it.
TEST(EdgeBuilderTest, Float64GoesStraightToAnOpThatTakesIt) {
  ir::Graph graph;
  EdgeBuilder builder(&graph);
  ir::Value* a = graph.AddInput("a", {DType::kFloat64, {2}});
  auto result = builder.Emit1("edge.sigmoid", {a});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Ops(graph), std::vector<std::string>{"edge.sigmoid"});
  EXPECT_EQ((*result)->dtype(), DType::kFloat64);
}

// No implicit promotion: float32 with float64 is an error, not a silent cast either way.
TEST(EdgeBuilderTest, MixedFloat32AndFloat64IsAnError) {
  ir::Graph graph;
  EdgeBuilder builder(&graph);
  ir::Value* a = graph.AddInput("a", {DType::kFloat32, {2}});
  ir::Value* b = graph.AddInput("b", {DType::kFloat64, {2}});
  EXPECT_FALSE(builder.Emit1("edge.add", {a, b}).ok());
}

// prelu has float32 kernels only, and float64 has no wider form to compute in.
TEST(EdgeBuilderTest, ADtypeWithNoWiderFormIsStillAnError) {
  ir::Graph graph;
  EdgeBuilder builder(&graph);
  ir::Value* a = graph.AddInput("a", {DType::kFloat64, {2}});
  ir::Value* weight = graph.AddInput("weight", {DType::kFloat32, {1}});
  auto result = builder.Emit1("edge.prelu", {a, weight});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(std::string(result.status().message()).find("float64"), std::string::npos)
      << result.status();
}

}  // namespace
}  // namespace torchir::lowering
