// Which kernel taps of a convolution read inside the input (internal to backends/native/): the
// direct kernels (depthwise.cpp, narrow_group.cpp) skip the taps that fall in the padding instead
// of multiplying zeros.
#pragma once

#include <cstddef>

#include "backends/native/convolution.h"

namespace torchir::native {

// The taps of one output pixel that fall inside the input along one axis: [begin, end).
struct TapRange {
  size_t begin, end;
};

// Taps k in [0, kernel) read input coordinate origin + k * dilation; keep those in [0, size).
inline TapRange Inside(ptrdiff_t origin, size_t kernel, size_t dilation, size_t size) {
  const ptrdiff_t d = static_cast<ptrdiff_t>(dilation);
  const ptrdiff_t n = static_cast<ptrdiff_t>(size);
  TapRange range{0, kernel};
  if (origin < 0) range.begin = static_cast<size_t>((-origin + d - 1) / d);
  // The first tap at or past `size`: ceil((size - origin) / dilation).
  const ptrdiff_t last = n - origin <= 0 ? 0 : (n - origin + d - 1) / d;
  if (static_cast<size_t>(last) < range.end) range.end = static_cast<size_t>(last);
  if (range.begin > range.end) range.begin = range.end;
  return range;
}

// The output columns [begin, end) (of output_width) whose taps all fall inside the input along
// x: ox * sw >= pl and ox * sw - pl + (kw - 1) * dw <= W - 1. There pixels share their tap range
// and go several at a time.
inline TapRange InteriorColumns(const Convolution2dShape& s, size_t output_width) {
  const size_t extent = (s.kernel_width - 1) * s.dilation_width;
  size_t end = s.input_width + s.padding_left > extent
                   ? (s.input_width - 1 + s.padding_left - extent) / s.stride_width + 1
                   : 0;
  end = end < output_width ? end : output_width;
  size_t begin = (s.padding_left + s.stride_width - 1) / s.stride_width;
  begin = begin < end ? begin : end;
  return TapRange{begin, end};
}

}  // namespace torchir::native
