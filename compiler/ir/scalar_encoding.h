// Encoding of numbers into the bytes of a tensor element type.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/dtype.h"

namespace torchir::ir {

// One number as read from a document: integers keep full 64-bit precision.
struct Number {
  bool is_integer = false;
  int64_t integer = 0;
  double real = 0.0;
  double AsDouble() const { return is_integer ? static_cast<double>(integer) : real; }
};

// Appends `value` to `bytes` as one element of `dtype` (little-endian, IEEE
// half/bfloat16 with round-to-nearest-even). Returns false for dtypes that
// cannot hold a single real number (complex) and for non-integral values given
// to an integer dtype.
bool AppendScalar(DType dtype, const Number& value, std::vector<uint8_t>* bytes);

// IEEE 754 float32 -> binary16 / bfloat16 bits, round to nearest even; NaN stays NaN.
uint16_t FloatToHalfBits(float value);
uint16_t FloatToBFloat16Bits(float value);

}  // namespace torchir::ir
