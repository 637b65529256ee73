#include "compiler/ir/scalar_encoding.h"

#include <cmath>
#include <cstring>

namespace torchir::ir {
namespace {

template <typename T>
void AppendRaw(T value, std::vector<uint8_t>* bytes) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));  // the targets are little-endian
  bytes->insert(bytes->end(), raw, raw + sizeof(T));
}

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

}  // namespace

uint16_t FloatToHalfBits(float value) {
  uint32_t bits = FloatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  }
  int32_t half_exponent = static_cast<int32_t>(exponent) - 127 + 15;
  if (half_exponent >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow
  if (half_exponent <= 0) {
    if (half_exponent < -10) return static_cast<uint16_t>(sign);  // underflow to zero
    // Subnormal: shift the implicit-one mantissa into place, rounding to even.
    uint32_t full = mantissa | 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - half_exponent);
    uint32_t result = full >> shift;
    uint32_t remainder = full & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
  }
  uint32_t result = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  uint32_t remainder = mantissa & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;
  return static_cast<uint16_t>(sign | result);
}

uint16_t FloatToBFloat16Bits(float value) {
  uint32_t bits = FloatBits(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

bool AppendScalar(DType dtype, const Number& value, std::vector<uint8_t>* bytes) {
  auto integral = [&](int64_t* out) {
    if (value.is_integer) {
      *out = value.integer;
      return true;
    }
    // Converting a double outside int64's range is undefined behaviour: refuse it first.
    if (!std::isfinite(value.real) || std::trunc(value.real) != value.real ||
        std::fabs(value.real) >= 9.2e18) {
      return false;
    }
    *out = static_cast<int64_t>(value.real);
    return true;
  };
  int64_t i = 0;
  switch (dtype) {
    case DType::kFloat32: AppendRaw(static_cast<float>(value.AsDouble()), bytes); return true;
    case DType::kFloat64: AppendRaw(value.AsDouble(), bytes); return true;
    case DType::kFloat16:
      AppendRaw(FloatToHalfBits(static_cast<float>(value.AsDouble())), bytes);
      return true;
    case DType::kBFloat16:
      AppendRaw(FloatToBFloat16Bits(static_cast<float>(value.AsDouble())), bytes);
      return true;
    case DType::kBool: bytes->push_back(value.AsDouble() != 0.0 ? 1 : 0); return true;
    case DType::kInt8: if (!integral(&i)) return false; AppendRaw(static_cast<int8_t>(i), bytes); return true;
    case DType::kInt16: if (!integral(&i)) return false; AppendRaw(static_cast<int16_t>(i), bytes); return true;
    case DType::kInt32: if (!integral(&i)) return false; AppendRaw(static_cast<int32_t>(i), bytes); return true;
    case DType::kInt64: if (!integral(&i)) return false; AppendRaw(i, bytes); return true;
    case DType::kUInt8: if (!integral(&i)) return false; AppendRaw(static_cast<uint8_t>(i), bytes); return true;
    case DType::kUInt16: if (!integral(&i)) return false; AppendRaw(static_cast<uint16_t>(i), bytes); return true;
    case DType::kUInt32: if (!integral(&i)) return false; AppendRaw(static_cast<uint32_t>(i), bytes); return true;
    case DType::kUInt64: if (!integral(&i)) return false; AppendRaw(static_cast<uint64_t>(i), bytes); return true;
    default: return false;  // complex and float8 constants are not representable here
  }
}

}  // namespace torchir::ir
