// What the native kernel tests share: every test runs once per Highway target compiled in and
// supported by this CPU (the scalar fallback included), forced with
// hwy::SetSupportedTargetsForTest, and compares with a double-precision reference put through the
// epilogue's activation.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/native/gemm.h"
#include "hwy/targets.h"

namespace torchir::native {

class PerTargetTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { hwy::SetSupportedTargetsForTest(GetParam()); }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

inline std::string TargetParamName(const ::testing::TestParamInfo<int64_t>& info) {
  return hwy::TargetName(info.param);
}

// Instantiates `suite` (a PerTargetTest) once per target.
#define TORCHIR_INSTANTIATE_PER_TARGET(suite)                                        \
  INSTANTIATE_TEST_SUITE_P(AllTargets, suite,                                        \
                           ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()), \
                           ::torchir::native::TargetParamName)

// `x` after the epilogue's activation, in double precision.
inline double ReferenceActivation(double x, const Epilogue& epilogue) {
  switch (epilogue.activation) {
    case Activation::kRelu:
      return std::max(x, 0.0);
    case Activation::kClamp:
      return std::min(std::max(x, double{epilogue.min}), double{epilogue.max});
    case Activation::kGelu:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::kGeluTanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case Activation::kHardswish:
      return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
    case Activation::kHardsigmoid:
      return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
    case Activation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
    case Activation::kNone:
      break;
  }
  return x;
}

// The tolerance on activation(x) given `tolerance` on x: the activation's largest slope times
// it (clamps, relu and none: 1; GELU 1.13, hardswish 1.5, silu 1.1, sigmoid 0.25, hardsigmoid
// 1/6), plus, for the activations computed in float after the store, their own error: erf's
// 4.4e-7 (times |x| / 2 in GELU) or exp's 1.5e-7 (activation-inl.h) and a few float roundings,
// which stay within 4e-7 of |x| + 1 (activation_test.cpp checks each activation alone, more
// tightly).
inline double ActivationTolerance(double tolerance, double x, const Epilogue& epilogue) {
  double slope = 1.0;
  switch (epilogue.activation) {
    case Activation::kNone:
    case Activation::kRelu:
    case Activation::kClamp:
      return tolerance;
    case Activation::kGelu:
    case Activation::kGeluTanh:
      slope = 1.13;
      break;
    case Activation::kHardswish:
      slope = 1.5;
      break;
    case Activation::kSilu:
      slope = 1.1;
      break;
    case Activation::kSigmoid:
      slope = 0.25;
      break;
    case Activation::kHardsigmoid:
      slope = 1.0 / 6.0;
      break;
  }
  return slope * tolerance + 4e-7 * (std::fabs(x) + 1.0);
}

// Every activation, for tests that sweep them (the clamp with the range [lo, hi]).
inline std::vector<Epilogue> EveryActivation(float lo, float hi) {
  std::vector<Epilogue> epilogues;
  for (uint32_t a = 0; a <= static_cast<uint32_t>(kLastActivation); ++a) {
    Epilogue epilogue;
    epilogue.activation = static_cast<Activation>(a);
    if (epilogue.activation == Activation::kClamp) {
      epilogue.min = lo;
      epilogue.max = hi;
    }
    epilogues.push_back(epilogue);
  }
  return epilogues;
}

}  // namespace torchir::native
