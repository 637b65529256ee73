#include "passes/common_subexpression_elimination.h"

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
using testing::I64;
using testing::NodeNames;
using testing::RunPass;

// Two convolutions of x by w; `first` and `second` add their attributes.
struct TwoConvs {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 3, 8, 8}));
  ir::Value* w = b.Weight("w", F32({8, 3, 3, 3}));
};

TEST(CommonSubexpressionElimination, MergesIdenticalNodesAndRedirectsTheirUses) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* first = b.Op("aten.relu.default", {x}).Name("first").Out(F32({4}));
  ir::Value* second = b.Op("aten.relu.default", {x}).Name("second").Out(F32({4}));
  ir::Value* sum = b.Op("aten.add.Tensor", {first, second}).Name("sum").Out(F32({4}));
  b.Output(sum);
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  PassContext context = RunPass(cse, *graph);

  EXPECT_THAT(NodeNames(*graph), ElementsAre("first", "sum"));
  EXPECT_THAT(graph->FindNode("sum")->inputs(), ElementsAre(first, first));
  EXPECT_TRUE(context.changed());
  EXPECT_EQ(Counter(context, "nodes_merged"), 1);
}

TEST(CommonSubexpressionElimination, KeepsNodesWithDifferentAttributes) {
  TwoConvs t;
  ir::Value* a = t.b.Op("edge.conv2d", {t.x, t.w}).Attr("stride", {1, 1}).Out(F32({1, 8, 6, 6}));
  ir::Value* c = t.b.Op("edge.conv2d", {t.x, t.w}).Attr("stride", {2, 2}).Out(F32({1, 8, 6, 6}));
  t.b.Output(a);
  t.b.Output(c);
  auto graph = t.b.Build();

  CommonSubexpressionElimination cse;
  PassContext context = RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 2u);
  EXPECT_FALSE(context.changed());
}

TEST(CommonSubexpressionElimination, KeepsNodesWhereOnlyOneHasAnAttribute) {
  TwoConvs t;
  ir::Value* a = t.b.Op("edge.conv2d", {t.x, t.w}).Attr("groups", 1).Out(F32({1, 8, 6, 6}));
  ir::Value* c = t.b.Op("edge.conv2d", {t.x, t.w}).Out(F32({1, 8, 6, 6}));
  t.b.Output(a);
  t.b.Output(c);
  auto graph = t.b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 2u);
}

TEST(CommonSubexpressionElimination, IgnoresTheOrderOfAttributes) {
  TwoConvs t;
  ir::Value* a = t.b.Op("edge.conv2d", {t.x, t.w})
                     .Attr("stride", {1, 1})
                     .Attr("padding", {0, 0})
                     .Attr("groups", 1)
                     .Out(F32({1, 8, 6, 6}));
  ir::Value* c = t.b.Op("edge.conv2d", {t.x, t.w})
                     .Attr("groups", 1)
                     .Attr("padding", {0, 0})
                     .Attr("stride", {1, 1})
                     .Out(F32({1, 8, 6, 6}));
  t.b.Output(a);
  t.b.Output(c);
  auto graph = t.b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 1u);
  EXPECT_EQ(graph->outputs(), (std::vector<ir::Value*>{a, a}));
}

TEST(CommonSubexpressionElimination, TreatsNegativeAndPositiveZeroAttributesAsEqual) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* a = b.Op("aten.add.Scalar", {x}).Attr("other", 0.0).Out(F32({4}));
  ir::Value* c = b.Op("aten.add.Scalar", {x}).Attr("other", -0.0).Out(F32({4}));
  b.Output(a);
  b.Output(c);
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 1u);
}

TEST(CommonSubexpressionElimination, KeepsNodesWithDifferentInputs) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* y = b.Input("y", F32({4}));
  b.Output(b.Op("aten.relu.default", {x}).Out(F32({4})));
  b.Output(b.Op("aten.relu.default", {y}).Out(F32({4})));
  b.Output(b.Op("aten.sub.Tensor", {x, y}).Out(F32({4})));
  b.Output(b.Op("aten.sub.Tensor", {y, x}).Out(F32({4})));
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 4u);
}

TEST(CommonSubexpressionElimination, KeepsNodesWithDifferentOutputTypesOrOps) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Output(b.Op("aten.sum.default", {x}).Out(F32({})));
  b.Output(b.Op("aten.sum.default", {x}).Out(I64({})));
  b.Output(b.Op("aten.mean.default", {x}).Out(F32({})));
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 3u);
}

TEST(CommonSubexpressionElimination, KeepsNodesWithDifferentTensorListGrouping) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  ir::Value* y = b.Input("y", F32({2}));
  b.Output(b.Op("aten.cat.default", {x, y}).TensorListSizes({2}).Out(F32({4})));
  b.Output(b.Op("aten.cat.default", {x, y}).Out(F32({4})));
  b.Output(b.Op("aten.index.Tensor", {x, y})
               .TensorListSizes({1})
               .TensorListNoneMasks({{false}})
               .Out(F32({2})));
  b.Output(b.Op("aten.index.Tensor", {x, y})
               .TensorListSizes({1})
               .TensorListNoneMasks({{true, false}})
               .Out(F32({2})));
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 4u);
}

