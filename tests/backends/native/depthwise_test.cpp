#include "backends/native/depthwise.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "tests/backends/native/convolution_test_support.h"
#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;

Convolution2dShape Depthwise(size_t batch, size_t height, size_t width, size_t channels,
                             size_t kernel, size_t stride, size_t dilation, size_t pt, size_t pl,
                             size_t pb, size_t pr) {
  return {batch,  height,   width,    channels, channels, kernel, kernel, stride,
          stride, dilation, dilation, pt,       pl,       pb,     pr};
}

using Options = ConvolutionOptions;

// Compares every output element with a double-precision direct depthwise convolution. The bound
// is gemm_test.cpp's with K = kh * kw products: |y - exact| <= 2 (K + 2) u (sum |x*w| + |bias| +
// |r|), u = 2^-24.
void ExpectDepthwiseMatchesReference(const Convolution2dShape& s, const Options& o, uint32_t seed) {
  SCOPED_TRACE(Describe(s, o));
  ASSERT_EQ(CheckConvolution2dShape(s), Error::kOk);
  std::mt19937 rng(seed);
  const size_t oh = s.output_height(), ow = s.output_width(), c = s.input_channels;
  const size_t kh = s.kernel_height, kw = s.kernel_width;
  const std::vector<float> input = Random(s.batch * s.input_height * s.input_width * c, &rng);
  const std::vector<float> weights = Random(c * kh * kw, &rng);  // [C, 1, kh, kw]
  const std::vector<float> bias = Random(c, &rng);
  const std::vector<float> residual = Random(s.batch * oh * ow * c, &rng);

  std::vector<float> packed(DepthwisePackedWeightsBytes(s) / sizeof(float));
  ASSERT_EQ(PackDepthwiseWeights(s, weights.data(), packed.data(), packed.size() * sizeof(float)),
            Error::kOk);
  PackedDepthwise view;
  ASSERT_EQ(ViewPackedDepthwise(packed.data(), packed.size() * sizeof(float), &view), Error::kOk);

  std::vector<float> output(s.batch * oh * ow * c, 12345.0f);
  Epilogue epilogue = o.epilogue;
  if (o.residual == Options::kSeparate) {
    epilogue.residual = residual.data();
    epilogue.residual_stride = c;
  } else if (o.residual == Options::kInPlace) {
    output = residual;
    epilogue.residual = output.data();
    epilogue.residual_stride = c;
  }
  pthreadpool_t pool = o.threads == 0 ? nullptr : pthreadpool_create(o.threads);
  const Error error = DepthwiseConvolution2d(s, input.data(), view, o.bias ? bias.data() : nullptr,
                                             output.data(), epilogue, pool);
  if (pool != nullptr) pthreadpool_destroy(pool);
  ASSERT_EQ(error, Error::kOk);

  const double u = std::ldexp(1.0, -24);
  size_t failures = 0;
  for (size_t b = 0; b < s.batch; ++b) {
    for (size_t oy = 0; oy < oh; ++oy) {
      for (size_t ox = 0; ox < ow; ++ox) {
        for (size_t ch = 0; ch < c; ++ch) {
          const size_t index = ((b * oh + oy) * ow + ox) * c + ch;
          double exact = o.bias ? bias[ch] : 0.0;
          double magnitude = std::fabs(exact);
          if (o.residual != Options::kNone) {
            exact += residual[index];
            magnitude += std::fabs(residual[index]);
          }
          for (size_t ky = 0; ky < kh; ++ky) {
            const long iy = static_cast<long>(oy * s.stride_height + ky * s.dilation_height) -
                            static_cast<long>(s.padding_top);
            if (iy < 0 || iy >= static_cast<long>(s.input_height)) continue;
            for (size_t kx = 0; kx < kw; ++kx) {
              const long ix = static_cast<long>(ox * s.stride_width + kx * s.dilation_width) -
                              static_cast<long>(s.padding_left);
              if (ix < 0 || ix >= static_cast<long>(s.input_width)) continue;
              const double product =
                  static_cast<double>(
                      input[((b * s.input_height + iy) * s.input_width + ix) * c + ch]) *
                  weights[(ch * kh + ky) * kw + kx];
              exact += product;
              magnitude += std::fabs(product);
            }
          }
          const double tolerance =
              ActivationTolerance(2.0 * (kh * kw + 2) * u * magnitude + 1e-30, exact, o.epilogue);
          exact = ReferenceActivation(exact, o.epilogue);
          const float got = output[index];
          if (!(std::fabs(got - exact) <= tolerance) && ++failures <= 5) {
            ADD_FAILURE() << "y[" << b << "][" << oy << "][" << ox << "][" << ch << "] = " << got
                          << ", expected " << exact << " +- " << tolerance;
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

class DepthwiseTest : public PerTargetTest {};

// Every channel count from 1 to 70: full blocks of 4 vectors, single vectors and the scalar tail
// of every vector width (1, 4, 8, 16 lanes).
TEST_P(DepthwiseTest, MatchesReferenceForEveryChannelCount) {
  for (size_t c = 1; c <= 70; ++c) {
    Options options;
    options.bias = c % 3 != 0;
    ExpectDepthwiseMatchesReference(Depthwise(1 + c % 2, 5, 6, c, 3, 1, 1, 1, 1, 1, 1), options,
                                    static_cast<uint32_t>(c));
    if (HasFailure()) return;
  }
}

// 3x3 and 5x5 with strides 1 and 2, dilation 1 and 2, symmetric, asymmetric and no padding, and
// padding so wide that some output pixels see no input at all.
TEST_P(DepthwiseTest, MatchesReferenceForKernelsStridesDilationsAndPadding) {
  uint32_t seed = 100;
  for (size_t kernel : {3, 5}) {
    for (size_t stride : {1, 2}) {
      for (size_t dilation : {1, 2}) {
        const size_t pad = kernel / 2 * dilation;
        for (size_t c : {7, 32, 37}) {
          ExpectDepthwiseMatchesReference(
              Depthwise(1, 12, 11, c, kernel, stride, dilation, pad, pad, pad, pad), {}, seed++);
          ExpectDepthwiseMatchesReference(
              Depthwise(1, 12, 11, c, kernel, stride, dilation, 0, pad, pad + 1, 0), {}, seed++);
          ExpectDepthwiseMatchesReference(
              Depthwise(2, 9, 10, c, kernel, stride, dilation, 0, 0, 0, 0), {}, seed++);
          ExpectDepthwiseMatchesReference(Depthwise(1, 3, 4, c, kernel, stride, dilation,
                                                    2 * kernel, kernel, kernel + 1, 2 * kernel),
                                          {}, seed++);
          if (HasFailure()) return;
        }
      }
    }
  }
}

// Rows wide enough for blocks of 14, 10 and 8 interior pixels (the row-reuse kernel: 3-wide
// kernels take 14 on AVX-512 and 10 on AVX2, 5-wide kernels 8, at stride 1 and dilation 1), two
// blocks in a row, next to edge pixels and leftovers of 1-13 pixels (the unrolled 4-, 3-, 2- and
// 1-pixel blocks): widths 9-34, every channel count's vector blocks
// and scalar tail, padded and unpadded, and strides and dilations of 2 beside them (stride 2:
// the unrolled blocks; dilation 2: the blocks that loop over the taps).
TEST_P(DepthwiseTest, MatchesReferenceOnWideRows) {
  uint32_t seed = 400;
  for (size_t kernel : {3, 5}) {
    for (size_t width = 9; width <= 34; ++width) {
      const size_t pad = kernel / 2;
      const size_t c = 5 + width % 4 * 9;  // 5, 14, 23, 32
      ExpectDepthwiseMatchesReference(Depthwise(1, 4, width, c, kernel, 1, 1, pad, pad, pad, pad),
                                      {}, seed++);
      ExpectDepthwiseMatchesReference(Depthwise(2, kernel + 1, width, c, kernel, 1, 1, 0, 0, 0, 0),
                                      {}, seed++);
      ExpectDepthwiseMatchesReference(
          Depthwise(1, 5, width, 8, kernel, 1, 1, pad, pad + 1, 0, pad - 1), {}, seed++);
      ExpectDepthwiseMatchesReference(
          Depthwise(1, 5, width, 16, kernel, 1 + width % 2, 2 - width % 2, pad, pad, pad, pad), {},
          seed++);
      if (HasFailure()) return;
    }
  }
}

// On rows of 8 pixels (4-pixel blocks) and of 20 (8-pixel blocks where the target has them).
TEST_P(DepthwiseTest, AppliesEveryEpilogue) {
  uint32_t seed = 200;
  for (size_t width : {8, 20}) {
    for (size_t kernel : {3, 5}) {
      const Convolution2dShape s =
          Depthwise(2, 7, width, 45, kernel, 1, 1, kernel / 2, kernel / 2, kernel / 2, kernel / 2);
      for (const Options& options : EveryEpilogueCase())
        ExpectDepthwiseMatchesReference(s, options, seed++);
    }
  }
}

TEST_P(DepthwiseTest, MatchesReferenceWithThreads) {
  for (size_t threads : {2, 3}) {
    Options options;
    options.threads = threads;
    options.epilogue = {Activation::kClamp, 0.0f, 6.0f};
    options.residual = Options::kSeparate;
    ExpectDepthwiseMatchesReference(Depthwise(2, 15, 13, 70, 3, 2, 1, 1, 1, 1, 1), options,
                                    300 + threads);
    ExpectDepthwiseMatchesReference(Depthwise(1, 2, 9, 33, 5, 1, 1, 2, 2, 2, 2), options,
                                    310 + threads);
  }
}

TEST_P(DepthwiseTest, PacksTapMajorWithPaddedChannels) {
  const Convolution2dShape s = Depthwise(1, 4, 4, 19, 3, 1, 1, 0, 0, 0, 0);
  std::vector<float> weights(19 * 9);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i + 1);
  ASSERT_EQ(DepthwisePackedWeightsBytes(s), 64 + 9 * 32 * sizeof(float));
  std::vector<float> packed(DepthwisePackedWeightsBytes(s) / sizeof(float), -1.0f);
  ASSERT_EQ(PackDepthwiseWeights(s, weights.data(), packed.data(), packed.size() * sizeof(float)),
            Error::kOk);
  PackedDepthwiseHeader header;
  std::memcpy(&header, packed.data(), sizeof(header));
  EXPECT_EQ(header.magic, kPackedDepthwiseMagic);
  EXPECT_EQ(header.version, 1u);
  EXPECT_EQ(header.kernel_height, 3u);
  EXPECT_EQ(header.kernel_width, 3u);
  EXPECT_EQ(header.channels, 19u);
  EXPECT_EQ(header.padded_channels, 32u);
  EXPECT_EQ(header.data_floats, 9u * 32u);
  const float* data = packed.data() + 16;
  for (size_t tap = 0; tap < 9; ++tap) {
    for (size_t c = 0; c < 32; ++c) {
      EXPECT_EQ(data[tap * 32 + c], c < 19 ? weights[c * 9 + tap] : 0.0f) << tap << ", " << c;
    }
  }
  PackedDepthwise view;
  ASSERT_EQ(ViewPackedDepthwise(packed.data(), packed.size() * sizeof(float), &view), Error::kOk);
  EXPECT_EQ(view.kernel_height, 3u);
  EXPECT_EQ(view.kernel_width, 3u);
  EXPECT_EQ(view.channels, 19u);
  EXPECT_EQ(view.padded_channels, 32u);
  EXPECT_EQ(view.data, data);
  EXPECT_EQ(
      PackDepthwiseWeights(s, weights.data(), packed.data(), packed.size() * sizeof(float) - 1),
      Error::kOutOfMemory);
}

TEST_P(DepthwiseTest, ViewRejectsMalformedBytes) {
  const Convolution2dShape s = Depthwise(1, 4, 4, 5, 3, 1, 1, 0, 0, 0, 0);
  std::vector<float> weights(5 * 9, 1.0f);
  std::vector<float> good(DepthwisePackedWeightsBytes(s) / sizeof(float));
  ASSERT_EQ(PackDepthwiseWeights(s, weights.data(), good.data(), good.size() * sizeof(float)),
            Error::kOk);
  const size_t bytes = good.size() * sizeof(float);
  PackedDepthwise view;
  auto with = [&](auto edit) {
    std::vector<float> copy = good;
    PackedDepthwiseHeader header;
    std::memcpy(&header, copy.data(), sizeof(header));
    edit(&header);
    std::memcpy(copy.data(), &header, sizeof(header));
    return ViewPackedDepthwise(copy.data(), bytes, &view);
  };
  EXPECT_EQ(with([](PackedDepthwiseHeader*) {}), Error::kOk);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->magic ^= 1; }), Error::kInvalidProgram);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->version = 2; }), Error::kUnsupportedVersion);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->kernel_height = 0; }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->channels = 0; }), Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->channels = 17; }), Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->padded_channels = 5; }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->data_floats += 16; }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) { h->kernel_width = 4; }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(with([](PackedDepthwiseHeader* h) {
              h->kernel_height = h->kernel_width = 0xffffffffu;
              h->channels = uint64_t{1} << 62;
            }),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(ViewPackedDepthwise(good.data(), bytes - 4, &view), Error::kProgramOutOfBounds);
  EXPECT_EQ(ViewPackedDepthwise(good.data(), 63, &view), Error::kInvalidProgram);
  EXPECT_EQ(ViewPackedDepthwise(nullptr, bytes, &view), Error::kInvalidProgram);
}

