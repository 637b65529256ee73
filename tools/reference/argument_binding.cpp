#include "tools/reference/argument_binding.h"

#include <ATen/ATen.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dialect/aten_schema.h"
#include "compiler/dialect/optional_tensor_rules.h"
#include "tools/reference/dtype_conversion.h"

namespace torchir::reference {
namespace {

using ir::AttrValue;

// How an argument takes part in the flat tensor inputs.
enum class TensorSlot { kNotTensor, kTensor, kOptionalTensor, kTensorList, kOptionalTensorList };

bool IsTensorType(const c10::TypePtr& type) { return type->kind() == c10::TypeKind::TensorType; }

bool IsOptionalTensorType(const c10::TypePtr& type) {
  const auto* optional = type->castRaw<c10::OptionalType>();
  return optional != nullptr && IsTensorType(optional->getElementType());
}

TensorSlot SlotOf(const c10::Argument& argument) {
  const c10::TypePtr& type = argument.type();
  if (IsTensorType(type)) return TensorSlot::kTensor;
  if (IsOptionalTensorType(type)) return TensorSlot::kOptionalTensor;
  if (const auto* list = type->castRaw<c10::ListType>()) {
    if (IsTensorType(list->getElementType())) return TensorSlot::kTensorList;
    if (IsOptionalTensorType(list->getElementType())) return TensorSlot::kOptionalTensorList;
  }
  return TensorSlot::kNotTensor;
}

bool IsList(TensorSlot slot) {
  return slot == TensorSlot::kTensorList || slot == TensorSlot::kOptionalTensorList;
}

// The argument's type as the schema spells it ("int[2]", "ScalarType?").
std::string TypeText(const c10::Argument& argument) {
  std::string text = argument.real_type()->str();
  if (argument.N()) {
    size_t brackets = text.find("[]");
    if (brackets != std::string::npos) {
      text.replace(brackets, 2, absl::StrCat("[", *argument.N(), "]"));
    }
  }
  return text;
}

std::string ArgumentError(const c10::Argument& argument, const std::string& problem) {
  return absl::StrCat("argument '", argument.name(), "' (", TypeText(argument), "): ", problem);
}

absl::Status BadValue(const c10::Argument& argument, const AttrValue& value) {
  return absl::InvalidArgumentError(
      ArgumentError(argument, absl::StrCat("cannot take the value ", value.ToString())));
}

// Broadcasts a one-element list to the schema's fixed length N (`int[2] stride=1`).
template <typename T>
std::vector<T> Broadcast(std::vector<T> values, const c10::optional<int32_t>& n) {
  if (n && values.size() == 1 && *n > 1) values.assign(static_cast<size_t>(*n), values[0]);
  return values;
}

std::optional<std::vector<double>> ToDoubleList(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kDoubleList:
      return value.as_double_list();
    case AttrValue::Kind::kIntList: {
      const std::vector<int64_t>& ints = value.as_int_list();
      return std::vector<double>(ints.begin(), ints.end());
    }
    case AttrValue::Kind::kInt:
    case AttrValue::Kind::kDouble:
      return std::vector<double>{*value.ToDouble()};
    case AttrValue::Kind::kList: {
      std::vector<double> values;
      for (const AttrValue& item : value.as_list()) {
        std::optional<double> v = item.is_scalar() ? item.ToDouble() : std::nullopt;
        if (!v) return std::nullopt;
        values.push_back(*v);
      }
      return values;
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::vector<bool>> ToBoolList(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kBoolList:
      return value.as_bool_list();
    case AttrValue::Kind::kBool:
      return std::vector<bool>{value.as_bool()};
    case AttrValue::Kind::kIntList:
      // An empty JSON list reads as an empty int list.
      if (value.as_int_list().empty()) return std::vector<bool>{};
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<bool> ToBool(const AttrValue& value) {
  if (value.kind() == AttrValue::Kind::kBool) return value.as_bool();
  if (value.kind() == AttrValue::Kind::kInt && (value.as_int() == 0 || value.as_int() == 1)) {
    return value.as_int() == 1;
  }
  return std::nullopt;
}

// Converts `value` to an IValue of `type` (the argument's real type, which
// tells ScalarType, Layout and MemoryFormat apart from int).
absl::StatusOr<c10::IValue> ToIValue(const c10::Argument& argument, const AttrValue& value,
                                     const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      if (value.is_none()) return c10::IValue();
      return ToIValue(argument, value, type->castRaw<c10::OptionalType>()->getElementType());
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: {
      std::optional<int64_t> v =
          value.kind() == AttrValue::Kind::kBool ? std::nullopt : value.ToInt();
      if (!v) return BadValue(argument, value);
      return c10::IValue(*v);
    }
    case c10::TypeKind::FloatType:
    case c10::TypeKind::SymFloatType: {
      std::optional<double> v = value.ToDouble();
      if (!v || value.kind() == AttrValue::Kind::kBool) return BadValue(argument, value);
      return c10::IValue(*v);
    }
    case c10::TypeKind::BoolType: {
      std::optional<bool> v = ToBool(value);
      if (!v) return BadValue(argument, value);
      return c10::IValue(*v);
    }
    case c10::TypeKind::NumberType:  // Scalar
      switch (value.kind()) {
        case AttrValue::Kind::kBool:
          return c10::IValue(value.as_bool());
        case AttrValue::Kind::kInt:
          return c10::IValue(value.as_int());
        case AttrValue::Kind::kDouble:
          return c10::IValue(value.as_double());
        default:
          return BadValue(argument, value);
      }
    case c10::TypeKind::StringType:
      if (value.kind() != AttrValue::Kind::kString) return BadValue(argument, value);
      return c10::IValue(value.as_string());
    case c10::TypeKind::ScalarTypeType: {
      if (value.kind() == AttrValue::Kind::kDType) {
        absl::StatusOr<c10::ScalarType> scalar_type = ToScalarType(value.as_dtype());
        if (!scalar_type.ok()) {
          return absl::InvalidArgumentError(
              ArgumentError(argument, std::string(scalar_type.status().message())));
        }
        return c10::IValue(static_cast<int64_t>(*scalar_type));
      }
      // PyTorch's own numbering, as an exporter may write it under another name.
      if (value.kind() == AttrValue::Kind::kInt && value.as_int() >= 0 &&
          value.as_int() < static_cast<int64_t>(c10::ScalarType::NumOptions)) {
        return c10::IValue(value.as_int());
      }
      return BadValue(argument, value);
    }
    case c10::TypeKind::LayoutType:
      if (value.kind() == AttrValue::Kind::kLayout) {
        return c10::IValue(static_cast<int64_t>(value.as_layout()));
      }
      if (value.kind() == AttrValue::Kind::kInt) return c10::IValue(value.as_int());
      return BadValue(argument, value);
    case c10::TypeKind::MemoryFormatType:
      if (value.kind() == AttrValue::Kind::kMemoryFormat) {
        return c10::IValue(static_cast<int64_t>(value.as_memory_format()));
      }
      if (value.kind() == AttrValue::Kind::kInt) return c10::IValue(value.as_int());
      return BadValue(argument, value);
    case c10::TypeKind::DeviceObjType:
      // The reference runs on the CPU whatever device the export named (it
      // was made on `meta`).
      if (value.kind() == AttrValue::Kind::kDevice || value.kind() == AttrValue::Kind::kString) {
        return c10::IValue(c10::Device(c10::kCPU));
      }
      return BadValue(argument, value);
    case c10::TypeKind::GeneratorType:
      if (value.is_none()) return c10::IValue();
      return BadValue(argument, value);
    case c10::TypeKind::ListType: {
      const c10::TypePtr& element = type->castRaw<c10::ListType>()->getElementType();
      switch (element->kind()) {
        case c10::TypeKind::IntType:
        case c10::TypeKind::SymIntType: {
          std::optional<std::vector<int64_t>> values = value.ToIntList();
          if (!values) return BadValue(argument, value);
          return c10::IValue(Broadcast(std::move(*values), argument.N()));
        }
        case c10::TypeKind::FloatType: {
          std::optional<std::vector<double>> values = ToDoubleList(value);
          if (!values) return BadValue(argument, value);
          return c10::IValue(Broadcast(std::move(*values), argument.N()));
        }
        case c10::TypeKind::BoolType: {
          std::optional<std::vector<bool>> values = ToBoolList(value);
          if (!values) return BadValue(argument, value);
          c10::List<bool> list;
          for (bool v : Broadcast(std::move(*values), argument.N())) list.push_back(v);
          return c10::IValue(std::move(list));
        }
        case c10::TypeKind::StringType: {
          std::vector<std::string> values;
          if (value.kind() == AttrValue::Kind::kString) {
            values.push_back(value.as_string());
          } else if (value.kind() == AttrValue::Kind::kList) {
            for (const AttrValue& item : value.as_list()) {
              if (item.kind() != AttrValue::Kind::kString) return BadValue(argument, value);
              values.push_back(item.as_string());
            }
          } else if (!(value.kind() == AttrValue::Kind::kIntList && value.as_int_list().empty())) {
            return BadValue(argument, value);
          }
          return c10::IValue(std::move(values));
        }
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  return absl::UnimplementedError(
      ArgumentError(argument, "the reference executor cannot pass arguments of this type"));
}

// A number given where the schema asks for a tensor (`x * 0.5`), as PyTorch's
// Python binding passes it: a 0-d "wrapped number" tensor, which type
// promotion treats like a Python scalar.
absl::StatusOr<at::Tensor> WrappedNumber(const c10::Argument& argument, const AttrValue& value) {
  at::Tensor tensor;
  switch (value.kind()) {
    case AttrValue::Kind::kBool:
      tensor = at::scalar_tensor(value.as_bool(), at::kBool);
      break;
    case AttrValue::Kind::kInt:
      tensor = at::scalar_tensor(value.as_int(), at::kLong);
      break;
    case AttrValue::Kind::kDouble:
      tensor = at::scalar_tensor(value.as_double(), at::kDouble);
      break;
    default:
      return absl::InvalidArgumentError(ArgumentError(
          argument, absl::StrCat("expected a tensor input or a number, got the attribute ",
                                 value.ToString())));
  }
  tensor.unsafeGetTensorImpl()->set_wrapped_number(true);
  return tensor;
}

// The value of bool argument `name`: its attribute, else its schema default.
std::optional<bool> BoolArgument(const ir::Node& node, const c10::FunctionSchema& schema,
                                 std::string_view name) {
  if (const AttrValue* value = node.FindAttr(name)) return ToBool(*value);
  c10::optional<int> index = schema.argumentIndexWithName(std::string(name));
  if (!index) return std::nullopt;
  const c10::optional<c10::IValue>& default_value = schema.arguments()[*index].default_value();
  if (default_value && default_value->isBool()) return default_value->toBool();
  return std::nullopt;
}

// Decides which of the optional tensor arguments `candidates` (schema
// indices, in order) were passed, given that `count` of them were. The rules
// are the compiler's (dialect/optional_tensor_rules.h), applied to the op's
// schema in torchir's table with the arguments matched by name.
absl::StatusOr<std::vector<bool>> ChoosePresent(const ir::Node& node,
                                                const c10::FunctionSchema& schema,
                                                const std::vector<size_t>& candidates,
                                                size_t count) {
  const size_t n = candidates.size();
  if (count == 0) return std::vector<bool>(n, false);
  if (count == n) return std::vector<bool>(n, true);
  const dialect::AtenSchema* known = dialect::FindAtenSchema(node.op());
  if (known == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        count, " of ", n, " optional tensor arguments were given and torchir's schema table "
        "has no rule to tell which (a None tensor leaves no input)"));
  }
  std::vector<size_t> known_candidates;
  for (size_t index : candidates) {
    int known_index = known->ArgumentIndex(schema.arguments()[index].name());
    if (known_index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("argument '",
                                                     schema.arguments()[index].name(),
                                                     "' is not in torchir's schema of the op"));
    }
    known_candidates.push_back(static_cast<size_t>(known_index));
  }
  return dialect::ChoosePresentOptionalTensors(
      *known, known_candidates, count,
      [&](std::string_view name) { return BoolArgument(node, schema, name); });
}

size_t CountPresent(const std::vector<bool>& none_mask) {
  return static_cast<size_t>(std::count(none_mask.begin(), none_mask.end(), false));
}

// The value of a non-tensor argument: its attribute, else the schema default,
// else None for an optional.
absl::StatusOr<c10::IValue> NonTensorArgument(const ir::Node& node, const c10::Argument& argument) {
  if (const AttrValue* value = node.FindAttr(argument.name())) {
    return ToIValue(argument, *value, argument.real_type());
  }
  if (argument.default_value()) return *argument.default_value();
  if (argument.type()->kind() == c10::TypeKind::OptionalType) return c10::IValue();
  return absl::InvalidArgumentError(
      ArgumentError(argument, "missing: no attribute of that name and no schema default"));
}

}  // namespace

absl::StatusOr<torch::jit::Stack> BindArguments(const ir::Node& node,
                                                const c10::FunctionSchema& schema,
                                                const std::vector<at::Tensor>& inputs) {
  const std::vector<c10::Argument>& arguments = schema.arguments();

  // Attributes must name arguments; a None one is harmless (an exporter may
  // spell out a newer PyTorch's keyword argument at its default).
  for (const auto& [name, value] : node.attrs()) {
    if (!schema.argumentIndexWithName(name) && !value.is_none()) {
      return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' = ", value.ToString(),
                                                     " names no argument of the schema ",
                                                     c10::toString(schema)));
    }
  }

