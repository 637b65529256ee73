#include "tools/pipeline/graph_memory_plan.h"

#include <gtest/gtest.h>

#include "memory_planner/checker.h"

namespace torchir::pipeline {
namespace {

ir::TensorType F32(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kFloat32, std::move(sizes)};
}

// x[1,256] -> relu -> relu_ (in place) -> view[16,16] -> neg -> output;
// 1 KiB per tensor.
class GraphMemoryPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x = graph.AddInput("x", F32({1, 256}));
    relu = graph.AppendNode("relu", "aten.relu.default", {x}, {"relu"}, {F32({1, 256})});
    inplace = graph.AppendNode("relu_", "aten.relu_.default", {relu->output()}, {"relu_"},
                               {F32({1, 256})});
    view = graph.AppendNode("view", "aten.view.default", {inplace->output()}, {"view"},
                            {F32({16, 16})});
    neg = graph.AppendNode("neg", "aten.neg.default", {view->output()}, {"neg"}, {F32({16, 16})});
    graph.AddOutput(neg->output());
  }
  ir::Graph graph;
  ir::Value* x = nullptr;
  ir::Node *relu = nullptr, *inplace = nullptr, *view = nullptr, *neg = nullptr;
};

TEST_F(GraphMemoryPlanTest, InPlaceAndViewOutputsShareTheirSourceStorage) {
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->buffer_values.size(), 5u);
  const auto& placements = plan->result.plan.placements;
  // Buffers: x, relu, relu_, view, neg (in that order).
  EXPECT_EQ(plan->problem.buffers[2].base, 1);
  EXPECT_EQ(plan->problem.buffers[3].base, 2);
  EXPECT_EQ(placements[1].offset, placements[2].offset);
  EXPECT_EQ(placements[2].offset, placements[3].offset);
  EXPECT_TRUE(memory_planner::CheckPlan(plan->problem, plan->result.plan).empty());
}

TEST_F(GraphMemoryPlanTest, PlanReachesTheLowerBound) {
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // x and relu are live together at the first node; relu's storage (shared by
  // relu_ and view) and neg at the last. Two 1 KiB blocks at any time.
  EXPECT_EQ(plan->report.lower_bound_bytes, 2048u);
  EXPECT_EQ(plan->report.planned_bytes, 2048u);
  EXPECT_EQ(plan->report.naive_bytes, 3u * 1024u);
}

TEST_F(GraphMemoryPlanTest, ReadOverrunBytesPadTheBuffersOfTheNodeThatAsks) {
  // A backend says the neg node may read 16 bytes past its buffers.
  neg->SetAttr("read_overrun_bytes", ir::AttrValue::Int(16));
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // Buffers: x, relu, relu_, view, neg. neg's input is the view, its output neg.
  EXPECT_EQ(plan->problem.buffers[0].extra_bytes, 0u);
  EXPECT_EQ(plan->problem.buffers[1].extra_bytes, 0u);
  EXPECT_EQ(plan->problem.buffers[3].extra_bytes, 16u);
  EXPECT_EQ(plan->problem.buffers[4].extra_bytes, 16u);
  EXPECT_TRUE(memory_planner::CheckPlan(plan->problem, plan->result.plan).empty());
  // The view's padding is reserved inside its base's block, so the pair no
  // longer fits in 2 KiB.
  EXPECT_GT(plan->report.planned_bytes, 2048u);
}

TEST(GraphMemoryPlanEmpty, AGraphWithoutNodesPlansItsInputs) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({4}));
  graph.AddOutput(x);
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->report.planned_bytes, 16u);  // at offset 0: alignment costs nothing
}

}  // namespace
}  // namespace torchir::pipeline
