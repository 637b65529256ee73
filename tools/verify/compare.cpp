#include "tools/verify/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torchir::verify {
namespace {

using ir::DType;

template <typename T>
T Load(const uint8_t* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits >> 15) << 31;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24.
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000u | (mantissa << 13);  // inf or NaN
  } else {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

float BFloat16ToFloat(uint16_t bits) {
  uint32_t result = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

bool IsFloatLike(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kComplex64:
    case DType::kComplex128:
      return true;
    default:
      return false;
  }
}

// Real scalars per element: 2 for complex.
int Parts(DType dtype) { return dtype == DType::kComplex64 || dtype == DType::kComplex128 ? 2 : 1; }

// Part `i` (a real scalar) of the data, as a double.
double LoadReal(DType dtype, const uint8_t* data, int64_t i) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kComplex64:
      return Load<float>(data + i * 4);
    case DType::kFloat64:
    case DType::kComplex128:
      return Load<double>(data + i * 8);
    case DType::kFloat16:
      return HalfToFloat(Load<uint16_t>(data + i * 2));
    case DType::kBFloat16:
      return BFloat16ToFloat(Load<uint16_t>(data + i * 2));
    case DType::kInt8:
      return Load<int8_t>(data + i);
    case DType::kInt16:
      return Load<int16_t>(data + i * 2);
    case DType::kInt32:
      return Load<int32_t>(data + i * 4);
    case DType::kInt64:
      return static_cast<double>(Load<int64_t>(data + i * 8));
    case DType::kUInt8:
    case DType::kBool:
      return Load<uint8_t>(data + i);
    case DType::kUInt16:
      return Load<uint16_t>(data + i * 2);
    case DType::kUInt32:
      return Load<uint32_t>(data + i * 4);
    case DType::kUInt64:
      return static_cast<double>(Load<uint64_t>(data + i * 8));
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

// Whether the dtype's values can be read at all (float8 cannot, yet).
bool IsReadable(DType dtype) {
  return dtype != DType::kFloat8E4M3FN && dtype != DType::kFloat8E5M2;
}

// The spacing of `dtype`'s values at `value` when it is float16 or bfloat16, else 0.
double ReducedUlp(DType dtype, double value) {
  int mantissa_bits, min_exponent;
  switch (dtype) {
    case DType::kFloat16:
      mantissa_bits = 10, min_exponent = -14;
      break;
    case DType::kBFloat16:
      mantissa_bits = 7, min_exponent = -126;
      break;
    default:
      return 0.0;
  }
  int exponent = 0;
  std::frexp(value, &exponent);  // value = m * 2^exponent, 0.5 <= |m| < 1
  return std::ldexp(1.0, std::max(exponent - 1, min_exponent) - mantissa_bits);
}

std::vector<int64_t> Unravel(int64_t index, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> position(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] > 0) {
      position[d] = index % sizes[d];
      index /= sizes[d];
    }
  }
  return position;
}

std::string FormatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

}  // namespace

