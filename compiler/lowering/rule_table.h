// The table of ATen ops the compiler accepts, each with the rule that lowers it.
// Rules live in rules/<family>.cpp; each family adds its rows through one
// Add...Rules function, and rule_table.cpp calls them all: adding an ATen op is
// one row in its family's function.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "compiler/lowering/lowering_context.h"

namespace torchir::lowering {

class RuleTable {
 public:
  // Registers `rule` for the pytorch-ir op type `op` ("aten.conv2d.default").
  void Add(std::string op, LoweringRule rule);
  // The rule for `op`, or nullptr.
  LoweringRule Find(std::string_view op) const;
  const std::map<std::string, LoweringRule>& rules() const { return rules_; }

 private:
  std::map<std::string, LoweringRule> rules_;
};

// Every rule of every family.
const RuleTable& LoweringRules();

// The families (rules/*.cpp).
void AddLinearAlgebraRules(RuleTable& table);   // conv, linear, addmm, matmul, bmm, mm, t
void AddNormalizationRules(RuleTable& table);   // batch_norm family, layer_norm family
void AddElementwiseRules(RuleTable& table);     // arithmetic, comparisons, activations, where
void AddReductionRules(RuleTable& table);       // mean, sum, max, softmax, pooling
void AddDataMovementRules(RuleTable& table);    // views, permutes, slices, cat, split, index

}  // namespace torchir::lowering
