#include "passes/op_properties.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace torchir::passes {
namespace {

// Splits "aten.<name>.<overload>" into name and overload; false for other namespaces.
bool SplitAtenOp(std::string_view op, std::string_view* name, std::string_view* overload) {
  constexpr std::string_view kPrefix = "aten.";
  if (op.substr(0, kPrefix.size()) != kPrefix) return false;
  std::string_view rest = op.substr(kPrefix.size());
  size_t dot = rest.find('.');
  *name = rest.substr(0, dot);
  *overload = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  return !name->empty();
}

// ATen ops whose results are random, so two calls with equal arguments differ.
constexpr std::array<std::string_view, 16> kRandomAtenOps = {
    "alpha_dropout",   "bernoulli",   "dropout",        "feature_alpha_dropout",
    "feature_dropout", "multinomial", "native_dropout", "normal",
    "poisson",         "rand",        "rand_like",      "randint",
    "randint_like",    "randn",       "randn_like",     "randperm",
};

}  // namespace

bool IsInPlaceAtenOp(const std::string& op) {
  std::string_view name, overload;
  if (!SplitAtenOp(op, &name, &overload)) return false;
  bool dunder =
      name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__";
  if (dunder) return name[2] == 'i';  // __iand__ writes its first argument; __and__ does not
  return name.back() == '_';
}

bool DefaultOpProperties::IsPure(const ir::Node& node) const {
  if (node.num_outputs() == 0) return false;
  if (IsInPlaceAtenOp(node.op())) return false;
  std::string_view name, overload;
  if (!SplitAtenOp(node.op(), &name, &overload)) return true;
  if (overload == "out") return false;
  return std::find(kRandomAtenOps.begin(), kRandomAtenOps.end(), name) == kRandomAtenOps.end();
}

bool DefaultOpProperties::IsCommutative(const ir::Node& /*node*/) const { return false; }

const OpProperties& GetDefaultOpProperties() {
  static const DefaultOpProperties* const properties = new DefaultOpProperties();
  return *properties;
}

}  // namespace torchir::passes
