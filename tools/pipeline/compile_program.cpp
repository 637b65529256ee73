#include "tools/pipeline/compile_program.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "tools/pipeline/lower.h"
#include "tools/pipeline/memory_limit.h"

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
  return input;
}

absl::Status CheckBackend(const std::string& backend) {
  const std::vector<std::string> backends = AvailableBackends();
  if (std::find(backends.begin(), backends.end(), backend) != backends.end()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown backend '", backend, "' (available: ", absl::StrJoin(backends, ", "), ")"));
}

// The Edge verifier for a partitioned graph: delegate calls are not Edge ops, so
// they are skipped here, and only here; every other node must still verify.
absl::Status VerifyPartitionedGraph(const ir::Graph& graph) {
  std::vector<std::string> problems = graph.CheckInvariants();
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() == dialect::kDelegateCallOp) continue;
    absl::Status status = dialect::VerifyEdgeNode(*node);
    if (!status.ok()) problems.emplace_back(status.message());
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("the partitioned graph is invalid:\n", absl::StrJoin(problems, "\n")));
}

}  // namespace

std::vector<std::string> AvailableBackends() { return {"xnnpack", "portable"}; }

absl::StatusOr<std::optional<xnnpack::XnnpackPartitionResult>> PartitionForBackend(
    ir::Graph& graph, const std::string& backend) {
  if (absl::Status status = CheckBackend(backend); !status.ok()) return status;
  if (backend != "xnnpack") return std::nullopt;
  absl::StatusOr<xnnpack::XnnpackPartitionResult> partition = xnnpack::PartitionForXnnpack(graph);
  if (!partition.ok()) return partition.status();
  if (absl::Status status = VerifyPartitionedGraph(graph); !status.ok()) return status;
  return std::optional<xnnpack::XnnpackPartitionResult>(std::move(*partition));
}

absl::StatusOr<CompiledProgram> CompileProgram(const LoadedModel& model,
                                               const CompileOptions& options) {
  if (absl::Status status = CheckBackend(options.backend); !status.ok()) return status;
  CompiledProgram program;
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge =
      LowerModel(model, options.optimize, &program.pass_statistics);
  if (!edge.ok()) return edge.status();
  program.edge_graph = std::move(*edge);
  // The Edge verifier ran inside LowerModel; after this the graph holds delegate calls.
  absl::StatusOr<std::optional<xnnpack::XnnpackPartitionResult>> partition =
      PartitionForBackend(*program.edge_graph, options.backend);
  if (!partition.ok()) return partition.status();
  program.xnnpack = std::move(*partition);

  absl::StatusOr<GraphMemoryPlan> plan = PlanGraphMemory(*program.edge_graph);
  if (!plan.ok()) return plan.status();
  program.plan = std::move(*plan);
  uint64_t delegate_bytes = 0;
  if (program.xnnpack.has_value()) {
    for (const emit::DelegatePayload& payload : program.xnnpack->payloads) {
      delegate_bytes += payload.blob.size();
    }
  }
  if (absl::Status status = CheckProgramMemory(*program.edge_graph, program.plan, delegate_bytes,
                                               options.max_memory_bytes);
      !status.ok()) {
    return status;
  }

  emit::EmitInput input = EmitInputFromPlan(*program.edge_graph, program.plan);
  if (program.xnnpack.has_value()) input.delegates = program.xnnpack->payloads;
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
