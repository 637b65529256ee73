#include "backends/native/activation.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

class ActivationTest : public PerTargetTest {};

// Every `step`-th float of [lo, 0] and of [0, hi] (lo < 0 < hi), in bit-pattern order: the
// floats of one sign are ordered like their bits, so this spreads evenly over every exponent.
std::vector<float> EveryNthFloat(float lo, float hi, uint32_t step) {
  auto bits_of = [](float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    return bits;
  };
  auto from_bits = [](uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  };
  std::vector<float> values;
  for (uint32_t bits = 0; bits <= bits_of(-lo); bits += step) values.push_back(-from_bits(bits));
  for (uint32_t bits = 0; bits <= bits_of(hi); bits += step) values.push_back(from_bits(bits));
  values.push_back(lo);
  values.push_back(hi);
  return values;
}

// The largest error seen and the argument it was seen at, for the printed summaries.
struct WorstError {
  double error = 0.0;
  float x = 0.0f;
  void Record(double e, float at) {
    if (e > error) {
      error = e;
      x = at;
    }
  }
};

// The stated bound: relative error <= 1.5e-7 (about 1 ulp; measured: 1.0e-7 with FMA, 1.01e-7
// without) against std::exp where e^x is a normal float
// (x in [-87.33, 88.72]), over about 4 million arguments spread evenly over the floats' bit
// patterns (every 256th float of each sign), so every exponent and the rounding of each reduction
// range is exercised; subnormal results within half the smallest subnormal plus the same relative
// error.
TEST_P(ActivationTest, ExpIsWithinItsStatedErrorOfStdExp) {
  const std::vector<float> x = EveryNthFloat(-104.0f, 89.0f, 256);
  std::vector<float> y(x.size());
  Exp(x.data(), y.data(), x.size());
  WorstError worst;
  size_t failures = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    if (exact > FLT_MAX) {
      EXPECT_EQ(y[i], std::numeric_limits<float>::infinity()) << "x = " << x[i];
      continue;
    }
    double error = std::fabs(y[i] - exact);
    if (exact >= FLT_MIN) {
      error /= exact;
      worst.Record(error, x[i]);
      if (!(error <= 1.5e-7) && ++failures <= 5) {
        ADD_FAILURE() << "exp(" << x[i] << ") = " << y[i] << ", expected " << exact
                      << ": relative error " << error;
      }
    } else if (!(error <= 0.5 * std::ldexp(1.0, -149) + 1.5e-7 * exact) && ++failures <= 5) {
      ADD_FAILURE() << "exp(" << x[i] << ") = " << y[i] << " (subnormal), expected " << exact;
    }
  }
  EXPECT_EQ(failures, 0u);
  std::printf("%s: worst relative error %.3g at x = %.9g over %zu arguments\n",
              hwy::TargetName(GetParam()), worst.error, worst.x, x.size());
}

TEST_P(ActivationTest, ExpOfSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f,
                                -0.0f,
                                1.0f,
                                -1.0f,
                                88.73f,
                                100.0f,
                                inf,
                                -104.0f,
                                -110.0f,
                                -inf,
                                FLT_MAX,
                                -FLT_MAX,
                                std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> y(x.size());
  Exp(x.data(), y.data(), x.size());
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_NEAR(y[2], 2.718281828, 1.5e-7 * 2.72);
  EXPECT_NEAR(y[3], 0.3678794412, 1.5e-7 * 0.37);
  for (size_t i : {4, 5, 6, 10}) EXPECT_EQ(y[i], inf) << "exp(" << x[i] << ")";
  for (size_t i : {7, 8, 9, 11}) EXPECT_EQ(y[i], 0.0f) << "exp(" << x[i] << ")";
  EXPECT_TRUE(std::isnan(y[12]));
}

