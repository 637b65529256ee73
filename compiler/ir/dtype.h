// Element types of tensors in the compiler's graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace torchir::ir {

// Tensor element type. The numbering is internal to the compiler; serialised
// formats (.pte, delegate blobs) keep their own enums.
enum class DType : uint8_t {
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kBool,
  kComplex64,
  kComplex128,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat8E4M3FN,
  kFloat8E5M2,
};

inline constexpr int kNumDTypes = 17;

// The pytorch-ir spelling: "float32", "int64", "bool", ...
std::string_view DTypeName(DType dtype);

// Size of one element in bytes.
size_t DTypeSize(DType dtype);

// Parses "float32" and PyTorch's "torch.float32"; also the aliases "float",
// "half", "double", "long", "int" that PyTorch prints. nullopt when unknown.
std::optional<DType> ParseDType(std::string_view name);

// Maps PyTorch's c10::ScalarType integer (as torch serialises dtypes in
// exported graphs) to a DType. nullopt for types torchir does not model.
std::optional<DType> DTypeFromTorchScalarType(int64_t scalar_type);

bool IsFloatingPoint(DType dtype);
bool IsIntegral(DType dtype);  // bool excluded

}  // namespace torchir::ir
