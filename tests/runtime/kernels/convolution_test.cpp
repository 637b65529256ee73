// The portable edge.convolution kernel against LibTorch: 1-d, 2-d and 3-d, strides, padding,
// dilation, groups, depthwise, no bias, the fused clamp, and the calls its check refuses.
#include <cmath>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using runtime::Error;

// Attributes of one convolution; the defaults are a plain stride-1 2-d convolution with bias.
struct ConvAttrs {
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
  bool bias = true;
  double output_min = -kInf;
  double output_max = kInf;
  ir::DType dtype = ir::DType::kFloat32;
};

// One edge.convolution node whose input, weight and bias are graph inputs, recording `out`
// as its output sizes.
std::unique_ptr<ir::Graph> Conv(std::vector<int64_t> input, std::vector<int64_t> weight,
                                const ConvAttrs& attrs, std::vector<int64_t> out) {
  GraphBuilder b;
  std::vector<ir::Value*> inputs = {b.Input("x", TypeOf(attrs.dtype, input)),
                                    b.Input("w", TypeOf(attrs.dtype, weight))};
  if (attrs.bias) inputs.push_back(b.Input("b", TypeOf(attrs.dtype, {weight[0]})));
  b.Output(b.Op("edge.convolution", inputs)
               .Attr("stride", attrs.stride)
               .Attr("padding", attrs.padding)
               .Attr("dilation", attrs.dilation)
               .Attr("groups", attrs.groups)
               .Attr("output_min", attrs.output_min)
               .Attr("output_max", attrs.output_max)
               .Out(TypeOf(attrs.dtype, out)));
  return b.Build();
}

ConvAttrs Padded(std::vector<int64_t> padding) {
  ConvAttrs attrs;
  attrs.padding = std::move(padding);
  return attrs;
}

TEST(ConvolutionKernel, Conv2dWithPaddingKeepsTheSize) {
  ExpectMatchesReference(*Conv({2, 3, 9, 8}, {4, 3, 3, 3}, Padded({1, 1}), {2, 4, 9, 8}), 1);
}

TEST(ConvolutionKernel, Conv2dWithoutBias) {
  ConvAttrs attrs = Padded({1, 1});
  attrs.bias = false;
  ExpectMatchesReference(*Conv({2, 3, 9, 8}, {4, 3, 3, 3}, attrs, {2, 4, 9, 8}), 2);
}

TEST(ConvolutionKernel, StridesPaddingAndDilationPerAxis) {
  // H: (11 + 2 - 5) / 2 + 1 = 5; W: (10 + 4 - 2) / 3 + 1 = 5. Six output channels: one full
  // block of four and two left over.
  ConvAttrs attrs;
  attrs.stride = {2, 3};
  attrs.padding = {1, 2};
  attrs.dilation = {2, 1};
  ExpectMatchesReference(*Conv({1, 3, 11, 10}, {6, 3, 3, 2}, attrs, {1, 6, 5, 5}), 3);
}

TEST(ConvolutionKernel, StrideLargerThanKernelSkipsInputs) {
  ConvAttrs attrs;
  attrs.stride = {3, 3};
  ExpectMatchesReference(*Conv({1, 2, 9, 9}, {3, 2, 2, 2}, attrs, {1, 3, 3, 3}), 4);
}

TEST(ConvolutionKernel, KernelLargerThanInputReadsOnlyPadding) {
  ExpectMatchesReference(*Conv({1, 2, 2, 2}, {3, 2, 3, 3}, Padded({1, 1}), {1, 3, 2, 2}), 5);
}

TEST(ConvolutionKernel, GroupsWithFullChannelBlocks) {
  ConvAttrs attrs;
  attrs.groups = 2;
  ExpectMatchesReference(*Conv({1, 6, 6, 6}, {8, 3, 3, 3}, attrs, {1, 8, 4, 4}), 6);
}

TEST(ConvolutionKernel, GroupsWithPartialChannelBlocks) {
  ConvAttrs attrs;
  attrs.groups = 2;
  ExpectMatchesReference(*Conv({2, 4, 7, 7}, {6, 2, 3, 3}, attrs, {2, 6, 5, 5}), 7);
}

TEST(ConvolutionKernel, DepthwiseStrided) {
  ConvAttrs attrs = Padded({1, 1});
  attrs.stride = {2, 2};
  attrs.groups = 8;
  ExpectMatchesReference(*Conv({1, 8, 10, 10}, {8, 1, 3, 3}, attrs, {1, 8, 5, 5}), 8);
}

TEST(ConvolutionKernel, DepthwiseWithChannelMultiplier) {
  ConvAttrs attrs = Padded({1, 1});
  attrs.groups = 8;
  ExpectMatchesReference(*Conv({1, 8, 10, 10}, {16, 1, 3, 3}, attrs, {1, 16, 10, 10}), 9);
}

