#include "passes/dead_code_elimination.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/passes/run_pass.h"
#include "tests/support/graph_builder.h"

namespace torchir::passes {
namespace {

using testing::Counter;
using ::testing::ElementsAre;
using testing::F32;
using testing::GraphBuilder;
using ::testing::IsEmpty;
using testing::NodeNames;
using testing::RunPass;

TEST(DeadCodeElimination, RemovesAWholeDeadChainInOneRun) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* live = b.Op("aten.relu.default", {x}).Name("live").Out(F32({4}));
  ir::Value* d1 = b.Op("aten.neg.default", {x}).Name("dead1").Out(F32({4}));
  ir::Value* d2 = b.Op("aten.exp.default", {d1}).Name("dead2").Out(F32({4}));
  b.Op("aten.add.Tensor", {d2, live}).Name("dead3").Out(F32({4}));
  b.Output(live);
  auto graph = b.Build();

  DeadCodeElimination dce;
  PassContext context = RunPass(dce, *graph);

  EXPECT_THAT(NodeNames(*graph), ElementsAre("live"));
  EXPECT_TRUE(context.changed());
  EXPECT_EQ(Counter(context, "nodes_erased"), 3);
}

TEST(DeadCodeElimination, KeepsGraphOutputsEvenWhenTheirOnlyUserIsDead) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* out = b.Op("aten.relu.default", {x}).Name("out").Out(F32({4}));
  b.Op("aten.neg.default", {out}).Name("dead").Out(F32({4}));
  b.Output(out);
  auto graph = b.Build();

  DeadCodeElimination dce;
  RunPass(dce, *graph);

  EXPECT_THAT(NodeNames(*graph), ElementsAre("out"));
  EXPECT_FALSE(graph->FindValue("out")->has_uses());
  EXPECT_EQ(graph->outputs(), std::vector<ir::Value*>{graph->FindValue("out")});
}

TEST(DeadCodeElimination, KeepsImpureNodesAndWhatTheyRead) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* y = b.Op("aten.exp.default", {x}).Name("feeds_in_place").Out(F32({4}));
  b.Op("aten.relu_.default", {y}).Name("in_place").Out(F32({4}));
  b.Op("aten._assert_async.msg", {x}).Name("assert").Emit();
  b.Output(x);
  auto graph = b.Build();

  DeadCodeElimination dce;
  PassContext context = RunPass(dce, *graph);

  EXPECT_THAT(NodeNames(*graph), ElementsAre("feeds_in_place", "in_place", "assert"));
  EXPECT_FALSE(context.changed());
}

TEST(DeadCodeElimination, RemovesUnusedWeightsAndConstantsButKeepsInputs) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  b.Input("unused_input", F32({2}));
  ir::Value* w = b.Weight("w", F32({2}), std::vector<float>{1, 2});
  b.Weight("unused_weight", F32({2}), std::vector<float>{3, 4});
  ir::Value* c = b.Constant("c", F32({2}), std::vector<float>{5, 6});
  b.Constant("unused_constant", F32({2}), std::vector<float>{7, 8});
  ir::Value* dead_only_user = b.Weight("read_by_dead_node", F32({2}));
  b.Op("aten.mul.Tensor", {x, dead_only_user}).Name("dead").Out(F32({2}));
  ir::Value* y = b.Op("aten.add.Tensor", {x, w}).Out(F32({2}));
  b.Output(y);
  b.Output(c);  // a constant returned as is stays
  auto graph = b.Build();

  DeadCodeElimination dce;
  PassContext context = RunPass(dce, *graph);

  EXPECT_EQ(graph->inputs().size(), 2u);
  EXPECT_EQ(graph->weights(), std::vector<ir::Value*>{w});
  EXPECT_EQ(graph->constants(), std::vector<ir::Value*>{c});
  EXPECT_EQ(Counter(context, "nodes_erased"), 1);
  EXPECT_EQ(Counter(context, "leaves_erased"), 3);
}

TEST(DeadCodeElimination, ConsultsTheGivenOpProperties) {
  // Properties that call every op impure: nothing may go.
  struct NothingIsPure : OpProperties {
    bool IsPure(const ir::Node&) const override { return false; }
    bool IsCommutative(const ir::Node&) const override { return false; }
  } nothing_is_pure;
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Op("aten.neg.default", {x}).Name("unused").Out(F32({4}));
  b.Output(x);
  auto graph = b.Build();

  DeadCodeElimination dce;
  RunPass(dce, *graph, nothing_is_pure);

  EXPECT_THAT(NodeNames(*graph), ElementsAre("unused"));
}

TEST(DeadCodeElimination, ReportsNoChangeOnALiveGraph) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(b.Op("aten.relu.default", {x}).Out(F32({4})));
  auto graph = b.Build();

  DeadCodeElimination dce;
  PassContext context = RunPass(dce, *graph);

  EXPECT_FALSE(context.changed());
  EXPECT_EQ(graph->num_nodes(), 1u);
}

TEST(DeadCodeElimination, EmptiesAGraphWithoutOutputs) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* w = b.Weight("w", F32({4}));
  b.Op("aten.add.Tensor", {x, w}).Out(F32({4}));
  auto graph = b.Build();

  DeadCodeElimination dce;
  RunPass(dce, *graph);

  EXPECT_EQ(graph->num_nodes(), 0u);
  EXPECT_THAT(graph->weights(), IsEmpty());
  EXPECT_EQ(graph->inputs().size(), 1u);
}

}  // namespace
}  // namespace torchir::passes
