#include "tools/pipeline/graph_memory_plan.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/ir/checked_math.h"
#include "compiler/ir/tensor_limits.h"
#include "memory_planner/checker.h"
#include "memory_planner/lifetimes.h"
#include "memory_planner/memory_aware_order.h"
#include "memory_planner/planner.h"
#include "memory_planner/program.h"

namespace torchir::pipeline {
namespace {

constexpr uint64_t kAlignment = 64;

// A node carrying this int attribute reads (or writes) up to that many bytes
// past the end of its input and output buffers. Backends set it on the nodes
// they run (XNNPACK: XNN_EXTRA_BYTES); the planner only honours the number.
constexpr char kReadOverrunAttr[] = "read_overrun_bytes";

// The value whose storage the node's single output shares, or nullptr.
const ir::Value* SharedStorageSource(const ir::Node& node) {
  if (node.num_outputs() != 1 || node.num_inputs() == 0) return nullptr;
  if (node.op() == "getitem") {
    const ir::AttrValue* index = node.FindAttr("index");
    int64_t i = index != nullptr ? index->as_int() : 0;
    return i >= 0 && static_cast<size_t>(i) < node.num_inputs() ? node.input(static_cast<size_t>(i))
                                                                : node.input(0);
  }
  // Edge ops say so in their table row; anything else (a delegate call) owns its outputs.
  const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node.op());
  return def != nullptr && def->output_storage == dialect::OutputStorage::kViewOfInput0
             ? node.input(0)
             : nullptr;
}

// The storage owner of `id` through `view_of`.
memory_planner::BufferId RootOf(const memory_planner::Program& program,
                                memory_planner::BufferId id) {
  while (program.view_of[static_cast<size_t>(id)] != memory_planner::kNoBuffer) {
    id = program.view_of[static_cast<size_t>(id)];
  }
  return id;
}

// In-place outputs: a delegate call that allows it (dialect::kDelegateInPlaceInputAttr) writes
// its output over that input's bytes when nothing reads them after the call, in `program`'s
// order: the output becomes a view of the input (program->view_of), and `lifetimes` are
// recomputed for the calls after it (whose inputs may be such outputs: a chain of residual
// blocks all in one buffer). Not when the storage holds a graph input or output (the caller's),
// when the input is read twice by the call, or when sizes or read overruns differ. Returns how
// many outputs now share their input's storage.
size_t ShareInPlaceOutputs(
    const std::vector<const ir::Node*>& order,
    const std::unordered_map<const ir::Value*, memory_planner::BufferId>& ids,
    const std::vector<uint64_t>& sizes,
    const std::unordered_map<const ir::Value*, uint64_t>& overrun, memory_planner::Program* program,
    std::vector<memory_planner::Lifetime>* lifetimes) {
  namespace mp = memory_planner;
  size_t shared = 0;
  const auto overrun_of = [&overrun](const ir::Value* value) {
    const auto it = overrun.find(value);
    return it == overrun.end() ? uint64_t{0} : it->second;
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::Node& node = *order[i];
    const ir::AttrValue* attr = node.FindAttr(dialect::kDelegateInPlaceInputAttr);
    if (attr == nullptr || attr->kind() != ir::AttrValue::Kind::kInt || node.num_outputs() != 1 ||
        attr->as_int() < 0 || static_cast<uint64_t>(attr->as_int()) >= node.num_inputs()) {
      continue;
    }
    const ir::Value* input = node.input(static_cast<size_t>(attr->as_int()));
    const ir::Value* output = node.output(0);
    const auto in = ids.find(input);
    const auto out = ids.find(output);
    if (in == ids.end() || out == ids.end() ||
        std::count(node.inputs().begin(), node.inputs().end(), input) != 1) {
      continue;
    }
    const mp::BufferId from = in->second, to = out->second;
    const mp::BufferId root = RootOf(*program, from);
    bool callers = false;
    for (const std::vector<mp::BufferId>* ends :
         {&program->graph_inputs, &program->graph_outputs}) {
      for (mp::BufferId id : *ends) callers = callers || RootOf(*program, id) == root;
    }
    const mp::Lifetime& storage = (*lifetimes)[static_cast<size_t>(root)];
    if (callers || program->view_of[static_cast<size_t>(to)] != mp::kNoBuffer ||
        storage.last_use != static_cast<int64_t>(i) ||
        sizes[static_cast<size_t>(to)] != sizes[static_cast<size_t>(from)] ||
        overrun_of(output) > overrun_of(input)) {
      continue;
    }
    program->view_of[static_cast<size_t>(to)] = from;
    mp::Expected<std::vector<mp::Lifetime>> updated = mp::ComputeLifetimes(*program);
    if (!updated.ok()) {  // cannot happen for a valid program: undo rather than fail
      program->view_of[static_cast<size_t>(to)] = mp::kNoBuffer;
      continue;
    }
    *lifetimes = std::move(updated.value());
    ++shared;
  }
  return shared;
}

}  // namespace

