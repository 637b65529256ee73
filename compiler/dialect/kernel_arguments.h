// The order in which a runtime kernel receives an Edge node's arguments: the
// op's tensor operands in table order (an omitted optional operand is an
// absent slot, the variadic operand is one tensor-list slot), then its
// attributes in table order, then its outputs. The emitter writes instructions
// in this order and kernels read them in it; this file is the one definition.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/ir/graph.h"

namespace torchir::dialect {

struct KernelArgumentSlot {
  enum class Kind {
    kTensor,      // node->input(first_input)
    kTensorList,  // node->input(first_input .. first_input + count - 1)
    kAbsent,      // an omitted optional tensor operand
    kAttribute,   // node->attr(attribute), of kind attribute_kind
    kOutput,      // node->output(output_index)
  };
  Kind kind;
  size_t first_input = 0;
  size_t count = 0;
  std::string attribute;
  AttrKind attribute_kind = AttrKind::kInt;
  size_t output_index = 0;
};

// The slots of `node`, an Edge node that VerifyEdgeNode accepts. Errors when
// the node's inputs do not fit its table row.
absl::StatusOr<std::vector<KernelArgumentSlot>> KernelArgumentSlots(const ir::Node& node);

}  // namespace torchir::dialect
