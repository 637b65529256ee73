#include "backends/native/expand_depthwise.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/backends/native/convolution_test_support.h"
#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;

class ExpandDepthwiseTest : public PerTargetTest {};

struct Case {
  size_t batch, height, width, in_channels, expanded;
  size_t kernel, stride, dilation, pad_top, pad_bottom;
  size_t threads;  // 0: no pool
  Epilogue expand_epilogue, depthwise_epilogue;
  // 0: the second layer is depthwise; else grouped in `groups` groups, with `second_out` output
  // channels (0: as many as it reads).
  size_t groups = 0, second_out = 0;
  size_t out_channels() const { return groups == 0 || second_out == 0 ? expanded : second_out; }
};

std::string Describe(const Case& c) {
  return "batch " + std::to_string(c.batch) + " " + std::to_string(c.height) + "x" +
         std::to_string(c.width) + " " + std::to_string(c.in_channels) + "->" +
         std::to_string(c.expanded) + " kernel " + std::to_string(c.kernel) + " stride " +
         std::to_string(c.stride) + " dilation " + std::to_string(c.dilation) + " pad " +
         std::to_string(c.pad_top) + "/" + std::to_string(c.pad_bottom) + " threads " +
         std::to_string(c.threads) + " groups " + std::to_string(c.groups) + " out " +
         std::to_string(c.out_channels());
}

