// The portable edge.batch_norm and edge.layer_norm kernels against LibTorch, and the calls
// their checks refuse.
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using runtime::Error;

// Positive variances (a random one could be negative, which gives NaN on both sides).
std::vector<float> Variances(int64_t channels) {
  std::vector<float> values;
  for (int64_t c = 0; c < channels; ++c) values.push_back(0.25f + 0.5f * static_cast<float>(c));
  return values;
}

// edge.batch_norm with random input, mean, weight and bias, fixed positive variances; the
// per-channel operands beyond mean and var are given when `affine`.
std::unique_ptr<ir::Graph> BatchNorm(std::vector<int64_t> input, bool affine, double eps,
                                     std::vector<int64_t> out) {
  GraphBuilder b;
  const int64_t channels = input[1];
  std::vector<ir::Value*> inputs = {b.Input("x", F32(input)), b.Input("mean", F32({channels})),
                                    b.Weight("var", F32({channels}), Variances(channels))};
  if (affine) {
    inputs.push_back(b.Input("weight", F32({channels})));
    inputs.push_back(b.Input("bias", F32({channels})));
  }
  b.Output(b.Op("edge.batch_norm", inputs).Attr("eps", eps).Out(F32(out)));
  return b.Build();
}

// edge.layer_norm over `normalized`, with weight and bias as graph inputs when asked.
std::unique_ptr<ir::Graph> LayerNorm(std::vector<int64_t> input, std::vector<int64_t> normalized,
                                     bool weight, bool bias, std::vector<int64_t> out,
                                     ir::DType dtype = ir::DType::kFloat32) {
  GraphBuilder b;
  std::vector<ir::Value*> inputs = {b.Input("x", TypeOf(dtype, input))};
  if (weight) inputs.push_back(b.Input("weight", TypeOf(dtype, normalized)));
  if (bias) inputs.push_back(b.Input("bias", TypeOf(dtype, normalized)));
  b.Output(b.Op("edge.layer_norm", inputs)
               .Attr("normalized_shape", normalized)
               .Attr("eps", 1e-5)
               .Out(TypeOf(dtype, out)));
  return b.Build();
}

// ---- batch_norm -----------------------------------------------------------------------

TEST(BatchNormKernel, ImageWithAffineParameters) {
  ExpectMatchesReference(*BatchNorm({2, 3, 4, 5}, /*affine=*/true, 1e-5, {2, 3, 4, 5}), 1);
}

TEST(BatchNormKernel, WithoutWeightAndBias) {
  ExpectMatchesReference(*BatchNorm({2, 4, 3, 3}, /*affine=*/false, 1e-3, {2, 4, 3, 3}), 2);
}

TEST(BatchNormKernel, RankTwoAndRankThreeInputs) {
  ExpectMatchesReference(*BatchNorm({6, 5}, /*affine=*/true, 1e-5, {6, 5}), 3);
  ExpectMatchesReference(*BatchNorm({2, 3, 7}, /*affine=*/true, 0.1, {2, 3, 7}), 4);
}

TEST(BatchNormKernel, Volumes) {
  ExpectMatchesReference(*BatchNorm({1, 2, 3, 4, 5}, /*affine=*/true, 1e-5, {1, 2, 3, 4, 5}), 5);
}

