#include "compiler/dialect/kernel_arguments.h"

#include "absl/strings/str_cat.h"

namespace torchir::dialect {

absl::StatusOr<std::vector<KernelArgumentSlot>> KernelArgumentSlots(const ir::Node& node) {
  const EdgeOpDef* def = FindEdgeOp(node.op());
  if (def == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("node '", node.name(), "': '", node.op(), "' is not an Edge op"));
  }
  std::vector<KernelArgumentSlot> slots;
  size_t next_input = 0;
  const size_t num_inputs = node.inputs().size();
  for (const TensorOperand& operand : def->inputs) {
    KernelArgumentSlot slot;
    if (operand.variadic) {
      slot.kind = KernelArgumentSlot::Kind::kTensorList;
      slot.first_input = next_input;
      slot.count = num_inputs - next_input;
      next_input = num_inputs;
    } else if (next_input < num_inputs) {
      slot.kind = KernelArgumentSlot::Kind::kTensor;
      slot.first_input = next_input++;
    } else if (operand.optional) {
      slot.kind = KernelArgumentSlot::Kind::kAbsent;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                     "): missing operand '", operand.name, "'"));
    }
    slots.push_back(std::move(slot));
  }
  if (next_input != num_inputs) {
    return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                   "): ", num_inputs, " inputs, the op takes ",
                                                   def->inputs.size()));
  }
  for (const AttrSpec& attr : def->attrs) {
    KernelArgumentSlot slot;
    slot.kind = KernelArgumentSlot::Kind::kAttribute;
    slot.attribute = attr.name;
    slot.attribute_kind = attr.kind;
    slots.push_back(std::move(slot));
  }
  for (size_t i = 0; i < node.outputs().size(); ++i) {
    KernelArgumentSlot slot;
    slot.kind = KernelArgumentSlot::Kind::kOutput;
    slot.output_index = i;
    slots.push_back(std::move(slot));
  }
  return slots;
}

}  // namespace torchir::dialect