Convolution2dShape ExpandShape(const Case& c) {
  return {c.batch, c.height, c.width, c.in_channels, c.expanded, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
}

Convolution2dShape DepthwiseShape(const Case& c) {
  const size_t pad_side = c.kernel / 2 * c.dilation;
  return {c.batch,    c.height,  c.width,  c.expanded,   c.out_channels(),
          c.kernel,   c.kernel,  c.stride, c.stride,     c.dilation,
          c.dilation, c.pad_top, pad_side, c.pad_bottom, pad_side};
}

// The fused call against the two layers run whole, to the last bit: each band runs the same
// kernels on the same rows.
void ExpectMatchesTheLayers(const Case& c, uint32_t seed) {
  SCOPED_TRACE(Describe(c));
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  const Convolution2dShape e = ExpandShape(c), d = DepthwiseShape(c);
  const bool grouped = c.groups != 0;
  ASSERT_EQ(CheckExpandDepthwise(e, d, c.groups), Error::kOk);
  std::mt19937 rng(seed);
  const std::vector<float> input = Random(c.batch * c.height * c.width * c.in_channels, &rng);
  const std::vector<float> w_expand = Random(c.expanded * c.in_channels, &rng);
  const std::vector<float> b_expand = Random(c.expanded, &rng);
  const std::vector<float> w_second =
      Random(grouped ? c.out_channels() * (c.expanded / c.groups) * c.kernel * c.kernel
                     : c.expanded * c.kernel * c.kernel,
             &rng);
  const std::vector<float> b_second = Random(c.out_channels(), &rng);
  std::vector<float> packed_expand(ConvolutionPackedWeightsBytes(config, e) / sizeof(float));
  std::vector<float> packed_second((grouped
                                        ? GroupedConvolutionPackedWeightsBytes(config, d, c.groups)
                                        : DepthwisePackedWeightsBytes(d)) /
                                   sizeof(float));
  ASSERT_EQ(PackConvolutionWeights(config, e, w_expand.data(), packed_expand.data(),
                                   packed_expand.size() * sizeof(float)),
            Error::kOk);
  PackedB expand_view;
  ASSERT_EQ(ViewPackedB(packed_expand.data(), packed_expand.size() * sizeof(float), &expand_view),
            Error::kOk);
  PackedDepthwise depthwise_view;
  std::vector<PackedB> group_views(c.groups);
  const size_t second_bytes = packed_second.size() * sizeof(float);
  if (grouped) {
    ASSERT_EQ(PackGroupedConvolutionWeights(config, d, c.groups, w_second.data(),
                                            packed_second.data(), second_bytes),
              Error::kOk);
    ASSERT_EQ(ViewPackedGroupedWeights(packed_second.data(), second_bytes, d, c.groups,
                                       group_views.data()),
              Error::kOk);
  } else {
    ASSERT_EQ(PackDepthwiseWeights(d, w_second.data(), packed_second.data(), second_bytes),
              Error::kOk);
    ASSERT_EQ(ViewPackedDepthwise(packed_second.data(), second_bytes, &depthwise_view), Error::kOk);
  }

  // The two layers, whole tensors, one thread.
  const size_t oh = d.output_height(), ow = d.output_width();
  std::vector<float> expanded(c.batch * c.height * c.width * c.expanded);
  std::vector<float> layered(c.batch * oh * ow * c.out_channels(), 1.0f);
  std::vector<float> gemm_scratch(
      std::max(ConvolutionScratchBytes(config, e, 1), ConvolutionScratchBytes(config, d, 1)) /
          sizeof(float) +
      16);
  const size_t gemm_bytes = gemm_scratch.size() * sizeof(float);
  ASSERT_EQ(Convolution2d(e, input.data(), expand_view, b_expand.data(), expanded.data(),
                          c.expand_epilogue, gemm_scratch.data(), gemm_bytes),
            Error::kOk);
  ASSERT_EQ(grouped ? GroupedConvolution2d(d, c.groups, expanded.data(), group_views.data(),
                                           b_second.data(), layered.data(), c.depthwise_epilogue,
                                           gemm_scratch.data(), gemm_bytes)
                    : DepthwiseConvolution2d(d, expanded.data(), depthwise_view, b_second.data(),
                                             layered.data(), c.depthwise_epilogue),
            Error::kOk);

  ExpandDepthwiseCall call;
  call.expand = e;
  call.input = input.data();
  call.expand_weights = &expand_view;
  call.expand_bias = b_expand.data();
  call.expand_epilogue = c.expand_epilogue;
  call.depthwise = d;
  call.depthwise_weights = grouped ? nullptr : &depthwise_view;
  call.groups = c.groups;
  call.group_weights = grouped ? group_views.data() : nullptr;
  call.depthwise_bias = b_second.data();
  call.depthwise_epilogue = c.depthwise_epilogue;
  std::vector<float> fused(layered.size(), 2.0f);
  call.output = fused.data();
  const size_t threads = c.threads == 0 ? 1 : c.threads;
  const size_t bytes = ExpandDepthwiseScratchBytes(config, e, d, threads, c.groups);
  ASSERT_GT(bytes, 0u);
  std::vector<float> scratch(bytes / sizeof(float) + 1);
  pthreadpool_t pool = c.threads == 0 ? nullptr : pthreadpool_create(c.threads);
  // One byte short of the threads' slots: refused before anything is written.
  EXPECT_EQ(ExpandDepthwise(call, scratch.data(), bytes - 1, pool), Error::kOutOfMemory);
  const Error error = ExpandDepthwise(call, scratch.data(), bytes, pool);
  if (pool != nullptr) pthreadpool_destroy(pool);
  ASSERT_EQ(error, Error::kOk);
  size_t differing = 0;
  for (size_t i = 0; i < fused.size(); ++i) differing += fused[i] != layered[i] ? 1 : 0;
  EXPECT_EQ(differing, 0u) << "of " << fused.size() << " elements; bands of "
                           << ExpandDepthwiseBandRows(e, d, c.groups) << " rows";
}

Epilogue Relu6() {
  Epilogue e;
  e.activation = Activation::kClamp;
  e.min = 0.0f;
  e.max = 6.0f;
  return e;
}

// Bands of several rows (rows of 24-36 KB: 7-10 of them fit the band's 256 KiB), of one row
// (rows past the budget), and a single band (a short image); strides 1 and 2, 3x3 and 5x5
// kernels, dilation 2, padding 0 to the kernel's extent - 1 at the top and bottom, two images,
// and 1-3 threads (each image's bands shared out in runs).
TEST_P(ExpandDepthwiseTest, MatchesTheLayersToTheBit) {
  const Epilogue none, relu6 = Relu6();
  Epilogue relu;
  relu.activation = Activation::kRelu;
  Epilogue hardswish;
  hardswish.activation = Activation::kHardswish;
  const Case cases[] = {
      // mobilenet_v2's first block, scaled down in width: stride 2, relu6 on both.
      {1, 30, 64, 16, 96, 3, 2, 1, 1, 1, 0, relu6, relu6},
      {1, 31, 64, 16, 96, 3, 2, 1, 1, 1, 0, relu6, relu6},
      // Its 56 x 56 blocks: stride 1.
      {1, 29, 48, 24, 144, 3, 1, 1, 1, 1, 0, relu6, relu6},
      {2, 17, 48, 24, 144, 3, 1, 1, 1, 1, 2, relu6, none},
      {2, 17, 48, 24, 144, 3, 1, 1, 1, 1, 3, none, relu6},
      // 5x5 (efficientnet), dilation 2, uneven and no padding, other activations.
      {1, 23, 40, 8, 160, 5, 2, 1, 2, 1, 0, hardswish, relu6},
      {1, 22, 40, 8, 160, 5, 1, 1, 0, 4, 2, relu6, hardswish},
      {1, 26, 36, 12, 200, 3, 1, 2, 2, 0, 2, relu6, relu6},
      // One row over the budget: bands of one output row.
      {1, 9, 120, 4, 640, 3, 2, 1, 1, 1, 2, relu6, relu6},
      {1, 8, 120, 4, 640, 3, 1, 1, 1, 1, 0, relu6, relu6},
      // A short image: one band.
      {1, 3, 10, 5, 37, 3, 1, 1, 1, 1, 0, relu6, relu6},
      {2, 1, 7, 3, 17, 3, 2, 1, 1, 1, 3, none, none},
      // A grouped second layer: regnet_x_400mf's first block scaled down in width (2 groups of
      // 16, stride 2, relu on both), 4 groups at stride 1 and 2 threads, more output channels
      // than input ones, groups of 40 (past nr: the im2col GEMM and its scratch), a 5x5 kernel
      // with dilation 2, bands of one row, and one band.
      {1, 31, 64, 8, 32, 3, 2, 1, 1, 1, 0, relu, relu, 2},
      {2, 29, 48, 16, 64, 3, 1, 1, 1, 1, 2, relu, none, 4},
      {1, 26, 40, 12, 48, 3, 2, 1, 1, 1, 3, none, relu, 4, 96},
      {1, 21, 44, 8, 80, 3, 1, 1, 1, 1, 2, relu6, relu6, 2},
      {1, 22, 40, 8, 64, 5, 1, 2, 4, 2, 0, hardswish, relu, 4},
      {1, 9, 600, 4, 128, 3, 2, 1, 1, 1, 2, relu, relu, 8},
      {1, 3, 10, 5, 32, 3, 1, 1, 1, 1, 0, relu, relu, 2, 16},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    ExpectMatchesTheLayers(c, seed++);
    if (HasFailure()) return;
  }
}

// On several threads the bands come in a count the threads divide: regnet_x_400mf's first block
// (a 14 KB row, 112 x 32 floats: 8 output rows of 17 input ones fit 256 KiB) runs 7 bands of 8
// rows on one thread, 8 of 7 on two, 12 of 5 on three (9-11 bands would leave 8 or 10); a
// count the threads already divide stays.
TEST_P(ExpandDepthwiseTest, SharesBandsEvenlyBetweenThreads) {
  const Case regnet{1, 112, 112, 32, 32, 3, 2, 1, 1, 1, 0, {}, {}, 2};
  const Convolution2dShape e = ExpandShape(regnet), d = DepthwiseShape(regnet);
  EXPECT_EQ(ExpandDepthwiseBandRows(e, d, 2, 1), 8u);
  EXPECT_EQ(ExpandDepthwiseBandRows(e, d, 2, 2), 7u);
  EXPECT_EQ(ExpandDepthwiseBandRows(e, d, 2, 3), 5u);
  EXPECT_EQ(ExpandDepthwiseBandRows(e, d, 2, 4), 7u);
  // Two images of 7 bands: 14, which 2 threads divide.
  Case two = regnet;
  two.batch = 2;
  EXPECT_EQ(ExpandDepthwiseBandRows(ExpandShape(two), DepthwiseShape(two), 2, 2), 8u);
}

TEST_P(ExpandDepthwiseTest, RefusesWhatItDoesNotFuse) {
  const Case c{1, 8, 8, 4, 16, 3, 1, 1, 1, 1, 0, {}, {}};
  const Convolution2dShape e = ExpandShape(c), d = DepthwiseShape(c);
  EXPECT_EQ(CheckExpandDepthwise(e, d), Error::kOk);
  Convolution2dShape bad = e;
  bad.kernel_height = bad.kernel_width = 3;
  bad.padding_top = bad.padding_left = bad.padding_bottom = bad.padding_right = 1;
  EXPECT_EQ(CheckExpandDepthwise(bad, d), Error::kInvalidArgument);  // not a 1x1
  bad = e;
  bad.stride_height = 2;
  EXPECT_EQ(CheckExpandDepthwise(bad, d), Error::kInvalidArgument);  // strided
  Convolution2dShape other = d;
  other.input_channels = other.output_channels = 15;
  EXPECT_EQ(CheckExpandDepthwise(e, other), Error::kInvalidArgument);  // channels differ
  other = d;
  other.input_height = 9;
  EXPECT_EQ(CheckExpandDepthwise(e, other), Error::kInvalidArgument);  // heights differ
  other = d;
  other.output_channels = 32;
  EXPECT_EQ(CheckExpandDepthwise(e, other), Error::kInvalidArgument);     // not depthwise
  EXPECT_EQ(CheckExpandDepthwise(e, other, 4), Error::kOk);               // grouped: 4 of 4 -> 8
  EXPECT_EQ(CheckExpandDepthwise(e, other, 3), Error::kInvalidArgument);  // 16 / 3
  EXPECT_EQ(CheckExpandDepthwise(e, other, 1), Error::kInvalidArgument);  // not grouped
  other = d;
  other.padding_top = 3;  // a band of padding only
  EXPECT_EQ(CheckExpandDepthwise(e, other), Error::kInvalidArgument);
  EXPECT_EQ(ExpandDepthwiseScratchBytes(GemmConfig{}, e, other, 1), 0u);
  EXPECT_EQ(ExpandDepthwiseBandRows(e, other), 0u);
  // A residual in either epilogue, and missing pointers.
  ExpandDepthwiseCall call{};
  call.expand = e;
  call.depthwise = d;
  EXPECT_EQ(ExpandDepthwise(call, nullptr, 0), Error::kInvalidArgument);
  // Grouped weights with groups 1, or beside depthwise ones.
  std::vector<float> data(16, 0.0f);
  PackedB views[2] = {};
  PackedDepthwise depthwise_view{};
  call.input = data.data();
  call.output = data.data() + 8;
  call.expand_weights = &views[0];
  call.group_weights = views;
  call.groups = 1;
  EXPECT_EQ(ExpandDepthwise(call, data.data(), 0), Error::kInvalidArgument);
  call.groups = 2;
  call.depthwise_weights = &depthwise_view;
  EXPECT_EQ(ExpandDepthwise(call, data.data(), 0), Error::kInvalidArgument);
}

TORCHIR_INSTANTIATE_PER_TARGET(ExpandDepthwiseTest);

}  // namespace
}  // namespace torchir::native