TEST(ConvolutionKernel, PointwiseRunsAsOneLongRow) {
  ExpectMatchesReference(*Conv({2, 8, 5, 7}, {12, 8, 1, 1}, ConvAttrs(), {2, 12, 5, 7}), 10);
}

TEST(ConvolutionKernel, PointwiseStrided) {
  ConvAttrs attrs;
  attrs.stride = {2, 2};
  ExpectMatchesReference(*Conv({1, 8, 5, 7}, {5, 8, 1, 1}, attrs, {1, 5, 3, 4}), 11);
}

TEST(ConvolutionKernel, Conv1d) {
  // (17 + 2 - 5) / 2 + 1 = 8.
  ConvAttrs attrs;
  attrs.stride = {2};
  attrs.padding = {1};
  attrs.dilation = {2};
  ExpectMatchesReference(*Conv({2, 4, 17}, {5, 4, 3}, attrs, {2, 5, 8}), 12);
}

TEST(ConvolutionKernel, Conv1dKernelWiderThanInput) {
  ConvAttrs attrs;
  attrs.stride = {1};
  attrs.padding = {2};
  attrs.dilation = {1};
  ExpectMatchesReference(*Conv({1, 1, 3}, {1, 1, 5}, attrs, {1, 1, 3}), 13);
}

TEST(ConvolutionKernel, Conv3d) {
  // D: (5 + 2 - 2) / 1 + 1 = 6; H: (6 - 3) / 2 + 1 = 2; W: (7 + 2 - 5) / 1 + 1 = 5.
  ConvAttrs attrs;
  attrs.stride = {1, 2, 1};
  attrs.padding = {1, 0, 1};
  attrs.dilation = {1, 1, 2};
  ExpectMatchesReference(*Conv({1, 3, 5, 6, 7}, {4, 3, 2, 3, 3}, attrs, {1, 4, 6, 2, 5}), 14);
}

TEST(ConvolutionKernel, Conv3dGroupedWithoutBias) {
  ConvAttrs attrs;
  attrs.stride = {2, 1, 1};
  attrs.padding = {0, 1, 1};
  attrs.dilation = {1, 1, 1};
  attrs.groups = 3;
  attrs.bias = false;
  ExpectMatchesReference(*Conv({2, 6, 4, 4, 4}, {9, 2, 2, 3, 3}, attrs, {2, 9, 2, 4, 4}), 15);
}

TEST(ConvolutionKernel, FusedRelu6Clamp) {
  ConvAttrs attrs = Padded({1, 1});
  attrs.output_min = 0.0;
  attrs.output_max = 6.0;
  ExpectMatchesReference(*Conv({1, 3, 8, 8}, {6, 3, 3, 3}, attrs, {1, 6, 8, 8}), 16);
}

TEST(ConvolutionKernel, FusedClampWithOneOpenSide) {
  ConvAttrs upper = Padded({1, 1});
  upper.output_max = 0.5;
  ExpectMatchesReference(*Conv({1, 3, 8, 8}, {5, 3, 3, 3}, upper, {1, 5, 8, 8}), 17);
  ConvAttrs lower = Padded({1, 1});
  lower.output_min = -0.5;
  ExpectMatchesReference(*Conv({1, 3, 8, 8}, {5, 3, 3, 3}, lower, {1, 5, 8, 8}), 18);
}

TEST(ConvolutionKernel, ClampWithMinAboveMaxGivesMaxLikeTorch) {
  ConvAttrs attrs;
  attrs.output_min = 1.0;
  attrs.output_max = -1.0;
  ExpectMatchesReference(*Conv({1, 2, 4, 4}, {3, 2, 3, 3}, attrs, {1, 3, 2, 2}), 19);
}

TEST(ConvolutionKernel, EmptyBatch) {
  ExpectMatchesReference(*Conv({0, 3, 5, 5}, {4, 3, 3, 3}, ConvAttrs(), {0, 4, 3, 3}), 20);
}

TEST(ConvolutionKernel, MobileNetSizedLayer) {
  // 288 products per output, summed in another order than LibTorch's, still within the
  // default tolerance.
  ExpectMatchesReference(*Conv({1, 32, 28, 28}, {64, 32, 3, 3}, Padded({1, 1}), {1, 64, 28, 28}),
                         21);
}

// ---- Calls the check refuses ----------------------------------------------------------

TEST(ConvolutionKernelCheck, RefusesAWrongOutputShape) {
  ExpectRefused(*Conv({2, 3, 9, 8}, {4, 3, 3, 3}, Padded({1, 1}), {2, 4, 9, 9}),
                Error::kShapeMismatch);
  ExpectRefused(*Conv({2, 3, 9, 8}, {4, 3, 3, 3}, Padded({1, 1}), {2, 4, 72}),
                Error::kShapeMismatch);
  ExpectRefused(*Conv({2, 3, 9, 8}, {4, 3, 3, 3}, Padded({1, 1}), {1, 4, 9, 8}),
                Error::kShapeMismatch);
}

