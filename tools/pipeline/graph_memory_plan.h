// Plans the activation memory of a graph at its current stage, one instruction per node.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "memory_planner/buffer.h"
#include "memory_planner/report.h"

namespace torchir::pipeline {

struct GraphMemoryPlan {
  memory_planner::Problem problem;
  memory_planner::SuiteResult result;
  memory_planner::MemoryReport report;
  // buffer id -> the value it holds (views included). Ids from buffer_values.size() on
  // are delegate scratch (`scratch`).
  std::vector<const ir::Value*> buffer_values;
  // The working memory of delegate calls that declare it (kDelegateScratchAttr): one buffer
  // each, live during its call only.
  struct Scratch {
    const ir::Node* node = nullptr;
    memory_planner::BufferId buffer = memory_planner::kNoBuffer;
    uint64_t bytes = 0;
  };
  std::vector<Scratch> scratch;
  // The nodes in the order the lifetimes assume (instruction i is node_order[i]);
  // the emitter must execute them in this order.
  std::vector<const ir::Node*> node_order;
  // Peak live bytes of the graph's own node order and of the memory-aware order;
  // the plan uses the latter only when it is lower.
  uint64_t file_order_peak = 0;
  uint64_t memory_aware_peak = 0;
  bool reordered = false;
  // Delegate outputs written over an input's bytes (dialect::kDelegateInPlaceInputAttr).
  size_t in_place_outputs = 0;
  double planning_seconds = 0;
};

// Builds the planner's plain program from `graph` (node outputs and graph inputs are
// buffers, weights and constants are not; outputs of Edge ops whose table row says
// kViewOfInput0 share input 0's storage, getitem results their source's; a delegate call's
// declared scratch, dialect::kDelegateScratchAttr, is a buffer its call alone writes, so it
// lives during that call only and may share bytes with tensors dead then), computes
// lifetimes in node order (or a memory-aware order when it lowers the peak), lets a delegate
// call's output take over the input it names (dialect::kDelegateInPlaceInputAttr) when nothing
// reads that storage later and it is not the caller's, and plans one arena
// "activations" with 64-byte alignment, checking the plan with the independent
// checker.
absl::StatusOr<GraphMemoryPlan> PlanGraphMemory(const ir::Graph& graph);

}  // namespace torchir::pipeline