  // 1. How many inputs each tensor-list argument takes.
  std::vector<TensorSlot> slots;
  for (const c10::Argument& argument : arguments) slots.push_back(SlotOf(argument));
  const std::vector<int64_t>& list_sizes = node.tensor_list_sizes();
  std::vector<std::optional<size_t>> list_take(arguments.size());
  size_t next_list_size = 0;
  size_t list_inputs = 0;
  size_t list_arguments = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!IsList(slots[i])) continue;
    ++list_arguments;
    if (next_list_size < list_sizes.size()) {
      list_take[i] = static_cast<size_t>(list_sizes[next_list_size++]);
      list_inputs += *list_take[i];
    }
  }
  if (next_list_size < list_sizes.size()) {
    return absl::InvalidArgumentError(absl::StrCat("_tensor_list_sizes has ", list_sizes.size(),
                                                   " entries but the schema has ", list_arguments,
                                                   " tensor-list argument(s)"));
  }

  // 2. Which single tensor arguments take an input.
  std::vector<size_t> required, optional;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (node.HasAttr(arguments[i].name())) continue;
    if (slots[i] == TensorSlot::kTensor) required.push_back(i);
    if (slots[i] == TensorSlot::kOptionalTensor) optional.push_back(i);
  }
  // A single unsized list (a hand-made graph) takes whatever the single
  // arguments leave.
  if (list_sizes.empty() && list_arguments == 1 && optional.empty()) {
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (IsList(slots[i]) && !node.HasAttr(arguments[i].name()) &&
          inputs.size() >= required.size()) {
        list_take[i] = inputs.size() - required.size();
        list_inputs = *list_take[i];
      }
    }
  }
  if (inputs.size() < list_inputs + required.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("has ", inputs.size(), " tensor input(s) but the schema needs at least ",
                     list_inputs + required.size(), " (", c10::toString(schema), ")"));
  }
  const size_t optional_given = inputs.size() - list_inputs - required.size();
  if (optional_given > optional.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("has ", inputs.size(), " tensor input(s), more than the ",
                     list_inputs + required.size() + optional.size(), " the schema takes (",
                     c10::toString(schema), ")"));
  }
  absl::StatusOr<std::vector<bool>> optional_present =
      ChoosePresent(node, schema, optional, optional_given);
  if (!optional_present.ok()) return optional_present.status();

  // 3. The stack, in schema order.
  torch::jit::Stack stack;
  stack.reserve(arguments.size());
  size_t next_input = 0;
  size_t next_optional = 0;
  size_t next_mask = 0;
  const std::vector<std::vector<bool>>& none_masks = node.tensor_list_none_masks();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const c10::Argument& argument = arguments[i];
    const AttrValue* attr = node.FindAttr(argument.name());
    switch (slots[i]) {
      case TensorSlot::kTensor:
        if (attr != nullptr) {
          absl::StatusOr<at::Tensor> number = WrappedNumber(argument, *attr);
          if (!number.ok()) return number.status();
          stack.emplace_back(std::move(*number));
        } else {
          stack.emplace_back(inputs[next_input++]);
        }
        break;
      case TensorSlot::kOptionalTensor:
        if (attr != nullptr) {
          if (attr->is_none()) {
            stack.emplace_back();
          } else {
            absl::StatusOr<at::Tensor> number = WrappedNumber(argument, *attr);
            if (!number.ok()) return number.status();
            stack.emplace_back(std::move(*number));
          }
        } else if ((*optional_present)[next_optional++]) {
          stack.emplace_back(inputs[next_input++]);
        } else {
          stack.emplace_back();
        }
        break;
      case TensorSlot::kTensorList:
      case TensorSlot::kOptionalTensorList: {
        if (!list_take[i]) {
          // Not given positionally: an attribute (an empty list), the
          // default, or None.
          if (attr != nullptr && attr->list_size() == 0 && attr->is_list()) {
            if (slots[i] == TensorSlot::kTensorList) {
              stack.emplace_back(c10::List<at::Tensor>());
            } else {
              stack.emplace_back(c10::List<c10::optional<at::Tensor>>());
            }
          } else if (attr == nullptr && argument.default_value()) {
            stack.push_back(*argument.default_value());
          } else if ((attr == nullptr || attr->is_none()) &&
                     argument.type()->kind() == c10::TypeKind::OptionalType) {
            stack.emplace_back();
          } else {
            return absl::InvalidArgumentError(ArgumentError(
                argument, "no tensors recorded for it (_tensor_list_sizes is missing)"));
          }
          break;
        }
        const size_t take = *list_take[i];
        if (slots[i] == TensorSlot::kTensorList) {
          c10::List<at::Tensor> list;
          for (size_t k = 0; k < take; ++k) list.push_back(inputs[next_input++]);
          stack.emplace_back(std::move(list));
          break;
        }
        // Tensor?[]: re-insert the Nones the file dropped.
        std::vector<bool> mask(take, false);
        if (next_mask < none_masks.size() && CountPresent(none_masks[next_mask]) == take) {
          mask = none_masks[next_mask++];
        }
        c10::List<c10::optional<at::Tensor>> list;
        for (bool is_none : mask) {
          if (is_none) {
            list.push_back(c10::nullopt);
          } else {
            list.push_back(inputs[next_input++]);
          }
        }
        stack.emplace_back(std::move(list));
        break;
      }
      case TensorSlot::kNotTensor: {
        absl::StatusOr<c10::IValue> value = NonTensorArgument(node, argument);
        if (!value.ok()) return value.status();
        stack.push_back(std::move(*value));
        break;
      }
    }
  }
  if (next_mask < none_masks.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("_tensor_list_none_masks has ", none_masks.size(), " entries but only ",
                     next_mask, " match a Tensor?[] argument of the schema"));
  }
  return stack;
}

std::vector<at::Tensor> FlattenReturns(const torch::jit::Stack& stack) {
  std::vector<at::Tensor> tensors;
  for (const c10::IValue& value : stack) {
    if (value.isTensor()) {
      tensors.push_back(value.toTensor());
    } else if (value.isTensorList()) {
      for (const at::Tensor& tensor : value.toTensorVector()) tensors.push_back(tensor);
    } else if (value.isList()) {
      for (const c10::IValue& item : value.toListRef()) {
        if (item.isTensor()) tensors.push_back(item.toTensor());
      }
    }
  }
  return tensors;
}

}  // namespace torchir::reference
