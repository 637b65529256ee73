#include "tools/pipeline/graph_memory_plan.h"

#include <gtest/gtest.h>

#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "memory_planner/checker.h"

namespace torchir::pipeline {
namespace {

ir::TensorType F32(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kFloat32, std::move(sizes)};
}

// x[1,256] -> clamp -> reshape[16,16] -> neg -> output; 1 KiB per tensor. The
// planner reads no attributes, so the nodes carry none.
class GraphMemoryPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x = graph.AddInput("x", F32({1, 256}));
    clamp = graph.AppendNode("clamp", "edge.clamp", {x}, {"clamp"}, {F32({1, 256})});
    view = graph.AppendNode("view", "edge.reshape", {clamp->output()}, {"view"}, {F32({16, 16})});
    neg = graph.AppendNode("neg", "edge.neg", {view->output()}, {"neg"}, {F32({16, 16})});
    graph.AddOutput(neg->output());
  }
  ir::Graph graph;
  ir::Value* x = nullptr;
  ir::Node *clamp = nullptr, *view = nullptr, *neg = nullptr;
};

// The Edge table says which ops' outputs are views (OutputStorage::kViewOfInput0):
// edge.reshape's is, edge.clamp's and edge.neg's are not.
TEST_F(GraphMemoryPlanTest, ViewOutputsShareTheirSourceStorage) {
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->buffer_values.size(), 4u);
  const auto& placements = plan->result.plan.placements;
  // Buffers: x, clamp, view, neg (in that order).
  EXPECT_EQ(plan->problem.buffers[1].base, memory_planner::kNoBuffer);
  EXPECT_EQ(plan->problem.buffers[2].base, 1);
  EXPECT_EQ(plan->problem.buffers[3].base, memory_planner::kNoBuffer);
  EXPECT_EQ(placements[1].offset, placements[2].offset);
  EXPECT_TRUE(memory_planner::CheckPlan(plan->problem, plan->result.plan).empty());
}

TEST_F(GraphMemoryPlanTest, PlanReachesTheLowerBound) {
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // x and clamp are live together at the first node; clamp's storage (shared by
  // the view) and neg at the last. Two 1 KiB blocks at any time.
  EXPECT_EQ(plan->report.lower_bound_bytes, 2048u);
  EXPECT_EQ(plan->report.planned_bytes, 2048u);
  EXPECT_EQ(plan->report.naive_bytes, 3u * 1024u);
}

TEST_F(GraphMemoryPlanTest, ReadOverrunBytesPadTheBuffersOfTheNodeThatAsks) {
  // A backend says the neg node may read 16 bytes past its buffers.
  neg->SetAttr("read_overrun_bytes", ir::AttrValue::Int(16));
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // Buffers: x, clamp, view, neg. neg's input is the view, its output neg.
  EXPECT_EQ(plan->problem.buffers[0].extra_bytes, 0u);
  EXPECT_EQ(plan->problem.buffers[1].extra_bytes, 0u);
  EXPECT_EQ(plan->problem.buffers[2].extra_bytes, 16u);
  EXPECT_EQ(plan->problem.buffers[3].extra_bytes, 16u);
  EXPECT_TRUE(memory_planner::CheckPlan(plan->problem, plan->result.plan).empty());
  // The view's padding is reserved inside its base's block, so the pair no
  // longer fits in 2 KiB.
  EXPECT_GT(plan->report.planned_bytes, 2048u);
}

// Every Edge op's output shares input 0's storage exactly when its table row says
// kViewOfInput0, and a view then really lands on its source's bytes.
TEST(GraphMemoryPlanTableTest, OutputsAliasTheirInputExactlyWhenTheTableSaysView) {
  size_t views = 0;
  for (const dialect::EdgeOpDef& def : dialect::EdgeOps()) {
    SCOPED_TRACE(def.name);
    ir::Graph graph;
    ir::Value* x = graph.AddInput("x", F32({64}));
    ir::Node* first = graph.AppendNode("first", "edge.neg", {x}, {"first"}, {F32({64})});
    ir::Node* node = graph.AppendNode("node", def.name, {first->output()}, {"node"}, {F32({64})});
    ir::Node* last = graph.AppendNode("last", "edge.neg", {node->output()}, {"last"}, {F32({64})});
    graph.AddOutput(last->output());
    absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
    ASSERT_TRUE(plan.ok()) << plan.status();
    // Buffers: x, first, node, last.
    const bool view = def.output_storage == dialect::OutputStorage::kViewOfInput0;
    views += view ? 1 : 0;
    EXPECT_EQ(plan->problem.buffers[2].base, view ? 1 : memory_planner::kNoBuffer);
    const auto& placements = plan->result.plan.placements;
    if (view) {
      EXPECT_EQ(placements[2].offset, placements[1].offset);
    }
    // Not a view: `first` is still read while `node` is written, so they cannot overlap.
    if (!view) {
      EXPECT_NE(placements[2].offset, placements[1].offset);
    }
    EXPECT_TRUE(memory_planner::CheckPlan(plan->problem, plan->result.plan).empty());
  }
  EXPECT_GE(views, 1u);  // edge.reshape
}

