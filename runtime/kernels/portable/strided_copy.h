// The engine of the data-movement kernels: copy an n-d block between two
// strided views. Permute, expand, slice, concatenate and constant_pad only
// differ in the sizes and strides they describe; moving bytes never needs the
// dtype, only its element size.
//
// A copy runs in three steps:
//   1. Dims of size 1 are dropped, and a dim is merged into the next inner one
//      when both views walk the pair as one block (stride[d-1] ==
//      stride[d] * size[d] on each side), so contiguous runs become one dim.
//   2. The innermost dim is a memcpy when both views are contiguous there, a
//      fill when the source repeats one element (stride 0, from expand), else
//      an element loop; if the source is contiguous along another dim instead
//      (a transpose), that dim and the innermost are copied in square tiles.
//   3. The other dims advance through a counter array: linear in the block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchir::runtime::portable::tensor_ops {

// A block of `rank` dims and where each element sits in the two views, in
// elements. Offsets are relative to the base pointers given to CopyStrided.
struct CopyPlan {
  size_t rank = 0;
  int64_t sizes[kMaxTensorRank] = {};
  int64_t dst_strides[kMaxTensorRank] = {};
  int64_t src_strides[kMaxTensorRank] = {};
};

// Row-major strides of `sizes` (in elements) into `strides`.
inline void ContiguousStrides(Span<const int64_t> sizes, int64_t* strides) {
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= sizes[d];
  }
}

// Builds the plan of step 1 from per-dim sizes and strides (rank <=
// kMaxTensorRank). An empty block yields rank 0 (nothing to copy); a single
// element yields rank 1 of size 1.
inline CopyPlan MakeCopyPlan(size_t rank, const int64_t* sizes, const int64_t* dst_strides,
                             const int64_t* src_strides) {
  CopyPlan plan;
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return CopyPlan();
  }
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    const size_t last = plan.rank - 1;
    if (plan.rank > 0 && plan.dst_strides[last] == dst_strides[d] * sizes[d] &&
        plan.src_strides[last] == src_strides[d] * sizes[d]) {
      plan.sizes[last] *= sizes[d];
      plan.dst_strides[last] = dst_strides[d];
      plan.src_strides[last] = src_strides[d];
      continue;
    }
    plan.sizes[plan.rank] = sizes[d];
    plan.dst_strides[plan.rank] = dst_strides[d];
    plan.src_strides[plan.rank] = src_strides[d];
    ++plan.rank;
  }
  if (plan.rank == 0) {
    plan.rank = 1;
    plan.sizes[0] = 1;
    plan.dst_strides[0] = 1;
    plan.src_strides[0] = 1;
  }
  return plan;
}

namespace internal {

// One output row: a memcpy when both sides are contiguous, a fill when the
// source repeats one element, else a strided loop.
template <typename Word>
void CopyRow(Word* out, const Word* in, int64_t n, int64_t dst_step, int64_t src_step) {
  if (dst_step == 1 && src_step == 1) {
    // memmove: a program's plan may overlap the output with the input.
    std::memmove(out, in, static_cast<size_t>(n) * sizeof(Word));
  } else if (src_step == 0) {
    for (int64_t j = 0; j < n; ++j) out[j * dst_step] = in[0];
  } else {
    for (int64_t j = 0; j < n; ++j) out[j * dst_step] = in[j * src_step];
  }
}

// CopyTiled's block when its kCols columns are adjacent in the destination:
// one pass down the rows, each column's source read as one stream.
template <typename Word, int64_t kCols>
void CopyFewColumns(Word* out, const Word* in, int64_t rows, int64_t dst_row_stride,
                    int64_t src_col_stride) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < kCols; ++j) out[i * dst_row_stride + j] = in[i + j * src_col_stride];
  }
}

