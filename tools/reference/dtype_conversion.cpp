#include "tools/reference/dtype_conversion.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace torchir::reference {
namespace {

constexpr std::pair<ir::DType, c10::ScalarType> kPairs[] = {
    {ir::DType::kFloat32, c10::ScalarType::Float},
    {ir::DType::kFloat64, c10::ScalarType::Double},
    {ir::DType::kFloat16, c10::ScalarType::Half},
    {ir::DType::kBFloat16, c10::ScalarType::BFloat16},
    {ir::DType::kInt8, c10::ScalarType::Char},
    {ir::DType::kInt16, c10::ScalarType::Short},
    {ir::DType::kInt32, c10::ScalarType::Int},
    {ir::DType::kInt64, c10::ScalarType::Long},
    {ir::DType::kUInt8, c10::ScalarType::Byte},
    {ir::DType::kBool, c10::ScalarType::Bool},
    {ir::DType::kComplex64, c10::ScalarType::ComplexFloat},
    {ir::DType::kComplex128, c10::ScalarType::ComplexDouble},
};

}  // namespace

absl::StatusOr<c10::ScalarType> ToScalarType(ir::DType dtype) {
  for (const auto& [ours, theirs] : kPairs) {
    if (ours == dtype) return theirs;
  }
  return absl::UnimplementedError(absl::StrCat("dtype ", std::string(ir::DTypeName(dtype)),
                                               " is not supported by LibTorch 1.13"));
}

absl::StatusOr<ir::DType> FromScalarType(c10::ScalarType scalar_type) {
  for (const auto& [ours, theirs] : kPairs) {
    if (theirs == scalar_type) return ours;
  }
  return absl::UnimplementedError(
      absl::StrCat("LibTorch scalar type ", c10::toString(scalar_type), " has no torchir dtype"));
}

}  // namespace torchir::reference
