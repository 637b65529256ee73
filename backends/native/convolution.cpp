#include "backends/native/convolution.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/native/gemm_call.h"

namespace torchir::native {
namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();

// *product = a * b; false when it overflows.
bool Multiply(size_t a, size_t b, size_t* product) {
  if (a != 0 && b > kMaxSize / a) return false;
  *product = a * b;
  return true;
}

// Element counts of the convolution's tensors, valid after CheckConvolution2dShape.
size_t OutputPixels(const Convolution2dShape& s) {
  return s.batch * s.output_height() * s.output_width();
}
size_t GemmK(const Convolution2dShape& s) {
  return s.kernel_height * s.kernel_width * s.input_channels;
}

// The virtual im2col matrix A of a convolution, one block at a time (ABlockSource).
struct Im2col {
  const Convolution2dShape* shape;
  const float* input;
  size_t output_height, output_width;
};

// Copies a run of `count` floats; runs are a few channels long (3 for an RGB stem) to a few
// hundred, and a call to memcpy costs more than a short loop.
inline void CopyRun(float* dst, const float* src, size_t count) {
  if (count >= 16) {
    std::memcpy(dst, src, count * sizeof(float));
  } else {
    for (size_t i = 0; i < count; ++i) dst[i] = src[i];
  }
}

// ABlockSource::copy for an Im2col: row p of A is output pixel p (batch-major, then row, then
// column); its columns are the kernel taps in (ky, kx) order, each a run of input_channels floats
// from the input pixel the tap reads, or zeros in the padding.
void CopyIm2colBlock(const void* context, size_t m0, size_t rows, size_t k0, size_t kc,
                     float* panels, size_t row_stride) {
  const Im2col& im2col = *static_cast<const Im2col*>(context);
  const Convolution2dShape& s = *im2col.shape;
  const size_t cin = s.input_channels, kw = s.kernel_width;
  const ptrdiff_t height = static_cast<ptrdiff_t>(s.input_height);
  const ptrdiff_t width = static_cast<ptrdiff_t>(s.input_width);
  const size_t image_floats = s.input_height * s.input_width * cin;
  const size_t tap0 = k0 / cin, channel0 = k0 % cin;
  // The first row's pixel, then stepped along with the rows (no division per row).
  size_t ox = m0 % im2col.output_width;
  size_t oy = (m0 / im2col.output_width) % im2col.output_height;
  size_t image = m0 / im2col.output_width / im2col.output_height;
  for (size_t r = 0; r < rows; ++r) {
    float* dst = panels + r * row_stride;
    const float* pixels = im2col.input + image * image_floats;
    const ptrdiff_t iy0 =
        static_cast<ptrdiff_t>(oy * s.stride_height) - static_cast<ptrdiff_t>(s.padding_top);
    const ptrdiff_t ix0 =
        static_cast<ptrdiff_t>(ox * s.stride_width) - static_cast<ptrdiff_t>(s.padding_left);
    size_t ky = tap0 / kw, kx = tap0 % kw, channel = channel0;
    for (size_t done = 0; done < kc;) {
      const ptrdiff_t iy = iy0 + static_cast<ptrdiff_t>(ky * s.dilation_height);
      const ptrdiff_t ix = ix0 + static_cast<ptrdiff_t>(kx * s.dilation_width);
      // Floats of this row of taps that lie next to each other in the input (or all in the
      // padding): one tap's channels, or, without dilation along x, every tap up to the image's
      // edge or the kernel's (a 7x7 stem with 3 channels copies runs of 21 floats, not 3).
      size_t run = cin - channel;
      size_t run_taps = 1;
      const bool inside = iy >= 0 && iy < height && ix >= 0 && ix < width;
      if (inside && s.dilation_width == 1) {
        const size_t columns_left = static_cast<size_t>(width - ix);
        run_taps = kw - kx < columns_left ? kw - kx : columns_left;
        run += (run_taps - 1) * cin;
      }
      const size_t count = run < kc - done ? run : kc - done;
      if (inside) {
        CopyRun(dst + done, pixels + (static_cast<size_t>(iy) * s.input_width + ix) * cin + channel,
                count);
      } else {
        std::memset(dst + done, 0, count * sizeof(float));
      }
      done += count;
      // Step to the tap and channel after the run: the next tap unless the block ended inside
      // the run (then the loop ends too).
      if (count == run) {
        kx += run_taps;
        channel = 0;
      } else {
        const size_t position = kx * cin + channel + count;
        kx = position / cin;
        channel = position % cin;
      }
      if (kx == kw) {
        kx = 0;
        ++ky;
      }
    }
    if (++ox == im2col.output_width) {
      ox = 0;
      if (++oy == im2col.output_height) {
        oy = 0;
        ++image;
      }
    }
  }
}

}  // namespace

