// Tensor element types as the runtime sees them. The numbering equals the
// .pte schema's torchir.pte.ScalarType (checked by a static_assert in the
// program loader).
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchir::runtime {

enum class ScalarType : int8_t {
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kBFloat16 = 3,
  kInt8 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kUInt8 = 8,
  kBool = 9,
  kComplex64 = 10,
  kComplex128 = 11,
  kUInt16 = 12,
  kUInt32 = 13,
  kUInt64 = 14,
  kFloat8E4M3FN = 15,
  kFloat8E5M2 = 16,
};

inline constexpr int kNumScalarTypes = 17;

inline constexpr bool IsValidScalarType(int value) { return value >= 0 && value < kNumScalarTypes; }

// Bytes per element.
size_t ElementSize(ScalarType type);

// "float32", "int64", ... (the compiler's spelling).
const char* ScalarTypeName(ScalarType type);

}  // namespace torchir::runtime
