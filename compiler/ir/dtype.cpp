#include "compiler/ir/dtype.h"

#include <array>

namespace torchir::ir {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  size_t size;
  int torch_scalar_type;  // c10::ScalarType numbering
};

constexpr std::array<DTypeInfo, kNumDTypes> kDTypes = {{
    {DType::kFloat32, "float32", 4, 6},
    {DType::kFloat64, "float64", 8, 7},
    {DType::kFloat16, "float16", 2, 5},
    {DType::kBFloat16, "bfloat16", 2, 15},
    {DType::kInt8, "int8", 1, 1},
    {DType::kInt16, "int16", 2, 2},
    {DType::kInt32, "int32", 4, 3},
    {DType::kInt64, "int64", 8, 4},
    {DType::kUInt8, "uint8", 1, 0},
    {DType::kBool, "bool", 1, 11},
    {DType::kComplex64, "complex64", 8, 9},
    {DType::kComplex128, "complex128", 16, 10},
    {DType::kUInt16, "uint16", 2, 27},
    {DType::kUInt32, "uint32", 4, 28},
    {DType::kUInt64, "uint64", 8, 29},
    {DType::kFloat8E4M3FN, "float8_e4m3fn", 1, 24},
    {DType::kFloat8E5M2, "float8_e5m2", 1, 23},
}};

const DTypeInfo& Info(DType dtype) { return kDTypes[static_cast<size_t>(dtype)]; }

}  // namespace

std::string_view DTypeName(DType dtype) { return Info(dtype).name; }

size_t DTypeSize(DType dtype) { return Info(dtype).size; }

std::optional<DType> ParseDType(std::string_view name) {
  constexpr std::string_view kTorchPrefix = "torch.";
  if (name.substr(0, kTorchPrefix.size()) == kTorchPrefix) name.remove_prefix(kTorchPrefix.size());
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.dtype;
  }
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"float", DType::kFloat32}, {"double", DType::kFloat64}, {"half", DType::kFloat16},
      {"long", DType::kInt64},    {"int", DType::kInt32},      {"short", DType::kInt16},
      {"cfloat", DType::kComplex64}, {"cdouble", DType::kComplex128},
  };
  for (const Alias& alias : kAliases) {
    if (alias.name == name) return alias.dtype;
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromTorchScalarType(int64_t scalar_type) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.torch_scalar_type == scalar_type) return info.dtype;
  }
  return std::nullopt;
}

bool IsFloatingPoint(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16 || dtype == DType::kFloat8E4M3FN || dtype == DType::kFloat8E5M2;
}

bool IsIntegral(DType dtype) {
  return dtype == DType::kInt8 || dtype == DType::kInt16 || dtype == DType::kInt32 ||
         dtype == DType::kInt64 || dtype == DType::kUInt8 || dtype == DType::kUInt16 ||
         dtype == DType::kUInt32 || dtype == DType::kUInt64;
}

}  // namespace torchir::ir