// The stated bound: within 4.4e-7 of std::erf for every float (every 256th float of each sign
// up to 6, past the clamp at 4, so every exponent and the whole fitted range is exercised), +-1
// far out and at the infinities, odd in its argument.
TEST_P(ActivationTest, ErfIsWithinItsStatedErrorOfStdErf) {
  std::vector<float> x = EveryNthFloat(-6.0f, 6.0f, 256);
  const float inf = std::numeric_limits<float>::infinity();
  for (float far : {-inf, -1e30f, -100.0f, 100.0f, 1e30f, inf}) x.push_back(far);
  std::vector<float> y(x.size());
  Erf(x.data(), y.data(), x.size());
  WorstError worst;
  size_t failures = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double error = std::fabs(y[i] - std::erf(static_cast<double>(x[i])));
    worst.Record(error, x[i]);
    if (!(error <= 4.4e-7) && ++failures <= 5) {
      ADD_FAILURE() << "erf(" << x[i] << ") = " << y[i] << ", expected "
                    << std::erf(static_cast<double>(x[i])) << ": error " << error;
    }
  }
  EXPECT_EQ(failures, 0u);
  std::vector<float> negated(x.size());
  for (size_t i = 0; i < x.size(); ++i) negated[i] = -x[i];
  std::vector<float> y_negated(x.size());
  Erf(negated.data(), y_negated.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y_negated[i], -y[i]) << "x = " << x[i];
  std::printf("%s: erf's worst error %.3g at x = %.9g over %zu arguments\n",
              hwy::TargetName(GetParam()), worst.error, worst.x, x.size());
}

// Each activation computed after the store against its definition in double precision (the
// portable kernels' formulas), over [-20, 20] in steps of 1/64 (hardswish's and hardsigmoid's
// -3 and 3 exactly) and far out: within 1 ulp of the result plus 4 ulp of the inputs' scale for
// hardswish / hardsigmoid (one rounding each for x + 3, the product and the * (1 / 6)), and
// within 6e-7 relative or 1e-37 absolute for sigmoid and silu (exp's 1.5e-7, the add and the
// division; far out, e^-x overflows to +inf as std::exp does in the portable kernels, and
// silu(-90) is -0 instead of -7.4e-38), and for GELU within |x| / 2 times erf's bound and a few
// roundings. Lengths 1..40 cover every vector tail.
TEST_P(ActivationTest, ActivationsMatchTheirDefinitions) {
  std::vector<float> x;
  for (int i = -20 * 64; i <= 20 * 64; ++i) x.push_back(static_cast<float>(i) / 64.0f);
  for (float far : {-1000.0f, -104.0f, -90.0f, -88.5f, -50.0f, 50.0f, 88.5f, 90.0f, 1000.0f}) {
    x.push_back(far);
  }
  const double u = std::ldexp(1.0, -24);
  for (Activation activation : {Activation::kHardswish, Activation::kHardsigmoid,
                                Activation::kSigmoid, Activation::kSilu, Activation::kGelu}) {
    SCOPED_TRACE(static_cast<int>(activation));
    const Epilogue epilogue{activation, 0.0f, 0.0f};
    for (size_t length : {size_t{1}, size_t{3}, size_t{17}, size_t{40}, x.size()}) {
      std::vector<float> y(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(length));
      ApplyActivation(epilogue, y.data(), y.size());
      size_t failures = 0;
      for (size_t i = 0; i < length; ++i) {
        const double exact = ReferenceActivation(x[i], epilogue);
        double tolerance;
        if (activation == Activation::kHardswish || activation == Activation::kHardsigmoid) {
          tolerance = 4 * u * std::fabs(exact) + 2 * u * (std::fabs(x[i]) + 3.0);
        } else if (activation == Activation::kGelu) {
          // x / 2 times erf's 4.4e-7 plus the roundings of x / sqrt 2 and 1 + erf, then the
          // product's.
          tolerance = 0.5 * std::fabs(x[i]) * (4.4e-7 + 4 * u) + u * std::fabs(exact);
        } else {
          tolerance = 6e-7 * std::fabs(exact) + 1e-37;
        }
        if (!(std::fabs(y[i] - exact) <= tolerance) && ++failures <= 5) {
          ADD_FAILURE() << "activation(" << x[i] << ") = " << y[i] << ", expected " << exact;
        }
      }
      EXPECT_EQ(failures, 0u);
    }
  }
}

// NaN stays NaN through silu and sigmoid (exp passes it on) and GELU (x / 2 times the rest).
TEST_P(ActivationTest, NanPropagatesThroughExpBasedActivations) {
  for (Activation activation : {Activation::kSigmoid, Activation::kSilu, Activation::kGelu}) {
    float value = std::numeric_limits<float>::quiet_NaN();
    ApplyActivation({activation, 0.0f, 0.0f}, &value, 1);
    EXPECT_TRUE(std::isnan(value)) << static_cast<int>(activation);
  }
}

TORCHIR_INSTANTIATE_PER_TARGET(ActivationTest);

}  // namespace
}  // namespace torchir::native