Comparison Compare(const reference::HostTensor& actual, const reference::HostTensor& expected,
                   const Tolerance& tolerance) {
  Comparison result;
  if (actual.type.dtype != expected.type.dtype) {
    result.problem =
        absl::StrCat("dtype differs: got ", std::string(ir::DTypeName(actual.type.dtype)),
                     ", expected ", std::string(ir::DTypeName(expected.type.dtype)));
    return result;
  }
  if (actual.type.sizes != expected.type.sizes) {
    result.problem = absl::StrCat("shape differs: got ", actual.type.ToString(), ", expected ",
                                  expected.type.ToString());
    return result;
  }
  if (!actual.HasConsistentSize() || !expected.HasConsistentSize()) {
    result.problem = absl::StrCat("data size does not match ", expected.type.ToString());
    return result;
  }
  const DType dtype = expected.type.dtype;
  if (!IsReadable(dtype)) {
    result.problem =
        absl::StrCat("comparing ", std::string(ir::DTypeName(dtype)), " is not supported");
    return result;
  }
  const bool exact = !IsFloatLike(dtype);
  const int parts = Parts(dtype);
  // The bound for one element: float16/bfloat16 add kReducedFloatUlps of their own spacing;
  // double-precision dtypes cap the tolerance (compare.h).
  const bool is_double = dtype == DType::kFloat64 || dtype == DType::kComplex128;
  const double atol = is_double ? std::min(tolerance.atol, tolerance.float64_atol) : tolerance.atol;
  const double rtol = is_double ? std::min(tolerance.rtol, tolerance.float64_rtol) : tolerance.rtol;
  auto within = [&](double a, double e) {
    return std::fabs(a - e) <=
           atol + rtol * std::fabs(e) + kReducedFloatUlps * ReducedUlp(dtype, e);
  };
  const size_t element_size = ir::DTypeSize(dtype);
  result.elements = expected.type.numel();
  const int64_t scalars = result.elements * parts;
  for (int64_t i = 0; i < scalars; ++i) {
    bool matches;
    double a = LoadReal(dtype, actual.data.data(), i);
    double e = LoadReal(dtype, expected.data.data(), i);
    if (exact) {
      // Compare the bits: int64 values beyond 2^53 do not survive a double.
      const size_t part_size = element_size;
      matches = std::memcmp(actual.data.data() + i * part_size,
                            expected.data.data() + i * part_size, part_size) == 0;
    } else if (std::isnan(a) || std::isnan(e)) {
      matches = std::isnan(a) && std::isnan(e);
    } else if (std::isinf(a) || std::isinf(e)) {
      matches = a == e;
    } else {
      matches = within(a, e);
    }
    if (std::isfinite(a) && std::isfinite(e)) {
      const double abs_error = std::fabs(a - e);
      const double rel_error = abs_error == 0.0 ? 0.0
                               : e == 0.0       ? std::numeric_limits<double>::infinity()
                                                : abs_error / std::fabs(e);
      if (abs_error > result.max_abs_error) result.max_abs_error = abs_error;
      if (rel_error > result.max_rel_error) result.max_rel_error = rel_error;
    }
    if (!matches) {
      if (result.mismatches == 0) {
        result.first_mismatch = Unravel(i / parts, expected.type.sizes);
        result.first_actual = a;
        result.first_expected = e;
      }
      ++result.mismatches;
    }
  }
  // Elements, not scalar parts: a complex element fails once even if both parts do.
  if (parts > 1 && result.mismatches > 0) {
    int64_t failing = 0;
    for (int64_t element = 0; element < result.elements; ++element) {
      for (int p = 0; p < parts; ++p) {
        double a = LoadReal(dtype, actual.data.data(), element * parts + p);
        double e = LoadReal(dtype, expected.data.data(), element * parts + p);
        bool ok = (std::isnan(a) || std::isnan(e)) ? std::isnan(a) && std::isnan(e)
                  : (std::isinf(a) || std::isinf(e))
                      ? a == e
                      : within(a, e);
        if (!ok) {
          ++failing;
          break;
        }
      }
    }
    result.mismatches = failing;
  }
  result.passed = result.mismatches == 0;
  return result;
}

std::string Describe(const Comparison& comparison) {
  if (!comparison.problem.empty()) return comparison.problem;
  std::string text = absl::StrCat("max abs error ", FormatNumber(comparison.max_abs_error),
                                  ", max rel error ", FormatNumber(comparison.max_rel_error));
  if (comparison.mismatches > 0) {
    absl::StrAppend(&text, "; ", comparison.mismatches, " of ", comparison.elements,
                    " element(s) outside tolerance, first at [",
                    absl::StrJoin(comparison.first_mismatch, ", "), "]: got ",
                    FormatNumber(comparison.first_actual), ", expected ",
                    FormatNumber(comparison.first_expected));
  }
  return text;
}

}  // namespace torchir::verify
