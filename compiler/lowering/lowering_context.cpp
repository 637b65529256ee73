#include "compiler/lowering/lowering_context.h"

#include "absl/strings/str_cat.h"

namespace torchir::lowering {

absl::StatusOr<ir::Value*> LoweringContext::Tensor(const dialect::AtenCall& call,
                                                   std::string_view name) {
  absl::StatusOr<ir::Value*> value = call.Tensor(name);
  if (!value.ok()) return value.status();
  return Map(*value);
}

absl::StatusOr<ir::Value*> LoweringContext::OptionalTensor(const dialect::AtenCall& call,
                                                           std::string_view name) {
  absl::StatusOr<ir::Value*> value = call.OptionalTensor(name);
  if (!value.ok()) return value.status();
  return *value == nullptr ? nullptr : Map(*value);
}

absl::StatusOr<ir::Value*> LoweringContext::TensorOrScalar(const dialect::AtenCall& call,
                                                           std::string_view name,
                                                           ir::DType dtype) {
  absl::StatusOr<const dialect::AtenCall::Bound*> bound = call.Find(name);
  if (!bound.ok()) return bound.status();
  if ((*bound)->kind == dialect::AtenCall::Bound::Kind::kTensor) {
    return builder().CastTo(Map((*bound)->tensor), dtype);
  }
  absl::StatusOr<ir::AttrValue> scalar = call.Scalar(name);
  if (!scalar.ok()) return scalar.status();
  std::optional<double> number = scalar->ToDouble();
  if (!number) {
    return absl::InvalidArgumentError(absl::StrCat("node '", node_->name(), "' (", node_->op(),
                                                   "): argument '", std::string(name),
                                                   "' is not a number"));
  }
  return builder().Scalar(*number, dtype);
}

}  // namespace torchir::lowering