TEST(ConvolutionKernelCheck, RefusesGroupsThatDoNotDivideTheChannels) {
  ConvAttrs attrs;
  attrs.groups = 3;
  ExpectRefused(*Conv({1, 4, 5, 5}, {6, 2, 3, 3}, attrs, {1, 6, 3, 3}), Error::kInvalidProgram);
  attrs.groups = 0;
  ExpectRefused(*Conv({1, 4, 5, 5}, {6, 4, 3, 3}, attrs, {1, 6, 3, 3}), Error::kInvalidProgram);
  // Divides both, but the weight's channel count does not match.
  attrs.groups = 2;
  ExpectRefused(*Conv({1, 4, 5, 5}, {6, 4, 3, 3}, attrs, {1, 6, 3, 3}), Error::kInvalidProgram);
}

TEST(ConvolutionKernelCheck, RefusesBadWindowAttributes) {
  ConvAttrs zero_stride;
  zero_stride.stride = {0, 1};
  ExpectRefused(*Conv({1, 2, 5, 5}, {3, 2, 3, 3}, zero_stride, {1, 3, 3, 3}),
                Error::kInvalidProgram);
  ExpectRefused(*Conv({1, 2, 5, 5}, {3, 2, 3, 3}, Padded({-1, 0}), {1, 3, 1, 3}),
                Error::kInvalidProgram);
  ConvAttrs zero_dilation;
  zero_dilation.dilation = {1, 0};
  ExpectRefused(*Conv({1, 2, 5, 5}, {3, 2, 3, 3}, zero_dilation, {1, 3, 3, 3}),
                Error::kInvalidProgram);
  ConvAttrs short_list;
  short_list.stride = {1};
  ExpectRefused(*Conv({1, 2, 5, 5}, {3, 2, 3, 3}, short_list, {1, 3, 3, 3}),
                Error::kInvalidProgram);
}

TEST(ConvolutionKernelCheck, RefusesWindowArithmeticThatOverflows) {
  // dilation * (kernel - 1) overflows int64: the kernel must not wrap around into a "valid"
  // window. (Kernel only: the compiler's shape rule computes it without overflow checks.)
  ConvAttrs attrs;
  attrs.dilation = {int64_t{1} << 62, 1};
  ExpectKernelRefuses(*Conv({1, 2, 5, 5}, {3, 2, 3, 3}, attrs, {1, 3, 3, 3}),
                      Error::kInvalidProgram);
}

TEST(ConvolutionKernelCheck, RefusesAKernelLargerThanThePaddedInput) {
  ExpectRefused(*Conv({1, 1, 2, 2}, {1, 1, 3, 3}, ConvAttrs(), {1, 1, 1, 1}),
                Error::kInvalidProgram);
}

TEST(ConvolutionKernelCheck, RefusesMismatchedOperands) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({1, 2, 5, 5}));
  ir::Value* w = b.Input("w", F32({3, 2, 3, 3}));
  ir::Value* bias = b.Input("b", F32({4}));
  b.Output(b.Op("edge.convolution", {x, w, bias})
               .Attr("stride", {1, 1})
               .Attr("padding", {0, 0})
               .Attr("dilation", {1, 1})
               .Attr("groups", 1)
               .Attr("output_min", -kInf)
               .Attr("output_max", kInf)
               .Out(F32({1, 3, 3, 3})));
  ExpectRefused(*b.Build(), Error::kInvalidProgram);
  ExpectRefused(*Conv({1, 2, 5, 5}, {3, 2, 3}, ConvAttrs(), {1, 3, 3, 3}), Error::kInvalidProgram);
  ExpectRefused(*Conv({1, 1, 1, 1, 1, 5}, {1, 1, 1, 1, 1, 3}, ConvAttrs(), {1, 1, 1, 1, 1, 3}),
                Error::kInvalidProgram);
}

TEST(ConvolutionKernelCheck, RefusesIntegerTensors) {
  ConvAttrs attrs;
  attrs.dtype = ir::DType::kInt32;
  ExpectRefused(*Conv({1, 2, 5, 5}, {3, 2, 3, 3}, attrs, {1, 3, 3, 3}), Error::kInvalidType);
}

TEST(ConvolutionKernelCheck, RefusesNanClampBounds) {
  // The Edge verifier only checks the attribute's kind; a NaN bound is the kernel's to refuse.
  ConvAttrs attrs;
  attrs.output_min = std::nan("");
  ExpectKernelRefuses(*Conv({1, 2, 5, 5}, {3, 2, 3, 3}, attrs, {1, 3, 3, 3}),
                      Error::kInvalidProgram);
}

}  // namespace
}  // namespace torchir::testing
