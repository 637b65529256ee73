// Comparing a computed tensor with an expected one, allclose-style.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/reference/host_tensor.h"

namespace torchir::verify {

// An element passes when |actual - expected| <= atol + rtol * |expected|
// (torch.allclose's rule). The defaults are torch.testing's for float32.
//
// Double-precision elements (float64, complex128) use at most float64_atol and float64_rtol:
// the tolerances callers pass are sized for float32 rounding (~6e-8 per op), which would let a
// float64 result computed in float32 pass. 1e-10 is ~500,000 float64 units in the last place
// yet 600 times finer than one float32 rounding, so a step computed in float32 fails while a
// different summation order over thousands of terms passes. An output that is a float32 value
// cast to float64 carries float32 error and needs the caps raised.
struct Tolerance {
  double atol = 1e-5;
  double rtol = 1.3e-6;
  double float64_atol = 1e-10;
  double float64_rtol = 1e-10;
};

// The outcome of one comparison.
struct Comparison {
  bool passed = false;
  // Non-empty when the tensors cannot be compared element-wise (dtype or
  // shape differ, bad sizes); the counts below are then meaningless.
  std::string problem;
  int64_t elements = 0;
  int64_t mismatches = 0;  // elements outside the tolerance
  // Over elements where both sides are finite; 0 when there are none.
  double max_abs_error = 0.0;
  // |a - e| / |e|; infinite where e is 0 and a is not.
  double max_rel_error = 0.0;
  // The first mismatching element: its index in each dimension and both values.
  std::vector<int64_t> first_mismatch;
  double first_actual = 0.0;
  double first_expected = 0.0;
};

// float16 and bfloat16 elements may also differ by this many units in the last place of their
// dtype (at the expected value). PyTorch rounds every op's float32 result to the tensor's dtype;
// a sum accumulated in another order that lands on the other side of a rounding boundary moves
// that op's output by one unit, and later ops can carry it further (a softmax divides by a
// sum of rounded terms). Measured when added: on the zoo's bfloat16_ops, torch 1.13 eager (the
// export and core flavours' expected outputs) and torch 2.14 disagree by up to 3 units (one
// softmax element; means by 1), while torchir matches 2.14 exactly; 4 leaves one unit spare.
inline constexpr double kReducedFloatUlps = 4.0;

// Compares element by element. Floating-point dtypes (real or complex, whose
// parts are compared as pairs) use `tolerance`, with NaN matching NaN and an
// infinity matching only the same infinity; integer and bool dtypes must match
// exactly. The dtypes and shapes must be equal.
Comparison Compare(const reference::HostTensor& actual, const reference::HostTensor& expected,
                   const Tolerance& tolerance);

// One line describing `comparison`: "max abs error 1.2e-07, max rel error
// 3.1e-06" when it passed, plus the mismatch count and the first mismatch
// when it did not, or the problem.
std::string Describe(const Comparison& comparison);

}  // namespace torchir::verify
