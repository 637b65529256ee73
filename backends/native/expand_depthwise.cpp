#include "backends/native/expand_depthwise.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace torchir::native {

namespace {

using runtime::Error;

// The depthwise kernel's extent along the height, dilation included.
size_t KernelExtent(const Convolution2dShape& depthwise) {
  return (depthwise.kernel_height - 1) * depthwise.dilation_height + 1;
}

// The expanded rows output rows [r0, r1) read: [top, bottom] with the padding, of which
// [first, last] exist (CheckExpandDepthwise makes that range non-empty).
struct BandRows {
  ptrdiff_t top, bottom;
  size_t first, last;
};

BandRows RowsOf(const Convolution2dShape& d, size_t r0, size_t r1) {
  BandRows rows;
  rows.top = static_cast<ptrdiff_t>(r0 * d.stride_height) - static_cast<ptrdiff_t>(d.padding_top);
  rows.bottom = static_cast<ptrdiff_t>((r1 - 1) * d.stride_height) -
                static_cast<ptrdiff_t>(d.padding_top) + static_cast<ptrdiff_t>(KernelExtent(d)) - 1;
  rows.first = static_cast<size_t>(std::max<ptrdiff_t>(rows.top, 0));
  rows.last = static_cast<size_t>(
      std::min<ptrdiff_t>(rows.bottom, static_cast<ptrdiff_t>(d.input_height) - 1));
  return rows;
}

size_t RoundUp64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// What every band of a call shares.
struct Geometry {
  size_t output_height;
  size_t band_rows;        // output rows per band
  size_t bands_per_image;  // ceil(output_height / band_rows)
  size_t row_floats;       // one expanded row: width * channels
  size_t buffer_rows;      // the most expanded rows a band keeps
  size_t buffer_bytes;     // buffer_rows rows, rounded up to 64
  size_t gemm_bytes;       // Convolution2d's scratch for buffer_rows rows, or the grouped layer's
  size_t slot_bytes() const { return buffer_bytes + gemm_bytes; }
};

// The bands of a pair that passes CheckExpandDepthwise (false otherwise), gemm_bytes 0, for
// `threads` threads.
bool GeometryOf(const Convolution2dShape& expand, const Convolution2dShape& depthwise,
                size_t groups, size_t threads, Geometry* g) {
  if (CheckExpandDepthwise(expand, depthwise, groups) != Error::kOk) return false;
  g->output_height = depthwise.output_height();
  g->row_floats = depthwise.input_width * depthwise.input_channels;
  const size_t extent = KernelExtent(depthwise);
  const size_t row_bytes = g->row_floats * sizeof(float);
  const size_t fit = kExpandDepthwiseBandBytes / row_bytes;  // rows that fit the budget
  g->band_rows = fit < extent ? 1 : (fit - extent) / depthwise.stride_height + 1;
  g->band_rows = std::min(g->band_rows, g->output_height);
  g->bands_per_image = (g->output_height + g->band_rows - 1) / g->band_rows;
  // Threads take runs of whole bands: a count they do not divide leaves one thread a band more
  // (regnet_x_400mf's first block: 7 bands of 8 rows on 2 threads, 4 against 3). Up to twice as
  // many, smaller bands, the first count whose bands the threads share evenly.
  for (size_t bands = g->bands_per_image;
       threads > 1 && bands <= 2 * g->bands_per_image && bands <= g->output_height; ++bands) {
    const size_t rows = (g->output_height + bands - 1) / bands;
    const size_t count = (g->output_height + rows - 1) / rows;
    if (expand.batch * count % threads == 0) {
      g->band_rows = rows;
      g->bands_per_image = count;
      break;
    }
  }
  g->buffer_rows =
      std::min((g->band_rows - 1) * depthwise.stride_height + extent, depthwise.input_height);
  g->buffer_bytes = RoundUp64(g->buffer_rows * row_bytes);
  g->gemm_bytes = 0;
  return true;
}

// The same with the GEMM's scratch for a band's expansion with `config`'s blocking, or a
// grouped layer's over a band (the larger: they run one after the other), rounded up to 64.
bool GeometryOf(const GemmConfig& config, const Convolution2dShape& expand,
                const Convolution2dShape& depthwise, size_t groups, size_t threads, Geometry* g) {
  if (!GeometryOf(expand, depthwise, groups, threads, g)) return false;
  Convolution2dShape band = expand;
  band.batch = 1;
  band.input_height = g->buffer_rows;
  size_t bytes = ConvolutionScratchBytes(config, band, 1);
  if (groups > 1) {
    // A band's output rows are at most band_rows, and the whole layer's scratch is at least
    // theirs (GemmScratchBytes grows with the rows).
    Convolution2dShape grouped = depthwise;
    grouped.batch = 1;
    bytes = std::max(bytes, ConvolutionScratchBytes(config, grouped, 1));
  }
  g->gemm_bytes = RoundUp64(bytes);
  return true;
}

struct Task {
  const ExpandDepthwiseCall* call;
  Geometry geometry;
  uint8_t* scratch;
  size_t tasks;
  size_t total_bands;
  std::atomic<int> error;
  std::atomic<uint64_t> phase_ns[2];
};

uint64_t Now() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Bands [b0, b1) (over every image) into task `index`'s slot of the scratch.
void RunBands(void* context, size_t index) {
  Task& task = *static_cast<Task*>(context);
  const ExpandDepthwiseCall& call = *task.call;
  const Geometry& g = task.geometry;
  const size_t per_task = (task.total_bands + task.tasks - 1) / task.tasks;
  const size_t b0 = index * per_task;
  const size_t b1 = std::min(task.total_bands, b0 + per_task);
  uint8_t* slot = task.scratch + index * g.slot_bytes();
  float* buffer = reinterpret_cast<float*>(slot);
  void* gemm_scratch = slot + g.buffer_bytes;
  const Convolution2dShape& e = call.expand;
  const Convolution2dShape& d = call.depthwise;
  const size_t output_row_floats = d.output_width() * d.output_channels;
  size_t image = SIZE_MAX;
  size_t buffered = 0;       // rows in the buffer after the band before
  size_t computed_last = 0;  // the last of them, as an expanded row index
  for (size_t b = b0; b < b1; ++b) {
    const size_t n = b / g.bands_per_image;
    const size_t r0 = b % g.bands_per_image * g.band_rows;
    const size_t r1 = std::min(g.output_height, r0 + g.band_rows);
    const BandRows rows = RowsOf(d, r0, r1);
    const size_t count = rows.last - rows.first + 1;
    // Rows the band before expanded (its last kernel - stride) move to the buffer's top.
    const size_t kept =
        n != image || computed_last < rows.first ? 0 : computed_last - rows.first + 1;
    if (kept != 0) {
      std::memmove(buffer, buffer + (buffered - kept) * g.row_floats,
                   kept * g.row_floats * sizeof(float));
    }
    image = n;
    buffered = count;
    computed_last = rows.last;
    Convolution2dShape band_expand = e;
    band_expand.batch = 1;
    band_expand.input_height = count - kept;
    Convolution2dShape band_depthwise = d;
    band_depthwise.batch = 1;
    band_depthwise.input_height = count;
    band_depthwise.padding_top = static_cast<size_t>(static_cast<ptrdiff_t>(rows.first) - rows.top);
    band_depthwise.padding_bottom =
        static_cast<size_t>(rows.bottom - static_cast<ptrdiff_t>(rows.last));
    const float* input =
        call.input + ((n * e.input_height) + rows.first + kept) * e.input_width * e.input_channels;
    float* output = call.output + (n * g.output_height + r0) * output_row_floats;
    const bool timed = call.phase_ns != nullptr;
    const uint64_t start = timed ? Now() : 0;
    // The last band of a stride-1 layer may find every row it reads already expanded.
    Error error = count == kept
                      ? Error::kOk
                      : Convolution2d(band_expand, input, *call.expand_weights, call.expand_bias,
                                      buffer + kept * g.row_floats, call.expand_epilogue,
                                      gemm_scratch, g.gemm_bytes, nullptr);
    const uint64_t expanded = timed ? Now() : 0;
    if (error == Error::kOk) {
      error = call.group_weights != nullptr
                  ? GroupedConvolution2d(band_depthwise, call.groups, buffer, call.group_weights,
                                         call.depthwise_bias, output, call.depthwise_epilogue,
                                         gemm_scratch, g.gemm_bytes, nullptr)
                  : DepthwiseConvolution2d(band_depthwise, buffer, *call.depthwise_weights,
                                           call.depthwise_bias, output, call.depthwise_epilogue,
                                           nullptr);
    }
    if (timed) {
      task.phase_ns[0].fetch_add(expanded - start, std::memory_order_relaxed);
      task.phase_ns[1].fetch_add(Now() - expanded, std::memory_order_relaxed);
    }
    if (error != Error::kOk) {
      int expected = static_cast<int>(Error::kOk);
      task.error.compare_exchange_strong(expected, static_cast<int>(error));
      return;
    }
  }
}

}  // namespace

