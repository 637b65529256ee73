#include "compiler/ir/graph.h"

#include <gtest/gtest.h>

#include <limits>

namespace torchir::ir {
namespace {

TensorType F32(std::vector<int64_t> sizes) { return TensorType{DType::kFloat32, std::move(sizes)}; }

// x -> relu -> add(relu, w) -> output
class GraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x = graph.AddInput("x", F32({2, 3}));
    w = graph.AddWeight("p_w", "w", F32({3}));
    relu = graph.AppendNode("relu", "aten.relu.default", {x}, {"relu"}, {F32({2, 3})});
    add = graph.AppendNode("add", "aten.add.Tensor", {relu->output(), w}, {"add"}, {F32({2, 3})});
    graph.AddOutput(add->output());
  }
  Graph graph;
  Value* x = nullptr;
  Value* w = nullptr;
  Node* relu = nullptr;
  Node* add = nullptr;
};

TEST_F(GraphTest, UseDefLinksAreRecorded) {
  EXPECT_EQ(relu->output()->producer(), relu);
  ASSERT_EQ(x->uses().size(), 1u);
  EXPECT_EQ(x->uses()[0].user, relu);
  EXPECT_EQ(w->uses()[0].index, 1);
  EXPECT_EQ(w->kind(), ValueKind::kWeight);
  EXPECT_EQ(w->state_dict_key(), "w");
  EXPECT_TRUE(add->output()->is_graph_output());
  EXPECT_TRUE(graph.CheckInvariants().empty());
}

TEST_F(GraphTest, NodesIterateInTopologicalOrder) {
  std::vector<std::string> names;
  for (Node* node : graph.nodes()) names.push_back(node->name());
  EXPECT_EQ(names, (std::vector<std::string>{"relu", "add"}));
  EXPECT_EQ(relu->next(), add);
  EXPECT_EQ(add->prev(), relu);
  EXPECT_EQ(add->next(), nullptr);
}

TEST_F(GraphTest, ReplaceAllUsesWithUpdatesInputsAndGraphOutputs) {
  Node* neg = graph.InsertNodeAfter(add, "neg", "aten.neg.default", {x}, {"neg"}, {F32({2, 3})});
  graph.ReplaceAllUsesWith(add->output(), neg->output());
  EXPECT_EQ(graph.outputs()[0], neg->output());
  EXPECT_FALSE(add->output()->is_graph_output());
  graph.ReplaceAllUsesWith(relu->output(), x);
  EXPECT_EQ(add->input(0), x);
  EXPECT_FALSE(relu->output()->has_uses());
  EXPECT_EQ(x->uses().size(), 3u);
  EXPECT_TRUE(graph.CheckInvariants().empty());
}

TEST_F(GraphTest, EraseNodeRemovesItsUsesAndOutputs) {
  graph.ReplaceAllUsesWith(relu->output(), x);
  graph.EraseNode(relu);
  EXPECT_EQ(graph.num_nodes(), 1u);
  EXPECT_EQ(graph.FindNode("relu"), nullptr);
  EXPECT_EQ(graph.FindValue("relu"), nullptr);
  EXPECT_EQ(x->uses().size(), 1u);
  EXPECT_EQ(x->uses()[0].user, add);
  EXPECT_TRUE(graph.CheckInvariants().empty());
}

TEST_F(GraphTest, ErasingAUsedNodeDies) {
  EXPECT_DEATH(graph.EraseNode(relu), "in use");
}

TEST_F(GraphTest, InsertBeforeKeepsOrderAndNamesStayUnique) {
  Node* abs = graph.InsertNodeBefore(add, graph.UniqueNodeName("relu"), "aten.abs.default",
                                     {relu->output()}, {graph.UniqueValueName("relu")},
                                     {F32({2, 3})});
  EXPECT_EQ(abs->name(), "relu_1");
  EXPECT_EQ(abs->output()->name(), "relu_1");
  add->ReplaceInput(0, abs->output());
  EXPECT_EQ(relu->next(), abs);
  EXPECT_TRUE(graph.CheckInvariants().empty());
}

TEST_F(GraphTest, RemoveInputShiftsLaterUses) {
  Node* cat = graph.AppendNode("cat", "aten.cat.default", {x, relu->output(), x}, {"cat"},
                               {F32({6, 3})});
  cat->RemoveInput(0);
  ASSERT_EQ(cat->num_inputs(), 2u);
  EXPECT_EQ(cat->input(1), x);
  bool found = false;
  for (const Use& use : x->uses()) found = found || (use.user == cat && use.index == 1);
  EXPECT_TRUE(found);
  EXPECT_TRUE(graph.CheckInvariants().empty());
}

TEST_F(GraphTest, CheckInvariantsFindsOutOfOrderNodes) {
  graph.MoveBefore(add, relu);
  std::vector<std::string> problems = graph.CheckInvariants();
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("before its producer"), std::string::npos);
}

TEST_F(GraphTest, AttributesKeepInsertionOrderAndReplace) {
  add->SetAttr("alpha", AttrValue::Int(1));
  add->SetAttr("beta", AttrValue::Int(2));
  add->SetAttr("alpha", AttrValue::Double(0.5));
  ASSERT_EQ(add->attrs().size(), 2u);
  EXPECT_EQ(add->attrs()[0].first, "alpha");
  EXPECT_EQ(add->FindAttr("alpha")->as_double(), 0.5);
  EXPECT_TRUE(add->RemoveAttr("beta"));
  EXPECT_FALSE(add->HasAttr("beta"));
}

TEST(TensorTypeTest, NumelBytesAndText) {
  EXPECT_EQ(F32({}).numel(), 1);
  EXPECT_EQ(F32({2, 0, 3}).numel(), 0);
  EXPECT_EQ(F32({2, 3}).nbytes(), 24u);
  EXPECT_EQ(F32({1, 3}).ToString(), "float32[1, 3]");
  TensorType huge{DType::kFloat64, {1LL << 40, 1LL << 40}};
  EXPECT_EQ(huge.numel(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(huge.nbytes(), std::numeric_limits<size_t>::max());
}

TEST(TensorDataTest, CopyOwnsItsBytes) {
  std::vector<uint8_t> bytes = {1, 2, 3};
  TensorData data = TensorData::Copy(bytes.data(), bytes.size());
  bytes[0] = 9;
  EXPECT_EQ(data.size(), 3u);
  EXPECT_EQ(data.data()[0], 1);
}

}  // namespace
}  // namespace torchir::ir
