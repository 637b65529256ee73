#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {

ir::DType PromoteTypes(ir::DType a, ir::DType b) {
  if (a == b) return a;
  auto category = [](ir::DType t) {
    return t == ir::DType::kBool ? 0 : ir::IsIntegral(t) ? 1 : ir::IsFloatingPoint(t) ? 2 : 3;
  };
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  return ir::DTypeSize(a) >= ir::DTypeSize(b) ? a : b;
}

}  // namespace torchir::lowering