Error CheckExpandDepthwise(const Convolution2dShape& e, const Convolution2dShape& d,
                           size_t groups) {
  if (CheckConvolution2dShape(e) != Error::kOk || CheckConvolution2dShape(d) != Error::kOk) {
    return Error::kInvalidArgument;
  }
  const bool pointwise = e.kernel_height == 1 && e.kernel_width == 1 && e.stride_height == 1 &&
                         e.stride_width == 1 && e.dilation_height == 1 && e.dilation_width == 1 &&
                         e.padding_top == 0 && e.padding_left == 0 && e.padding_bottom == 0 &&
                         e.padding_right == 0;
  const bool second =
      groups == 0 ? d.output_channels == d.input_channels
                  : groups > 1 && d.input_channels % groups == 0 && d.output_channels % groups == 0;
  const bool chained = d.batch == e.batch && d.input_height == e.input_height &&
                       d.input_width == e.input_width && d.input_channels == e.output_channels &&
                       second;
  const size_t extent = KernelExtent(d);
  const bool padding = d.padding_top < extent && d.padding_bottom < extent;
  return pointwise && chained && padding ? Error::kOk : Error::kInvalidArgument;
}

size_t ExpandDepthwiseBandRows(const Convolution2dShape& expand,
                               const Convolution2dShape& depthwise, size_t groups, size_t threads) {
  Geometry g;
  return GeometryOf(expand, depthwise, groups, threads, &g) ? g.band_rows : 0;
}

