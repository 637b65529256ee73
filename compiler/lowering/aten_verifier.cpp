#include "compiler/lowering/aten_verifier.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dialect/aten_call.h"
#include "compiler/ir/tensor_limits.h"

namespace torchir::lowering {

absl::Status VerifyAtenGraph(const ir::Graph& graph) {
  std::vector<std::string> problems = graph.CheckInvariants();
  // Sizes first: the lowering rules and shape rules compute with them.
  for (const auto* values : {&graph.inputs(), &graph.weights(), &graph.constants()}) {
    for (const ir::Value* value : *values) {
      std::string problem = ir::TensorSizeProblem(value->type());
      if (problem.empty()) continue;
      problems.push_back(absl::StrCat(std::string(ir::ValueKindName(value->kind())), " '",
                                      value->name(), "' ", value->type().ToString(), ": ",
                                      problem));
    }
  }
  for (const ir::Node* node : graph.nodes()) {
    for (const ir::Value* output : node->outputs()) {
      std::string problem = ir::TensorSizeProblem(output->type());
      if (problem.empty()) continue;
      problems.push_back(absl::StrCat("node '", node->name(), "' (", node->op(), "): output '",
                                      output->name(), "' ", output->type().ToString(), ": ",
                                      problem));
    }
  }
  if (!problems.empty()) return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() == "getitem") {
      const ir::AttrValue* index = node->FindAttr("index");
      // The index counts the producer's results; the inputs list its tensor outputs.
      const ir::Node* producer = node->num_inputs() > 0 ? node->input(0)->producer() : nullptr;
      const int64_t limit = std::max<int64_t>(
          static_cast<int64_t>(node->num_inputs()),
          producer != nullptr ? static_cast<int64_t>(producer->num_outputs()) : 0);
      if (index == nullptr || index->kind() != ir::AttrValue::Kind::kInt || index->as_int() < 0 ||
          index->as_int() >= limit || node->num_outputs() != 1) {
        problems.push_back(absl::StrCat("node '", node->name(),
                                        "' (getitem): needs one output and an integer index "
                                        "picking one of its ", node->num_inputs(), " input(s)"));
      }
      continue;
    }
    absl::StatusOr<dialect::AtenCall> call = dialect::BindAtenCall(*node);
    if (!call.ok()) problems.emplace_back(call.status().message());
  }
  for (const ir::Value* output : graph.outputs()) {
    if (graph.FindValue(output->name()) != output) {
      problems.push_back(absl::StrCat("graph output '", output->name(), "' is not in the graph"));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
}

}  // namespace torchir::lowering
