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
    case Activation::kNone:
      break;
  }
  return x;
}

}  // namespace torchir::native
