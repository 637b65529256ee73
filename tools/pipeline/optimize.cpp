#include "tools/pipeline/optimize.h"

#include <memory>

#include "compiler/dialect/edge_ops.h"
#include "passes/common_subexpression_elimination.h"
#include "passes/dead_code_elimination.h"
#include "passes/deduplicate_constants.h"
#include "passes/edge/edge_op_properties.h"
#include "passes/edge/fold_batch_norm.h"
#include "passes/edge/fold_constants.h"
#include "passes/edge/fuse_activation.h"
#include "passes/edge/remove_noop_ops.h"
#include "passes/pass_manager.h"

namespace torchir::pipeline {
namespace {

void AddPasses(passes::PassManager& manager) {
  manager.AddFixedPointGroup(passes::MakePassList(
      std::make_unique<passes::RemoveNoopOps>(), std::make_unique<passes::FoldConstants>(),
      std::make_unique<passes::CommonSubexpressionElimination>(),
      std::make_unique<passes::DeadCodeElimination>()));
  manager.Add(std::make_unique<passes::FoldBatchNorm>());
  manager.Add(std::make_unique<passes::FuseActivation>());
  manager.Add(std::make_unique<passes::DeadCodeElimination>());
  manager.Add(std::make_unique<passes::DeduplicateConstants>());
}

passes::PassManagerOptions ManagerOptions(const OptimizeOptions& options) {
  passes::PassManagerOptions manager_options;
  manager_options.op_properties = &passes::GetEdgeOpProperties();
  manager_options.verify_after_each_pass =
      options.verify_each_pass || passes::kVerifyPassesByDefault;
  manager_options.verifier = [](const ir::Graph& graph) { return dialect::VerifyEdgeGraph(graph); };
  manager_options.dump_graph_after = options.dump_graph_after;
  manager_options.dump_stream = options.dump_stream;
  return manager_options;
}

}  // namespace

std::vector<std::string> OptimizationPassNames() {
  passes::PassManager manager;
  AddPasses(manager);
  return manager.PassNames();
}

absl::Status OptimizeEdgeGraph(ir::Graph& graph, const OptimizeOptions& options,
                               std::vector<passes::PassStatistics>* statistics) {
  passes::PassManager manager(ManagerOptions(options));
  AddPasses(manager);
  absl::Status status = manager.Run(graph);
  if (statistics != nullptr) *statistics = manager.statistics();
  if (!status.ok()) return status;
  // The result must be a valid Edge graph whatever the verification setting.
  return dialect::VerifyEdgeGraph(graph);
}

}  // namespace torchir::pipeline
