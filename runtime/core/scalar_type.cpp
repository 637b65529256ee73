#include "runtime/core/scalar_type.h"

namespace torchir::runtime {

size_t ElementSize(ScalarType type) {
  switch (type) {
    case ScalarType::kFloat64:
    case ScalarType::kInt64:
    case ScalarType::kUInt64:
    case ScalarType::kComplex64:
      return 8;
    case ScalarType::kComplex128:
      return 16;
    case ScalarType::kFloat32:
    case ScalarType::kInt32:
    case ScalarType::kUInt32:
      return 4;
    case ScalarType::kFloat16:
    case ScalarType::kBFloat16:
    case ScalarType::kInt16:
    case ScalarType::kUInt16:
      return 2;
    case ScalarType::kInt8:
    case ScalarType::kUInt8:
    case ScalarType::kBool:
    case ScalarType::kFloat8E4M3FN:
    case ScalarType::kFloat8E5M2:
      return 1;
  }
  return 0;
}

const char* ScalarTypeName(ScalarType type) {
  switch (type) {
    case ScalarType::kFloat32: return "float32";
    case ScalarType::kFloat64: return "float64";
    case ScalarType::kFloat16: return "float16";
    case ScalarType::kBFloat16: return "bfloat16";
    case ScalarType::kInt8: return "int8";
    case ScalarType::kInt16: return "int16";
    case ScalarType::kInt32: return "int32";
    case ScalarType::kInt64: return "int64";
    case ScalarType::kUInt8: return "uint8";
    case ScalarType::kBool: return "bool";
    case ScalarType::kComplex64: return "complex64";
    case ScalarType::kComplex128: return "complex128";
    case ScalarType::kUInt16: return "uint16";
    case ScalarType::kUInt32: return "uint32";
    case ScalarType::kUInt64: return "uint64";
    case ScalarType::kFloat8E4M3FN: return "float8_e4m3fn";
    case ScalarType::kFloat8E5M2: return "float8_e5m2";
  }
  return "unknown";
}

}  // namespace torchir::runtime
