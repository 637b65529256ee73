// The epilogue activations on vectors of floats, compiled once per Highway target (a Highway
// "-inl" header: include it after hwy/highway.h, inside a foreach_target.h translation unit).
// The GEMM applies the clamp inside its micro-kernel; every other activation runs through
// ActivationRows on a panel's block just stored (still in L1), as does the depthwise convolution on
// each block of pixels. Formulas are the portable kernels' (runtime/kernels/portable/unary.cpp):
//   hardswish   x * min(max(x + 3, 0), 6) / 6        (the / 6 as * (1 / 6): within 1 ulp)
//   hardsigmoid min(max(x + 3, 0), 6) / 6
//   sigmoid     1 / (1 + exp(-x))
//   silu        x / (1 + exp(-x))
//   gelu        x * (1 + erf(x / sqrt 2)) / 2, erf by a rational fit (Erf below, |error| <=
//               4.4e-7 in float), or the tanh form
// with Exponential below for exp (relative error <= 1.5e-7 against std::exp wherever e^x is a
// normal float: activation_test.cpp).
#if defined(TORCHIR_BACKENDS_NATIVE_ACTIVATION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TORCHIR_BACKENDS_NATIVE_ACTIVATION_INL_H_
#undef TORCHIR_BACKENDS_NATIVE_ACTIVATION_INL_H_
#else
#define TORCHIR_BACKENDS_NATIVE_ACTIVATION_INL_H_
#endif

#include <cstddef>
#include <cstring>

#include "backends/native/gemm.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace torchir::native {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// e^x. The steps:
//  1. clamp x to [-105, 89]: e^-105 rounds to 0 and e^89 overflows to +inf, so the clamp changes
//     no result, and n below stays within an int;
//  2. x = n ln2 + r with n = round(x / ln2), |r| <= ln2 / 2 (ln2 split in a high part with 9
//     significant bits, so n * high is exact, and a low part: Cody & Waite's reduction); n by
//     adding 1.5 * 2^23 (no float-int conversions);
//  3. e^r by its Taylor series to r^7 / 7! (truncation < 2e-8 relative for |r| <= 0.35) in
//     Estrin's scheme: a chain of 4 dependent operations where Horner's rule makes 7, which
//     is what bounded silu (one exp per element: 31 % of efficientnet_b0's samples under
//     `perf`, 25 % after);
//  4. e^x = e^r * 2^a * 2^b with a + b = n, a = n / 2: each factor a normal float even where 2^n
//     is not (n = 128 just below the overflow, n < -126 for subnormal results), so results
//     round once into the subnormal range.
// NaN in, NaN out. Relative error <= 1.5e-7 (about 1 ulp) where the result is a normal float;
// measured over every 256th float: 1.0e-7 with FMA, 1.01e-7 without (activation_test.cpp;
// Horner's rule had 0.75e-7 and 0.98e-7).
// kFlushSubnormal: 0 for x < -87.3365 (e^x below about the smallest normal float; the bound is
// the float just above ln 2^-126, so e^bound is normal) and e^x from x clamped to that bound
// otherwise, so no step makes a subnormal number: on Zen 3 a vector whose result underflows
// took 2.3x as long (softmax's masked and far-below-the-maximum entries, whose share of a sum
// >= 1 is below 1.2e-38 anyway).
// kKeepNaN false: a NaN comes out as some finite or infinite number instead, for callers whose
// result is NaN anyway (silu multiplies by x): one vector fewer live across the polynomial.
template <bool kFlushSubnormal = false, bool kKeepNaN = true, class D, class V>
HWY_INLINE V Exponential(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V lowest = hn::Set(d, kFlushSubnormal ? -87.3365f : -105.0f);
  const V clamped = hn::Min(hn::Max(x, lowest), hn::Set(d, 89.0f));
  // n = round(x / ln2) by adding 1.5 * 2^23 (the sum's last mantissa bits hold n, rounded to
  // nearest even; |x / ln2| < 152 fits them): two additions instead of two conversions.
  const V magic = hn::Set(d, 12582912.0f);
  const V shifted = hn::MulAdd(clamped, hn::Set(d, 1.44269504089f), magic);
  const V nf = hn::Sub(shifted, magic);
  const auto n = hn::Sub(hn::BitCast(di, shifted), hn::BitCast(di, magic));
  V r = hn::NegMulAdd(nf, hn::Set(d, 0.693359375f), clamped);
  r = hn::NegMulAdd(nf, hn::Set(d, -2.12194440054e-4f), r);
  // Estrin's scheme, the terms after 1 summed first (one rounding when 1 is added):
  // 1 + ((r + r^2 (1/2 + r/6)) + r^4 ((1/24 + r/120) + r^2 (1/720 + r/5040))).
  const V r2 = hn::Mul(r, r);
  const V r4 = hn::Mul(r2, r2);
  const V low = hn::MulAdd(r2, hn::MulAdd(r, hn::Set(d, 1.0f / 6.0f), hn::Set(d, 0.5f)), r);
  const V high =
      hn::MulAdd(r2, hn::MulAdd(r, hn::Set(d, 1.0f / 5040.0f), hn::Set(d, 1.0f / 720.0f)),
                 hn::MulAdd(r, hn::Set(d, 1.0f / 120.0f), hn::Set(d, 1.0f / 24.0f)));
  const V p = hn::Add(hn::MulAdd(r4, high, low), hn::Set(d, 1.0f));
  const auto a = hn::ShiftRight<1>(n);  // arithmetic: floor(n / 2)
  const auto b = hn::Sub(n, a);
  const auto bias = hn::Set(di, 127);
  const V scale_a = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(a, bias)));
  const V scale_b = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(b, bias)));
  V result = hn::Mul(hn::Mul(p, scale_a), scale_b);
  if constexpr (kFlushSubnormal) result = hn::IfThenZeroElse(hn::Lt(x, lowest), result);
  if constexpr (!kKeepNaN) return result;
  return hn::IfThenElse(hn::IsNaN(x), x, result);
}

