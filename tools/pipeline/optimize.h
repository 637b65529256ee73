// The third pipeline stage: the Edge optimisation passes, in their fixed order.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "passes/pass_statistics.h"

namespace torchir::pipeline {

struct OptimizeOptions {
  // Pass names after which to print the graph (--dump-graph-after).
  std::vector<std::string> dump_graph_after;
  std::ostream* dump_stream = nullptr;  // std::cerr when null
  // Run the Edge verifier after every pass (always on in debug builds).
  bool verify_each_pass = false;
};

// The passes, in order:
//   1. to a fixed point: remove_noop_ops, fold_constants,
//      common_subexpression_elimination, dead_code_elimination;
//   2. fold_batch_norm, then fuse_activation (a clamp after a folded batch norm
//      meets its convolution only once the batch norm is gone);
//   3. dead_code_elimination, deduplicate_constants.
std::vector<std::string> OptimizationPassNames();

// Runs the pipeline on an Edge graph; `statistics` (optional) receives one row per
// pass run. Errors name the pass.
absl::Status OptimizeEdgeGraph(ir::Graph& graph, const OptimizeOptions& options,
                               std::vector<passes::PassStatistics>* statistics = nullptr);

}  // namespace torchir::pipeline
