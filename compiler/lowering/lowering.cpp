#include "compiler/lowering/lowering.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/lowering/aten_verifier.h"
#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {
namespace {

std::string Where(const ir::Node& node) {
  return absl::StrCat("node '", node.name(), "' (", node.op(), ")");
}

// PyTorch names in-place ops aten.<name>_.<overload>.
bool IsInPlace(const std::string& op) {
  size_t last_dot = op.rfind('.');
  return op.rfind("aten.", 0) == 0 && last_dot != std::string::npos && last_dot > 5 &&
         op[last_dot - 1] == '_' && op[5] != '_';
}

// True when something reads `output`: a graph output, a node other than getitem,
// or a getitem that picks it and is read itself (getitem lists all the producer's
// outputs as inputs; pytorch-ir writes a getitem for every output, used or not).
bool IsRead(const ir::Value& output) {
  if (output.is_graph_output()) return true;
  for (const ir::Use& use : output.uses()) {
    if (use.user->op() != "getitem") return true;
    const ir::AttrValue* index = use.user->FindAttr("index");
    if (index != nullptr && index->as_int() == output.producer_index() &&
        IsRead(*use.user->output())) {
      return true;
    }
  }
  return false;
}

absl::Status CheckSupported(const ir::Graph& aten) {
  std::map<std::string, std::vector<std::string>> missing;
  for (const ir::Node* node : aten.nodes()) {
    if (node->op() == "getitem" || LoweringRules().Find(node->op()) != nullptr) continue;
    missing[node->op()].push_back(node->name());
  }
  if (missing.empty()) return absl::OkStatus();
  std::vector<std::string> lines;
  for (const auto& [op, nodes] : missing) {
    std::vector<std::string> shown(nodes.begin(), nodes.begin() + std::min<size_t>(3, nodes.size()));
    std::string where = absl::StrCat(" (", nodes.size(), " node", nodes.size() == 1 ? "" : "s",
                                     ": '", absl::StrJoin(shown, "', '"), "'",
                                     nodes.size() > 3 ? ", ..." : "", ")");
    const std::string* reason = LoweringRules().RefusalReason(op);
    lines.push_back(reason == nullptr ? absl::StrCat("unsupported op ", op, where)
                                      : absl::StrCat("refused op ", op, where, ": ", *reason));
  }
  return absl::UnimplementedError(absl::StrJoin(lines, "\n"));
}

class Lowerer {
 public:
  Lowerer(const ir::Graph& aten, LoweringTrace* trace)
      : aten_(aten), edge_(std::make_unique<ir::Graph>()), builder_(edge_.get()), trace_(trace) {}

  absl::StatusOr<std::unique_ptr<ir::Graph>> Run() {
    edge_->model_name = aten_.model_name;
    edge_->pytorch_version = aten_.pytorch_version;
    for (const ir::Value* input : aten_.inputs()) {
      map_[input] = edge_->AddInput(input->name(), input->type());
    }
    for (const ir::Node* node : aten_.nodes()) {
      absl::Status status = LowerNode(*node);
      if (!status.ok()) return status;
    }
    for (const ir::Value* output : aten_.outputs()) edge_->AddOutput(Map(output));
    absl::Status verified = dialect::VerifyEdgeGraph(*edge_);
    if (!verified.ok()) {
      return absl::InternalError(absl::StrCat("lowered graph fails verification:\n",
                                              verified.message()));
    }
    return std::move(edge_);
  }

 private:
  ir::Value* Map(const ir::Value* value) {
    auto it = map_.find(value);
    if (it != map_.end()) return it->second;
    if (value->kind() == ir::ValueKind::kNodeOutput || value->kind() == ir::ValueKind::kGraphInput) {
      // IsRead guarantees every read node output was lowered; reaching here is a bug.
      std::fprintf(stderr, "torchir internal error: '%s' read before it was lowered\n",
                   value->name().c_str());
      std::abort();
    }
    // Weights and constants come over on first use, keeping name, key and data.
    ir::Value* copy = value->kind() == ir::ValueKind::kWeight
                          ? edge_->AddWeight(value->name(), value->state_dict_key(), value->type())
                          : edge_->AddConstant(value->name(), value->type());
    copy->set_state_dict_key(value->state_dict_key());
    copy->set_data(value->data());
    map_[value] = copy;
    return copy;
  }