// A rows x cols block whose source is contiguous along rows and the
// destination along cols (a transpose), in square tiles so that every cache
// line read or written is used whole. With 1-4 columns adjacent in the
// destination (an image's channels moved last: NCHW to NHWC) the rows are
// walked once instead: tiles of 8 x 3 spent their time in loop control
// (mobilenet_v2's 3 x 224 x 224 input took 0.095 ms on Zen 3).
template <typename Word>
void CopyTiled(Word* out, const Word* in, int64_t rows, int64_t cols, int64_t dst_row_stride,
               int64_t dst_col_stride, int64_t src_col_stride) {
  if (dst_col_stride == 1) {
    switch (cols) {
      case 1:
        return CopyFewColumns<Word, 1>(out, in, rows, dst_row_stride, src_col_stride);
      case 2:
        return CopyFewColumns<Word, 2>(out, in, rows, dst_row_stride, src_col_stride);
      case 3:
        return CopyFewColumns<Word, 3>(out, in, rows, dst_row_stride, src_col_stride);
      case 4:
        return CopyFewColumns<Word, 4>(out, in, rows, dst_row_stride, src_col_stride);
      default:
        break;
    }
  }
  // Small: a tile reads from kTile source lines, often a power of two apart
  // and so competing for the same L1 sets; 8 measured fastest on x86-64.
  constexpr int64_t kTile = 8;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = i0 + kTile < rows ? i0 + kTile : rows;
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = j0 + kTile < cols ? j0 + kTile : cols;
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) {
          out[i * dst_row_stride + j * dst_col_stride] = in[i + j * src_col_stride];
        }
      }
    }
  }
}

}  // namespace internal

// Copies the block `plan` describes, elements being `Word`s. When the source
// is read with a stride in the innermost dim but contiguously in another (a
// permute moving the last dim), those two dims are copied in tiles.
template <typename Word>
void CopyStrided(const CopyPlan& plan, Word* dst, const Word* src) {
  if (plan.rank == 0) return;
  const size_t inner = plan.rank - 1;
  size_t tile_dim = inner;  // inner: no tiling
  if (plan.src_strides[inner] > 1) {
    for (size_t d = 0; d < inner; ++d) {
      if (plan.src_strides[d] == 1) tile_dim = d;
    }
  }
  // The dims the counter walks: all but the inner one and the tiled one.
  size_t outer[kMaxTensorRank];
  size_t num_outer = 0;
  int64_t steps = 1;
  for (size_t d = 0; d < inner; ++d) {
    if (d == tile_dim) continue;
    outer[num_outer++] = d;
    steps *= plan.sizes[d];
  }
  int64_t counter[kMaxTensorRank] = {};
  int64_t dst_offset = 0;
  int64_t src_offset = 0;
  for (int64_t step = 0; step < steps; ++step) {
    if (tile_dim == inner) {
      internal::CopyRow(dst + dst_offset, src + src_offset, plan.sizes[inner],
                        plan.dst_strides[inner], plan.src_strides[inner]);
    } else {
      internal::CopyTiled(dst + dst_offset, src + src_offset, plan.sizes[tile_dim],
                          plan.sizes[inner], plan.dst_strides[tile_dim], plan.dst_strides[inner],
                          plan.src_strides[inner]);
    }
    for (size_t k = num_outer; k-- > 0;) {
      const size_t d = outer[k];
      if (++counter[k] < plan.sizes[d]) {
        dst_offset += plan.dst_strides[d];
        src_offset += plan.src_strides[d];
        break;
      }
      counter[k] = 0;
      dst_offset -= plan.dst_strides[d] * (plan.sizes[d] - 1);
      src_offset -= plan.src_strides[d] * (plan.sizes[d] - 1);
    }
  }
}

// Sixteen bytes (complex128), copied as a unit.
struct Bytes16 {
  uint64_t words[2];
};

// Calls fn with a null pointer of an unsigned word type of `element_size`
// bytes; kInvalidType for sizes no dtype has.
template <typename Fn>
Error SwitchElementSize(size_t element_size, Fn&& fn) {
  switch (element_size) {
    case 1:
      return fn(static_cast<uint8_t*>(nullptr));
    case 2:
      return fn(static_cast<uint16_t*>(nullptr));
    case 4:
      return fn(static_cast<uint32_t*>(nullptr));
    case 8:
      return fn(static_cast<uint64_t*>(nullptr));
    case 16:
      return fn(static_cast<Bytes16*>(nullptr));
    default:
      return Error::kInvalidType;
  }
}

// Copies `plan`'s block between two tensors' buffers of `element_size` bytes
// per element, from element offsets `dst_offset` and `src_offset`.
inline Error CopyBlock(const CopyPlan& plan, size_t element_size, void* dst, int64_t dst_offset,
                       const void* src, int64_t src_offset) {
  // An empty block may come with a null or one-past-the-end base: touch nothing.
  if (plan.rank == 0) return Error::kOk;
  return SwitchElementSize(element_size, [&](auto* tag) {
    using Word = std::remove_pointer_t<decltype(tag)>;
    CopyStrided(plan, static_cast<Word*>(dst) + dst_offset,
                static_cast<const Word*>(src) + src_offset);
    return Error::kOk;
  });
}

}  // namespace torchir::runtime::portable::tensor_ops
