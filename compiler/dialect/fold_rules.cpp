#include "compiler/dialect/fold_rules.h"

#include <cstring>

namespace torchir::dialect::fold_rules {
namespace {

std::vector<int64_t> Strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * sizes[i];
  return strides;
}

// Copies elements: out index -> in offset through `in_strides` indexed by out dims.
void Gather(const uint8_t* in, uint8_t* out, const std::vector<int64_t>& out_sizes,
            const std::vector<int64_t>& in_strides, int64_t in_offset, size_t element) {
  const int64_t count = ir::TensorType{ir::DType::kUInt8, out_sizes}.numel();
  std::vector<int64_t> index(out_sizes.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = in_offset;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * in_strides[d];
    std::memcpy(out + n * element, in + offset * element, element);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < out_sizes[d]) break;
      index[d] = 0;
    }
  }
}

const uint8_t* InputData(const ir::Node& node) { return node.input(0)->data().data(); }

size_t ElementSize(const ir::Node& node) { return ir::DTypeSize(node.output()->type().dtype); }

}  // namespace

std::vector<uint8_t> Reshape(const ir::Node& node) {
  std::vector<uint8_t> result(node.output()->type().nbytes());
  std::memcpy(result.data(), InputData(node), result.size());
  return result;
}

std::vector<uint8_t> Permute(const ir::Node& node) {
  const ir::TensorType& out = node.output()->type();
  const std::vector<int64_t> strides = Strides(node.input(0)->sizes());
  std::vector<int64_t> in_strides;
  for (int64_t d : node.FindAttr("dims")->as_int_list()) {
    in_strides.push_back(strides[static_cast<size_t>(d)]);
  }
  std::vector<uint8_t> result(out.nbytes());
  Gather(InputData(node), result.data(), out.sizes, in_strides, 0, ElementSize(node));
  return result;
}

std::vector<uint8_t> Slice(const ir::Node& node) {
  const ir::TensorType& out = node.output()->type();
  const std::vector<int64_t> strides = Strides(node.input(0)->sizes());
  const auto dim = static_cast<size_t>(node.FindAttr("dim")->as_int());
  std::vector<int64_t> in_strides = strides;
  // A single element never steps; otherwise step < size, so the product stays below numel
  // (a step from the file may be near 2^63).
  in_strides[dim] = out.sizes[dim] > 1 ? strides[dim] * node.FindAttr("step")->as_int() : 0;
  std::vector<uint8_t> result(out.nbytes());
  Gather(InputData(node), result.data(), out.sizes, in_strides,
         node.FindAttr("start")->as_int() * strides[dim], ElementSize(node));
  return result;
}

std::vector<uint8_t> Expand(const ir::Node& node) {
  const ir::TensorType& out = node.output()->type();
  const std::vector<int64_t>& in_sizes = node.input(0)->sizes();
  const std::vector<int64_t> strides = Strides(in_sizes);
  // Broadcast dims (size 1 in the input, aligned right) get stride 0.
  std::vector<int64_t> in_strides(out.sizes.size(), 0);
  const size_t shift = out.sizes.size() - in_sizes.size();
  for (size_t d = 0; d < in_sizes.size(); ++d) {
    in_strides[d + shift] = in_sizes[d] == 1 ? 0 : strides[d];
  }
  std::vector<uint8_t> result(out.nbytes());
  Gather(InputData(node), result.data(), out.sizes, in_strides, 0, ElementSize(node));
  return result;
}

std::vector<uint8_t> Concatenate(const ir::Node& node) {
  const ir::TensorType& out = node.output()->type();
  const size_t element = ElementSize(node);
  const auto dim = static_cast<size_t>(node.FindAttr("dim")->as_int());
  int64_t outer = 1, inner_out = 1;
  for (size_t d = 0; d < dim; ++d) outer *= out.sizes[d];
  for (size_t d = dim; d < out.sizes.size(); ++d) inner_out *= out.sizes[d];
  std::vector<uint8_t> result(out.nbytes());
  int64_t column = 0;
  for (const ir::Value* input : node.inputs()) {
    int64_t inner = 1;
    for (size_t d = dim; d < input->sizes().size(); ++d) inner *= input->sizes()[d];
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(result.data() + (o * inner_out + column) * element,
                  input->data().data() + o * inner * element, inner * element);
    }
    column += inner;
  }
  return result;
}

}  // namespace torchir::dialect::fold_rules
