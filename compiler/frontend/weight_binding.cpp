#include "compiler/frontend/weight_binding.h"

#include <algorithm>
#include <unordered_set>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/error_details.h"

namespace torchir::frontend {
namespace {

// How many names a summary line shows before "...".
constexpr size_t kShown = 3;

std::string Describe(const ir::Value* value) {
  std::string text = absl::StrCat("'", value->state_dict_key(), "'");
  if (value->name() != value->state_dict_key()) {
    absl::StrAppend(&text, " (placeholder '", value->name(), "')");
  }
  return text;
}

// "'a', 'b', 'c', ..." from the first kShown of `keys`.
std::string FirstKeys(const std::vector<std::string>& keys) {
  std::vector<std::string> shown;
  for (size_t i = 0; i < keys.size() && i < kShown; ++i) shown.push_back("'" + keys[i] + "'");
  return absl::StrCat(absl::StrJoin(shown, ", "), keys.size() > kShown ? ", ..." : "");
}

// One problem: its line as is. A family: one summary line, with every
// problem in the kErrorDetailsPayload payload.
struct Family {
  std::vector<std::string> keys;     // state_dict keys, for the summary
  std::vector<std::string> details;  // one full line per problem
};

absl::Status Summarise(absl::StatusCode code, const std::vector<std::string>& lines,
                       const std::vector<std::string>& details) {
  absl::Status status(code, absl::StrJoin(lines, "\n"));
  if (lines.size() != details.size()) {
    status.SetPayload(ir::kErrorDetailsPayload, absl::Cord(absl::StrJoin(details, "\n")));
  }
  return status;
}

}  // namespace

absl::Status BindWeights(const WeightFile& weights, ir::Graph* graph, ReadReport* report) {
  Family missing, mismatched;
  std::unordered_set<std::string> used;
  auto bind = [&](ir::Value* value, bool required) {
    const StoredTensor* stored = weights.Find(value->state_dict_key());
    if (stored == nullptr) {
      if (required) {
        missing.keys.push_back(value->state_dict_key());
        missing.details.push_back(absl::StrCat(weights.path(), ": missing weight ", Describe(value),
                                               ", ", value->type().ToString()));
      }
      return;
    }
    used.insert(stored->name);
    ir::TensorType stored_type{stored->dtype, stored->shape};
    if (stored_type != value->type()) {
      mismatched.keys.push_back(value->state_dict_key());
      mismatched.details.push_back(
          absl::StrCat(weights.path(), ": weight ", Describe(value), " is ", stored_type.ToString(),
                       " but the graph expects ", value->type().ToString()));
      return;
    }
    value->set_data(stored->data);
  };
  for (ir::Value* weight : graph->weights()) bind(weight, /*required=*/true);
  for (ir::Value* constant : graph->constants()) bind(constant, constant->data().empty());
  std::vector<std::string> lines, details;
  if (missing.keys.size() == 1) {
    lines.push_back(missing.details.front());
  } else if (!missing.keys.empty()) {
    // Nothing bound at all: most likely the weights of another model.
    lines.push_back(
        absl::StrCat(missing.keys.size(), " weights missing from ", weights.path(),
                     " (first: ", FirstKeys(missing.keys), ")",
                     used.empty() ? ": the weights file belongs to another model?" : ""));
  }
  if (mismatched.keys.size() == 1) {
    lines.push_back(mismatched.details.front());
  } else if (!mismatched.keys.empty()) {
    lines.push_back(absl::StrCat(
        mismatched.keys.size(), " weights of ", weights.path(),
        " differ from the graph in shape or dtype (first: ",
        mismatched.details.front().substr(weights.path().size() + 2), "; then ",
        FirstKeys(std::vector<std::string>(mismatched.keys.begin() + 1, mismatched.keys.end())),
        ")"));
  }
  if (!lines.empty()) {
    details = missing.details;
    details.insert(details.end(), mismatched.details.begin(), mismatched.details.end());
    return Summarise(absl::StatusCode::kInvalidArgument, lines, details);
  }
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
  Family unbound;
  for (const auto* list : {&graph.weights(), &graph.constants()}) {
    for (const ir::Value* value : *list) {
      if (value->data().empty() && value->type().numel() > 0) {
        unbound.keys.push_back(value->state_dict_key().empty() ? value->name()
                                                               : value->state_dict_key());
        unbound.details.push_back(absl::StrCat(source, ": ",
                                               std::string(ir::ValueKindName(value->kind())), " ",
                                               Describe(value), " has no value (give --weights)"));
      }
    }
  }
  if (unbound.keys.empty()) return absl::OkStatus();
  if (unbound.keys.size() == 1) {
    return absl::FailedPreconditionError(unbound.details.front());
  }
  return Summarise(absl::StatusCode::kFailedPrecondition,
                   {absl::StrCat(source, ": ", unbound.keys.size(),
                                 " weights and constants have no value (give --weights); first: ",
                                 FirstKeys(unbound.keys))},
                   unbound.details);
}

}  // namespace torchir::frontend
