#include "passes/edge/edge_op_properties.h"

#include "compiler/dialect/edge_ops.h"

namespace torchir::passes {

bool EdgeOpProperties::IsPure(const ir::Node& node) const {
  if (dialect::FindEdgeOp(node.op()) != nullptr) return true;
  return GetDefaultOpProperties().IsPure(node);
}

bool EdgeOpProperties::IsCommutative(const ir::Node& node) const {
  const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node.op());
  return def != nullptr && def->commutative;
}

const EdgeOpProperties& GetEdgeOpProperties() {
  static const EdgeOpProperties* const properties = new EdgeOpProperties();
  return *properties;
}

}  // namespace torchir::passes
