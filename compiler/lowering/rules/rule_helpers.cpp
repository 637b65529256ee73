#include "compiler/lowering/rules/rule_helpers.h"

#include "compiler/ir/graph_printer.h"
#include "compiler/ir/tensor_limits.h"

namespace torchir::lowering {

absl::Status CheckMaterializable(const ir::TensorType& type) {
  std::string problem = ir::TensorSizeProblem(type);
  if (!problem.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("constant ", type.ToString(), ": ", problem));
  }
  if (type.nbytes() > ir::kDefaultMaxProgramBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("constant ", type.ToString(), " would take ", ir::FormatBytes(type.nbytes()),
                     ", more than the ", ir::FormatBytes(ir::kDefaultMaxProgramBytes),
                     " the compiler builds at compile time"));
  }
  return absl::OkStatus();
}

ir::DType PromoteTypes(ir::DType a, ir::DType b) {
  if (a == b) return a;
  auto category = [](ir::DType t) {
    return t == ir::DType::kBool ? 0 : ir::IsIntegral(t) ? 1 : ir::IsFloatingPoint(t) ? 2 : 3;
  };
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  return ir::DTypeSize(a) >= ir::DTypeSize(b) ? a : b;
}

}  // namespace torchir::lowering
