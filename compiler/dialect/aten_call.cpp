#include "compiler/dialect/aten_call.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/dialect/argument_value.h"
#include "compiler/dialect/optional_tensor_rules.h"

namespace torchir::dialect {
namespace {

using ir::AttrValue;
using Bound = AtenCall::Bound;

// How an argument takes part in the flat tensor inputs.
enum class Slot { kNotTensor, kTensor, kOptionalTensor, kTensorList };

Slot SlotOf(const AtenArgument& argument) {
  if (argument.type.kind != AtenTypeKind::kTensor) return Slot::kNotTensor;
  if (argument.type.is_list) return Slot::kTensorList;
  return argument.type.optional ? Slot::kOptionalTensor : Slot::kTensor;
}

std::string NodePrefix(const ir::Node& node) {
  return absl::StrCat("node '", node.name(), "' (", node.op(), "): ");
}

absl::Status NodeError(const ir::Node& node, std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(NodePrefix(node), std::string(problem)));
}

absl::Status ArgumentError(const ir::Node& node, const AtenArgument& argument,
                           std::string_view problem) {
  return NodeError(node, absl::StrCat("argument '", argument.name, "': ", std::string(problem)));
}

size_t CountPresent(const std::vector<bool>& none_mask) {
  return static_cast<size_t>(std::count(none_mask.begin(), none_mask.end(), false));
}

// The value of bool argument `name` for the presence rules: its attribute, else its default.
std::optional<bool> BoolArgument(const ir::Node& node, const AtenSchema& schema,
                                 std::string_view name) {
  if (const AttrValue* value = node.FindAttr(name)) return ValueAsBool(*value);
  const AtenArgument* argument = schema.FindArgument(name);
  if (argument != nullptr && argument->default_value) return ValueAsBool(*argument->default_value);
  return std::nullopt;
}

// Binds a non-tensor argument: its attribute (type-checked), else its default, else None.
absl::StatusOr<Bound> BindValue(const ir::Node& node, const AtenArgument& argument) {
  Bound bound;
  bound.kind = Bound::Kind::kValue;
  if (const AttrValue* value = node.FindAttr(argument.name)) {
    if (!ValueFitsType(argument.type, *value)) {
      return ArgumentError(
          node, argument,
          absl::StrCat("expected ", argument.type.ToString(), ", got ", value->ToString()));
    }
    bound.value = *value;
    return bound;
  }
  bound.from_default = true;
  if (argument.default_value) {
    bound.value = *argument.default_value;
    return bound;
  }
  if (argument.type.optional) return bound;  // None
  return ArgumentError(
      node, argument,
      absl::StrCat("missing: the node has no attribute '", argument.name,
                   "' and the schema gives no default (", argument.type.ToString(), ")"));
}

// Binds a Tensor / Tensor? argument given in the attributes: a number (scalar-for-tensor) or,
// for Tensor?, None.
absl::StatusOr<Bound> BindTensorAttr(const ir::Node& node, const AtenArgument& argument,
                                     const AttrValue& value) {
  Bound bound;
  if (value.is_none() && argument.type.optional) {
    bound.kind = Bound::Kind::kNone;
    return bound;
  }
  if (!value.is_scalar()) {
    return ArgumentError(
        node, argument,
        absl::StrCat("expected a tensor input or a number, got the attribute ", value.ToString()));
  }
  bound.kind = Bound::Kind::kScalarForTensor;
  bound.value = value;
  return bound;
}

}  // namespace

