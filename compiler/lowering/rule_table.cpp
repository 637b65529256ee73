#include "compiler/lowering/rule_table.h"

#include <cstdio>
#include <cstdlib>

namespace torchir::lowering {

void RuleTable::Add(std::string op, LoweringRule rule) {
  if (!rules_.emplace(op, rule).second) {
    std::fprintf(stderr, "torchir internal error: two lowering rules for %s\n", op.c_str());
    std::abort();
  }
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
    return rules;
  }();
  return *table;
}

}  // namespace torchir::lowering