size_t Convolution2dShape::output_height() const {
  const size_t extent = dilation_height * (kernel_height - 1) + 1;
  const size_t padded = input_height + padding_top + padding_bottom;
  if (stride_height == 0 || kernel_height == 0 || padded < extent) return 0;
  return (padded - extent) / stride_height + 1;
}

size_t Convolution2dShape::output_width() const {
  const size_t extent = dilation_width * (kernel_width - 1) + 1;
  const size_t padded = input_width + padding_left + padding_right;
  if (stride_width == 0 || kernel_width == 0 || padded < extent) return 0;
  return (padded - extent) / stride_width + 1;
}

runtime::Error CheckConvolution2dShape(const Convolution2dShape& s) {
  const size_t sizes[] = {s.batch,           s.input_height,    s.input_width,   s.input_channels,
                          s.output_channels, s.kernel_height,   s.kernel_width,  s.stride_height,
                          s.stride_width,    s.dilation_height, s.dilation_width};
  for (size_t size : sizes) {
    if (size == 0) return runtime::Error::kInvalidArgument;
  }
  // The dilated kernel's extent and the padded input, before output_height/width use them.
  size_t extent_h, extent_w;
  if (!Multiply(s.dilation_height, s.kernel_height - 1, &extent_h) ||
      !Multiply(s.dilation_width, s.kernel_width - 1, &extent_w) ||
      s.padding_top > kMaxSize - s.input_height ||
      s.padding_bottom > kMaxSize - s.input_height - s.padding_top ||
      s.padding_left > kMaxSize - s.input_width ||
      s.padding_right > kMaxSize - s.input_width - s.padding_left || extent_h == kMaxSize ||
      extent_w == kMaxSize) {
    return runtime::Error::kInvalidArgument;
  }
  const size_t oh = s.output_height(), ow = s.output_width();
  if (oh == 0 || ow == 0) return runtime::Error::kInvalidArgument;
  // Every element count (in bytes, so byte offsets fit too), and the signed input coordinates the
  // im2col computes.
  size_t count;
  const size_t limit = static_cast<size_t>(std::numeric_limits<ptrdiff_t>::max());
  if (!Multiply(s.batch, s.input_height, &count) || !Multiply(count, s.input_width, &count) ||
      !Multiply(count, s.input_channels, &count) || !Multiply(count, sizeof(float), &count) ||
      count > limit || !Multiply(s.batch, oh, &count) || !Multiply(count, ow, &count) ||
      !Multiply(count, s.output_channels, &count) || !Multiply(count, sizeof(float), &count) ||
      !Multiply(s.kernel_height, s.kernel_width, &count) ||
      !Multiply(count, s.input_channels, &count) || !Multiply(count, s.output_channels, &count) ||
      !Multiply(count, sizeof(float), &count) ||
      s.input_height + s.padding_top + s.padding_bottom > limit ||
      s.input_width + s.padding_left + s.padding_right > limit ||
      !Multiply(oh, s.stride_height, &count) || !Multiply(ow, s.stride_width, &count)) {
    return runtime::Error::kInvalidArgument;
  }
  return runtime::Error::kOk;
}

size_t ConvolutionPackedWeightsBytes(const GemmConfig& config, const Convolution2dShape& shape) {
  if (CheckConvolution2dShape(shape) != runtime::Error::kOk || config.nr == 0) return 0;
  // PackedBBytes pads N to nr; check that product here rather than trust its overflow answer.
  size_t floats;
  if (shape.output_channels > kMaxSize - config.nr ||
      !Multiply(GemmK(shape), shape.output_channels + config.nr, &floats) ||
      !Multiply(floats, sizeof(float), &floats) || floats > kMaxSize / 4 - kPackedBHeaderBytes) {
    return 0;
  }
  return PackedBBytes(config, GemmK(shape), shape.output_channels);
}

