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

  // Records that `op` is refused on purpose, with the reason shown to the user: ops with no
  // forward-inference meaning (training, random sampling, gradients) or that a static program
  // cannot hold (data-dependent shapes, complex dtypes). An op is either ruled or refused.
  void Refuse(std::string op, std::string reason);
  // Why `op` is refused, or nullptr when it is not.
  const std::string* RefusalReason(std::string_view op) const;
  const std::map<std::string, std::string>& refusals() const { return refusals_; }

 private:
  std::map<std::string, LoweringRule> rules_;
  std::map<std::string, std::string> refusals_;
};

// Every rule of every family.
const RuleTable& LoweringRules();

// The families (rules/*.cpp).
void AddLinearAlgebraRules(RuleTable& table);   // conv, linear, addmm, matmul, bmm, mm, t
void AddNormalizationRules(RuleTable& table);   // batch_norm family, layer_norm family
void AddElementwiseRules(RuleTable& table);     // arithmetic, comparisons, activations, where
void AddReductionRules(RuleTable& table);       // mean, sum, max, softmax, pooling
void AddDataMovementRules(RuleTable& table);    // views, permutes, slices, cat, split, index
void AddPaddingRules(RuleTable& table);         // reflection, replication and circular padding
void AddCompositeRules(RuleTable& table);       // einsum, tensordot, losses: decompositions
void AddRefusals(RuleTable& table);             // ops refused on purpose, each with its reason

}  // namespace torchir::lowering
