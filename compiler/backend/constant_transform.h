// Compile-time repacking of constants into the order a delegated region (XNNPACK's) reads
// them: convolution filters OIHW -> OHWI, depthwise filters -> [1, kh, kw, C*m],
// and constant operands of elementwise ops into the region's layout. The result
// is a new graph constant; the blob never holds weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "compiler/backend/layout.h"
#include "compiler/ir/tensor_data.h"

namespace torchir::backend {

// A constant viewed as `shape` (same element count, row-major: a free reshape),
// then permuted by `perm` (physical dim i takes viewed dim perm[i]).
struct ConstantTransform {
  std::vector<int64_t> shape;
  std::vector<int64_t> perm;

  // The repacked tensor's sizes.
  std::vector<int64_t> Dims() const;
  // True when the repacked bytes and sizes equal the source's (`sizes`).
  bool IsNoop(const std::vector<int64_t>& sizes) const;
  bool operator==(const ConstantTransform& other) const {
    return shape == other.shape && perm == other.perm;
  }
};

// A convolution weight [O, C/g, kh, kw] (or 1-d [O, C/g, k], viewed as kh = 1) as XNNPACK's
// OHWI filter [O, kh, kw, C/g].
ConstantTransform ConvolutionFilterTransform(const std::vector<int64_t>& weight_sizes);

// A depthwise weight [C*m, 1, kh, kw] (or 1-d [C*m, 1, k]) as XNNPACK's depthwise filter
// [1, kh, kw, C*m].
ConstantTransform DepthwiseFilterTransform(const std::vector<int64_t>& weight_sizes);

// A constant operand of an elementwise op whose result has rank `rank`: broadcast to that
// rank (leading 1s) and stored in `layout`, so that NumPy broadcasting over the physical
// dims pairs the same elements as over the logical ones.
ConstantTransform OperandTransform(const std::vector<int64_t>& sizes, size_t rank, Layout layout);

// The bytes of a dense row-major tensor of `element_size`-byte elements repacked by
// `transform`. An empty `data` gives empty data (an unbound weight stays unbound).
ir::TensorData ApplyTransform(const ir::TensorData& data, size_t element_size,
                              const ConstantTransform& transform);

}  // namespace torchir::backend