template <class D, class V>
HWY_INLINE V Sigmoid(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  return hn::Div(one, hn::Add(one, Exponential(d, hn::Neg(x))));
}

template <class D, class V>
HWY_INLINE V Silu(D d, V x) {
  // A NaN x makes the quotient NaN whatever Exponential returns for it.
  return hn::Div(x, hn::Add(hn::Set(d, 1.0f), Exponential<false, false>(d, hn::Neg(x))));
}

// min(max(x + 3, 0), 6) / 6, the factor hardswish and hardsigmoid share.
template <class D, class V>
HWY_INLINE V Hardsigmoid(D d, V x) {
  const V relu6 = hn::Min(hn::Max(hn::Add(x, hn::Set(d, 3.0f)), hn::Zero(d)), hn::Set(d, 6.0f));
  return hn::Mul(relu6, hn::Set(d, 1.0f / 6.0f));
}

template <class D, class V>
HWY_INLINE V Hardswish(D d, V x) {
  const V relu6 = hn::Min(hn::Max(hn::Add(x, hn::Set(d, 3.0f)), hn::Zero(d)), hn::Set(d, 6.0f));
  return hn::Mul(hn::Mul(x, relu6), hn::Set(d, 1.0f / 6.0f));
}

// erf(z) for every float z: z P(z^2) / Q(z^2) on z clamped to [-4, 4] (erf(4) = 1 - 1.5e-8
// rounds to 1), P and Q of degree 5 with positive coefficients (so Horner's rule loses little),
// a rational fit of erf on [0, 4] by scripts/fit_erf.py. Within 2.1e-8 of erf in exact
// arithmetic and 4.4e-7 evaluated in float (activation_test.cpp); no exp, one division. A NaN
// comes out as NaN or as +-4's value, by the target's min / max: GELU multiplies by x itself,
// which keeps it NaN.
template <class D, class V>
HWY_INLINE V Erf(D d, V z) {
  z = hn::Min(hn::Max(z, hn::Set(d, -4.0f)), hn::Set(d, 4.0f));
  const V t = hn::Mul(z, z);
  V p = hn::Set(d, 1.97462919e-06f);
  p = hn::MulAdd(p, t, hn::Set(d, 2.88015261e-04f));
  p = hn::MulAdd(p, t, hn::Set(d, 4.00334597e-03f));
  p = hn::MulAdd(p, t, hn::Set(d, 5.34665883e-02f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.96244672e-01f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.12837899e+00f));
  V q = hn::Set(d, 3.74773590e-05f);
  q = hn::MulAdd(q, t, hn::Set(d, 1.21624861e-03f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.54438745e-02f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.16474345e-01f));
  q = hn::MulAdd(q, t, hn::Set(d, 5.07248461e-01f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.0f));
  return hn::Div(hn::Mul(z, p), q);
}

// GELU: x / 2 * (1 + erf(x / sqrt 2)) with Erf above, or the tanh form.
template <class D, class V>
HWY_INLINE V Gelu(D d, V x, bool tanh_form) {
  const V half_x = hn::Mul(hn::Set(d, 0.5f), x);
  const V one = hn::Set(d, 1.0f);
  if (tanh_form) {
    const V inner = hn::Mul(hn::Set(d, 0.7978845608f),
                            hn::MulAdd(hn::Mul(hn::Set(d, 0.044715f), hn::Mul(x, x)), x, x));
    return hn::Mul(half_x, hn::Add(one, hn::Tanh(d, inner)));
  }
  return hn::Mul(half_x, hn::Add(one, Erf(d, hn::Mul(x, hn::Set(d, 0.7071067812f)))));
}