// float64 computes in double (the harness holds float64 outputs to 1e-10, compare.h). Every
// operand is a graph input in [0.1, 2), so the variances are positive.
TEST(BatchNormKernel, Float64) {
  const ir::DType f64 = ir::DType::kFloat64;
  for (const std::vector<int64_t>& sizes :
       {std::vector<int64_t>{2, 3, 5, 4}, std::vector<int64_t>{4, 6}, std::vector<int64_t>{2, 3, 7}}) {
    for (bool affine : {true, false}) {
      GraphBuilder b;
      const int64_t channels = sizes[1];
      std::vector<ir::Value*> inputs = {b.Input("x", TypeOf(f64, sizes)),
                                        b.Input("mean", TypeOf(f64, {channels})),
                                        b.Input("var", TypeOf(f64, {channels}))};
      if (affine) {
        inputs.push_back(b.Input("weight", TypeOf(f64, {channels})));
        inputs.push_back(b.Input("bias", TypeOf(f64, {channels})));
      }
      b.Output(b.Op("edge.batch_norm", inputs).Attr("eps", 1e-5).Out(TypeOf(f64, sizes)));
      ExpectMatchesReference(*b.Build(), 31, verify::Tolerance{1e-5, 1e-4}, 0.1, 2.0);
    }
  }
}

// No implicit promotion: float32 statistics with a float64 input are refused.
TEST(BatchNormKernelCheck, RefusesMixedFloat32AndFloat64) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(ir::DType::kFloat64, {2, 3, 4}));
  ir::Value* mean = b.Input("mean", F32({3}));
  ir::Value* var = b.Input("var", F32({3}));
  b.Output(b.Op("edge.batch_norm", {x, mean, var})
               .Attr("eps", 1e-5)
               .Out(TypeOf(ir::DType::kFloat64, {2, 3, 4})));
  ExpectRefused(*b.Build(), Error::kInvalidType);
}

TEST(BatchNormKernelCheck, RefusesMisSizedStatistics) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 4}));
  ir::Value* mean = b.Input("mean", F32({4}));
  ir::Value* var = b.Input("var", F32({3}));
  b.Output(b.Op("edge.batch_norm", {x, mean, var}).Attr("eps", 1e-5).Out(F32({2, 3, 4})));
  ExpectRefused(*b.Build(), Error::kInvalidProgram);
}

TEST(BatchNormKernelCheck, RefusesInputsWithoutChannels) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3}));
  ir::Value* mean = b.Input("mean", F32({3}));
  ir::Value* var = b.Input("var", F32({3}));
  b.Output(b.Op("edge.batch_norm", {x, mean, var}).Attr("eps", 1e-5).Out(F32({3})));
  ExpectRefused(*b.Build(), Error::kInvalidProgram);
}

TEST(BatchNormKernelCheck, RefusesAWrongOutputShape) {
  ExpectRefused(*BatchNorm({2, 3, 4, 5}, /*affine=*/true, 1e-5, {2, 3, 20}), Error::kShapeMismatch);
}

// ---- layer_norm -----------------------------------------------------------------------

TEST(LayerNormKernel, LastDimWithWeightAndBias) {
  ExpectMatchesReference(*LayerNorm({2, 3, 8}, {8}, true, true, {2, 3, 8}), 11);
}

TEST(LayerNormKernel, SeveralTrailingDims) {
  ExpectMatchesReference(*LayerNorm({2, 3, 8}, {3, 8}, true, true, {2, 3, 8}), 12);
}

TEST(LayerNormKernel, WholeTensor) {
  ExpectMatchesReference(*LayerNorm({4, 6}, {4, 6}, true, true, {4, 6}), 13);
}

TEST(LayerNormKernel, WithoutWeightOrBias) {
  ExpectMatchesReference(*LayerNorm({5, 16}, {16}, false, false, {5, 16}), 14);
  ExpectMatchesReference(*LayerNorm({5, 16}, {16}, true, false, {5, 16}), 15);
}

TEST(LayerNormKernel, TransformerWidth) {
  ExpectMatchesReference(*LayerNorm({2, 10, 768}, {768}, true, true, {2, 10, 768}), 16);
}