TEST(CommonSubexpressionElimination, LeavesImpureNodesAlone) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  b.Op("aten.relu_.default", {x}).Out(F32({4}));
  b.Op("aten.relu_.default", {x}).Out(F32({4}));
  b.Output(b.Op("aten.rand_like.default", {x}).Out(F32({4})));
  b.Output(b.Op("aten.rand_like.default", {x}).Out(F32({4})));
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  PassContext context = RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 4u);
  EXPECT_FALSE(context.changed());
}

TEST(CommonSubexpressionElimination, RedirectsEveryOutputOfAMultiOutputNode) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4, 3}));
  std::vector<ir::Value*> first =
      b.Op("aten.max.dim", {x}).Attr("dim", 1).Outs({F32({4}), I64({4})});
  std::vector<ir::Value*> second =
      b.Op("aten.max.dim", {x}).Attr("dim", 1).Outs({F32({4}), I64({4})});
  ir::Value* values = b.Op("aten.neg.default", {second[0]}).Name("neg").Out(F32({4}));
  b.Output(values);
  b.Output(second[1]);
  b.Output(first[0]);
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 2u);
  EXPECT_THAT(graph->FindNode("neg")->inputs(), ElementsAre(first[0]));
  EXPECT_EQ(graph->outputs(), (std::vector<ir::Value*>{values, first[1], first[0]}));
}

TEST(CommonSubexpressionElimination, CollapsesIdenticalChainsInOneRun) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* w = b.Weight("w", F32({4}));
  auto chain = [&](const std::string& prefix) {
    ir::Value* a = b.Op("aten.mul.Tensor", {x, w}).Name(prefix + "mul").Out(F32({4}));
    ir::Value* c = b.Op("aten.relu.default", {a}).Name(prefix + "relu").Out(F32({4}));
    return b.Op("aten.sum.dim_IntList", {c})
        .Attr("dim", std::vector<int64_t>{0})
        .Name(prefix + "sum")
        .Out(F32({}));
  };
  ir::Value* left = chain("left_");
  ir::Value* right = chain("right_");
  b.Output(b.Op("aten.add.Tensor", {left, right}).Name("add").Out(F32({})));
  b.Output(right);
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  PassContext context = RunPass(cse, *graph);

  EXPECT_THAT(NodeNames(*graph), ElementsAre("left_mul", "left_relu", "left_sum", "add"));
  EXPECT_THAT(graph->FindNode("add")->inputs(), ElementsAre(left, left));
  EXPECT_EQ(graph->outputs()[1], left);
  EXPECT_EQ(Counter(context, "nodes_merged"), 3);
}

// Says every "edge.add" is commutative.
struct AddIsCommutative : DefaultOpProperties {
  bool IsCommutative(const ir::Node& node) const override { return node.op() == "edge.add"; }
};

TEST(CommonSubexpressionElimination, MergesSwappedInputsOfCommutativeOps) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* y = b.Input("y", F32({4}));
  ir::Value* xy = b.Op("edge.add", {x, y}).Out(F32({4}));
  b.Output(xy);
  b.Output(b.Op("edge.add", {y, x}).Out(F32({4})));
  b.Output(b.Op("edge.sub", {x, y}).Out(F32({4})));
  b.Output(b.Op("edge.sub", {y, x}).Out(F32({4})));
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  AddIsCommutative properties;
  RunPass(cse, *graph, properties);

  EXPECT_EQ(graph->num_nodes(), 3u);
  EXPECT_EQ(graph->outputs()[1], xy);
}

TEST(CommonSubexpressionElimination, KeepsSwappedInputsWhenNotToldOfCommutativity) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* y = b.Input("y", F32({4}));
  b.Output(b.Op("edge.add", {x, y}).Out(F32({4})));
  b.Output(b.Op("edge.add", {y, x}).Out(F32({4})));
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), 2u);
}

TEST(CommonSubexpressionElimination, ScalesToManyDistinctNodes) {
  // 20000 distinct nodes plus a copy of each, all stacked: a pass comparing all pairs would make
  // 10^8 comparisons; the hashed one makes about one per node. (The sums read 200 inputs and
  // feed one node, as use lists and the graph outputs are scanned linearly by graph edits.)
  GraphBuilder b;
  std::vector<ir::Value*> inputs;
  for (int i = 0; i < 200; ++i) inputs.push_back(b.Input("x" + std::to_string(i), F32({4})));
  constexpr int kNodes = 20000;
  std::vector<ir::Value*> sums;
  for (int copy = 0; copy < 2; ++copy) {
    for (int i = 0; i < kNodes; ++i) {
      sums.push_back(b.Op("aten.sum.dim_IntList", {inputs[i % inputs.size()]})
                         .Attr("dim", i / static_cast<int>(inputs.size()))
                         .Out(F32({})));
    }
  }
  b.Output(b.Op("aten.stack.default", sums).TensorListSizes({2 * kNodes}).Out(F32({2 * kNodes})));
  auto graph = b.Build();

  CommonSubexpressionElimination cse;
  PassContext context = RunPass(cse, *graph);

  EXPECT_EQ(graph->num_nodes(), static_cast<size_t>(kNodes) + 1);
  EXPECT_EQ(Counter(context, "nodes_merged"), kNodes);
}

}  // namespace
}  // namespace torchir::passes
