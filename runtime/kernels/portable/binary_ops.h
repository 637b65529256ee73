// The broadcasting binary kernels as one list: one line per kernel gives its name (the Edge op
// table's `kernel`), its dtypes and its formula. binary.cpp turns each line into the kernel's
// run function, kernel_list.h into its declaration and registration, so a new elementwise
// binary op is one line here. An X-macro list, deliberately without an include guard: the
// includer defines
//
//   TORCHIR_BINARY(name, dtypes, formula)
//       (self, other, out), all of one dtype: out = formula of `a` (self) and `b` (other),
//       values of the C++ type `T`, converted to T; dtypes is Float (float32, float64), Real
//       (float32, float64, int32, int64) or Bits (int32, int64, bool as uint8_t 0/1); its
//       check is Check<dtypes>Binary;
//   TORCHIR_COMPARISON(name, formula)
//       (self, other, out): float32/float64/int32/int64 operands of one dtype, bool out; its
//       check is CheckComparison;
//
// and #undefs them after. Formulas follow PyTorch's CPU kernels (NaN, infinities, integer
// wrap-around) and write constants as T(...), so float64 computes in double; helpers a formula
// needs (Wrapping, ...) are in binary.cpp. Integer division by zero, which PyTorch refuses
// with an exception, gives 0 here (fmod, remainder, floor_divide).

// Arithmetic; integers wrap around (two's complement) like PyTorch's.
TORCHIR_BINARY(add, Real, Wrapping(a, b, [](auto x, auto y) { return x + y; }))
TORCHIR_BINARY(sub, Real, Wrapping(a, b, [](auto x, auto y) { return x - y; }))
TORCHIR_BINARY(mul, Real, Wrapping(a, b, [](auto x, auto y) { return x * y; }))
TORCHIR_BINARY(div, Float, a / b)
TORCHIR_BINARY(pow, Float, std::pow(a, b))
// Python's %: the result takes the divisor's sign. fmod: C's, the dividend's sign.
TORCHIR_BINARY(remainder, Real, Remainder(a, b))
TORCHIR_BINARY(fmod, Real, Fmod(a, b))
// Python's //: the quotient rounded toward -inf.
TORCHIR_BINARY(floor_divide, Real, FloorDivide(a, b))
// maximum/minimum propagate a NaN from either side (torch.maximum does).
TORCHIR_BINARY(maximum, Real, IsNaN(a) || IsNaN(b) ? a + b : (a > b ? a : b))
TORCHIR_BINARY(minimum, Real, IsNaN(a) || IsNaN(b) ? a + b : (a < b ? a : b))
TORCHIR_BINARY(atan2, Float, std::atan2(a, b))
TORCHIR_BINARY(hypot, Float, std::hypot(a, b))
TORCHIR_BINARY(copysign, Float, std::copysign(a, b))
// log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities are themselves.
TORCHIR_BINARY(logaddexp, Float,
               std::isinf(a) && a == b ? a
                                       : std::max(a, b) + std::log1p(std::exp(-std::abs(a - b))))

// Bits; on bool, logical and/or/xor (logical_and/or/xor lower to these after a cast to bool).
TORCHIR_BINARY(bitwise_and, Bits, AsBits(a) & AsBits(b))
TORCHIR_BINARY(bitwise_or, Bits, AsBits(a) | AsBits(b))
TORCHIR_BINARY(bitwise_xor, Bits, AsBits(a) ^ AsBits(b))

// Comparisons.
TORCHIR_COMPARISON(eq, a == b)
TORCHIR_COMPARISON(ne, a != b)
TORCHIR_COMPARISON(lt, a < b)
TORCHIR_COMPARISON(le, a <= b)
TORCHIR_COMPARISON(gt, a > b)
TORCHIR_COMPARISON(ge, a >= b)
