#include "compiler/frontend/weight_binding.h"

#include <algorithm>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torchir::frontend {
namespace {

std::string Describe(const ir::Value* value) {
  std::string text = absl::StrCat("'", value->state_dict_key(), "'");
  if (value->name() != value->state_dict_key()) {
    absl::StrAppend(&text, " (placeholder '", value->name(), "')");
  }
  return text;
}

}  // namespace

absl::Status BindWeights(const WeightFile& weights, ir::Graph* graph, ReadReport* report) {
  std::vector<std::string> errors;
  std::unordered_set<std::string> used;
  auto bind = [&](ir::Value* value, bool required) {
    const StoredTensor* stored = weights.Find(value->state_dict_key());
    if (stored == nullptr) {
      if (required) {
        errors.push_back(absl::StrCat(weights.path(), ": missing weight ", Describe(value), ", ",
                                      value->type().ToString()));
      }
      return;
    }
    used.insert(stored->name);
    ir::TensorType stored_type{stored->dtype, stored->shape};
    if (stored_type != value->type()) {
      errors.push_back(absl::StrCat(weights.path(), ": weight ", Describe(value), " is ",
                                    stored_type.ToString(), " but the graph expects ",
                                    value->type().ToString()));
      return;
    }
    value->set_data(stored->data);
  };
  for (ir::Value* weight : graph->weights()) bind(weight, /*required=*/true);
  for (ir::Value* constant : graph->constants()) bind(constant, constant->data().empty());
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  if (report != nullptr) {
    std::vector<std::string> unused;
    for (const StoredTensor& tensor : weights.tensors()) {
      if (!used.count(tensor.name)) unused.push_back(absl::StrCat("'", tensor.name, "'"));
    }
    if (!unused.empty()) {
      std::string shown = absl::StrJoin(unused.begin(), unused.begin() + std::min<size_t>(3, unused.size()), ", ");
      if (unused.size() > 3) absl::StrAppend(&shown, " and ", unused.size() - 3, " more");
      report->warnings.push_back(absl::StrCat(weights.path(), ": ", unused.size(),
                                              " tensor(s) not used by the graph: ", shown));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAllConstantsBound(const ir::Graph& graph, const std::string& source) {
  std::vector<std::string> missing;
  for (const auto* list : {&graph.weights(), &graph.constants()}) {
    for (const ir::Value* value : *list) {
      if (value->data().empty() && value->type().numel() > 0) {
        missing.push_back(absl::StrCat(source, ": ", std::string(ir::ValueKindName(value->kind())), " ",
                                       Describe(value), " has no value (give --weights)"));
      }
    }
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrJoin(missing, "\n"));
}

}  // namespace torchir::frontend