runtime::Error PackConvolutionWeights(const GemmConfig& config, const Convolution2dShape& shape,
                                      const float* oihw_weights, void* out, size_t out_bytes) {
  const size_t bytes = ConvolutionPackedWeightsBytes(config, shape);
  if (bytes == 0 || oihw_weights == nullptr || out == nullptr || config.kc == 0) {
    return runtime::Error::kInvalidArgument;
  }
  if (out_bytes < bytes) return runtime::Error::kOutOfMemory;
  const size_t k = GemmK(shape), n = shape.output_channels, nr = config.nr;
  const size_t n_padded = (n + nr - 1) / nr * nr;
  PackedBHeader header{};
  header.magic = kPackedBMagic;
  header.version = kPackedBVersion;
  header.target = static_cast<uint32_t>(config.target);
  header.nr = static_cast<uint32_t>(nr);
  header.kc = static_cast<uint32_t>(config.kc);
  header.k = k;
  header.n = n;
  header.data_floats = k * n_padded;
  std::memcpy(out, &header, sizeof(header));
  // The PackedB layout (packed_weights.h) of B(row, co) = W[co][ci][ky][kx], with
  // row = (ky * kw + kx) * cin + ci; a test checks it equals PackB of that B.
  const size_t cin = shape.input_channels, taps = shape.kernel_height * shape.kernel_width;
  float* dst = reinterpret_cast<float*>(static_cast<char*>(out) + kPackedBHeaderBytes);
  for (size_t k0 = 0; k0 < k; k0 += config.kc) {
    const size_t kc = k - k0 < config.kc ? k - k0 : config.kc;
    for (size_t n0 = 0; n0 < n; n0 += nr) {
      const size_t cols = n - n0 < nr ? n - n0 : nr;
      for (size_t row = k0; row < k0 + kc; ++row) {
        const size_t tap = row / cin, ci = row % cin;
        for (size_t j = 0; j < cols; ++j) dst[j] = oihw_weights[((n0 + j) * cin + ci) * taps + tap];
        for (size_t j = cols; j < nr; ++j) dst[j] = 0.0f;
        dst += nr;
      }
    }
  }
  return runtime::Error::kOk;
}

size_t ConvolutionScratchBytes(const GemmConfig& config, const Convolution2dShape& shape,
                               size_t threads) {
  if (CheckConvolution2dShape(shape) != runtime::Error::kOk) return 0;
  return GemmScratchBytes(config, OutputPixels(shape), threads);
}

runtime::Error Convolution2d(const Convolution2dShape& shape, const float* input,
                             const PackedB& weights, const float* bias, float* output,
                             const Epilogue& epilogue, void* scratch, size_t scratch_bytes,
                             pthreadpool_t threadpool) {
  if (CheckConvolution2dShape(shape) != runtime::Error::kOk || input == nullptr ||
      output == nullptr || weights.k != GemmK(shape) || weights.n != shape.output_channels) {
    return runtime::Error::kInvalidArgument;
  }
  const Im2col im2col{&shape, input, shape.output_height(), shape.output_width()};
  const ABlockSource source{&CopyIm2colBlock, &im2col};
  GemmCall call{};
  call.m = OutputPixels(shape);
  call.b = &weights;
  call.bias = bias;
  call.c = output;
  call.ldc = shape.output_channels;
  call.epilogue = epilogue;
  call.scratch = static_cast<float*>(scratch);
  const bool pointwise = shape.kernel_height == 1 && shape.kernel_width == 1 &&
                         shape.stride_height == 1 && shape.stride_width == 1 &&
                         shape.padding_top == 0 && shape.padding_left == 0 &&
                         shape.padding_bottom == 0 && shape.padding_right == 0;
  if (pointwise) {
    // Output pixel p reads input pixel p: A is the input itself.
    call.a = input;
    call.lda = shape.input_channels;
  } else {
    call.a_source = &source;
  }
  return RunGemm(call, scratch_bytes, threadpool);
}

}  // namespace torchir::native
