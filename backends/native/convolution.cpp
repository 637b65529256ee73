#include "backends/native/convolution.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>

#include "backends/native/convolution_rows.h"
#include "backends/native/direct_convolution.h"
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

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The shape of one of `groups` groups of `shape` (whose channel counts it must divide), checked.
bool GroupShape(const Convolution2dShape& shape, size_t groups, Convolution2dShape* group) {
  if (groups == 0 || CheckConvolution2dShape(shape) != runtime::Error::kOk ||
      shape.input_channels % groups != 0 || shape.output_channels % groups != 0) {
    return false;
  }
  *group = shape;
  group->input_channels /= groups;
  group->output_channels /= groups;
  return true;
}

// The virtual im2col matrix A of a convolution, one block at a time (ABlockSource). For a group
// of a grouped convolution, `shape` is the group's (its input_channels floats per tap) and
// `input` points at the group's first channel of pixel 0, pixels `pixel_stride` floats apart,
// channels `channel_stride` (1 but for an NCHW input), images `image_stride`.
struct Im2col {
  const Convolution2dShape* shape;
  const float* input;
  size_t output_height, output_width;
  size_t pixel_stride;
  size_t channel_stride;
  size_t image_stride;
  size_t segment_length;  // read by pointer (Im2colRowPointers): the runs' length
};

// The segment length of a group of `shape` read by pointer with K blocks of `kc`: the longest
// run that divides both a tap's channels and kc, so no segment crosses a tap or a K block.
size_t SegmentLength(const Convolution2dShape& group, size_t kc) {
  return std::gcd(group.input_channels, kc);
}