// Whether two placed byte ranges share a byte.
bool Overlap(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

// x[1024] -> neg -> big[1024] -> neg -> small[256] -> delegate call (4 KiB scratch) -> d[256]
// -> neg -> out[256]. x and big are dead when the delegate runs: its scratch takes their bytes,
// never those of small or d, which are live then.
TEST(GraphMemoryPlanScratchTest, ScratchSharesBytesWithDeadTensorsOnly) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({1024}));
  ir::Node* big = graph.AppendNode("big", "edge.neg", {x}, {"big"}, {F32({1024})});
  ir::Node* small = graph.AppendNode("small", "edge.neg", {big->output()}, {"small"}, {F32({256})});
  ir::Node* call =
      graph.AppendNode("call", dialect::kDelegateCallOp, {small->output()}, {"d"}, {F32({256})});
  call->SetAttr(dialect::kDelegateIndexAttr, ir::AttrValue::Int(0));
  call->SetAttr(dialect::kDelegateScratchAttr, ir::AttrValue::Int(4096));
  ir::Node* out = graph.AppendNode("out", "edge.neg", {call->output()}, {"out"}, {F32({256})});
  graph.AddOutput(out->output());

  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->buffer_values.size(), 5u);  // x, big, small, d, out: values only
  ASSERT_EQ(plan->scratch.size(), 1u);
  const GraphMemoryPlan::Scratch& scratch = plan->scratch[0];
  EXPECT_EQ(scratch.node, call);
  EXPECT_EQ(scratch.bytes, 4096u);
  ASSERT_EQ(scratch.buffer, 5);
  const memory_planner::Buffer& buffer = plan->problem.buffers[5];
  EXPECT_EQ(buffer.first_use, 2);  // the delegate call's instruction, and no other
  EXPECT_EQ(buffer.last_use, 2);
  EXPECT_EQ(buffer.alignment, 64u);
  EXPECT_EQ(buffer.name, "call.scratch");
  EXPECT_TRUE(memory_planner::CheckPlan(plan->problem, plan->result.plan).empty());

  // The peak is x + big (8 KiB) at the first node; small + d + scratch (6 KiB) fit under it,
  // so the arena needs less than the peak plus the scratch.
  EXPECT_LT(plan->report.planned_bytes, 8192u + 4096u);
  const auto& at = plan->result.plan.placements;
  auto overlaps = [&](size_t id) {
    return Overlap(at[5].offset, 4096, at[id].offset, plan->problem.buffers[id].size);
  };
  EXPECT_TRUE(overlaps(0) || overlaps(1)) << "the scratch takes no dead tensor's bytes";
  EXPECT_FALSE(overlaps(2)) << "the scratch overlaps the call's live input";
  EXPECT_FALSE(overlaps(3)) << "the scratch overlaps the call's live output";
}

TEST(GraphMemoryPlanScratchTest, CallsWithoutTheAttributeGetNoScratch) {
  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({16}));
  ir::Node* call = graph.AppendNode("call", dialect::kDelegateCallOp, {x}, {"d"}, {F32({16})});
  call->SetAttr(dialect::kDelegateIndexAttr, ir::AttrValue::Int(0));
  graph.AddOutput(call->output());
  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->scratch.empty());
  EXPECT_EQ(plan->problem.buffers.size(), 2u);
}

// Two residual blocks as delegate calls: x -> neg -> a; conv1(a) -> b; add1(b, a) -> c;
// conv2(c) -> d; add2(d, c) -> e; neg(e) -> out. The adds may write over their residual
// (input 1, dialect::kDelegateInPlaceInputAttr). 1 KiB per tensor.
class GraphMemoryPlanInPlaceTest : public ::testing::Test {
 protected:
  ir::Node* Call(const std::string& name, std::vector<ir::Value*> inputs,
                 std::vector<int64_t> sizes = {256}) {
    ir::Node* node = graph.AppendNode(name, dialect::kDelegateCallOp, std::move(inputs),
                                      {name + "_out"}, {F32(std::move(sizes))});
    node->SetAttr(dialect::kDelegateIndexAttr, ir::AttrValue::Int(0));
    return node;
  }
  ir::Node* Add(const std::string& name, ir::Value* x, ir::Value* residual,
                std::vector<int64_t> sizes = {256}) {
    ir::Node* node = Call(name, {x, residual}, std::move(sizes));
    node->SetAttr(dialect::kDelegateInPlaceInputAttr, ir::AttrValue::Int(1));
    return node;
  }
  // The buffer id of `value` in `plan`.
  static memory_planner::BufferId Id(const GraphMemoryPlan& plan, const ir::Value* value) {
    for (size_t id = 0; id < plan.buffer_values.size(); ++id) {
      if (plan.buffer_values[id] == value) return static_cast<memory_planner::BufferId>(id);
    }
    return memory_planner::kNoBuffer;
  }
  absl::StatusOr<GraphMemoryPlan> Plan() {
    absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(graph);
    if (plan.ok()) {
      const std::vector<std::string> problems =
          memory_planner::CheckPlan(plan->problem, plan->result.plan);
      EXPECT_TRUE(problems.empty()) << problems.front();
    }
    return plan;
  }
  uint64_t Offset(const GraphMemoryPlan& plan, const ir::Value* value) {
    return plan.result.plan.placements[static_cast<size_t>(Id(plan, value))].offset;
  }

