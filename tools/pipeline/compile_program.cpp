#include "tools/pipeline/compile_program.h"

#include <utility>

#include "tools/pipeline/builtin_backends.h"
#include "tools/pipeline/lower.h"
#include "tools/pipeline/memory_limit.h"
#include "tools/pipeline/partition.h"

namespace torchir::pipeline {
namespace {

// The emitter's view of the plan: each planned buffer's value at its arena offset.
emit::EmitInput EmitInputFromPlan(const ir::Graph& graph, const GraphMemoryPlan& plan) {
  emit::EmitInput input;
  input.graph = &graph;
  input.order = plan.node_order;
  for (const memory_planner::ArenaPlan& arena : plan.result.plan.arenas) {
    input.arena_sizes.push_back(arena.size);
  }
  const std::vector<memory_planner::Placement>& placements = plan.result.plan.placements;
  for (size_t id = 0; id < plan.buffer_values.size() && id < placements.size(); ++id) {
    input.placements[plan.buffer_values[id]] = {static_cast<uint32_t>(placements[id].arena),
                                                placements[id].offset};
  }
  for (const GraphMemoryPlan::Scratch& scratch : plan.scratch) {
    const memory_planner::Placement& placement = placements[static_cast<size_t>(scratch.buffer)];
    input.delegate_scratch[scratch.node] = {static_cast<uint32_t>(placement.arena),
                                            placement.offset, scratch.bytes};
  }
  return input;
}

}  // namespace

std::vector<std::string> AvailableBackends() { return BackendNames(BuiltinBackends()); }

std::string DescribeAvailableBackends() { return DescribeBackends(BuiltinBackends()); }

absl::Status CheckBackendList(const std::string& list) {
  return ResolveBackendList(list, BuiltinBackends()).status();
}

absl::StatusOr<backend::Partitioning> PartitionForBackend(
    ir::Graph& graph, const std::string& list, const backend::BackendRegistry* registry) {
  absl::StatusOr<std::vector<const backend::Backend*>> backends =
      ResolveBackendList(list, registry != nullptr ? *registry : BuiltinBackends());
  if (!backends.ok()) return backends.status();
  return PartitionForBackends(graph, *backends);
}

absl::StatusOr<CompiledProgram> CompileProgram(const LoadedModel& model,
                                               const CompileOptions& options) {
  absl::StatusOr<native::KernelTarget> target = ParseTarget(options.target);
  if (!target.ok()) return target.status();
  const backend::BackendRegistry& registry =
      options.backends != nullptr ? *options.backends : BuiltinBackends(*target);
  absl::StatusOr<std::vector<const backend::Backend*>> backends =
      ResolveBackendList(options.backend, registry);
  if (!backends.ok()) return backends.status();
  CompiledProgram program;
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge =
      LowerModel(model, options.optimize, &program.pass_statistics);
  if (!edge.ok()) return edge.status();
  program.edge_graph = std::move(*edge);
  // The Edge verifier ran inside LowerModel; after this the graph holds delegate calls.
  absl::StatusOr<backend::Partitioning> partitioning =
      PartitionForBackends(*program.edge_graph, *backends);
  if (!partitioning.ok()) return partitioning.status();
  program.partitioning = std::move(*partitioning);
  if (options.threads == 0) return absl::InvalidArgumentError("threads must be at least 1");
  if (absl::Status status = DeclareDelegateScratch(*program.edge_graph, program.partitioning,
                                                   registry, options.threads);
      !status.ok()) {
    return status;
  }

  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(*program.edge_graph);
  if (!plan.ok()) return plan.status();
  program.plan = std::move(*plan);
  uint64_t delegate_bytes = 0;
  for (const emit::DelegatePayload& payload : program.partitioning.payloads) {
    delegate_bytes += payload.blob.size();
  }
  if (absl::Status status = CheckProgramMemory(*program.edge_graph, program.plan, delegate_bytes,
                                               options.max_memory_bytes);
      !status.ok()) {
    return status;
  }

  emit::EmitInput input = EmitInputFromPlan(*program.edge_graph, program.plan);
  input.delegates = program.partitioning.payloads;
  // Lowering keeps the inputs and outputs in order, but passes may leave another
  // value (named after its node) as an output: the program keeps the exported names.
  const ir::Graph& exported = *model.graph;
  if (exported.inputs().size() == input.graph->inputs().size() &&
      exported.outputs().size() == input.graph->outputs().size()) {
    for (const ir::Value* value : exported.inputs()) input.input_names.push_back(value->name());
    for (const ir::Value* value : exported.outputs()) input.output_names.push_back(value->name());
  }
  absl::StatusOr<std::vector<uint8_t>> bytes = emit::EmitProgram(input, &program.stats);
  if (!bytes.ok()) return bytes.status();
  program.bytes = std::move(*bytes);
  return program;
}

}  // namespace torchir::pipeline