  absl::Status LowerNode(const ir::Node& node) {
    if (node.op() == "getitem") {
      int64_t index = node.FindAttr("index")->as_int();
      const ir::Node* producer = node.input(0)->producer();
      const ir::Value* chosen = producer != nullptr && index < static_cast<int64_t>(producer->num_outputs())
                                    ? producer->output(static_cast<size_t>(index))
                                    : node.input(static_cast<size_t>(index));
      // An output its rule left out is unread (IsRead), and so is this getitem.
      if (chosen->kind() == ir::ValueKind::kNodeOutput && map_.count(chosen) == 0) {
        return absl::OkStatus();
      }
      map_[node.output()] = Map(chosen);
      return absl::OkStatus();
    }
    absl::StatusOr<dialect::AtenCall> call = dialect::BindAtenCall(node);
    if (!call.ok()) return call.status();
    builder_.set_name_base(node.name());
    LoweringContext context(&builder_, &node,
                            [this](const ir::Value* value) { return Map(value); });
    std::vector<std::string> emitted;
    if (trace_ != nullptr) builder_.set_emitted_ops(&emitted);
    absl::StatusOr<std::vector<ir::Value*>> results =
        LoweringRules().Find(node.op())(context, *call);
    builder_.set_emitted_ops(nullptr);
    if (!results.ok()) {
      std::string message(results.status().message());
      if (message.rfind("node '", 0) != 0) message = absl::StrCat(Where(node), ": ", message);
      return absl::Status(results.status().code(), message);
    }
    if (results->size() != node.num_outputs()) {
      return absl::InternalError(absl::StrCat(Where(node), ": the lowering rule gave ",
                                              results->size(), " result(s) for ",
                                              node.num_outputs(), " output(s)"));
    }
    for (size_t i = 0; i < node.num_outputs(); ++i) {
      ir::Value* result = (*results)[i];
      const ir::Value* output = node.output(i);
      if (result == nullptr) {
        if (IsRead(*output)) {
          return absl::UnimplementedError(absl::StrCat(Where(node), ": output ", i, " '",
                                                       output->name(),
                                                       "' is used but cannot be lowered"));
        }
        continue;
      }
      if (result->type() != output->type()) {
        return absl::InternalError(absl::StrCat(Where(node), ": lowering produced ",
                                                result->type().ToString(), " for output '",
                                                output->name(), "', which the IR records as ",
                                                output->type().ToString()));
      }
      map_[output] = result;
    }
    if (trace_ != nullptr) Record(node, *results, emitted);
    // Functionalise in-place ops: later readers of the mutated input see the result.
    if (IsInPlace(node.op()) && node.num_inputs() > 0 && node.num_outputs() > 0 &&
        (*results)[0] != nullptr) {
      map_[node.input(0)] = (*results)[0];
      // A write into a view (slice, select) reaches the view's base, up the chain.
      const ir::Value* mutated = node.input(0);
      ir::Value* value = (*results)[0];
      while (mutated->producer() != nullptr) {
        const ir::Node& view = *mutated->producer();
        // A factory (empty_strided(...).fill_(v)) is no view and has no base to reach.
        if (view.num_inputs() == 0) break;
        absl::StatusOr<ir::Value*> base =
            WriteThroughView(builder_, view, Map(view.input(0)), value);
        if (!base.ok()) {
          return absl::Status(base.status().code(),
                              absl::StrCat(Where(node), ": ", base.status().message()));
        }
        if (*base == nullptr) break;
        value = *base;
        mutated = view.input(0);
        map_[mutated] = value;
      }
    }
    return absl::OkStatus();
  }

  // What the rule of `node` made: the Edge ops it emitted or, when none, whether its result is
  // a compile-time constant or a value that already existed.
  void Record(const ir::Node& node, const std::vector<ir::Value*>& results,
              const std::vector<std::string>& emitted) {
    std::set<std::string>& made = trace_->edge_ops[node.op()];
    made.insert(emitted.begin(), emitted.end());
    if (!emitted.empty()) return;
    for (const ir::Value* result : results) {
      if (result == nullptr) continue;
      made.insert(result->kind() == ir::ValueKind::kConstant ? std::string(kTraceConstant)
                                                            : std::string(kTraceIdentity));
    }
    if (results.empty() || node.num_outputs() == 0) made.insert(std::string(kTraceCheck));
  }

  const ir::Graph& aten_;
  std::unique_ptr<ir::Graph> edge_;
  EdgeBuilder builder_;
  LoweringTrace* trace_;
  std::unordered_map<const ir::Value*, ir::Value*> map_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ir::Graph>> LowerToEdge(const ir::Graph& aten,
                                                       LoweringTrace* trace) {
  absl::Status supported = CheckSupported(aten);
  if (!supported.ok()) return supported;
  absl::Status well_formed = VerifyAtenGraph(aten);
  if (!well_formed.ok()) return well_formed;
  return Lowerer(aten, trace).Run();
}

std::vector<std::string> SupportedAtenOps() {
  std::vector<std::string> ops;
  for (const auto& entry : LoweringRules().rules()) ops.push_back(entry.first);
  return ops;
}

const std::map<std::string, std::string>& RefusedAtenOps() { return LoweringRules().refusals(); }

}  // namespace torchir::lowering
