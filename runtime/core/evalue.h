// EValue: one value of a method (a kernel argument): none, a scalar, a list, a
// string, a dtype, a tensor or a list of tensors. Lists and strings point into
// the loaded program; tensors are owned by the Method.
#pragma once

#include <cstdint>

#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchir::runtime {

class EValue {
 public:
  enum class Tag : uint8_t {
    kNone,
    kInt,
    kDouble,
    kBool,
    kString,
    kIntList,
    kDoubleList,
    kBoolList,
    kScalarType,
    kTensor,
    kTensorList,
  };

  EValue() = default;
  static EValue FromInt(int64_t v) { EValue e(Tag::kInt); e.u_.i = v; return e; }
  static EValue FromDouble(double v) { EValue e(Tag::kDouble); e.u_.d = v; return e; }
  static EValue FromBool(bool v) { EValue e(Tag::kBool); e.u_.b = v; return e; }
  static EValue FromString(const char* data, size_t size) {
    EValue e(Tag::kString); e.u_.str = Span<const char>(data, size); return e;
  }
  static EValue FromIntList(Span<const int64_t> v) { EValue e(Tag::kIntList); e.u_.ints = v; return e; }
  static EValue FromDoubleList(Span<const double> v) {
    EValue e(Tag::kDoubleList); e.u_.doubles = v; return e;
  }
  static EValue FromBoolList(Span<const uint8_t> v) { EValue e(Tag::kBoolList); e.u_.bools = v; return e; }
  static EValue FromScalarType(ScalarType v) { EValue e(Tag::kScalarType); e.u_.type = v; return e; }
  static EValue FromTensor(Tensor* v) { EValue e(Tag::kTensor); e.u_.tensor = v; return e; }
  static EValue FromTensorList(Span<Tensor* const> v) {
    EValue e(Tag::kTensorList); e.u_.tensors = v; return e;
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::kNone; }
  bool is_int() const { return tag_ == Tag::kInt; }
  bool is_double() const { return tag_ == Tag::kDouble; }
  bool is_bool() const { return tag_ == Tag::kBool; }
  bool is_string() const { return tag_ == Tag::kString; }
  bool is_int_list() const { return tag_ == Tag::kIntList; }
  bool is_double_list() const { return tag_ == Tag::kDoubleList; }
  bool is_bool_list() const { return tag_ == Tag::kBoolList; }
  bool is_scalar_type() const { return tag_ == Tag::kScalarType; }
  bool is_tensor() const { return tag_ == Tag::kTensor; }
  bool is_tensor_list() const { return tag_ == Tag::kTensorList; }

  // Accessors do not check the tag: callers check is_*() first (kernels do so
  // once, at Method init, through their check function).
  int64_t to_int() const { return u_.i; }
  double to_double() const { return u_.d; }
  bool to_bool() const { return u_.b; }
  Span<const char> to_string() const { return u_.str; }
  Span<const int64_t> to_int_list() const { return u_.ints; }
  Span<const double> to_double_list() const { return u_.doubles; }
  Span<const uint8_t> to_bool_list() const { return u_.bools; }
  ScalarType to_scalar_type() const { return u_.type; }
  Tensor& to_tensor() const { return *u_.tensor; }
  Span<Tensor* const> to_tensor_list() const { return u_.tensors; }

 private:
  explicit EValue(Tag tag) : tag_(tag) {}

  Tag tag_ = Tag::kNone;
  union Payload {
    Payload() : i(0) {}
    int64_t i;
    double d;
    bool b;
    ScalarType type;
    Span<const char> str;
    Span<const int64_t> ints;
    Span<const double> doubles;
    Span<const uint8_t> bools;
    Tensor* tensor;
    Span<Tensor* const> tensors;
  } u_;
};

}  // namespace torchir::runtime