// Copies a run of `count` floats; runs are a few channels long (3 for an RGB stem, 16 for a
// RegNet group) to a few hundred, and a call to memcpy costs more than a short copy: below 64
// floats, chunks of 8 with a constant size (inlined as plain moves), then a loop.
inline void CopyRun(float* dst, const float* src, size_t count) {
  if (count >= 64) {
    std::memcpy(dst, src, count * sizeof(float));
    return;
  }
  size_t i = 0;
  for (; i + 8 <= count; i += 8) std::memcpy(dst + i, src + i, 8 * sizeof(float));
  for (; i < count; ++i) dst[i] = src[i];
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
  const size_t stride = im2col.pixel_stride;
  const size_t channel_stride = im2col.channel_stride;
  const size_t tap0 = k0 / cin, channel0 = k0 % cin;
  // The first row's pixel, then stepped along with the rows (no division per row).
  size_t ox = m0 % im2col.output_width;
  size_t oy = (m0 / im2col.output_width) % im2col.output_height;
  size_t image = m0 / im2col.output_width / im2col.output_height;
  for (size_t r = 0; r < rows; ++r) {
    float* dst = panels + r * row_stride;
    const float* pixels = im2col.input + image * im2col.image_stride;
    const ptrdiff_t iy0 =
        static_cast<ptrdiff_t>(oy * s.stride_height) - static_cast<ptrdiff_t>(s.padding_top);
    const ptrdiff_t ix0 =
        static_cast<ptrdiff_t>(ox * s.stride_width) - static_cast<ptrdiff_t>(s.padding_left);
    size_t ky = tap0 / kw, kx = tap0 % kw, channel = channel0;
    for (size_t done = 0; done < kc;) {
      const ptrdiff_t iy = iy0 + static_cast<ptrdiff_t>(ky * s.dilation_height);
      const ptrdiff_t ix = ix0 + static_cast<ptrdiff_t>(kx * s.dilation_width);
      // Floats of this row of taps that lie next to each other in the input (or all in the
      // padding): one tap's channels, or, without dilation along x and when pixels hold just
      // these channels (not a group of them), every tap up to the image's edge or the kernel's
      // (a 7x7 stem with 3 channels copies runs of 21 floats, not 3).
      size_t run = cin - channel;
      size_t run_taps = 1;
      const bool inside = iy >= 0 && iy < height && ix >= 0 && ix < width;
      if (inside && s.dilation_width == 1 && stride == cin) {
        const size_t columns_left = static_cast<size_t>(width - ix);
        run_taps = kw - kx < columns_left ? kw - kx : columns_left;
        run += (run_taps - 1) * cin;
      }
      const size_t count = run < kc - done ? run : kc - done;
      if (inside && channel_stride != 1 && cin > 1) {
        // NCHW: the tap's channels one plane apart (one channel: a run of columns in its plane).
        const float* first = pixels + (static_cast<size_t>(iy) * s.input_width + ix) * stride +
                             channel * channel_stride;
        for (size_t i = 0; i < count; ++i) dst[done + i] = first[i * channel_stride];
      } else if (inside) {
        CopyRun(dst + done,
                pixels + (static_cast<size_t>(iy) * s.input_width + ix) * stride + channel, count);
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

// IndirectRowsSource::rows for an Im2col (NHWC, channel_stride 1): row p's segment s of the K
// block [k0, k0 + kc) is the run of segment_length input channels from channel c of the input
// pixel tap t reads, where (t, c) = divmod(k0 + s * segment_length, input_channels), or
// kIndirectZeros in the padding. The same rows as CopyIm2colBlock, by pointer; with `copy`, the
// runs copied there first (the padding not written) and the pointers to the copies.
void Im2colRowPointers(const void* context, size_t m0, size_t rows, size_t k0, size_t kc,
                       const float** table, size_t table_stride, float* copy, size_t copy_stride) {
  const Im2col& im2col = *static_cast<const Im2col*>(context);
  const Convolution2dShape& s = *im2col.shape;
  const size_t cin = s.input_channels, length = im2col.segment_length;
  const size_t segments = kc / length;
  // Each segment's tap offsets and channel, the same for every row.
  constexpr size_t kMaxSegments = kIndirectMaxPassFloats / kIndirectMinSegment;
  ptrdiff_t dy[kMaxSegments], dx[kMaxSegments];
  size_t channel[kMaxSegments];
  for (size_t g = 0; g < segments; ++g) {
    const size_t column = k0 + g * length, tap = column / cin;
    dy[g] = static_cast<ptrdiff_t>(tap / s.kernel_width * s.dilation_height);
    dx[g] = static_cast<ptrdiff_t>(tap % s.kernel_width * s.dilation_width);
    channel[g] = column % cin;
  }
  const ptrdiff_t height = static_cast<ptrdiff_t>(s.input_height);
  const ptrdiff_t width = static_cast<ptrdiff_t>(s.input_width);
  size_t ox = m0 % im2col.output_width;
  size_t oy = (m0 / im2col.output_width) % im2col.output_height;
  size_t image = m0 / im2col.output_width / im2col.output_height;
  for (size_t r = 0; r < rows; ++r) {
    const float* pixels = im2col.input + image * im2col.image_stride;
    const ptrdiff_t iy0 =
        static_cast<ptrdiff_t>(oy * s.stride_height) - static_cast<ptrdiff_t>(s.padding_top);
    const ptrdiff_t ix0 =
        static_cast<ptrdiff_t>(ox * s.stride_width) - static_cast<ptrdiff_t>(s.padding_left);
    for (size_t g = 0; g < segments; ++g) {
      const ptrdiff_t iy = iy0 + dy[g], ix = ix0 + dx[g];
      const bool inside = iy >= 0 && iy < height && ix >= 0 && ix < width;
      const float* run = kIndirectZeros;
      if (inside) {
        run = pixels +
              (static_cast<size_t>(iy) * s.input_width + static_cast<size_t>(ix)) *
                  im2col.pixel_stride +
              channel[g];
        if (copy != nullptr) {
          float* to = copy + r * copy_stride + g * length;
          CopyRun(to, run, length);
          run = to;
        }
      }
      table[g * table_stride + r] = run;
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

// Whether a stride-1 1x1 group `group` (pixels `pixel_channels` floats apart) reads A by pointer
// under kAuto: where the GEMM would copy A (rows other than kc floats apart, N past the widest
// read in place) from runs of at least 64 floats (K >= 128), for at most 40 panels of 32. On Zen
// 4 that took resnet50's 128 -> 512, 512 -> 128 and 512 -> 256 layers to 0.964-0.977 of their
// time and mobilenet_v2's 7 x 7 ones to 0.976-0.987; with 64 panels (512 -> 2048), K = 64 or
// pixels 4 KiB apart the copy stayed faster (docs/native-kernels.md, "1x1 layers by pointer").
bool PointwiseReadsByPointer(const Convolution2dShape& group, const GemmConfig& config,
                             size_t pixel_channels) {
  const size_t k = group.input_channels, n = group.output_channels;
  return pixel_channels != config.kc && k >= 128 && SegmentLength(group, config.kc) >= 64 &&
         n > kInPlaceMaxColumns && n <= 1280;
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
                             pthreadpool_t threadpool, ImplicitGemmA a_mode) {
  return GroupedConvolution2d(shape, 1, input, &weights, bias, output, epilogue, scratch,
                              scratch_bytes, threadpool, a_mode);
}

namespace {

// The bytes of `groups` filters packed with `packing` as it is (its nr already the groups' panel
// width).
size_t GroupedBytesAsPacked(const GemmConfig& packing, const Convolution2dShape& shape,
                            size_t groups) {
  Convolution2dShape group;
  if (!GroupShape(shape, groups, &group)) return 0;
  const size_t one = ConvolutionPackedWeightsBytes(packing, group);
  if (one == 0 || one > kMaxSize - kPackedGroupAlignment) return 0;
  size_t bytes;
  if (!Multiply(RoundUp(one, kPackedGroupAlignment), groups, &bytes)) return 0;
  return bytes;
}

}  // namespace

GemmConfig GroupPacking(const GemmConfig& config, const Convolution2dShape& shape, size_t groups) {
  GemmConfig packing = config;
  if (groups > 1 && groups <= shape.output_channels) {
    packing.nr = GroupPanelWidth(config, shape.output_channels / groups);
  }
  return packing;
}

size_t GroupedConvolutionPackedWeightsBytes(const GemmConfig& config,
                                            const Convolution2dShape& shape, size_t groups) {
  return GroupedBytesAsPacked(GroupPacking(config, shape, groups), shape, groups);
}

runtime::Error PackGroupedConvolutionWeights(const GemmConfig& config,
                                             const Convolution2dShape& shape, size_t groups,
                                             const float* oihw_weights, void* out,
                                             size_t out_bytes) {
  const size_t bytes = GroupedConvolutionPackedWeightsBytes(config, shape, groups);
  Convolution2dShape group;
  if (bytes == 0 || !GroupShape(shape, groups, &group) || oihw_weights == nullptr ||
      out == nullptr) {
    return runtime::Error::kInvalidArgument;
  }
  const GemmConfig packing = GroupPacking(config, shape, groups);
  if (out_bytes < bytes) return runtime::Error::kOutOfMemory;
  const size_t stride = bytes / groups;
  const size_t filter_floats =
      group.output_channels * group.input_channels * group.kernel_height * group.kernel_width;
  std::memset(out, 0, bytes);  // the gaps between groups
  for (size_t g = 0; g < groups; ++g) {
    const runtime::Error error =
        PackConvolutionWeights(packing, group, oihw_weights + g * filter_floats,
                               static_cast<char*>(out) + g * stride, stride);
    if (error != runtime::Error::kOk) return error;
  }
  return runtime::Error::kOk;
}

runtime::Error ViewPackedGroupedWeights(const void* bytes, size_t size,
                                        const Convolution2dShape& shape, size_t groups,
                                        PackedB* views) {
  Convolution2dShape group;
  if (bytes == nullptr || views == nullptr || !GroupShape(shape, groups, &group)) {
    return runtime::Error::kInvalidArgument;
  }
  const size_t k = GemmK(group), n = group.output_channels;
  // The first group's header says the layout, hence where the others start.
  PackedB first;
  const runtime::Error error = ViewPackedB(bytes, size, &first);
  if (error != runtime::Error::kOk) return error;
  if (first.k != k || first.n != n) return runtime::Error::kProgramOutOfBounds;
  GemmConfig target;
  if (!GetGemmConfig(first.config.target, &target) ||
      !IsGroupPanelWidth(target, n, first.config.nr)) {
    return runtime::Error::kInvalidProgram;
  }
  const size_t total = GroupedBytesAsPacked(first.config, shape, groups);
  if (total == 0 || size < total) return runtime::Error::kProgramOutOfBounds;
  const size_t stride = total / groups;
  for (size_t g = 0; g < groups; ++g) {
    PackedB& view = views[g];
    const runtime::Error group_error =
        ViewPackedB(static_cast<const char*>(bytes) + g * stride, stride, &view);
    if (group_error != runtime::Error::kOk) return group_error;
    if (view.k != k || view.n != n || view.config.target != first.config.target ||
        view.config.nr != first.config.nr) {
      return runtime::Error::kProgramOutOfBounds;
    }
  }
  return runtime::Error::kOk;
}

runtime::Error GroupedConvolution2d(const Convolution2dShape& shape, size_t groups,
                                    const float* input, const PackedB* weights, const float* bias,
                                    float* output, const Epilogue& epilogue, void* scratch,
                                    size_t scratch_bytes, pthreadpool_t threadpool,
                                    ImplicitGemmA a_mode) {
  Convolution2dShape group;
  if (!GroupShape(shape, groups, &group) || input == nullptr || output == nullptr ||
      weights == nullptr ||
      (epilogue.residual != nullptr && epilogue.residual_stride < shape.output_channels)) {
    return runtime::Error::kInvalidArgument;
  }
  for (size_t g = 0; g < groups; ++g) {
    if (weights[g].k != GemmK(group) || weights[g].n != group.output_channels) {
      return runtime::Error::kInvalidArgument;
    }
  }
  // 1x1 without padding: A is the input's pixels, every one (stride 1) or every stride-th of
  // every stride-th row.
  const bool pointwise = !shape.input_channels_first && shape.kernel_height == 1 &&
                         shape.kernel_width == 1 && shape.padding_top == 0 &&
                         shape.padding_left == 0 && shape.padding_bottom == 0 &&
                         shape.padding_right == 0;
  const bool strided = shape.stride_height != 1 || shape.stride_width != 1;
  // Scratch as the implicit GEMM needs it whichever path runs, so a caller sizes it one way
  // (ConvolutionScratchBytes) on every CPU.
  GemmConfig current;
  if (!GetGemmConfig(CurrentKernelTarget(), &current)) return runtime::Error::kInternal;
  const size_t threads = threadpool == nullptr ? 1 : pthreadpool_get_threads_count(threadpool);
  if (scratch == nullptr || scratch_bytes < ConvolutionScratchBytes(current, shape, threads)) {
    return runtime::Error::kOutOfMemory;
  }
  // Narrow groups and few input channels run directly: there the im2col copy would cost about
  // as much as the multiply-adds it feeds.
  bool handled = false;
  const runtime::Error direct = DirectConvolution2d(shape, groups, input, weights, bias, output,
                                                    epilogue, threadpool, &handled);
  if (direct != runtime::Error::kOk || handled) return direct;
  // The other k x k layers read their taps by pointer where each tap's channels come in runs of at
  // least kIndirectMinRun floats (resnet's stride-2 3x3 layers: 64-512), else copy them; and not
  // where consecutive output pixels read input pixels a multiple of 4 KiB apart: every row of a
  // tile then maps to the same L1 set (8 ways on Zen 4) and they evict each other (resnet50's
  // stride-2 layer at 14 x 14 with 512 channels: 1.2 times the copy's time).
  // A stride-1 1x1 layer's rows are the input's pixels, which the GEMM reads where they lie
  // when they are kc floats apart or N is narrow, else copies block by block; by pointer instead
  // where that copy feeds a few dozen panels from long runs (PointwiseReadsByPointer).
  // Where they are a multiple of 4 KiB apart, a k x k layer's taps are copied as the im2col
  // copies them but still read by pointer, so the kernels skip the padded ones (resnet50's
  // stride-2 layer at 7 x 7: 41 of its 441 pixel-taps).
  const size_t segment = SegmentLength(group, current.kc);
  const size_t pixel_step_bytes = shape.stride_width * shape.input_channels * sizeof(float);
  const bool pointwise_by_pointer =
      pointwise && !strided && PointwiseReadsByPointer(group, current, shape.input_channels);
  const bool forced = a_mode == ImplicitGemmA::kIndirect || a_mode == ImplicitGemmA::kCopied;
  const bool runs_by_pointer = (!pointwise || pointwise_by_pointer || forced) &&
                               !shape.input_channels_first && a_mode != ImplicitGemmA::kIm2col &&
                               segment >= (forced ? kIndirectMinSegment : kIndirectMinRun) &&
                               current.kc / segment <= kIndirectZeroFloats / kIndirectMinSegment;
  const bool aliases = pixel_step_bytes % kIndirectAliasBytes == 0;
  const bool by_pointer = runs_by_pointer && (a_mode == ImplicitGemmA::kIndirect ||
                                              (a_mode == ImplicitGemmA::kAuto && !aliases));
  const bool copied_by_pointer =
      runs_by_pointer && !by_pointer && (!pointwise || a_mode == ImplicitGemmA::kCopied) &&
      current.mc <= kIndirectCopyMaxRows && current.kc / segment <= kIndirectCopyMaxSegments;
  for (size_t g = 0; g < groups; ++g) {
    const float* group_input = input + g * group.input_channels * InputChannelStride(shape);
    const size_t first_channel = g * group.output_channels;
    const Im2col im2col{&group,
                        group_input,
                        shape.output_height(),
                        shape.output_width(),
                        InputPixelStride(shape),
                        InputChannelStride(shape),
                        shape.input_height * shape.input_width * shape.input_channels,
                        segment};
    const ABlockSource source{&CopyIm2colBlock, &im2col};
    IndirectRowsSource pointers{&Im2colRowPointers, &im2col, segment};
    // The output rows with taps in the top and bottom padding, whole tiles of which skip them.
    const TapRange interior = InteriorRows(shape, im2col.output_height);
    pointers.image_rows = im2col.output_height * im2col.output_width;
    pointers.top_rows = interior.begin * im2col.output_width;
    pointers.bottom_rows = (im2col.output_height - interior.end) * im2col.output_width;
    GemmCall call{};
    call.m = OutputPixels(shape);
    call.b = &weights[g];
    call.bias = bias == nullptr ? nullptr : bias + first_channel;
    call.c = output + first_channel;
    call.ldc = shape.output_channels;
    call.epilogue = epilogue;
    if (epilogue.residual != nullptr) call.epilogue.residual = epilogue.residual + first_channel;
    call.scratch = static_cast<float*>(scratch);
    pointers.copies = copied_by_pointer;
    if (by_pointer || copied_by_pointer) {
      call.a_indirect = &pointers;
    } else if (pointwise) {
      // Output pixel p reads input pixel p (at stride 1): A is the input itself (the group's
      // columns of it). With a stride, the pixels of an output row are stride_width pixels
      // apart, and its rows stride_height input rows: read where they are, not copied.
      call.a = group_input;
      call.lda = shape.input_channels;
      if (strided) {
        call.lda = shape.stride_width * shape.input_channels;
        call.a_rows.per_line = shape.output_width();
        call.a_rows.lines = shape.output_height();
        call.a_rows.line_stride = shape.stride_height * shape.input_width * shape.input_channels;
        call.a_rows.image_stride = shape.input_height * shape.input_width * shape.input_channels;
      }
    } else {
      call.a_source = &source;
    }
    const runtime::Error error = RunGemm(call, scratch_bytes, threadpool);
    if (error != runtime::Error::kOk) return error;
  }
  return runtime::Error::kOk;
}

}  // namespace torchir::native