absl::StatusOr<AtenCall> BindAtenCall(const ir::Node& node) {
  if (node.op() == "getitem") {
    return NodeError(node,
                     "getitem is not an ATen op; read its 'index' attribute and its producer's "
                     "outputs directly");
  }
  const AtenSchema* schema = FindAtenSchema(node.op());
  if (schema == nullptr) return NodeError(node, "unknown op: no ATen schema of that name");
  if (schema->is_vararg) return NodeError(node, "ops with variadic arguments are not supported");
  const std::vector<AtenArgument>& arguments = schema->arguments;
  const std::vector<ir::Value*>& inputs = node.inputs();

  // 1. Attributes must name arguments.
  for (const auto& [name, value] : node.attrs()) {
    if (schema->FindArgument(name) == nullptr) {
      return NodeError(node, absl::StrCat("attribute '", name, "' = ", value.ToString(),
                                          " names no argument of ", schema->text));
    }
  }

  // 2. How many inputs each tensor-list argument takes.
  std::vector<Slot> slots;
  for (const AtenArgument& argument : arguments) slots.push_back(SlotOf(argument));
  const std::vector<int64_t>& list_sizes = node.tensor_list_sizes();
  std::vector<std::optional<size_t>> list_take(arguments.size());
  size_t next_size = 0;
  size_t list_inputs = 0;
  size_t unsized_lists = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (slots[i] != Slot::kTensorList || node.HasAttr(arguments[i].name)) continue;
    if (next_size < list_sizes.size()) {
      if (list_sizes[next_size] < 0) return NodeError(node, "a negative _tensor_list_sizes entry");
      list_take[i] = static_cast<size_t>(list_sizes[next_size++]);
      list_inputs += *list_take[i];
    } else {
      ++unsized_lists;
    }
  }
  if (next_size < list_sizes.size()) {
    return NodeError(node, absl::StrCat("_tensor_list_sizes has ", list_sizes.size(),
                                        " entries but the schema has only ", next_size,
                                        " tensor-list argument(s): ", schema->text));
  }

  // 3. Which single tensor arguments take an input.
  std::vector<size_t> required;
  std::vector<size_t> optional;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (node.HasAttr(arguments[i].name)) continue;
    if (slots[i] == Slot::kTensor) required.push_back(i);
    if (slots[i] == Slot::kOptionalTensor) optional.push_back(i);
  }
  // A node without sizes (a hand-made graph) whose only list is unambiguous gives it the rest.
  if (list_sizes.empty() && unsized_lists == 1 && optional.empty()) {
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (slots[i] == Slot::kTensorList && !node.HasAttr(arguments[i].name) &&
          inputs.size() >= required.size()) {
        list_take[i] = inputs.size() - required.size();
        list_inputs = *list_take[i];
      }
    }
  }
  if (inputs.size() < list_inputs + required.size()) {
    return NodeError(
        node, absl::StrCat("has ", inputs.size(), " tensor input(s) but the schema needs at least ",
                           list_inputs + required.size(), ": ", schema->text));
  }
  const size_t optional_given = inputs.size() - list_inputs - required.size();
  if (optional_given > optional.size()) {
    return NodeError(node, absl::StrCat("has ", inputs.size(), " tensor input(s), more than the ",
                                        list_inputs + required.size() + optional.size(),
                                        " the schema takes: ", schema->text));
  }
  absl::StatusOr<std::vector<bool>> present = ChoosePresentOptionalTensors(
      *schema, optional, optional_given,
      [&](std::string_view name) { return BoolArgument(node, *schema, name); });
  if (!present.ok()) return NodeError(node, std::string(present.status().message()));

  // 4./5. Every argument in schema order.
  std::vector<Bound> bound(arguments.size());
  size_t next_input = 0;
  size_t next_optional = 0;
  size_t next_mask = 0;
  const std::vector<std::vector<bool>>& none_masks = node.tensor_list_none_masks();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const AtenArgument& argument = arguments[i];
    const AttrValue* attr = node.FindAttr(argument.name);
    Bound& slot = bound[i];
    switch (slots[i]) {
      case Slot::kTensor:
      case Slot::kOptionalTensor: {
        if (attr != nullptr) {
          absl::StatusOr<Bound> value = BindTensorAttr(node, argument, *attr);
          if (!value.ok()) return value.status();
          slot = std::move(*value);
        } else if (slots[i] == Slot::kTensor || (*present)[next_optional++]) {
          slot.kind = Bound::Kind::kTensor;
          slot.tensor = inputs[next_input++];
        } else {
          slot.kind = Bound::Kind::kNone;
          slot.from_default = true;
        }
        break;
      }
      case Slot::kTensorList: {
        if (attr != nullptr) {
          if (!ValueFitsType(argument.type, *attr)) {
            return ArgumentError(
                node, argument,
                absl::StrCat("expected ", argument.type.ToString(),
                             " as tensor inputs, got the attribute ", attr->ToString()));
          }
          slot.kind = attr->is_none() ? Bound::Kind::kNone : Bound::Kind::kTensorList;
          break;
        }
        if (!list_take[i]) {
          if (argument.type.optional) {
            slot.kind = Bound::Kind::kNone;
            slot.from_default = true;
            break;
          }
          return ArgumentError(node, argument,
                               "no tensors recorded for it (_tensor_list_sizes is missing)");
        }
        const size_t take = *list_take[i];
        std::vector<bool> mask(take, false);
        // Tensor?[]: put back the Nones the file dropped.
        if (argument.type.element_optional && next_mask < none_masks.size() &&
            CountPresent(none_masks[next_mask]) == take) {
          mask = none_masks[next_mask++];
        }
        slot.kind = Bound::Kind::kTensorList;
        for (bool is_none : mask) slot.tensors.push_back(is_none ? nullptr : inputs[next_input++]);
        break;
      }
      case Slot::kNotTensor: {
        absl::StatusOr<Bound> value = BindValue(node, argument);
        if (!value.ok()) return value.status();
        slot = std::move(*value);
        break;
      }
    }
  }
  if (next_mask < none_masks.size()) {
    return NodeError(
        node, absl::StrCat("_tensor_list_none_masks has ", none_masks.size(), " entries but only ",
                           next_mask, " match a Tensor?[] argument of ", schema->text));
  }
  return AtenCall(&node, schema, std::move(bound));
}