// The activation of one vector (the clamp kinds are applied by the kernels themselves).
template <Activation kActivation, class D, class V>
HWY_INLINE V Activate(D d, V x) {
  if constexpr (kActivation == Activation::kGelu) return Gelu(d, x, false);
  if constexpr (kActivation == Activation::kGeluTanh) return Gelu(d, x, true);
  if constexpr (kActivation == Activation::kHardswish) return Hardswish(d, x);
  if constexpr (kActivation == Activation::kHardsigmoid) return Hardsigmoid(d, x);
  if constexpr (kActivation == Activation::kSigmoid) return Sigmoid(d, x);
  if constexpr (kActivation == Activation::kSilu) return Silu(d, x);
  return x;
}

// kActivation on `rows` rows of `cols` floats, `stride` floats apart, in place; a tail shorter
// than a vector goes through a buffer on the stack.
template <Activation kActivation>
HWY_NOINLINE void ActivateRows(float* HWY_RESTRICT data, size_t rows, size_t cols, size_t stride) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  HWY_ALIGN float tail[hn::MaxLanes(d)];
  // The full vectors, four at a time in row-major order across the rows: four independent
  // chains of ~40 operations (GELU's) in one block for the scheduler to interleave. On Zen 3 a
  // GELU-ended 128 x 1024 x 256 GEMM took 0.91-0.92 ms against 0.92-0.93 one vector at a time
  // (torchir_native_gemm_benchmark, .../gelu rows). Positions advance by counters, not by
  // dividing, so the cheap activations (hardswish: a handful of operations) pay nothing.
  const size_t per_row = cols / lanes;
  const size_t vectors = rows * per_row;
  size_t next_row = 0, next_column = 0;  // of the next full vector; the column in vectors
  const auto next = [&]() {
    float* vector = data + next_row * stride + next_column * lanes;
    if (++next_column == per_row) {
      next_column = 0;
      ++next_row;
    }
    return vector;
  };
  size_t v = 0;
  for (; v + 4 <= vectors; v += 4) {
    float* const p[4] = {next(), next(), next(), next()};
    const auto y0 = Activate<kActivation>(d, hn::LoadU(d, p[0]));
    const auto y1 = Activate<kActivation>(d, hn::LoadU(d, p[1]));
    const auto y2 = Activate<kActivation>(d, hn::LoadU(d, p[2]));
    const auto y3 = Activate<kActivation>(d, hn::LoadU(d, p[3]));
    hn::StoreU(y0, d, p[0]);
    hn::StoreU(y1, d, p[1]);
    hn::StoreU(y2, d, p[2]);
    hn::StoreU(y3, d, p[3]);
  }
  for (; v < vectors; ++v) {
    float* const p = next();
    hn::StoreU(Activate<kActivation>(d, hn::LoadU(d, p)), d, p);
  }
  for (size_t r = 0; r < rows; ++r) {
    float* row = data + r * stride;
    const size_t j = per_row * lanes;
    if (j < cols) {
      std::memset(tail, 0, sizeof(tail));
      std::memcpy(tail, row + j, (cols - j) * sizeof(float));
      hn::Store(Activate<kActivation>(d, hn::Load(d, tail)), d, tail);
      std::memcpy(row + j, tail, (cols - j) * sizeof(float));
    }
  }
}

// Whether `activation` runs through ActivationRows (true) or is a clamp the kernels apply in
// registers (none, relu, clamp).
inline bool IsAppliedAfterStore(Activation activation) {
  return activation != Activation::kNone && activation != Activation::kRelu &&
         activation != Activation::kClamp;
}

// `activation` (IsAppliedAfterStore) on `rows` x `cols` floats, rows `stride` floats apart.
inline void ActivationRows(Activation activation, float* data, size_t rows, size_t cols,
                           size_t stride) {
  switch (activation) {
    case Activation::kGelu:
      return ActivateRows<Activation::kGelu>(data, rows, cols, stride);
    case Activation::kGeluTanh:
      return ActivateRows<Activation::kGeluTanh>(data, rows, cols, stride);
    case Activation::kHardswish:
      return ActivateRows<Activation::kHardswish>(data, rows, cols, stride);
    case Activation::kHardsigmoid:
      return ActivateRows<Activation::kHardsigmoid>(data, rows, cols, stride);
    case Activation::kSigmoid:
      return ActivateRows<Activation::kSigmoid>(data, rows, cols, stride);
    case Activation::kSilu:
      return ActivateRows<Activation::kSilu>(data, rows, cols, stride);
    case Activation::kNone:
    case Activation::kRelu:
    case Activation::kClamp:
      return;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace torchir::native
HWY_AFTER_NAMESPACE();

#endif  // include guard toggled per target
