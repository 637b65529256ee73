#include "backends/native/convolution.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "tests/backends/native/channels_first.h"
#include "tests/backends/native/convolution_test_support.h"
#include "tests/backends/native/per_target_test.h"

namespace torchir::native {
namespace {

using runtime::Error;

// kernel, stride, dilation, padding (top, left, bottom, right), channels, batch.
Convolution2dShape Shape(size_t batch, size_t height, size_t width, size_t cin, size_t cout,
                         size_t kh, size_t kw, size_t stride, size_t dilation, size_t pt, size_t pl,
                         size_t pb, size_t pr) {
  return {batch,  height,   width,    cin, cout, kh, kw, stride,
          stride, dilation, dilation, pt,  pl,   pb, pr};
}

using Options = ConvolutionOptions;

// Runs one convolution on the current target and compares every output element with a
// double-precision direct convolution. The bound is gemm_test.cpp's: the K = kh*kw*Cin products
// and the bias and residual additions are each rounded once at u = 2^-24, in whatever order the
// blocking adds them, so |y - exact| <= (K + 2) u (sum |x*w| + |bias| + |r|) to first order; we
// allow twice that (padding taps contribute exact zeros). Clamping is exact.
// With groups > 1, through GroupedConvolution2d: output channel co sums over the input channels
// of its group only (K = kh*kw*Cin/groups in the bound). With channels_first, the kernel reads
// the same input transposed to NCHW (Convolution2dShape::input_channels_first).
void ExpectConvolutionMatchesReference(const Convolution2dShape& s, const Options& o, uint32_t seed,
                                       size_t groups = 1, bool channels_first = false) {
  SCOPED_TRACE(Describe(s, o) + " groups=" + std::to_string(groups) +
               (channels_first ? " NCHW input" : ""));
  ASSERT_EQ(CheckConvolution2dShape(s), Error::kOk);
  std::mt19937 rng(seed);
  const size_t oh = s.output_height(), ow = s.output_width();
  const size_t cin = s.input_channels, cout = s.output_channels;
  const size_t kh = s.kernel_height, kw = s.kernel_width;
  const size_t group_cin = cin / groups, group_cout = cout / groups;
  const std::vector<float> input = Random(s.batch * s.input_height * s.input_width * cin, &rng);
  const std::vector<float> weights = Random(cout * group_cin * kh * kw, &rng);  // OIHW
  const std::vector<float> bias = Random(cout, &rng);
  const std::vector<float> residual = Random(s.batch * oh * ow * cout, &rng);

  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  std::vector<char> packed(groups == 1 ? ConvolutionPackedWeightsBytes(config, s)
                                       : GroupedConvolutionPackedWeightsBytes(config, s, groups));
  std::vector<PackedB> views(groups);
  if (groups == 1) {
    ASSERT_EQ(PackConvolutionWeights(config, s, weights.data(), packed.data(), packed.size()),
              Error::kOk);
    ASSERT_EQ(ViewPackedB(packed.data(), packed.size(), &views[0]), Error::kOk);
  } else {
    ASSERT_EQ(PackGroupedConvolutionWeights(config, s, groups, weights.data(), packed.data(),
                                            packed.size()),
              Error::kOk);
    ASSERT_EQ(ViewPackedGroupedWeights(packed.data(), packed.size(), s, groups, views.data()),
              Error::kOk);
  }

  std::vector<float> output(s.batch * oh * ow * cout, 12345.0f);
  Epilogue epilogue = o.epilogue;
  if (o.residual == Options::kSeparate) {
    epilogue.residual = residual.data();
    epilogue.residual_stride = cout;
  } else if (o.residual == Options::kInPlace) {
    output = residual;
    epilogue.residual = output.data();
    epilogue.residual_stride = cout;
  }
  Convolution2dShape run = s;
  std::vector<float> planes;  // the input as NCHW
  if (channels_first) {
    run.input_channels_first = true;
    planes = ChannelsFirst(input, s.batch, s.input_height * s.input_width, cin);
  }
  const float* kernel_input = channels_first ? planes.data() : input.data();
  const size_t threads = o.threads == 0 ? 1 : o.threads;
  std::vector<char> scratch(ConvolutionScratchBytes(config, s, threads));
  pthreadpool_t pool = o.threads == 0 ? nullptr : pthreadpool_create(o.threads);
  const float* bias_or_null = o.bias ? bias.data() : nullptr;
  const Error error = groups == 1
                          ? Convolution2d(run, kernel_input, views[0], bias_or_null, output.data(),
                                          epilogue, scratch.data(), scratch.size(), pool, o.a_mode)
                          : GroupedConvolution2d(run, groups, kernel_input, views.data(),
                                                 bias_or_null, output.data(), epilogue,
                                                 scratch.data(), scratch.size(), pool, o.a_mode);
  if (pool != nullptr) pthreadpool_destroy(pool);
  ASSERT_EQ(error, Error::kOk);

  const double u = std::ldexp(1.0, -24);
  const size_t k = kh * kw * group_cin;
  size_t failures = 0;
  for (size_t b = 0; b < s.batch; ++b) {
    for (size_t oy = 0; oy < oh; ++oy) {
      for (size_t ox = 0; ox < ow; ++ox) {
        for (size_t co = 0; co < cout; ++co) {
          const size_t index = ((b * oh + oy) * ow + ox) * cout + co;
          double exact = o.bias ? bias[co] : 0.0;
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
              const size_t first_ci = co / group_cout * group_cin;
              for (size_t ci = 0; ci < group_cin; ++ci) {
                const double product =
                    static_cast<double>(
                        input[((b * s.input_height + iy) * s.input_width + ix) * cin + first_ci +
                              ci]) *
                    weights[((co * group_cin + ci) * kh + ky) * kw + kx];
                exact += product;
                magnitude += std::fabs(product);
              }
            }
          }
          const double tolerance =
              ActivationTolerance(2.0 * (k + 2) * u * magnitude + 1e-30, exact, o.epilogue);
          exact = ReferenceActivation(exact, o.epilogue);
          const float got = output[index];
          if (!(std::fabs(got - exact) <= tolerance) && ++failures <= 5) {
            ADD_FAILURE() << "y[" << b << "][" << oy << "][" << ox << "][" << co << "] = " << got
                          << ", expected " << exact << " +- " << tolerance;
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

// Options for the threaded cases: `threads` threads, relu and the given residual.
Options ThreadsWithRelu(size_t threads, Options::Residual residual) {
  Options options;
  options.threads = threads;
  options.epilogue.activation = Activation::kRelu;
  options.residual = residual;
  return options;
}

class ConvolutionTest : public PerTargetTest {};

// Every kernel size with every stride and dilation, padded asymmetrically (more at the bottom
// and right, none at the top for some), so taps fall off every edge.
TEST_P(ConvolutionTest, MatchesReferenceForEveryKernelStrideAndDilation) {
  struct Kernel {
    size_t kh, kw;
  };
  uint32_t seed = 1;
  for (Kernel kernel :
       {Kernel{1, 1}, Kernel{3, 3}, Kernel{5, 5}, Kernel{7, 7}, Kernel{1, 3}, Kernel{3, 1}}) {
    for (size_t stride : {1, 2, 3}) {
      for (size_t dilation : {1, 2}) {
        const size_t pad = kernel.kh / 2 * dilation;
        ExpectConvolutionMatchesReference(
            Shape(1, 13, 11, 5, 9, kernel.kh, kernel.kw, stride, dilation, seed % 2 ? pad : 0,
                  kernel.kw / 2 * dilation, pad + 1, 2),
            {}, seed);
        ++seed;
        if (HasFailure()) return;
      }
    }
  }
}

// Channel counts around every target's mr, nr and kc (a tap's run of Cin floats crossing the
// K block at 256), batch 1 and 2, bias or not.
TEST_P(ConvolutionTest, MatchesReferenceForOddChannelCounts) {
  uint32_t seed = 100;
  for (size_t cin : {1, 3, 17, 64, 257}) {
    for (size_t cout : {1, 7, 16, 33, 65}) {
      Options options;
      options.bias = seed % 2 == 0;
      ExpectConvolutionMatchesReference(
          Shape(1 + seed % 2, 5, 6, cin, cout, 3, 3, 1, 1, 1, 1, 1, 1), options, seed);
      ++seed;
      if (HasFailure()) return;
    }
  }
}

// More output pixels than mc (112 on AVX-512) and than one row of the image, several K blocks.
TEST_P(ConvolutionTest, MatchesReferenceAcrossCacheBlocks) {
  ExpectConvolutionMatchesReference(Shape(2, 17, 19, 40, 70, 3, 3, 1, 1, 1, 1, 1, 1), {}, 200);
  ExpectConvolutionMatchesReference(Shape(1, 23, 20, 3, 64, 7, 7, 2, 1, 3, 3, 3, 3), {}, 201);
}

// The 1x1 unpadded case runs the GEMM on the input itself, at a stride through lines of rows
// (gemm_call.h's StridedRows); 1x1 with padding goes through the im2col.
TEST_P(ConvolutionTest, MatchesReferenceForPointwise) {
  ExpectConvolutionMatchesReference(Shape(2, 9, 7, 33, 17, 1, 1, 1, 1, 0, 0, 0, 0), {}, 300);
  ExpectConvolutionMatchesReference(Shape(1, 9, 7, 300, 40, 1, 1, 1, 1, 0, 0, 0, 0), {}, 301);
  ExpectConvolutionMatchesReference(Shape(1, 9, 7, 33, 17, 1, 1, 2, 1, 0, 0, 0, 0), {}, 302);
  ExpectConvolutionMatchesReference(Shape(1, 9, 7, 33, 17, 1, 1, 1, 1, 1, 0, 0, 1), {}, 303);
}

// Strided 1x1: rows read in place (N <= 64; on AVX-512 any N with K of at most kc), rows kc
// floats apart (Cin 128 at stride 2: the packed kernels read them where they are), rows packed
// line by line (N > 64 elsewhere, and K over two K blocks), images whose height is not a multiple
// of the stride (the lines' step differs between images), strides 2 and 3 and unequal ones, lines
// of 28 (two 14-row tiles), 7 and 16 pixels, and threads whose rows start mid-line.
TEST_P(ConvolutionTest, MatchesReferenceForStridedPointwise) {
  uint32_t seed = 310;
  ExpectConvolutionMatchesReference(Shape(3, 9, 7, 33, 17, 1, 1, 2, 1, 0, 0, 0, 0), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(2, 7, 9, 128, 80, 1, 1, 2, 1, 0, 0, 0, 0), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(2, 11, 13, 40, 100, 1, 1, 3, 1, 0, 0, 0, 0), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(1, 14, 14, 300, 70, 1, 1, 2, 1, 0, 0, 0, 0), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(2, 56, 56, 32, 32, 1, 1, 2, 1, 0, 0, 0, 0), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(1, 14, 13, 160, 48, 1, 1, 2, 1, 0, 0, 0, 0), {}, seed++);
  // K of 65-256 and N > 64: in place on AVX-512 (rows 2 K floats apart), over mc rows in lines
  // of 28, and an N edge.
  ExpectConvolutionMatchesReference(Shape(1, 12, 56, 96, 80, 1, 1, 2, 1, 0, 0, 0, 0), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(2, 9, 13, 256, 72, 1, 1, 2, 1, 0, 0, 0, 0), {}, seed++);
  Convolution2dShape unequal = Shape(2, 10, 16, 24, 40, 1, 1, 2, 1, 0, 0, 0, 0);
  unequal.stride_width = 1;  // lines of 16 pixels one apart, two input rows apart
  ExpectConvolutionMatchesReference(unequal, {}, seed++);
  unequal.stride_height = 1;
  unequal.stride_width = 3;
  ExpectConvolutionMatchesReference(unequal, {}, seed++);
  for (const Options& options : EveryEpilogueCase()) {
    ExpectConvolutionMatchesReference(Shape(1, 16, 16, 40, 24, 1, 1, 2, 1, 0, 0, 0, 0), options,
                                      seed++);
  }
  for (size_t threads : {2, 3}) {
    Options options = ThreadsWithRelu(threads, Options::kSeparate);
    ExpectConvolutionMatchesReference(Shape(2, 15, 15, 32, 32, 1, 1, 2, 1, 0, 0, 0, 0), options,
                                      seed++);
    ExpectConvolutionMatchesReference(Shape(1, 27, 29, 64, 160, 1, 1, 2, 1, 0, 0, 0, 0), options,
                                      seed++);
    ExpectConvolutionMatchesReference(Shape(1, 17, 29, 100, 72, 1, 1, 2, 1, 0, 0, 0, 0), options,
                                      seed++);
  }
}

// The implicit GEMM's A read by pointer (ImplicitGemmA::kIndirect: a pointer per row and run of
// a tap's channels, padding rows pointing at zeros; kCopied: the runs copied first, pointers to
// the copies) against the im2col copy (kIm2col), on the same cases: runs of 8 floats (Cin 24 and
// 40: gcd with kc = 256), 32 (96), 64 (320, a tap over two segments and segments across K blocks),
// a whole K block (512: a tap split between two), every stride and a dilation, asymmetric padding
// (tiles wholly in the top padding skip their taps), outputs whose first tile is their top row
// (LeadTileRows: 7 x 7 for mr 14, 3 x 5 for mr 6), batch 2 and blocks of more than mc rows, M and N
// edges, grouped (groups of 32 channels), every epilogue, in-place residuals, a residual larger
// than L2 (added rows first) and threads, and 1x1 layers (strided, and across K blocks); and kAuto
// on a layer whose pixels are 4 KiB apart (copied, then by pointer), on resnet's stride-2 shape and
// on 1x1 layers it reads by pointer.
TEST_P(ConvolutionTest, MatchesReferenceReadingTapsByPointer) {
  uint32_t seed = 450;
  for (ImplicitGemmA mode :
       {ImplicitGemmA::kIndirect, ImplicitGemmA::kCopied, ImplicitGemmA::kIm2col}) {
    Options options;
    options.a_mode = mode;
    for (const Convolution2dShape& shape : {Shape(1, 9, 11, 24, 20, 3, 3, 1, 1, 1, 1, 1, 1),
                                            Shape(2, 13, 12, 40, 33, 3, 3, 2, 1, 0, 1, 2, 1),
                                            Shape(1, 10, 9, 96, 70, 3, 3, 3, 2, 2, 2, 2, 2),
                                            Shape(2, 17, 19, 320, 40, 3, 3, 1, 1, 1, 1, 1, 1),
                                            Shape(1, 8, 8, 512, 65, 3, 3, 2, 1, 1, 1, 1, 1),
                                            Shape(1, 6, 7, 64, 16, 5, 5, 1, 1, 3, 2, 3, 2),
                                            Shape(2, 9, 7, 64, 80, 1, 1, 2, 1, 0, 0, 0, 0),
                                            Shape(1, 7, 9, 512, 130, 1, 1, 1, 1, 0, 0, 0, 0),
                                            Shape(2, 14, 14, 64, 40, 3, 3, 2, 1, 1, 1, 1, 1),
                                            Shape(1, 6, 10, 32, 20, 3, 3, 2, 1, 1, 1, 1, 1)}) {
      ExpectConvolutionMatchesReference(shape, options, seed++);
    }
    ExpectConvolutionMatchesReference(Shape(1, 9, 9, 64, 64, 3, 3, 2, 1, 1, 1, 1, 1), options,
                                      seed++, 2);
    for (Options epilogue : EveryEpilogueCase()) {
      epilogue.a_mode = mode;
      ExpectConvolutionMatchesReference(Shape(1, 7, 8, 32, 37, 3, 3, 1, 1, 1, 1, 1, 1), epilogue,
                                        seed++);
    }
    for (size_t threads : {2, 3}) {
      Options threaded = ThreadsWithRelu(threads, Options::kInPlace);
      threaded.a_mode = mode;
      ExpectConvolutionMatchesReference(Shape(2, 15, 13, 64, 48, 3, 3, 2, 1, 1, 1, 1, 1), threaded,
                                        seed++);
      ExpectConvolutionMatchesReference(Shape(1, 3, 3, 32, 100, 3, 3, 1, 1, 1, 1, 1, 1), threaded,
                                        seed++);  // 9 pixels: shared along N
      ExpectConvolutionMatchesReference(Shape(3, 14, 14, 32, 24, 3, 3, 2, 1, 1, 1, 1, 1), threaded,
                                        seed++);  // 147 rows: shares start mid-image
    }
    // A residual larger than L2 (58 x 58 x 40 floats: 538 KB), whose K block runs rows first
    // (gemm.cpp), separate and in place.
    for (Options::Residual residual : {Options::kSeparate, Options::kInPlace}) {
      Options large = options;
      large.residual = residual;
      large.epilogue.activation = Activation::kRelu;
      ExpectConvolutionMatchesReference(Shape(1, 58, 58, 32, 40, 3, 3, 1, 1, 1, 1, 1, 1), large,
                                        seed++);
    }
    if (HasFailure()) return;
  }
  ExpectConvolutionMatchesReference(Shape(1, 14, 14, 512, 20, 3, 3, 2, 1, 1, 1, 1, 1), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(1, 28, 28, 128, 40, 3, 3, 2, 1, 1, 1, 1, 1), {}, seed++);
  // 1x1 layers kAuto reads by pointer (PointwiseReadsByPointer: K >= 128 in runs of >= 64, 64 <
  // N <= 1280, rows not kc apart), with an N edge and two K blocks, and on 2 threads.
  ExpectConvolutionMatchesReference(Shape(1, 9, 10, 128, 100, 1, 1, 1, 1, 0, 0, 0, 0), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(2, 5, 6, 320, 70, 1, 1, 1, 1, 0, 0, 0, 0),
                                    ThreadsWithRelu(2, Options::kInPlace), seed++);
}

TEST_P(ConvolutionTest, AppliesEveryEpilogue) {
  const Convolution2dShape s = Shape(2, 8, 9, 19, 37, 3, 3, 1, 1, 1, 1, 1, 1);
  uint32_t seed = 400;
  for (const Options& options : EveryEpilogueCase())
    ExpectConvolutionMatchesReference(s, options, seed++);
}

// Rows shared between 2 threads (and 3, more than the cores), with a residual and padding: each
// thread's rows start mid-image, so its im2col starts at another pixel.
TEST_P(ConvolutionTest, MatchesReferenceWithThreads) {
  for (size_t threads : {2, 3}) {
    Options options = ThreadsWithRelu(threads, Options::kSeparate);
    ExpectConvolutionMatchesReference(Shape(2, 13, 15, 24, 40, 3, 3, 2, 1, 1, 1, 1, 1), options,
                                      500 + threads);
    options.residual = Options::kInPlace;
    ExpectConvolutionMatchesReference(Shape(1, 20, 20, 16, 33, 5, 5, 1, 2, 4, 4, 4, 4), options,
                                      510 + threads);
    ExpectConvolutionMatchesReference(Shape(1, 3, 3, 8, 100, 3, 3, 1, 1, 1, 1, 1, 1), options,
                                      520 + threads);  // 9 pixels: shared along N
  }
}

// Grouped convolutions with odd group sizes (Cin / groups and Cout / groups of 1, 3, 5, 7, 13),
// ResNeXt's and RegNet's shapes scaled down, depthwise with a channel multiplier (Cin / groups
// = 1), the pointwise path (A read in place with lda = Cin), strides, dilation and padding,
// every epilogue, and threads.
TEST_P(ConvolutionTest, MatchesReferenceForGroupedConvolutions) {
  uint32_t seed = 600;
  struct Grouping {
    size_t groups, group_cin, group_cout;
  };
  for (Grouping g : {Grouping{2, 3, 5}, Grouping{3, 5, 7}, Grouping{4, 8, 8}, Grouping{5, 1, 3},
                     Grouping{2, 13, 1}, Grouping{3, 16, 16}, Grouping{7, 7, 13}}) {
    const size_t cin = g.groups * g.group_cin, cout = g.groups * g.group_cout;
    ExpectConvolutionMatchesReference(Shape(1, 9, 8, cin, cout, 3, 3, 1, 1, 1, 1, 1, 1), {}, seed++,
                                      g.groups);
    ExpectConvolutionMatchesReference(Shape(2, 9, 8, cin, cout, 3, 3, 2, 1, 0, 1, 1, 0), {}, seed++,
                                      g.groups);
    ExpectConvolutionMatchesReference(Shape(1, 7, 6, cin, cout, 1, 1, 1, 1, 0, 0, 0, 0), {}, seed++,
                                      g.groups);
    ExpectConvolutionMatchesReference(Shape(1, 11, 10, cin, cout, 3, 5, 1, 2, 2, 4, 2, 4), {},
                                      seed++, g.groups);
    if (HasFailure()) return;
  }
  // A group K of two K blocks (3x3 x 40 channels = 360) and more pixels than mc.
  ExpectConvolutionMatchesReference(Shape(1, 17, 15, 80, 34, 3, 3, 1, 1, 1, 1, 1, 1), {}, seed++,
                                    2);
  const Convolution2dShape s = Shape(1, 6, 7, 15, 21, 3, 3, 1, 1, 1, 1, 1, 1);
  for (const Options& options : EveryEpilogueCase()) {
    ExpectConvolutionMatchesReference(s, options, seed++, 3);
  }
  for (size_t threads : {2, 3}) {
    Options options = ThreadsWithRelu(threads, Options::kInPlace);
    ExpectConvolutionMatchesReference(Shape(1, 14, 14, 48, 48, 3, 3, 1, 1, 1, 1, 1, 1), options,
                                      seed++, 3);
    options.residual = Options::kSeparate;
    ExpectConvolutionMatchesReference(Shape(1, 2, 3, 16, 200, 3, 3, 1, 1, 1, 1, 1, 1), options,
                                      seed++, 4);  // 6 pixels: shared along N
  }
}

// The direct kernel (direct_convolution.h) on every target whose panels fit two vectors, at the
// shapes it must get right. Narrow groups: RegNet's 16 x 16 at stride 1 and 2 over rows wide
// enough for several 8- and 6-pixel blocks plus the edge pixels, rows of 7, 10 and 11 pixels
// (interiors of 5, 8 and 9: every smaller block), rows of 17-23 pixels (every even end), a partial
// last vector (12 and 20 channels), pixels whose taps all fall in the padding (padding 3 around a
// 3x3 kernel: bias, residual and clamp only), dilation, threads splitting the rows. Few input
// channels: RGB stems (7x7 stride 2 and 3x3, Cin = 3) with output channels spanning several panels
// and a partial one (40 = 32 + 8 on AVX-512, 16 + 16 + 8 on AVX2), one input channel with dilation,
// and K > kc (9 x 9 x 4 = 324: the GEMM path).
TEST_P(ConvolutionTest, MatchesReferenceForDirectConvolutions) {
  uint32_t seed = 700;
  for (size_t group : {16, 12, 20}) {
    ExpectConvolutionMatchesReference(
        Shape(1, 11, 29, 4 * group, 4 * group, 3, 3, 1, 1, 1, 1, 1, 1), {}, seed++, 4);
    ExpectConvolutionMatchesReference(
        Shape(2, 12, 30, 2 * group, 2 * group, 3, 3, 2, 1, 1, 1, 1, 1), {}, seed++, 2);
    for (size_t width : {7, 10, 11}) {
      ExpectConvolutionMatchesReference(
          Shape(1, 7, width, 2 * group, 2 * group, 3, 3, 1, 1, 1, 1, 1, 1), {}, seed++, 2);
    }
    // Rows too wide for the pointers whose interiors end in every split of a short rest (on
    // AVX-512, one vector): 15 = 8 + 7, 17 = 8 + 5 + 4, 20 = 8 + 6 + 6, 21 = 8 + 7 + 6, and at
    // stride 2, 17 of 19 output columns.
    for (size_t width : {17, 19, 22, 23}) {
      ExpectConvolutionMatchesReference(
          Shape(1, 3, width, 2 * group, 2 * group, 3, 3, 1, 1, 1, 1, 1, 1), {}, seed++, 2);
    }
    ExpectConvolutionMatchesReference(Shape(1, 5, 37, 2 * group, 2 * group, 3, 3, 2, 1, 1, 1, 1, 1),
                                      {}, seed++, 2);
    if (HasFailure()) return;
  }
  ExpectConvolutionMatchesReference(Shape(1, 4, 5, 32, 32, 3, 3, 1, 1, 3, 3, 3, 3), {}, seed++, 2);
  ExpectConvolutionMatchesReference(Shape(1, 23, 21, 3, 40, 7, 7, 2, 1, 3, 3, 3, 3), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(2, 15, 16, 3, 24, 3, 3, 2, 1, 1, 1, 1, 1), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(1, 12, 13, 1, 17, 3, 3, 1, 2, 2, 2, 2, 2), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(1, 12, 11, 4, 20, 9, 9, 1, 1, 4, 4, 4, 4), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(1, 13, 19, 48, 48, 3, 3, 1, 2, 2, 2, 2, 2), {}, seed++,
                                    3);
  for (const Options& options : EveryEpilogueCase()) {
    ExpectConvolutionMatchesReference(Shape(1, 6, 21, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1), options,
                                      seed++, 2);
    ExpectConvolutionMatchesReference(Shape(1, 9, 19, 3, 36, 7, 7, 2, 1, 3, 3, 3, 3), options,
                                      seed++);
  }
  // Narrow groups in one vector with rows of at most 16 pixels go across the rows through
  // pointers (7 x 7 in blocks of 7, 8 x 8 in blocks of 8, bands of 56 pixels over images and
  // rows; on AVX-512 the groups of 16 and 12 take that path, elsewhere the rows').
  for (const Options& options : EveryEpilogueCase()) {
    ExpectConvolutionMatchesReference(Shape(1, 7, 7, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1), options,
                                      seed++, 2);
    ExpectConvolutionMatchesReference(Shape(3, 16, 16, 24, 24, 3, 3, 2, 1, 1, 1, 1, 1), options,
                                      seed++, 2);
  }
  ExpectConvolutionMatchesReference(Shape(2, 9, 13, 48, 48, 3, 3, 1, 2, 2, 3, 1, 0), {}, seed++, 3);
  ExpectConvolutionMatchesReference(Shape(1, 3, 2, 32, 32, 3, 3, 1, 1, 2, 2, 2, 2), {}, seed++, 2);
  // RGB 7x7 stems with rows wide enough for AVX-512's 14-pixel blocks (K = 147): 22 output
  // columns (19 interior: 14 + 5), 37 (34: 14 + 14 + 6) and 39 at stride 1 with dilation 2 (33:
  // 14 + 14 + 5), every epilogue, N edges (40 = 32 + 8, 36 = 32 + 4) and 64 channels.
  for (const Options& options : EveryEpilogueCase()) {
    ExpectConvolutionMatchesReference(Shape(1, 5, 44, 3, 40, 7, 7, 2, 1, 3, 3, 3, 3), options,
                                      seed++);
  }
  ExpectConvolutionMatchesReference(Shape(2, 6, 74, 3, 64, 7, 7, 2, 1, 3, 3, 3, 3), {}, seed++);
  ExpectConvolutionMatchesReference(Shape(1, 10, 45, 3, 36, 7, 7, 1, 2, 3, 3, 3, 3), {}, seed++);
  for (size_t threads : {2, 3}) {
    Options options = ThreadsWithRelu(threads, Options::kInPlace);
    ExpectConvolutionMatchesReference(Shape(2, 14, 14, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1), options,
                                      seed++, 4);
    ExpectConvolutionMatchesReference(Shape(2, 9, 17, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1), options,
                                      seed++, 4);
    ExpectConvolutionMatchesReference(Shape(1, 20, 18, 3, 64, 7, 7, 2, 1, 3, 3, 3, 3), options,
                                      seed++);
    ExpectConvolutionMatchesReference(Shape(1, 9, 60, 3, 64, 7, 7, 2, 1, 3, 3, 3, 3), options,
                                      seed++);
  }
}

// An NCHW input (a network's image, read without a layout permute before the stem): the direct
// kernel's stems (RGB 7x7 stride 2 and 3x3 stride 2, one channel with dilation, four channels,
// several panels and a partial one, every epilogue, threads), narrow groups (each group's planes
// from its first channel's), and the im2col for what the direct kernel does not take (8 input
// channels, K > kc, a 1x1 convolution, which is then no plain GEMM on the input), images in a
// batch one C x H x W block apart.
TEST_P(ConvolutionTest, MatchesReferenceForChannelsFirstInput) {
  struct Case {
    Convolution2dShape shape;
    size_t groups;
  };
  const auto expect = [](const Case& c, const Options& options, uint32_t seed) {
    ExpectConvolutionMatchesReference(c.shape, options, seed, c.groups, true);
  };
  uint32_t seed = 800;
  // The stems: RGB 7x7 (one with rows for 14-pixel blocks) and 3x3 stride 2, one channel with
  // dilation, four channels.
  for (const Case& c : {Case{Shape(1, 23, 21, 3, 40, 7, 7, 2, 1, 3, 3, 3, 3), 1},
                        Case{Shape(1, 5, 74, 3, 40, 7, 7, 2, 1, 3, 3, 3, 3), 1},
                        Case{Shape(2, 15, 16, 3, 24, 3, 3, 2, 1, 1, 1, 1, 1), 1},
                        Case{Shape(1, 12, 13, 1, 17, 3, 3, 1, 2, 2, 2, 2, 2), 1},
                        Case{Shape(1, 17, 19, 4, 32, 3, 3, 1, 1, 1, 1, 1, 1), 1}}) {
    expect(c, {}, seed++);
  }
  for (const Options& options : EveryEpilogueCase()) {
    expect({Shape(1, 9, 19, 3, 36, 7, 7, 2, 1, 3, 3, 3, 3), 1}, options, seed++);
  }
  // Narrow groups, then the im2col: 8 input channels, K > kc, a 1x1 convolution.
  for (const Case& c : {Case{Shape(1, 11, 29, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1), 2},
                        Case{Shape(2, 9, 10, 8, 24, 3, 3, 2, 1, 1, 1, 1, 1), 1},
                        Case{Shape(1, 12, 11, 4, 20, 9, 9, 1, 1, 4, 4, 4, 4), 1},
                        Case{Shape(2, 6, 7, 5, 12, 1, 1, 1, 1, 0, 0, 0, 0), 1}}) {
    expect(c, {}, seed++);
  }
  for (size_t threads : {2, 3}) {
    expect({Shape(1, 20, 18, 3, 64, 7, 7, 2, 1, 3, 3, 3, 3), 1},
           ThreadsWithRelu(threads, Options::kInPlace), seed++);
  }
}

// Each group's filter is packed as Convolution2d packs an ungrouped one of the group's size, at
// a multiple of 64 bytes, in panels of half the target's nr on x86 (groups of 7 channels fit in
// one vector of AVX2 and AVX-512, and of 4 of SSE4 do not); views refuse group counts, shapes,
// sizes and panel widths that do not match.
TEST_P(ConvolutionTest, PacksAndViewsGroupedWeights) {
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  const size_t groups = 3;
  const Convolution2dShape s = Shape(1, 5, 5, 3 * 5, 3 * 7, 3, 3, 1, 1, 1, 1, 1, 1);
  const Convolution2dShape group = Shape(1, 5, 5, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1);
  std::mt19937 rng(9);
  const std::vector<float> weights = Random(21 * 5 * 9, &rng);
  const GemmConfig packing = GroupPacking(config, s, groups);
  const bool narrow =
      config.target == KernelTarget::kX86Avx2 || config.target == KernelTarget::kX86Avx512;
  EXPECT_EQ(packing.nr, narrow ? config.nr / 2 : config.nr);
  EXPECT_EQ(GroupPacking(config, group, 1).nr, config.nr);
  const size_t one = ConvolutionPackedWeightsBytes(packing, group);
  const size_t stride = (one + 63) / 64 * 64;
  ASSERT_EQ(GroupedConvolutionPackedWeightsBytes(config, s, groups), groups * stride);
  std::vector<char> packed(groups * stride);
  ASSERT_EQ(PackGroupedConvolutionWeights(config, s, groups, weights.data(), packed.data(),
                                          packed.size()),
            Error::kOk);
  for (size_t g = 0; g < groups; ++g) {
    std::vector<char> expected(one);
    ASSERT_EQ(PackConvolutionWeights(packing, group, weights.data() + g * 7 * 5 * 9,
                                     expected.data(), expected.size()),
              Error::kOk);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), packed.begin() + g * stride)) << g;
  }
  std::vector<PackedB> views(groups);
  ASSERT_EQ(ViewPackedGroupedWeights(packed.data(), packed.size(), s, groups, views.data()),
            Error::kOk);
  EXPECT_EQ(views[2].data, reinterpret_cast<const float*>(packed.data() + 2 * stride + 64));
  EXPECT_EQ(views[2].config.nr, packing.nr);
  if (narrow) {
    // Groups of 7 + nr / 2 channels do not fit the narrow width: panels of it are refused.
    const Convolution2dShape wide =
        Shape(1, 5, 5, 3 * 5, 3 * (7 + config.nr / 2), 3, 3, 1, 1, 1, 1, 1, 1);
    Convolution2dShape wide_group = group;
    wide_group.output_channels = 7 + config.nr / 2;
    const size_t wide_one = ConvolutionPackedWeightsBytes(packing, wide_group);
    const size_t wide_stride = (wide_one + 63) / 64 * 64;
    const std::vector<float> wide_weights = Random(3 * wide_group.output_channels * 5 * 9, &rng);
    std::vector<char> wide_packed(groups * wide_stride);
    for (size_t g = 0; g < groups; ++g) {
      ASSERT_EQ(PackConvolutionWeights(packing, wide_group,
                                       wide_weights.data() + g * wide_group.output_channels * 45,
                                       wide_packed.data() + g * wide_stride, wide_stride),
                Error::kOk);
    }
    EXPECT_EQ(ViewPackedGroupedWeights(wide_packed.data(), wide_packed.size(), wide, groups,
                                       views.data()),
              Error::kInvalidProgram);
  }
  EXPECT_EQ(ViewPackedGroupedWeights(packed.data(), packed.size() - 1, s, groups, views.data()),
            Error::kProgramOutOfBounds);
  EXPECT_EQ(ViewPackedGroupedWeights(packed.data(), packed.size(), s, 1, views.data()),
            Error::kProgramOutOfBounds);  // K and N of one group of 15 -> 21
  EXPECT_EQ(ViewPackedGroupedWeights(packed.data(), packed.size(), s, 2, views.data()),
            Error::kInvalidArgument);  // 2 divides neither 15 nor 21
  EXPECT_EQ(ViewPackedGroupedWeights(packed.data(), packed.size(), s, 0, views.data()),
            Error::kInvalidArgument);
  std::vector<char> corrupt = packed;
  corrupt[stride] ^= 1;  // group 1's magic
  EXPECT_EQ(ViewPackedGroupedWeights(corrupt.data(), corrupt.size(), s, groups, views.data()),
            Error::kInvalidProgram);
  EXPECT_EQ(GroupedConvolutionPackedWeightsBytes(config, s, 2), 0u);
  EXPECT_EQ(PackGroupedConvolutionWeights(config, s, groups, weights.data(), packed.data(),
                                          packed.size() - 1),
            Error::kOutOfMemory);
  // The kernel refuses views of another group's size.
  std::vector<float> input(5 * 5 * 15), output(5 * 5 * 21);
  std::vector<char> scratch(ConvolutionScratchBytes(config, s, 1));
  ASSERT_EQ(ViewPackedGroupedWeights(packed.data(), packed.size(), s, groups, views.data()),
            Error::kOk);
  EXPECT_EQ(GroupedConvolution2d(s, 1, input.data(), views.data(), nullptr, output.data(), {},
                                 scratch.data(), scratch.size()),
            Error::kInvalidArgument);
  EXPECT_EQ(GroupedConvolution2d(s, groups, input.data(), views.data(), nullptr, output.data(), {},
                                 scratch.data(), scratch.size()),
            Error::kOk);
}

TEST_P(ConvolutionTest, PacksTheFilterAsTheGemmsB) {
  // PackConvolutionWeights must write what PackB writes for the im2col matrix B, with row
  // (ky * kw + kx) * Cin + ci and column co.
  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  const Convolution2dShape s = Shape(1, 5, 5, 37, 35, 3, 2, 1, 1, 0, 0, 0, 0);
  std::mt19937 rng(7);
  const std::vector<float> weights = Random(35 * 37 * 3 * 2, &rng);
  const size_t k = 3 * 2 * 37, n = 35;
  std::vector<float> b(k * n);
  for (size_t co = 0; co < n; ++co) {
    for (size_t ci = 0; ci < 37; ++ci) {
      for (size_t ky = 0; ky < 3; ++ky) {
        for (size_t kx = 0; kx < 2; ++kx) {
          b[((ky * 2 + kx) * 37 + ci) * n + co] = weights[((co * 37 + ci) * 3 + ky) * 2 + kx];
        }
      }
    }
  }
  std::vector<char> expected(PackedBBytes(config, k, n));
  ASSERT_EQ(PackB(config, k, n, b.data(), n, expected.data(), expected.size()), Error::kOk);
  ASSERT_EQ(ConvolutionPackedWeightsBytes(config, s), expected.size());
  std::vector<char> packed(expected.size());
  ASSERT_EQ(PackConvolutionWeights(config, s, weights.data(), packed.data(), packed.size()),
            Error::kOk);
  EXPECT_EQ(packed, expected);
  EXPECT_EQ(PackConvolutionWeights(config, s, weights.data(), packed.data(), packed.size() - 1),
            Error::kOutOfMemory);
}

TEST_P(ConvolutionTest, ComputesTheOutputSize) {
  EXPECT_EQ(Shape(1, 224, 224, 3, 64, 7, 7, 2, 1, 3, 3, 3, 3).output_height(), 112u);
  EXPECT_EQ(Shape(1, 56, 56, 64, 128, 3, 3, 2, 1, 1, 1, 1, 1).output_width(), 28u);
  EXPECT_EQ(Shape(1, 10, 11, 1, 1, 3, 3, 1, 2, 0, 0, 0, 0).output_height(), 6u);
  EXPECT_EQ(Shape(1, 10, 11, 1, 1, 3, 3, 3, 1, 0, 0, 0, 0).output_width(), 3u);
  EXPECT_EQ(Shape(1, 10, 11, 1, 1, 3, 3, 3, 1, 0, 2, 0, 0).output_width(), 4u);
}

TEST_P(ConvolutionTest, RefusesBadShapesAndArguments) {
  const Convolution2dShape good = Shape(1, 6, 6, 4, 5, 3, 3, 1, 1, 1, 1, 1, 1);
  EXPECT_EQ(CheckConvolution2dShape(good), Error::kOk);
  for (size_t field = 0; field < 11; ++field) {
    Convolution2dShape bad = good;
    size_t* sizes[] = {&bad.batch,           &bad.input_height,    &bad.input_width,
                       &bad.input_channels,  &bad.output_channels, &bad.kernel_height,
                       &bad.kernel_width,    &bad.stride_height,   &bad.stride_width,
                       &bad.dilation_height, &bad.dilation_width};
    *sizes[field] = 0;
    EXPECT_EQ(CheckConvolution2dShape(bad), Error::kInvalidArgument) << field;
  }
  const size_t huge = std::numeric_limits<size_t>::max();
  Convolution2dShape bad = good;
  bad.kernel_height = 9;  // 9 > 6 + 1 + 1: no output row
  EXPECT_EQ(CheckConvolution2dShape(bad), Error::kInvalidArgument);
  bad = good;
  bad.dilation_width = 4;  // extent 9 > 8
  EXPECT_EQ(CheckConvolution2dShape(bad), Error::kInvalidArgument);
  bad = good;
  bad.dilation_height = huge / 2 + 1;  // the extent overflows
  EXPECT_EQ(CheckConvolution2dShape(bad), Error::kInvalidArgument);
  bad = good;
  bad.padding_bottom = huge - 3;  // the padded height overflows
  EXPECT_EQ(CheckConvolution2dShape(bad), Error::kInvalidArgument);
  bad = good;
  bad.input_channels = huge / 8;  // the input's bytes overflow
  EXPECT_EQ(CheckConvolution2dShape(bad), Error::kInvalidArgument);
  bad = good;
  bad.batch = huge / 16;
  bad.output_channels = huge / 16;
  EXPECT_EQ(CheckConvolution2dShape(bad), Error::kInvalidArgument);

  GemmConfig config;
  ASSERT_TRUE(GetGemmConfig(CurrentKernelTarget(), &config));
  EXPECT_EQ(ConvolutionPackedWeightsBytes(config, bad), 0u);
  std::vector<float> weights(5 * 4 * 9, 1.0f), input(6 * 6 * 4, 1.0f), output(6 * 6 * 5, 0.0f);
  std::vector<char> packed(ConvolutionPackedWeightsBytes(config, good));
  EXPECT_EQ(PackConvolutionWeights(config, bad, weights.data(), packed.data(), packed.size()),
            Error::kInvalidArgument);
  ASSERT_EQ(PackConvolutionWeights(config, good, weights.data(), packed.data(), packed.size()),
            Error::kOk);
  PackedB view;
  ASSERT_EQ(ViewPackedB(packed.data(), packed.size(), &view), Error::kOk);
  std::vector<char> scratch(ConvolutionScratchBytes(config, good, 1));
  auto run = [&](const Convolution2dShape& s, const float* in, float* out, size_t scratch_bytes,
                 const Epilogue& epilogue = {}) {
    return Convolution2d(s, in, view, nullptr, out, epilogue, scratch.data(), scratch_bytes);
  };
  Convolution2dShape other_cin = good;
  other_cin.input_channels = 3;
  EXPECT_EQ(run(other_cin, input.data(), output.data(), scratch.size()), Error::kInvalidArgument);
  Convolution2dShape other_cout = good;
  other_cout.output_channels = 6;
  EXPECT_EQ(run(other_cout, input.data(), output.data(), scratch.size()), Error::kInvalidArgument);
  EXPECT_EQ(run(bad, input.data(), output.data(), scratch.size()), Error::kInvalidArgument);
  EXPECT_EQ(run(good, nullptr, output.data(), scratch.size()), Error::kInvalidArgument);
  EXPECT_EQ(run(good, input.data(), nullptr, scratch.size()), Error::kInvalidArgument);
  EXPECT_EQ(run(good, input.data(), output.data(), scratch.size() - 1), Error::kOutOfMemory);
  Epilogue short_stride;
  short_stride.residual = input.data();
  short_stride.residual_stride = 4;
  EXPECT_EQ(run(good, input.data(), output.data(), scratch.size(), short_stride),
            Error::kInvalidArgument);
  EXPECT_EQ(std::count(output.begin(), output.end(), 0.0f), static_cast<long>(output.size()));
  // All ones, 1-pixel zero padding: 4 channels x (taps inside the image).
  ASSERT_EQ(run(good, input.data(), output.data(), scratch.size()), Error::kOk);
  EXPECT_EQ(output[0], 4.0f * 4);                // a corner sees 2 x 2 taps
  EXPECT_EQ(output[(1 * 6 + 1) * 5], 4.0f * 9);  // an inner pixel sees all 9

  // Weights packed for another layout than this CPU's.
  GemmConfig other;
  ASSERT_TRUE(GetGemmConfig(
      config.target == KernelTarget::kX86Avx2 ? KernelTarget::kX86Avx512 : KernelTarget::kX86Avx2,
      &other));
  std::vector<char> other_packed(ConvolutionPackedWeightsBytes(other, good));
  ASSERT_EQ(
      PackConvolutionWeights(other, good, weights.data(), other_packed.data(), other_packed.size()),
      Error::kOk);
  ASSERT_EQ(ViewPackedB(other_packed.data(), other_packed.size(), &view), Error::kOk);
  EXPECT_EQ(run(good, input.data(), output.data(), scratch.size()), Error::kNotSupported);
}

TORCHIR_INSTANTIATE_PER_TARGET(ConvolutionTest);

}  // namespace
}  // namespace torchir::native