TEST(LayerNormKernel, InputsFarFromZero) {
  // Inputs in [10, 11): the mean dwarfs the spread, which a one-pass float variance
  // (E[x^2] - E[x]^2) would get wrong. The offset stays moderate and weight and bias near 1
  // because LibTorch itself computes x * rstd - mean * rstd in float: its cancellation grows
  // with the offset (inputs near 100 put it 2e-5 off our double-precision result, inputs and
  // weights near 1000 0.2 off).
  GraphBuilder b;
  std::vector<float> weight, bias;
  for (int i = 0; i < 64; ++i) {
    weight.push_back(0.5f + 0.01f * static_cast<float>(i));
    bias.push_back(-0.25f + 0.005f * static_cast<float>(i));
  }
  ir::Value* x = b.Input("x", F32({3, 64}));
  ir::Value* w = b.Weight("weight", F32({64}), weight);
  ir::Value* c = b.Weight("bias", F32({64}), bias);
  b.Output(b.Op("edge.layer_norm", {x, w, c})
               .Attr("normalized_shape", std::vector<int64_t>{64})
               .Attr("eps", 1e-5)
               .Out(F32({3, 64})));
  ExpectMatchesReference(*b.Build(), 17, verify::Tolerance{1e-5, 1e-4}, 10.0, 11.0);
}

// float64 computes in double (the harness holds float64 outputs to 1e-10, compare.h); inputs
// far from zero, which a float32 computation would get ~1e-6 wrong, included.
TEST(LayerNormKernel, Float64) {
  const ir::DType f64 = ir::DType::kFloat64;
  ExpectMatchesReference(*LayerNorm({2, 3, 8}, {8}, true, true, {2, 3, 8}, f64), 21);
  ExpectMatchesReference(*LayerNorm({2, 3, 8}, {3, 8}, true, false, {2, 3, 8}, f64), 22);
  ExpectMatchesReference(*LayerNorm({5, 16}, {16}, false, false, {5, 16}, f64), 23);
  ExpectMatchesReference(*LayerNorm({2, 10, 768}, {768}, true, true, {2, 10, 768}, f64), 24);
  ExpectMatchesReference(*LayerNorm({3, 64}, {64}, true, true, {3, 64}, f64), 25,
                         verify::Tolerance{1e-5, 1e-4}, 100.0, 101.0);
}

// No implicit promotion: a float32 weight on a float64 input is refused.
TEST(LayerNormKernelCheck, RefusesMixedFloat32AndFloat64) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(ir::DType::kFloat64, {2, 8}));
  ir::Value* w = b.Input("weight", F32({8}));
  b.Output(b.Op("edge.layer_norm", {x, w})
               .Attr("normalized_shape", std::vector<int64_t>{8})
               .Attr("eps", 1e-5)
               .Out(TypeOf(ir::DType::kFloat64, {2, 8})));
  ExpectRefused(*b.Build(), Error::kInvalidType);
}

TEST(LayerNormKernelCheck, RefusesANormalizedShapeThatIsNotASuffix) {
  ExpectRefused(*LayerNorm({2, 3, 8}, {3}, false, false, {2, 3, 8}), Error::kInvalidProgram);
  ExpectRefused(*LayerNorm({2, 3, 8}, {1, 2, 3, 8}, false, false, {2, 3, 8}),
                Error::kInvalidProgram);
  ExpectRefused(*LayerNorm({2, 3, 8}, {}, false, false, {2, 3, 8}), Error::kInvalidProgram);
}

TEST(LayerNormKernelCheck, RefusesMisSizedWeight) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({2, 3, 8}));
  ir::Value* w = b.Input("w", F32({3, 8}));
  b.Output(b.Op("edge.layer_norm", {x, w})
               .Attr("normalized_shape", std::vector<int64_t>{8})
               .Attr("eps", 1e-5)
               .Out(F32({2, 3, 8})));
  ExpectRefused(*b.Build(), Error::kInvalidProgram);
}

TEST(LayerNormKernelCheck, RefusesAWrongOutputShape) {
  ExpectRefused(*LayerNorm({2, 3, 8}, {8}, true, true, {6, 8}), Error::kShapeMismatch);
}

}  // namespace
}  // namespace torchir::testing
