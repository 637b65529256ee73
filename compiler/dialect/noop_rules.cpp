#include "compiler/dialect/noop_rules.h"

#include <vector>

namespace torchir::dialect::noop_rules {

bool SameType(const ir::Node& node) { return node.input(0)->type() == node.output()->type(); }

bool SingleInput(const ir::Node& node) { return node.num_inputs() == 1; }

bool IdentityPermutation(const ir::Node& node) {
  const auto& dims = node.FindAttr("dims")->as_int_list();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

bool WholeSlice(const ir::Node& node) {
  const int64_t dim = node.FindAttr("dim")->as_int();
  return node.FindAttr("start")->as_int() == 0 && node.FindAttr("step")->as_int() == 1 &&
         node.FindAttr("end")->as_int() == node.input(0)->sizes()[static_cast<size_t>(dim)];
}

void SkipInner(ir::Node& node, const ir::Node& inner) { node.ReplaceInput(0, inner.input(0)); }

void ComposePermutations(ir::Node& node, const ir::Node& inner) {
  // out[i] = mid[outer[i]] = in[first[outer[i]]]
  const auto& outer = node.FindAttr("dims")->as_int_list();
  const auto& first = inner.FindAttr("dims")->as_int_list();
  std::vector<int64_t> composed(outer.size());
  for (size_t i = 0; i < outer.size(); ++i) composed[i] = first[static_cast<size_t>(outer[i])];
  node.SetAttr("dims", ir::AttrValue::IntList(composed));
  node.ReplaceInput(0, inner.input(0));
}

}  // namespace torchir::dialect::noop_rules