absl::StatusOr<GraphMemoryPlan> PlanGraphMemory(const ir::Graph& graph) {
  auto start = std::chrono::steady_clock::now();
  GraphMemoryPlan plan;
  namespace mp = memory_planner;
  mp::Program program;
  std::vector<const ir::Node*> file_order;
  std::unordered_map<const ir::Value*, mp::BufferId> ids;
  std::vector<uint64_t> sizes;
  std::unordered_map<const ir::Value*, uint64_t> overrun;
  auto add_buffer = [&](const ir::Value* value) {
    auto id = static_cast<mp::BufferId>(plan.buffer_values.size());
    ids.emplace(value, id);
    plan.buffer_values.push_back(value);
    sizes.push_back(value->type().nbytes());
    program.view_of.push_back(mp::kNoBuffer);
    return id;
  };
  for (const ir::Value* input : graph.inputs()) program.graph_inputs.push_back(add_buffer(input));
  for (const ir::Node* node : graph.nodes()) {
    if (const ir::AttrValue* bytes = node->FindAttr(kReadOverrunAttr);
        bytes != nullptr && bytes->kind() == ir::AttrValue::Kind::kInt && bytes->as_int() > 0) {
      const uint64_t extra = static_cast<uint64_t>(bytes->as_int());
      for (const ir::Value* value : node->inputs())
        overrun[value] = std::max(overrun[value], extra);
      for (const ir::Value* value : node->outputs())
        overrun[value] = std::max(overrun[value], extra);
    }
  }
  for (const ir::Node* node : graph.nodes()) {
    file_order.push_back(node);
    mp::Instruction instruction;
    for (const ir::Value* input : node->inputs()) {
      auto it = ids.find(input);
      if (it != ids.end()) instruction.reads.push_back(it->second);
    }
    const ir::Value* source = SharedStorageSource(*node);
    for (size_t i = 0; i < node->num_outputs(); ++i) {
      mp::BufferId id = add_buffer(node->output(i));
      instruction.writes.push_back(id);
      auto it = source != nullptr ? ids.find(source) : ids.end();
      if (it != ids.end() && sizes[it->second] >= sizes[id]) program.view_of[id] = it->second;
    }
    if (const ir::AttrValue* bytes = node->FindAttr(dialect::kDelegateScratchAttr);
        bytes != nullptr && bytes->kind() == ir::AttrValue::Kind::kInt && bytes->as_int() > 0) {
      // Its buffer id is given once every value has one (buffer_values stays value-only).
      plan.scratch.push_back({node, static_cast<mp::BufferId>(program.instructions.size()),
                              static_cast<uint64_t>(bytes->as_int())});
    }
    program.instructions.push_back(std::move(instruction));
  }
  // Scratch: written by its call alone and read by nobody, so its lifetime is that one
  // instruction, whatever order the instructions end up in.
  for (GraphMemoryPlan::Scratch& scratch : plan.scratch) {
    const size_t instruction = static_cast<size_t>(scratch.buffer);
    scratch.buffer = static_cast<mp::BufferId>(sizes.size());
    sizes.push_back(scratch.bytes);
    program.view_of.push_back(mp::kNoBuffer);
    program.instructions[instruction].writes.push_back(scratch.buffer);
  }
  for (const ir::Value* output : graph.outputs()) {
    auto it = ids.find(output);
    if (it != ids.end()) program.graph_outputs.push_back(it->second);
  }
  program.buffer_count = static_cast<int32_t>(sizes.size());
  // The planner adds sizes and offsets in uint64: keep every sum it can form
  // (all buffers side by side, with their overruns and alignment) far from overflow.
  uint64_t side_by_side = 0;
  bool fits = true;
  for (size_t id = 0; id < sizes.size(); ++id) {
    const auto it =
        id < plan.buffer_values.size() ? overrun.find(plan.buffer_values[id]) : overrun.end();
    fits = fits && ir::CheckedAdd(side_by_side, sizes[id], &side_by_side) &&
           ir::CheckedAdd(side_by_side, it != overrun.end() ? it->second : 0, &side_by_side) &&
           ir::CheckedAdd(side_by_side, kAlignment, &side_by_side);
  }
  if (!fits || side_by_side > ir::kMaxTensorBytes) {
    const auto largest = static_cast<size_t>(
        std::max_element(sizes.begin(), sizes.begin() + plan.buffer_values.size()) - sizes.begin());
    return absl::ResourceExhaustedError(absl::StrCat(
        "the graph's tensors", plan.scratch.empty() ? "" : " and delegate scratch",
        " add up to more than 2^62 bytes; largest tensor: '", plan.buffer_values[largest]->name(),
        "' ", plan.buffer_values[largest]->type().ToString()));
  }

  // Keep the node order unless a memory-aware order lowers the peak.
  mp::Expected<mp::ScheduleResult> schedule = mp::MemoryAwareOrder(program, sizes);
  if (!schedule.ok()) return absl::InternalError("memory-aware order: " + schedule.error().message);
  plan.file_order_peak = schedule.value().original_peak;
  plan.memory_aware_peak = schedule.value().peak;
  plan.reordered = schedule.value().reordered;
  mp::Program ordered = program;
  plan.node_order = file_order;
  if (plan.reordered) {
    ordered.instructions.clear();
    plan.node_order.clear();
    for (int32_t index : schedule.value().order) {
      ordered.instructions.push_back(program.instructions[static_cast<size_t>(index)]);
      plan.node_order.push_back(file_order[static_cast<size_t>(index)]);
    }
  }
  mp::Expected<std::vector<mp::Lifetime>> lifetimes = mp::ComputeLifetimes(ordered);
  if (!lifetimes.ok()) return absl::InternalError("lifetimes: " + lifetimes.error().message);
  plan.in_place_outputs =
      ShareInPlaceOutputs(plan.node_order, ids, sizes, overrun, &ordered, &lifetimes.value());

  plan.problem.arenas.push_back({"activations"});
  for (size_t id = 0; id < sizes.size(); ++id) {
    mp::Buffer buffer;
    const mp::Lifetime& lifetime = lifetimes.value()[id];
    buffer.size = sizes[id];
    buffer.alignment = kAlignment;
    buffer.first_use = lifetime.used() ? lifetime.first_use : 0;
    buffer.last_use = lifetime.used() ? lifetime.last_use : 0;
    buffer.base = ordered.view_of[id];
    if (id < plan.buffer_values.size()) {
      buffer.name = plan.buffer_values[id]->name();
      if (auto it = overrun.find(plan.buffer_values[id]); it != overrun.end()) {
        buffer.extra_bytes = it->second;
      }
    }
    plan.problem.buffers.push_back(std::move(buffer));
  }
  for (const GraphMemoryPlan::Scratch& scratch : plan.scratch) {
    plan.problem.buffers[static_cast<size_t>(scratch.buffer)].name =
        scratch.node->name() + ".scratch";
  }
  mp::Expected<mp::SuiteResult> result = mp::PlanMemory(plan.problem);
  if (!result.ok()) return absl::InternalError("memory planner: " + result.error().message);
  plan.result = std::move(result.value());
  std::vector<std::string> problems = mp::CheckPlan(plan.problem, plan.result.plan);
  if (!problems.empty()) {
    return absl::InternalError("memory plan failed its check: " + absl::StrJoin(problems, "; "));
  }
  mp::Expected<mp::MemoryReport> report = mp::BuildReport(plan.problem, plan.result);
  if (!report.ok()) return absl::InternalError("memory report: " + report.error().message);
  plan.report = std::move(report.value());
  plan.planning_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace torchir::pipeline
