#include "compiler/backend/constant_transform.h"

#include <cstring>
#include <memory>

namespace torchir::backend {
namespace {

// [O, I, k] -> [O, I, 1, k]: a 1-d convolution is a 2-d one of height 1.
std::vector<int64_t> AsTwoDimensional(const std::vector<int64_t>& weight_sizes) {
  if (weight_sizes.size() != 3) return weight_sizes;
  return {weight_sizes[0], weight_sizes[1], 1, weight_sizes[2]};
}

}  // namespace

std::vector<int64_t> ConstantTransform::Dims() const { return PermuteSizes(shape, perm); }

bool ConstantTransform::IsNoop(const std::vector<int64_t>& sizes) const {
  return shape == sizes && IsIdentityPermutation(perm);
}

ConstantTransform ConvolutionFilterTransform(const std::vector<int64_t>& weight_sizes) {
  return {AsTwoDimensional(weight_sizes), {0, 2, 3, 1}};
}

ConstantTransform DepthwiseFilterTransform(const std::vector<int64_t>& weight_sizes) {
  return {AsTwoDimensional(weight_sizes), {1, 2, 3, 0}};
}

ConstantTransform OperandTransform(const std::vector<int64_t>& sizes, size_t rank, Layout layout) {
  if (sizes.empty()) return {sizes, {}};  // a 0-d scalar broadcasts the same in any layout
  std::vector<int64_t> shape(rank > sizes.size() ? rank - sizes.size() : 0, 1);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  return {shape, PhysicalPermutation(layout, shape.size())};
}

ir::TensorData ApplyTransform(const ir::TensorData& data, size_t element_size,
                              const ConstantTransform& transform) {
  if (data.empty()) return {};
  const size_t rank = transform.shape.size();
  std::vector<size_t> source_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) {
    source_strides[i - 1] = source_strides[i] * static_cast<size_t>(transform.shape[i]);
  }
  const std::vector<int64_t> dims = transform.Dims();
  size_t count = 1;
  for (int64_t dim : dims) count *= static_cast<size_t>(dim);
  if (count * element_size != data.size()) return {};
  auto bytes = std::shared_ptr<uint8_t[]>(new uint8_t[count * element_size]);
  // Walk the destination in row-major order, carrying the matching source offset.
  std::vector<int64_t> index(rank, 0);
  size_t source = 0;
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(bytes.get() + i * element_size, data.data() + source * element_size, element_size);
    for (size_t d = rank; d-- > 0;) {
      const size_t stride = source_strides[static_cast<size_t>(transform.perm[d])];
      if (++index[d] < dims[d]) {
        source += stride;
        break;
      }
      source -= stride * static_cast<size_t>(dims[d] - 1);
      index[d] = 0;
    }
  }
  const uint8_t* raw = bytes.get();
  return ir::TensorData(std::shared_ptr<const void>(bytes, raw), raw, count * element_size);
}

}  // namespace torchir::backend
