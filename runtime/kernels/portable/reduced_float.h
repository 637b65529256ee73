// float32 <-> the narrow float formats (float16, bfloat16, float8_e4m3fn,
// float8_e5m2), bit-exact with PyTorch's c10 conversions: round to nearest
// even; float16, bfloat16 and e5m2 overflow to infinity; e4m3fn has no
// infinity, so overflow, infinities and NaN become its NaN (0x7f, signed).
// Other sources (float64, integers) convert to float32 first, as c10 does.
#pragma once

#include <cstdint>
#include <cstring>

namespace torchir::runtime::portable::tensor_ops {

// A sign-exponent-mantissa format of at most 16 bits.
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  bool has_infinity;  // IEEE-like: the all-ones exponent is inf/NaN
  uint32_t nan;       // the NaN produced from a float32 NaN
  bool nan_has_sign;  // whether that NaN keeps the input's sign
};

inline constexpr FloatFormat kFloat16Format{5, 10, true, 0x7e00, true};
inline constexpr FloatFormat kBFloat16Format{8, 7, true, 0x7fc0, false};
inline constexpr FloatFormat kFloat8E4M3FNFormat{4, 3, false, 0x7f, true};
inline constexpr FloatFormat kFloat8E5M2Format{5, 2, true, 0x7f, true};

inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Rounds `value` to nearest even in `format` and returns its bits.
inline uint32_t EncodeFloat(const FloatFormat& format, float value) {
  const uint32_t bits = FloatBits(value);
  const uint32_t sign = (bits >> 31) << (format.exponent_bits + format.mantissa_bits);
  const uint32_t magnitude = bits & 0x7fffffffu;
  const uint32_t exponent_mask = (1u << format.exponent_bits) - 1;
  const uint32_t infinity = exponent_mask << format.mantissa_bits;
  if (magnitude > 0x7f800000u) return format.nan | (format.nan_has_sign ? sign : 0);
  // No infinity: the largest finite value's pattern is just below NaN's.
  const uint32_t overflow = format.has_infinity ? infinity : format.nan;
  if (magnitude == 0x7f800000u) return overflow | sign;
  // value = significand * 2^(exponent - 23), significand with its implicit bit.
  int exponent = static_cast<int>(magnitude >> 23) - 127;
  uint32_t significand = magnitude & 0x7fffffu;
  if (exponent == -127) {
    exponent = -126;  // float32 subnormal
  } else {
    significand |= 0x800000u;
  }
  const int bias = static_cast<int>(exponent_mask >> 1);
  const int min_exponent = 1 - bias;
  // Below the format's normal range the quantum stays 2^(min_exponent - m).
  const int quantum_exponent =
      (exponent < min_exponent ? min_exponent : exponent) - format.mantissa_bits;
  const int shift = quantum_exponent - (exponent - 23);  // >= 23 - mantissa_bits > 0
  uint32_t rounded = 0;
  if (shift < 32) {
    rounded = significand >> shift;
    const uint32_t remainder = significand & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (remainder > half || (remainder == half && (rounded & 1u) != 0)) ++rounded;
  }
  // Normal results add the biased exponent; the implicit bit (or a carry out of
  // the mantissa) lands in the exponent field, subnormals have exponent 0.
  uint32_t result = rounded;
  if (exponent >= min_exponent) {
    result += static_cast<uint32_t>(exponent + bias - 1) << format.mantissa_bits;
  }
  if (format.has_infinity ? result >= infinity : result > format.nan - 1) return overflow | sign;
  return result | sign;
}

// The exact float32 value of `bits` in `format`.
inline float DecodeFloat(const FloatFormat& format, uint32_t bits) {
  const int width = format.exponent_bits + format.mantissa_bits;
  // float32's own exponent (bfloat16): a truncated float32, subnormals included.
  if (format.exponent_bits == 8) return FloatFromBits(bits << (31 - width));
  const uint32_t sign = ((bits >> width) & 1u) << 31;
  const uint32_t exponent_mask = (1u << format.exponent_bits) - 1;
  const uint32_t exponent = (bits >> format.mantissa_bits) & exponent_mask;
  const uint32_t mantissa = bits & ((1u << format.mantissa_bits) - 1);
  const int bias = static_cast<int>(exponent_mask >> 1);
  if (format.has_infinity ? exponent == exponent_mask
                          : (bits & ((1u << width) - 1)) == format.nan) {
    if (mantissa == 0 && format.has_infinity) return FloatFromBits(sign | 0x7f800000u);
    return FloatFromBits(sign | 0x7fc00000u);
  }
  if (exponent == 0) {
    // mantissa * 2^(1 - bias - mantissa_bits): with a narrower exponent than
    // float32's, both factors and the product are exact normal floats.
    const float quantum =
        FloatFromBits(static_cast<uint32_t>(127 + 1 - bias - format.mantissa_bits) << 23);
    const float magnitude = static_cast<float>(mantissa) * quantum;
    return sign != 0 ? -magnitude : magnitude;
  }
  return FloatFromBits(sign |
                       (static_cast<uint32_t>(static_cast<int>(exponent) - bias + 127) << 23) |
                       (mantissa << (23 - format.mantissa_bits)));
}

}  // namespace torchir::runtime::portable::tensor_ops
