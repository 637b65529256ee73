#include "compiler/dialect/optional_tensor_rules.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace torchir::dialect {
namespace {

struct PresenceRule {
  std::vector<std::string_view> ops;
  std::vector<std::vector<std::string_view>> groups;
  std::vector<std::pair<std::string_view, std::string_view>> needs;
  std::string_view batch_stats_flag;  // empty: none
  std::vector<std::string_view> statistics;
};

const std::vector<PresenceRule>& Rules() {
  static const std::vector<PresenceRule>* const rules = new std::vector<PresenceRule>{
      {{"batch_norm", "native_batch_norm", "_native_batch_norm_legit",
        "_native_batch_norm_legit_no_training", "_native_batch_norm_legit_functional",
        "cudnn_batch_norm", "miopen_batch_norm", "_batch_norm_impl_index"},
       {{"weight", "bias"}, {"running_mean", "running_var"}},
       {{"bias", "weight"}},
       "training",
       {"running_mean", "running_var"}},
      {{"instance_norm"},
       {{"weight", "bias"}, {"running_mean", "running_var"}},
       {{"bias", "weight"}},
       "use_input_stats",
       {"running_mean", "running_var"}},
      {{"layer_norm", "native_layer_norm", "group_norm", "native_group_norm", "rms_norm"},
       {},
       {{"bias", "weight"}},
       "",
       {}},
  };
  return *rules;
}

const PresenceRule* FindRule(std::string_view op) {
  for (const PresenceRule& rule : Rules()) {
    if (std::find(rule.ops.begin(), rule.ops.end(), op) != rule.ops.end()) return &rule;
  }
  return nullptr;
}

bool Contains(const std::vector<std::string_view>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// True when the choice `mask` (bit i: candidate i passed) obeys `rule`.
bool Obeys(const PresenceRule& rule, const std::vector<std::string_view>& names, uint32_t mask,
           std::optional<bool> batch_stats) {
  auto candidate = [&](std::string_view name) { return Contains(names, name); };
  auto present = [&](std::string_view name) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return ((mask >> i) & 1u) != 0;
    }
    return false;
  };
  for (const auto& group : rule.groups) {
    bool any = false;
    bool all = true;
    for (std::string_view name : group) {
      if (!candidate(name)) continue;
      any = any || present(name);
      all = all && present(name);
    }
    if (any && !all) return false;
  }
  for (const auto& [a, b] : rule.needs) {
    if (present(a) && candidate(b) && !present(b)) return false;
  }
  if (batch_stats) {
    for (std::string_view name : rule.statistics) {
      if (candidate(name) && present(name) == *batch_stats) return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<bool>> ChoosePresentOptionalTensors(
    const AtenSchema& schema, const std::vector<size_t>& candidates, size_t count,
    const std::function<std::optional<bool>(std::string_view)>& bool_argument) {
  const size_t n = candidates.size();
  if (count > n) {
    return absl::InvalidArgumentError(
        absl::StrCat(count, " optional tensors given but the schema has only ", n));
  }
  if (count == 0) return std::vector<bool>(n, false);
  if (count == n) return std::vector<bool>(n, true);

  std::vector<std::string_view> names;
  for (size_t index : candidates) names.push_back(schema.arguments[index].name);
  std::string list;
  for (std::string_view name : names) {
    absl::StrAppend(&list, list.empty() ? "'" : ", '", std::string(name), "'");
  }
  const PresenceRule* rule = FindRule(schema.name);
  if (rule == nullptr || n > 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        count, " of the optional tensor arguments ", list,
        " were given, and the file does not say which (a None tensor leaves no input); "
        "no rule for this op decides it"));
  }
  std::optional<bool> batch_stats;
  if (!rule->batch_stats_flag.empty()) batch_stats = bool_argument(rule->batch_stats_flag);

  std::vector<std::vector<bool>> choices;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) != count) continue;
    if (!Obeys(*rule, names, mask, batch_stats)) continue;
    std::vector<bool> choice(n);
    for (size_t i = 0; i < n; ++i) choice[i] = ((mask >> i) & 1u) != 0;
    choices.push_back(std::move(choice));
  }
  if (choices.size() == 1) return choices.front();
  return absl::InvalidArgumentError(absl::StrCat(
      count, " of the optional tensor arguments ", list,
      " were given, and the file does not say which (a None tensor leaves no input); ",
      choices.empty() ? "no choice fits the op's rules" : "more than one choice fits"));
}

}  // namespace torchir::dialect
