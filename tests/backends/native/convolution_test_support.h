// What the convolution and depthwise kernel tests share: random inputs, how a case is described
// in failure messages, and the options a case runs with (bias, epilogue, residual, threads).
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "backends/native/convolution.h"
#include "backends/native/gemm.h"
#include "tests/backends/native/per_target_test.h"

namespace torchir::native {

// `count` floats uniform in [-1, 1).
inline std::vector<float> Random(size_t count, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(*rng);
  return values;
}

struct ConvolutionOptions {
  bool bias = true;
  Epilogue epilogue{};  // its residual pointer is set by the test from `residual`
  enum Residual { kNone, kSeparate, kInPlace } residual = kNone;
  size_t threads = 0;                           // 0: no pool
  ImplicitGemmA a_mode = ImplicitGemmA::kAuto;  // how the implicit GEMM reads its taps
};

// The shape and options of a case, for failure messages.
inline std::string Describe(const Convolution2dShape& s, const ConvolutionOptions& o) {
  auto str = [](size_t v) { return std::to_string(v); };
  return "N=" + str(s.batch) + " HxW=" + str(s.input_height) + "x" + str(s.input_width) +
         " Cin=" + str(s.input_channels) + " Cout=" + str(s.output_channels) +
         " k=" + str(s.kernel_height) + "x" + str(s.kernel_width) +
         " stride=" + str(s.stride_height) + "x" + str(s.stride_width) +
         " dilation=" + str(s.dilation_height) + "x" + str(s.dilation_width) +
         " pad(t,l,b,r)=" + str(s.padding_top) + "," + str(s.padding_left) + "," +
         str(s.padding_bottom) + "," + str(s.padding_right) + " bias=" + str(o.bias) +
         " activation=" + str(static_cast<size_t>(o.epilogue.activation)) +
         " residual=" + str(o.residual) + " threads=" + str(o.threads) +
         " a_mode=" + str(static_cast<size_t>(o.a_mode));
}

// Every epilogue a convolution kernel takes (every activation, the clamp as relu6 and as a range
// straddling 0) with and without bias and with no, a separate and an in-place residual: 60 cases.
inline std::vector<ConvolutionOptions> EveryEpilogueCase() {
  std::vector<ConvolutionOptions> cases;
  std::vector<Epilogue> epilogues = EveryActivation(0.0f, 6.0f);
  epilogues.push_back({Activation::kClamp, -0.5f, 0.5f});
  for (ConvolutionOptions::Residual residual :
       {ConvolutionOptions::kNone, ConvolutionOptions::kSeparate, ConvolutionOptions::kInPlace}) {
    for (const Epilogue& epilogue : epilogues) {
      for (bool bias : {false, true}) {
        ConvolutionOptions options;
        options.bias = bias;
        options.epilogue = epilogue;
        options.residual = residual;
        cases.push_back(options);
      }
    }
  }
  return cases;
}

}  // namespace torchir::native
