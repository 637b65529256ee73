#include "compiler/dialect/argument_value.h"

#include <utility>

namespace torchir::dialect {
namespace {

using ir::AttrValue;
using Kind = ir::AttrValue::Kind;

// Broadcasts a single element to `length`; rejects other lengths when `length` > 0.
template <typename T>
std::optional<std::vector<T>> FitLength(std::vector<T> values, int length) {
  if (length <= 0) return values;
  if (values.size() == 1 && length > 1) values.assign(static_cast<size_t>(length), values[0]);
  if (values.size() != static_cast<size_t>(length)) return std::nullopt;
  return values;
}

bool IsEmptyList(const AttrValue& value) { return value.is_list() && value.list_size() == 0; }

std::optional<std::vector<std::string>> ValueAsStringList(const AttrValue& value) {
  if (value.kind() == Kind::kString) return std::vector<std::string>{value.as_string()};
  if (IsEmptyList(value)) return std::vector<std::string>{};
  if (value.kind() != Kind::kList) return std::nullopt;
  std::vector<std::string> strings;
  for (const AttrValue& item : value.as_list()) {
    if (item.kind() != Kind::kString) return std::nullopt;
    strings.push_back(item.as_string());
  }
  return strings;
}

// A value of one element of kind `kind` (not None, not a list).
bool ElementFits(AtenTypeKind kind, const AttrValue& value) {
  switch (kind) {
    case AtenTypeKind::kTensor:
      return value.is_scalar();  // a scalar-for-tensor
    case AtenTypeKind::kInt:
      return value.kind() == Kind::kInt || value.kind() == Kind::kBool;
    case AtenTypeKind::kFloat:
    case AtenTypeKind::kComplex:
      return value.kind() == Kind::kInt || value.kind() == Kind::kDouble;
    case AtenTypeKind::kBool:
      return ValueAsBool(value).has_value();
    case AtenTypeKind::kScalar:
      return value.is_scalar();
    case AtenTypeKind::kScalarType:
      return ValueAsDType(value).has_value();
    case AtenTypeKind::kLayout:
      return ValueAsLayout(value).has_value();
    case AtenTypeKind::kDevice:
      return ValueAsDevice(value).has_value();
    case AtenTypeKind::kMemoryFormat:
      return ValueAsMemoryFormat(value).has_value();
    case AtenTypeKind::kString:
      return value.kind() == Kind::kString;
    case AtenTypeKind::kGenerator:
      return false;  // only None, checked by the caller
    case AtenTypeKind::kAny:
      return true;
  }
  return false;
}

}  // namespace

bool ValueFitsType(const AtenType& type, const AttrValue& value) {
  if (value.is_none()) return type.optional || type.kind == AtenTypeKind::kAny;
  if (!type.is_list) return ElementFits(type.kind, value);
  std::optional<size_t> size;
  switch (type.kind) {
    case AtenTypeKind::kTensor:
      return IsEmptyList(value);
    case AtenTypeKind::kAny:
      return true;
    case AtenTypeKind::kInt:
      if (auto values = ValueAsIntList(value)) size = values->size();
      break;
    case AtenTypeKind::kFloat:
      if (auto values = ValueAsDoubleList(value)) size = values->size();
      break;
    case AtenTypeKind::kBool:
      if (auto values = ValueAsBoolList(value)) size = values->size();
      break;
    case AtenTypeKind::kString:
      if (auto values = ValueAsStringList(value)) size = values->size();
      break;
    default:
      // Lists of Scalars, dtypes, ...: every element must fit.
      if (IsEmptyList(value)) {
        size = 0;
      } else if (value.kind() == Kind::kIntList) {
        bool fits = true;
        for (int64_t v : value.as_int_list())
          fits = fits && ElementFits(type.kind, AttrValue::Int(v));
        if (fits) size = value.list_size();
      } else if (value.kind() == Kind::kDoubleList) {
        if (ElementFits(type.kind, AttrValue::Double(0))) size = value.list_size();
      } else if (value.kind() == Kind::kList) {
        bool fits = true;
        for (const AttrValue& item : value.as_list()) fits = fits && ElementFits(type.kind, item);
        if (fits) size = value.list_size();
      } else if (ElementFits(type.kind, value)) {
        size = 1;
      }
  }
  if (!size) return false;
  // PyTorch uses N only to broadcast a single value: `int[1] dim` takes any number of dims,
  // `int[2] stride=[]` an empty list. A longer fixed size is a spatial rank and must match.
  const size_t n = static_cast<size_t>(type.fixed_size);
  return n <= 1 || *size <= 1 || *size == n;
}

std::optional<int64_t> ValueAsInt(const AttrValue& value) {
  if (value.kind() == Kind::kInt) return value.as_int();
  if (value.kind() == Kind::kBool) return value.as_bool() ? 1 : 0;
  return std::nullopt;
}

std::optional<double> ValueAsDouble(const AttrValue& value) {
  if (value.kind() == Kind::kDouble) return value.as_double();
  if (value.kind() == Kind::kInt) return static_cast<double>(value.as_int());
  return std::nullopt;
}

std::optional<bool> ValueAsBool(const AttrValue& value) {
  if (value.kind() == Kind::kBool) return value.as_bool();
  if (value.kind() == Kind::kInt && (value.as_int() == 0 || value.as_int() == 1)) {
    return value.as_int() == 1;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ValueAsIntList(const AttrValue& value, int length) {
  std::vector<int64_t> values;
  switch (value.kind()) {
    case Kind::kIntList:
      values = value.as_int_list();
      break;
    case Kind::kInt:
      values = {value.as_int()};
      break;
    case Kind::kList:
      for (const AttrValue& item : value.as_list()) {
        if (item.kind() != Kind::kInt) return std::nullopt;
        values.push_back(item.as_int());
      }
      break;
    default:
      if (!IsEmptyList(value)) return std::nullopt;
  }
  return FitLength(std::move(values), length);
}

std::optional<std::vector<double>> ValueAsDoubleList(const AttrValue& value, int length) {
  std::vector<double> values;
  switch (value.kind()) {
    case Kind::kDoubleList:
      values = value.as_double_list();
      break;
    case Kind::kIntList:
      values.assign(value.as_int_list().begin(), value.as_int_list().end());
      break;
    case Kind::kInt:
    case Kind::kDouble:
      values = {*ValueAsDouble(value)};
      break;
    case Kind::kList:
      for (const AttrValue& item : value.as_list()) {
        std::optional<double> v = ValueAsDouble(item);
        if (!v) return std::nullopt;
        values.push_back(*v);
      }
      break;
    default:
      if (!IsEmptyList(value)) return std::nullopt;
  }
  return FitLength(std::move(values), length);
}

std::optional<std::vector<bool>> ValueAsBoolList(const AttrValue& value, int length) {
  std::vector<bool> values;
  switch (value.kind()) {
    case Kind::kBoolList:
      values = value.as_bool_list();
      break;
    case Kind::kBool:
      values = {value.as_bool()};
      break;
    case Kind::kList:
      for (const AttrValue& item : value.as_list()) {
        if (item.kind() != Kind::kBool) return std::nullopt;
        values.push_back(item.as_bool());
      }
      break;
    default:
      if (!IsEmptyList(value)) return std::nullopt;
  }
  return FitLength(std::move(values), length);
}

std::optional<ir::DType> ValueAsDType(const AttrValue& value) {
  switch (value.kind()) {
    case Kind::kDType:
      return value.as_dtype();
    case Kind::kInt:
      return ir::DTypeFromTorchScalarType(value.as_int());
    case Kind::kString:
      return ir::ParseDType(value.as_string());
    default:
      return std::nullopt;
  }
}

std::optional<ir::Layout> ValueAsLayout(const AttrValue& value) {
  switch (value.kind()) {
    case Kind::kLayout:
      return value.as_layout();
    case Kind::kInt:
      if (value.as_int() < 0 || value.as_int() > 3) return std::nullopt;
      return static_cast<ir::Layout>(value.as_int());
    case Kind::kString:
      return ir::ParseLayout(value.as_string());
    default:
      return std::nullopt;
  }
}

std::optional<ir::MemoryFormat> ValueAsMemoryFormat(const AttrValue& value) {
  switch (value.kind()) {
    case Kind::kMemoryFormat:
      return value.as_memory_format();
    case Kind::kInt:
      if (value.as_int() < 0 || value.as_int() > 3) return std::nullopt;
      return static_cast<ir::MemoryFormat>(value.as_int());
    case Kind::kString:
      return ir::ParseMemoryFormat(value.as_string());
    default:
      return std::nullopt;
  }
}

std::optional<ir::Device> ValueAsDevice(const AttrValue& value) {
  if (value.kind() == Kind::kDevice) return value.as_device();
  if (value.kind() == Kind::kString) return ir::ParseDevice(value.as_string());
  return std::nullopt;
}

}  // namespace torchir::dialect