absl::Status AtenCall::Error(std::string_view argument, std::string_view problem) const {
  return absl::InvalidArgumentError(absl::StrCat(
      NodePrefix(*node_), "argument '", std::string(argument), "': ", std::string(problem)));
}

absl::Status AtenCall::Expected(std::string_view argument, std::string_view expected,
                                const AttrValue& got) const {
  return Error(argument,
               absl::StrCat("expected ", std::string(expected), ", got ", got.ToString()));
}

absl::StatusOr<const AtenCall::Bound*> AtenCall::Find(std::string_view name) const {
  int index = schema_->ArgumentIndex(name);
  if (index < 0) return Error(name, absl::StrCat("no such argument in ", schema_->text));
  return &arguments_[index];
}

absl::StatusOr<ir::Value*> AtenCall::Tensor(std::string_view name) const {
  absl::StatusOr<const Bound*> bound = Find(name);
  if (!bound.ok()) return bound.status();
  switch ((*bound)->kind) {
    case Bound::Kind::kTensor:
      return (*bound)->tensor;
    case Bound::Kind::kScalarForTensor:
      return Error(name, absl::StrCat("is the number ", (*bound)->value.ToString(),
                                      ", not a tensor input (see IsScalarForTensor)"));
    case Bound::Kind::kNone:
      return Error(name, "is None");
    default:
      return Error(name, "is not a single tensor argument");
  }
}

absl::StatusOr<ir::Value*> AtenCall::OptionalTensor(std::string_view name) const {
  absl::StatusOr<const Bound*> bound = Find(name);
  if (!bound.ok()) return bound.status();
  if ((*bound)->kind == Bound::Kind::kNone) return nullptr;
  return Tensor(name);
}

absl::StatusOr<std::vector<ir::Value*>> AtenCall::TensorList(std::string_view name) const {
  absl::StatusOr<const Bound*> bound = Find(name);
  if (!bound.ok()) return bound.status();
  if ((*bound)->kind == Bound::Kind::kTensorList) return (*bound)->tensors;
  if ((*bound)->kind == Bound::Kind::kNone) return Error(name, "is None");
  return Error(name, "is not a tensor-list argument");
}

bool AtenCall::IsScalarForTensor(std::string_view name) const {
  absl::StatusOr<const Bound*> bound = Find(name);
  return bound.ok() && (*bound)->kind == Bound::Kind::kScalarForTensor;
}

bool AtenCall::IsNone(std::string_view name) const {
  absl::StatusOr<const Bound*> bound = Find(name);
  if (!bound.ok()) return false;
  return (*bound)->kind == Bound::Kind::kNone ||
         ((*bound)->kind == Bound::Kind::kValue && (*bound)->value.is_none());
}