size_t ExpandDepthwiseScratchBytes(const GemmConfig& config, const Convolution2dShape& expand,
                                   const Convolution2dShape& depthwise, size_t threads,
                                   size_t groups) {
  Geometry g;
  if (!GeometryOf(config, expand, depthwise, groups, threads, &g)) return 0;
  const size_t bands = expand.batch * g.bands_per_image;
  const size_t tasks = std::max<size_t>(1, std::min(threads, bands));
  return tasks * g.slot_bytes();
}

Error ExpandDepthwise(const ExpandDepthwiseCall& call, void* scratch, size_t scratch_bytes,
                      pthreadpool_t threadpool) {
  const bool grouped = call.group_weights != nullptr;
  if (call.input == nullptr || call.output == nullptr || call.expand_weights == nullptr ||
      (grouped ? call.groups < 2 || call.depthwise_weights != nullptr
               : call.groups != 0 || call.depthwise_weights == nullptr) ||
      call.expand_epilogue.residual != nullptr || call.depthwise_epilogue.residual != nullptr ||
      call.expand.input_channels_first || call.depthwise.input_channels_first) {
    return Error::kInvalidArgument;
  }
  Task task;
  const size_t threads = threadpool != nullptr ? pthreadpool_get_threads_count(threadpool) : 1;
  if (!GeometryOf(call.expand_weights->config, call.expand, call.depthwise, call.groups, threads,
                  &task.geometry)) {
    return Error::kInvalidArgument;
  }
  task.call = &call;
  task.total_bands = call.expand.batch * task.geometry.bands_per_image;
  task.tasks = std::max<size_t>(1, std::min(threads, task.total_bands));
  if (scratch == nullptr || scratch_bytes < task.tasks * task.geometry.slot_bytes()) {
    return Error::kOutOfMemory;
  }
  task.scratch = static_cast<uint8_t*>(scratch);
  task.error.store(static_cast<int>(Error::kOk));
  task.phase_ns[0].store(0);
  task.phase_ns[1].store(0);
  if (task.tasks == 1) {
    RunBands(&task, 0);
  } else {
    pthreadpool_parallelize_1d(threadpool, RunBands, &task, task.tasks, 0);
  }
  if (call.phase_ns != nullptr) {
    call.phase_ns[0] += task.phase_ns[0].load();
    call.phase_ns[1] += task.phase_ns[1].load();
  }
  return static_cast<Error>(task.error.load());
}

}  // namespace torchir::native