  ir::Graph graph;
  ir::Value* x = graph.AddInput("x", F32({256}));
  ir::Value* a = graph.AppendNode("a", "edge.neg", {x}, {"a"}, {F32({256})})->output();
};

TEST_F(GraphMemoryPlanInPlaceTest, ResidualBlocksWriteOverTheirResidual) {
  ir::Value* b = Call("conv1", {a})->output();
  ir::Value* c = Add("add1", b, a)->output();
  ir::Value* d = Call("conv2", {c})->output();
  ir::Value* e = Add("add2", d, c)->output();
  graph.AddOutput(graph.AppendNode("out", "edge.neg", {e}, {"out"}, {F32({256})})->output());
  absl::StatusOr<GraphMemoryPlan> plan = Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->in_place_outputs, 2u);
  EXPECT_EQ(plan->problem.buffers[static_cast<size_t>(Id(*plan, c))].base, Id(*plan, a));
  EXPECT_EQ(plan->problem.buffers[static_cast<size_t>(Id(*plan, e))].base, Id(*plan, c));
  EXPECT_EQ(Offset(*plan, c), Offset(*plan, a));
  EXPECT_EQ(Offset(*plan, e), Offset(*plan, a));
  // Each add's other input (b, d) is live beside the shared bytes: two tensors at most once x
  // is dead, where separate outputs needed three at the adds.
  EXPECT_EQ(plan->report.planned_bytes, 2048u);
}

TEST_F(GraphMemoryPlanInPlaceTest, AResidualReadLaterKeepsItsBytes) {
  ir::Value* b = Call("conv1", {a})->output();
  ir::Value* c = Add("add1", b, a)->output();
  ir::Node* later = Call("later", {c, a});  // reads a after add1
  graph.AddOutput(later->output());
  absl::StatusOr<GraphMemoryPlan> plan = Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->in_place_outputs, 0u);
  EXPECT_EQ(plan->problem.buffers[static_cast<size_t>(Id(*plan, c))].base,
            memory_planner::kNoBuffer);
  EXPECT_NE(Offset(*plan, c), Offset(*plan, a));
}

TEST_F(GraphMemoryPlanInPlaceTest, AViewOfTheResidualReadLaterKeepsItsBytes) {
  ir::Value* view =
      graph.AppendNode("view", "edge.reshape", {a}, {"view"}, {F32({16, 16})})->output();
  ir::Value* b = Call("conv1", {a})->output();
  ir::Value* c = Add("add1", b, a)->output();
  graph.AddOutput(Call("later", {c, view})->output());
  absl::StatusOr<GraphMemoryPlan> plan = Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->in_place_outputs, 0u);
}

TEST_F(GraphMemoryPlanInPlaceTest, TheCallersTensorsAreNeverWrittenOver) {
  // The residual is the graph input x; then a graph output read after the add.
  ir::Value* b = Call("conv1", {x})->output();
  graph.AddOutput(Add("add1", b, x)->output());
  graph.AddOutput(a);
  ir::Value* c = Call("conv2", {a})->output();
  graph.AddOutput(Add("add2", c, a)->output());
  absl::StatusOr<GraphMemoryPlan> plan = Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->in_place_outputs, 0u);
}

TEST_F(GraphMemoryPlanInPlaceTest, RefusedForTwiceReadInputsOtherSizesAndBadIndices) {
  ir::Value* b = Call("conv1", {a})->output();
  ir::Value* twice = Add("twice", a, a)->output();  // the residual is also the other input
  ir::Value* smaller = Add("smaller", b, twice, {128})->output();
  ir::Node* bad = Add("bad", smaller, b, {128});
  bad->SetAttr(dialect::kDelegateInPlaceInputAttr, ir::AttrValue::Int(5));
  graph.AddOutput(bad->output());
  absl::StatusOr<GraphMemoryPlan> plan = Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->in_place_outputs, 0u);
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
