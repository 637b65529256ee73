#include "compiler/emit/scalar_type.h"

namespace torchir::emit {

std::optional<pte::ScalarType> ToPteScalarType(ir::DType dtype) {
  using ir::DType;
  using pte::ScalarType;
  switch (dtype) {
    case DType::kFloat32:
      return ScalarType::Float32;
    case DType::kFloat64:
      return ScalarType::Float64;
    case DType::kFloat16:
      return ScalarType::Float16;
    case DType::kBFloat16:
      return ScalarType::BFloat16;
    case DType::kInt8:
      return ScalarType::Int8;
    case DType::kInt16:
      return ScalarType::Int16;
    case DType::kInt32:
      return ScalarType::Int32;
    case DType::kInt64:
      return ScalarType::Int64;
    case DType::kUInt8:
      return ScalarType::UInt8;
    case DType::kBool:
      return ScalarType::Bool;
    case DType::kComplex64:
      return ScalarType::Complex64;
    case DType::kComplex128:
      return ScalarType::Complex128;
    case DType::kUInt16:
      return ScalarType::UInt16;
    case DType::kUInt32:
      return ScalarType::UInt32;
    case DType::kUInt64:
      return ScalarType::UInt64;
    case DType::kFloat8E4M3FN:
      return ScalarType::Float8E4M3FN;
    case DType::kFloat8E5M2:
      return ScalarType::Float8E5M2;
  }
  // -Wswitch flags a DType added without a case here.
  return std::nullopt;
}

}  // namespace torchir::emit