// Random corruptions of a valid header and random lengths: whatever ViewPackedDepthwise accepts
// must describe floats that lie inside the buffer, consistent with its own sizes.
TEST_P(DepthwiseTest, ViewNeverPointsOutsideTheBuffer) {
  const Convolution2dShape s = Depthwise(1, 4, 4, 21, 3, 1, 1, 0, 0, 0, 0);
  std::vector<float> weights(21 * 9, 1.0f);
  std::vector<float> good(DepthwisePackedWeightsBytes(s) / sizeof(float));
  ASSERT_EQ(PackDepthwiseWeights(s, weights.data(), good.data(), good.size() * sizeof(float)),
            Error::kOk);
  std::mt19937 rng(99);
  size_t accepted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<float> copy = good;
    unsigned char* bytes = reinterpret_cast<unsigned char*>(copy.data());
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) bytes[rng() % kPackedDepthwiseHeaderBytes] = rng() & 0xff;
    const size_t size = copy.size() * sizeof(float) - (rng() % 2 == 0 ? 0 : rng() % 256);
    PackedDepthwise view;
    if (ViewPackedDepthwise(copy.data(), size, &view) != Error::kOk) continue;
    ++accepted;
    ASSERT_GE(view.padded_channels, view.channels);
    ASSERT_LE(reinterpret_cast<const unsigned char*>(
                  view.data + view.kernel_height * view.kernel_width * view.padded_channels),
              bytes + size);
  }
  EXPECT_GT(accepted, 0u);  // the unchanged reserved bytes and in-range lengths still pass
}

