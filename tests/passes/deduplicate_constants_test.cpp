#include "passes/deduplicate_constants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/passes/run_pass.h"
#include "tests/support/graph_builder.h"

namespace torchir::passes {
namespace {

using testing::Counter;
using testing::DataOf;
using ::testing::ElementsAre;
using testing::F32;
using testing::GraphBuilder;
using testing::I64;
using testing::RunPass;

TEST(DeduplicateConstants, MergesWeightsWithIdenticalBytes) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2}));
  ir::Value* w1 = b.Weight("w1", F32({2}), std::vector<float>{1, 2});
  ir::Value* w2 = b.Weight("w2", F32({2}), std::vector<float>{1, 2});
  ir::Value* w3 = b.Weight("w3", F32({2}), std::vector<float>{1, 3});
  ir::Value* a = b.Op("aten.mul.Tensor", {x, w1}).Out(F32({2}));
  ir::Value* c = b.Op("aten.mul.Tensor", {x, w2}).Name("uses_w2").Out(F32({2}));
  ir::Value* d = b.Op("aten.mul.Tensor", {x, w3}).Out(F32({2}));
  b.Output(a);
  b.Output(c);
  b.Output(d);
  b.Output(w2);
  auto graph = b.Build();

  DeduplicateConstants dedup;
  PassContext context = RunPass(dedup, *graph);

  EXPECT_THAT(graph->weights(), ElementsAre(w1, w3));
  EXPECT_THAT(graph->FindNode("uses_w2")->inputs(), ElementsAre(x, w1));
  EXPECT_EQ(graph->outputs()[3], w1);
  EXPECT_EQ(Counter(context, "leaves_merged"), 1);
}

TEST(DeduplicateConstants, KeepsLeavesThatDifferInShapeDTypeOrKind) {
  GraphBuilder b;
  std::vector<float> four = {1, 2, 3, 4};
  b.Output(b.Weight("flat", F32({4}), four));
  b.Output(b.Weight("square", F32({2, 2}), four));
  b.Output(b.Weight("as_ints", ir::TensorType{ir::DType::kInt32, {4}}, DataOf(four)));
  b.Output(b.Constant("constant", F32({4}), four));
  auto graph = b.Build();

  DeduplicateConstants dedup;
  PassContext context = RunPass(dedup, *graph);

  EXPECT_EQ(graph->weights().size(), 3u);
  EXPECT_EQ(graph->constants().size(), 1u);
  EXPECT_FALSE(context.changed());
}

TEST(DeduplicateConstants, MergesConstants) {
  GraphBuilder b;
  ir::Value* c1 = b.Constant("c1", I64({}), DataOf(std::vector<int64_t>{7}));
  b.Output(c1);
  b.Output(b.Constant("c2", I64({}), DataOf(std::vector<int64_t>{7})));
  auto graph = b.Build();

  DeduplicateConstants dedup;
  RunPass(dedup, *graph);

  EXPECT_THAT(graph->constants(), ElementsAre(c1));
  EXPECT_EQ(graph->outputs(), (std::vector<ir::Value*>{c1, c1}));
}

TEST(DeduplicateConstants, SkipsUnboundLeaves) {
  GraphBuilder b;
  b.Output(b.Weight("w1", F32({2})));
  b.Output(b.Weight("w2", F32({2})));
  auto graph = b.Build();

  DeduplicateConstants dedup;
  RunPass(dedup, *graph);

  EXPECT_EQ(graph->weights().size(), 2u);
}

TEST(DeduplicateConstants, SkipsLeavesAnImpureNodeReads) {
  // relu_ writes w2; merging it with w1 would change what mul reads.
  GraphBuilder b;
  ir::Value* w1 = b.Weight("w1", F32({2}), std::vector<float>{1, 2});
  ir::Value* w2 = b.Weight("w2", F32({2}), std::vector<float>{1, 2});
  b.Op("aten.relu_.default", {w2}).Out(F32({2}));
  b.Output(b.Op("aten.mul.Tensor", {w1, w2}).Out(F32({2})));
  auto graph = b.Build();

  DeduplicateConstants dedup;
  RunPass(dedup, *graph);

  EXPECT_EQ(graph->weights().size(), 2u);
}

TEST(DeduplicateConstants, KeepsTheFirstOfSeveralCopies) {
  GraphBuilder b;
  std::vector<ir::Value*> weights;
  for (int i = 0; i < 4; ++i) {
    weights.push_back(
        b.Weight("w" + std::to_string(i), F32({1}), std::vector<float>{static_cast<float>(i % 2)}));
    b.Output(weights.back());
  }
  auto graph = b.Build();

  DeduplicateConstants dedup;
  RunPass(dedup, *graph);

  EXPECT_THAT(graph->weights(), ElementsAre(weights[0], weights[1]));
  EXPECT_EQ(graph->outputs(),
            (std::vector<ir::Value*>{weights[0], weights[1], weights[0], weights[1]}));
}

}  // namespace
}  // namespace torchir::passes
