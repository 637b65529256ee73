#include "compiler/lowering/rule_table.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace torchir::lowering {

namespace {

[[noreturn]] void TableError(const char* what, const std::string& op) {
  std::fprintf(stderr, "torchir internal error: %s for %s\n", what, op.c_str());
  std::abort();
}

}  // namespace

void RuleTable::Add(std::string op, LoweringRule rule) {
  if (refusals_.count(op) != 0) TableError("a lowering rule and a refusal", op);
  if (!rules_.emplace(op, rule).second) TableError("two lowering rules", op);
}

void RuleTable::Refuse(std::string op, std::string reason) {
  if (rules_.count(op) != 0) TableError("a lowering rule and a refusal", op);
  if (!refusals_.emplace(op, std::move(reason)).second) TableError("two refusals", op);
}

const std::string* RuleTable::RefusalReason(std::string_view op) const {
  auto it = refusals_.find(std::string(op));
  return it == refusals_.end() ? nullptr : &it->second;
}

LoweringRule RuleTable::Find(std::string_view op) const {
  auto it = rules_.find(std::string(op));
  return it == rules_.end() ? nullptr : it->second;
}

const RuleTable& LoweringRules() {
  static const RuleTable* const table = [] {
    auto* rules = new RuleTable();
    AddLinearAlgebraRules(*rules);
    AddNormalizationRules(*rules);
    AddElementwiseRules(*rules);
    AddReductionRules(*rules);
    AddDataMovementRules(*rules);
    AddPaddingRules(*rules);
    AddCompositeRules(*rules);
    AddRefusals(*rules);
    return rules;
  }();
  return *table;
}

}  // namespace torchir::lowering