absl::StatusOr<ir::AttrValue> AtenCall::Value(std::string_view name) const {
  absl::StatusOr<const Bound*> bound = Find(name);
  if (!bound.ok()) return bound.status();
  if ((*bound)->kind != Bound::Kind::kValue && (*bound)->kind != Bound::Kind::kScalarForTensor) {
    return Error(name, "is a tensor argument, not a value");
  }
  return (*bound)->value;
}

absl::StatusOr<int64_t> AtenCall::Int(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  std::optional<int64_t> v = ValueAsInt(*value);
  if (!v) return Expected(name, "int", *value);
  return *v;
}

absl::StatusOr<std::optional<int64_t>> AtenCall::OptionalInt(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  if (value->is_none()) return std::optional<int64_t>();
  std::optional<int64_t> v = ValueAsInt(*value);
  if (!v) return Expected(name, "int?", *value);
  return v;
}

absl::StatusOr<std::vector<int64_t>> AtenCall::IntList(std::string_view name,
                                                       int expected_len) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  const AtenArgument& argument = schema_->arguments[schema_->ArgumentIndex(name)];
  const std::string expected =
      expected_len >= 0 ? absl::StrCat("int[", expected_len, "]") : argument.type.ToString();
  std::optional<std::vector<int64_t>> values = ValueAsIntList(*value);
  if (!values) return Expected(name, expected, *value);
  // A single int broadcasts (PyTorch's `int[2] stride=1`), and so does a one-element list
  // where the schema fixes a length (`padding=[1]` for an `int[2]`).
  const int n = argument.type.fixed_size;
  const bool broadcasts =
      values->size() == 1 && (value->kind() == ir::AttrValue::Kind::kInt || n > 1);
  const int length = expected_len >= 0 ? expected_len : n > 1 ? n : -1;
  if (broadcasts && length > 1) values->assign(static_cast<size_t>(length), (*values)[0]);
  // Without an expected length an empty list passes (`int[2] stride=[]`: the op's default).
  const bool fits = expected_len >= 0 ? values->size() == static_cast<size_t>(expected_len)
                                      : length < 0 || values->empty() ||
                                            values->size() == static_cast<size_t>(length);
  if (!fits) return Expected(name, expected, *value);
  return *values;
}

absl::StatusOr<std::optional<std::vector<int64_t>>> AtenCall::OptionalIntList(
    std::string_view name, int expected_len) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  if (value->is_none()) return std::optional<std::vector<int64_t>>();
  absl::StatusOr<std::vector<int64_t>> values = IntList(name, expected_len);
  if (!values.ok()) return values.status();
  return std::optional<std::vector<int64_t>>(std::move(*values));
}

absl::StatusOr<double> AtenCall::Double(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  std::optional<double> v = ValueAsDouble(*value);
  if (!v) return Expected(name, "float", *value);
  return *v;
}

absl::StatusOr<std::optional<double>> AtenCall::OptionalDouble(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  if (value->is_none()) return std::optional<double>();
  std::optional<double> v = ValueAsDouble(*value);
  if (!v) return Expected(name, "float?", *value);
  return v;
}

absl::StatusOr<bool> AtenCall::Bool(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  std::optional<bool> v = ValueAsBool(*value);
  if (!v) return Expected(name, "bool", *value);
  return *v;
}

absl::StatusOr<ir::AttrValue> AtenCall::Scalar(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  if (!value->is_scalar()) return Expected(name, "Scalar", *value);
  return *value;
}

absl::StatusOr<std::optional<ir::DType>> AtenCall::OptionalDType(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  if (value->is_none()) return std::optional<ir::DType>();
  std::optional<ir::DType> dtype = ValueAsDType(*value);
  if (!dtype) return Expected(name, "ScalarType", *value);
  return dtype;
}

absl::StatusOr<std::string> AtenCall::String(std::string_view name) const {
  absl::StatusOr<ir::AttrValue> value = Value(name);
  if (!value.ok()) return value.status();
  if (value->kind() != ir::AttrValue::Kind::kString) return Expected(name, "str", *value);
  return value->as_string();
}

}  // namespace torchir::dialect
