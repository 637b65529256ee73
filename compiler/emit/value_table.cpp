#include "compiler/emit/value_table.h"

#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/emit/scalar_type.h"

namespace torchir::emit {
namespace {

// Content keys for interning: a kind tag then the payload's bytes. Doubles by
// bit pattern, so 0.0 and -0.0 (and NaN payloads) stay distinct values.
template <typename T>
void AppendBytes(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::string_view AttrValueKindName(ir::AttrValue::Kind kind) {
  using Kind = ir::AttrValue::Kind;
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kDouble:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kIntList:
      return "int[]";
    case Kind::kDoubleList:
      return "float[]";
    case Kind::kBoolList:
      return "bool[]";
    case Kind::kDType:
      return "ScalarType";
    case Kind::kDevice:
      return "Device";
    case Kind::kMemoryFormat:
      return "MemoryFormat";
    case Kind::kLayout:
      return "Layout";
    case Kind::kList:
      return "list";
  }
  return "?";
}

// The AttrValue kind that carries an attribute of table kind `kind`.
ir::AttrValue::Kind ExpectedKind(dialect::AttrKind kind) {
  using Kind = ir::AttrValue::Kind;
  switch (kind) {
    case dialect::AttrKind::kInt:
      return Kind::kInt;
    case dialect::AttrKind::kIntList:
      return Kind::kIntList;
    case dialect::AttrKind::kDouble:
      return Kind::kDouble;
    case dialect::AttrKind::kBool:
      return Kind::kBool;
    case dialect::AttrKind::kDType:
      return Kind::kDType;
    case dialect::AttrKind::kString:
      return Kind::kString;
  }
  return Kind::kNone;
}

}  // namespace

int32_t ValueTable::FindTensor(const ir::Value* value) const {
  auto it = tensors_.find(value);
  return it == tensors_.end() ? -1 : it->second;
}

absl::StatusOr<int32_t> ValueTable::AddConstantTensor(const ir::Value* value, uint32_t segment,
                                                      uint64_t offset) {
  return AddTensor(value, pte::CreateConstantData(builder_, segment, offset), 0);
}

absl::StatusOr<int32_t> ValueTable::AddPlannedTensor(const ir::Value* value, uint32_t arena,
                                                     uint64_t offset) {
  return AddTensor(value, 0, pte::CreateAllocation(builder_, arena, offset));
}

absl::StatusOr<int32_t> ValueTable::AddTensor(const ir::Value* value,
                                              flatbuffers::Offset<pte::ConstantData> constant,
                                              flatbuffers::Offset<pte::Allocation> allocation) {
  std::optional<pte::ScalarType> scalar_type = ToPteScalarType(value->dtype());
  if (!scalar_type) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", value->name(), "': dtype ",
                                                   static_cast<int>(value->dtype()),
                                                   " has no .pte scalar type"));
  }
  auto sizes = builder_.CreateVector(value->sizes());
  // Written empty rather than left out: the schema's "contiguous", and a loader
  // need not tell an absent vector from an empty one.
  auto dim_order = builder_.CreateVector(std::vector<uint8_t>());
  auto tensor = pte::CreateTensor(builder_, *scalar_type, sizes, dim_order, constant, allocation);
  int32_t index = Append(pte::Value::Tensor, tensor.Union());
  tensors_.emplace(value, index);
  return index;
}

int32_t ValueTable::Null() {
  return Intern("null",
                [&] { return Append(pte::Value::Null, pte::CreateNull(builder_).Union()); });
}

int32_t ValueTable::TensorList(const std::vector<int32_t>& tensors) {
  std::string key = "tensors";
  for (int32_t tensor : tensors) AppendBytes(key, tensor);
  return Intern(key, [&] {
    auto items = builder_.CreateVector(tensors);
    return Append(pte::Value::TensorList, pte::CreateTensorList(builder_, items).Union());
  });
}

absl::StatusOr<int32_t> ValueTable::Attribute(const ir::AttrValue& attribute,
                                              dialect::AttrKind kind) {
  if (attribute.kind() != ExpectedKind(kind)) {
    return absl::InvalidArgumentError(
        absl::StrCat("is ", std::string(AttrValueKindName(attribute.kind())), ", the op takes ",
                     std::string(AttrKindName(kind))));
  }
  std::string key;
  switch (kind) {
    case dialect::AttrKind::kInt: {
      AppendBytes(key.assign("int:"), attribute.as_int());
      return Intern(key, [&] {
        return Append(pte::Value::Int, pte::CreateInt(builder_, attribute.as_int()).Union());
      });
    }
    case dialect::AttrKind::kDouble: {
      AppendBytes(key.assign("double:"), attribute.as_double());
      return Intern(key, [&] {
        return Append(pte::Value::Double,
                      pte::CreateDouble(builder_, attribute.as_double()).Union());
      });
    }
    case dialect::AttrKind::kBool: {
      key = attribute.as_bool() ? "bool:1" : "bool:0";
      return Intern(key, [&] {
        return Append(pte::Value::Bool, pte::CreateBool(builder_, attribute.as_bool()).Union());
      });
    }
    case dialect::AttrKind::kString: {
      key = absl::StrCat("string:", attribute.as_string());
      return Intern(key, [&] {
        auto text = builder_.CreateString(attribute.as_string());
        return Append(pte::Value::String, pte::CreateString(builder_, text).Union());
      });
    }
    case dialect::AttrKind::kIntList: {
      key = "ints:";
      for (int64_t item : attribute.as_int_list()) AppendBytes(key, item);
      return Intern(key, [&] {
        auto items = builder_.CreateVector(attribute.as_int_list());
        return Append(pte::Value::IntList, pte::CreateIntList(builder_, items).Union());
      });
    }
    case dialect::AttrKind::kDType: {
      std::optional<pte::ScalarType> scalar_type = ToPteScalarType(attribute.as_dtype());
      if (!scalar_type) return absl::InvalidArgumentError("holds a dtype with no .pte scalar type");
      AppendBytes(key.assign("dtype:"), *scalar_type);
      return Intern(key, [&] {
        return Append(pte::Value::ScalarTypeValue,
                      pte::CreateScalarTypeValue(builder_, *scalar_type).Union());
      });
    }
  }
  return absl::InternalError("unknown attribute kind");
}

int32_t ValueTable::Append(pte::Value type, flatbuffers::Offset<void> value) {
  values_.push_back(pte::CreateEValue(builder_, type, value));
  return static_cast<int32_t>(values_.size() - 1);
}

template <typename Make>
int32_t ValueTable::Intern(const std::string& key, Make make) {
  auto it = interned_.find(key);
  if (it != interned_.end()) return it->second;
  int32_t index = make();
  interned_.emplace(key, index);
  return index;
}

}  // namespace torchir::emit
