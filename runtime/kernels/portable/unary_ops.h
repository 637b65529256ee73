// The elementwise unary kernels as one list: one line per kernel gives its name (the Edge op
// table's `kernel`), its dtypes and its formula. unary.cpp turns each line into the kernel's run
// function, kernel_list.h into its declaration and registration, so a new elementwise unary op
// is one line here. An X-macro list, deliberately without an include guard: the includer
// defines
//
//   TORCHIR_UNARY(name, dtypes, formula)
//       (input, out): out = formula of `x`, a value of the input's C++ type `T`, converted to
//       T; dtypes is Float (float32, float64), Real (float32, float64, int32, int64) or Bits
//       (int32, int64, bool, which runs as uint8_t 0/1); its check is Check<dtypes>Unary;
//   TORCHIR_UNARY_ATTRS(name, count, formula)
//       (input, count float attributes, out), float32 or float64: the formula also reads the
//       attributes as T values a0, a1, a2, in the Edge table's order; its check is
//       CheckFloatUnaryAttrs<count>;
//
// and #undefs them after. Formulas follow PyTorch's CPU kernels, so results agree to float
// rounding. Constants are written T(...), never as float literals, so that float64 computes in
// double all the way, as PyTorch's double kernels do; helpers a formula needs (Neg, ...) are
// in unary.cpp.

// Activations.
TORCHIR_UNARY(hardswish, Float, x * Relu6OfXPlus3(x) / T(6))
TORCHIR_UNARY(hardsigmoid, Float, Relu6OfXPlus3(x) / T(6))
TORCHIR_UNARY(sigmoid, Float, T(1) / (T(1) + std::exp(-x)))
TORCHIR_UNARY(tanh, Float, std::tanh(x))
TORCHIR_UNARY(silu, Float, x / (T(1) + std::exp(-x)))
TORCHIR_UNARY(mish, Float, x * std::tanh(std::log1p(std::exp(x))))
TORCHIR_UNARY(log_sigmoid, Float, std::min(x, T(0)) - std::log1p(std::exp(-std::abs(x))))
// threshold(input, threshold, value, out); a NaN stays NaN.
TORCHIR_UNARY_ATTRS(threshold, 2, x <= a0 ? a1 : x)
// nan_to_num(input, nan, posinf, neginf, out).
TORCHIR_UNARY_ATTRS(nan_to_num, 3, x != x ? a0 : (x == INFINITY ? a1 : (x == -INFINITY ? a2 : x)))
// leaky_relu(input, negative_slope, out).
TORCHIR_UNARY_ATTRS(leaky_relu, 1, x > T(0) ? x : x * a0)
// elu(input, alpha, scale, input_scale, out); celu and selu lower to it.
TORCHIR_UNARY_ATTRS(elu, 3, x > T(0) ? x * a1 : std::expm1(x * a2) * a0 * a1)
// softplus(input, beta, threshold, out): linear where x * beta > threshold.
TORCHIR_UNARY_ATTRS(softplus, 2, x * a0 > a1 ? x : std::log1p(std::exp(x * a0)) / a0)
// hardshrink/softshrink(input, lambd, out).
TORCHIR_UNARY_ATTRS(hardshrink, 1, x >= -a0 && x <= a0 ? T(0) : x)
TORCHIR_UNARY_ATTRS(softshrink, 1, x > a0 ? x - a0 : (x < -a0 ? x + a0 : x * T(0)))

// Exponentials, logarithms, roots.
TORCHIR_UNARY(exp, Float, std::exp(x))
TORCHIR_UNARY(exp2, Float, std::exp2(x))
TORCHIR_UNARY(expm1, Float, std::expm1(x))
TORCHIR_UNARY(log, Float, std::log(x))
TORCHIR_UNARY(log2, Float, std::log2(x))
TORCHIR_UNARY(log10, Float, std::log10(x))
TORCHIR_UNARY(log1p, Float, std::log1p(x))
TORCHIR_UNARY(sqrt, Float, std::sqrt(x))
TORCHIR_UNARY(rsqrt, Float, T(1) / std::sqrt(x))
TORCHIR_UNARY(reciprocal, Float, T(1) / x)
TORCHIR_UNARY(erf, Float, std::erf(x))
TORCHIR_UNARY(erfc, Float, std::erfc(x))

// Trigonometric and hyperbolic.
TORCHIR_UNARY(sin, Float, std::sin(x))
TORCHIR_UNARY(cos, Float, std::cos(x))
TORCHIR_UNARY(tan, Float, std::tan(x))
TORCHIR_UNARY(asin, Float, std::asin(x))
TORCHIR_UNARY(acos, Float, std::acos(x))
TORCHIR_UNARY(atan, Float, std::atan(x))
TORCHIR_UNARY(sinh, Float, std::sinh(x))
TORCHIR_UNARY(cosh, Float, std::cosh(x))
TORCHIR_UNARY(asinh, Float, std::asinh(x))
TORCHIR_UNARY(acosh, Float, std::acosh(x))
TORCHIR_UNARY(atanh, Float, std::atanh(x))

// Rounding (integer tensors never reach these: rounding them is the identity, lowered away).
// round is half to even (nearbyint in the default rounding mode), as torch.round.
TORCHIR_UNARY(floor, Float, std::floor(x))
TORCHIR_UNARY(ceil, Float, std::ceil(x))
TORCHIR_UNARY(round, Float, std::nearbyint(x))
TORCHIR_UNARY(trunc, Float, std::trunc(x))
TORCHIR_UNARY(frac, Float, x - std::trunc(x))

// Sign and magnitude; integers wrap around like PyTorch's (-INT_MIN is INT_MIN).
TORCHIR_UNARY(neg, Real, Neg(x))
TORCHIR_UNARY(abs, Real, Abs(x))
// -1, 0 or 1; 0 for NaN and for both zeros.
TORCHIR_UNARY(sign, Real, (T(0) < x) - (x < T(0)))

// Bits: ~x on integers, logical not on bool (logical_not lowers to it after a cast to bool).
TORCHIR_UNARY(bitwise_not, Bits, BitwiseNot(x))