TEST_P(DepthwiseTest, RefusesBadArguments) {
  const Convolution2dShape s = Depthwise(1, 4, 4, 5, 3, 1, 1, 1, 1, 1, 1);
  std::vector<float> weights(5 * 9, 1.0f), input(4 * 4 * 5, 1.0f), output(4 * 4 * 5, 0.0f);
  std::vector<float> packed(DepthwisePackedWeightsBytes(s) / sizeof(float));
  ASSERT_EQ(PackDepthwiseWeights(s, weights.data(), packed.data(), packed.size() * sizeof(float)),
            Error::kOk);
  PackedDepthwise view;
  ASSERT_EQ(ViewPackedDepthwise(packed.data(), packed.size() * sizeof(float), &view), Error::kOk);
  Convolution2dShape not_depthwise = s;
  not_depthwise.output_channels = 10;
  EXPECT_EQ(DepthwisePackedWeightsBytes(not_depthwise), 0u);
  EXPECT_EQ(PackDepthwiseWeights(not_depthwise, weights.data(), packed.data(),
                                 packed.size() * sizeof(float)),
            Error::kInvalidArgument);
  auto run = [&](const Convolution2dShape& shape, const float* in, float* out,
                 const Epilogue& epilogue = {}) {
    return DepthwiseConvolution2d(shape, in, view, nullptr, out, epilogue);
  };
  EXPECT_EQ(run(not_depthwise, input.data(), output.data()), Error::kInvalidArgument);
  Convolution2dShape other_channels = Depthwise(1, 4, 4, 6, 3, 1, 1, 1, 1, 1, 1);
  EXPECT_EQ(run(other_channels, input.data(), output.data()), Error::kInvalidArgument);
  Convolution2dShape other_kernel = Depthwise(1, 4, 4, 5, 5, 1, 1, 2, 2, 2, 2);
  EXPECT_EQ(run(other_kernel, input.data(), output.data()), Error::kInvalidArgument);
  Convolution2dShape zero_stride = s;
  zero_stride.stride_width = 0;
  EXPECT_EQ(run(zero_stride, input.data(), output.data()), Error::kInvalidArgument);
  EXPECT_EQ(run(s, nullptr, output.data()), Error::kInvalidArgument);
  EXPECT_EQ(run(s, input.data(), nullptr), Error::kInvalidArgument);
  EXPECT_EQ(run(s, input.data(), output.data(), {Activation::kClamp, 1.0f, 0.0f}),
            Error::kInvalidArgument);
  Epilogue short_stride;
  short_stride.residual = input.data();
  short_stride.residual_stride = 4;
  EXPECT_EQ(run(s, input.data(), output.data(), short_stride), Error::kInvalidArgument);
  EXPECT_EQ(std::count(output.begin(), output.end(), 0.0f), static_cast<long>(output.size()));
  ASSERT_EQ(run(s, input.data(), output.data()), Error::kOk);
  EXPECT_EQ(output[0], 4.0f);                // a corner sees 2 x 2 taps of ones
  EXPECT_EQ(output[(1 * 4 + 1) * 5], 9.0f);  // an inner pixel all 9
}

TORCHIR_INSTANTIATE_PER_TARGET(DepthwiseTest);

}  // namespace
}  // namespace torchir::native
