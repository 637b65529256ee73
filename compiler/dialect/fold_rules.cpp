#include "compiler/dialect/fold_rules.h"

#include <array>
#include <cstring>
#include <string_view>
#include <utility>

namespace torchir::dialect::fold_rules {
namespace {

std::vector<int64_t> Strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * sizes[i];
  return strides;
}

// Visits every element of `sizes` in row-major order: visit(n, offsets), where offsets[t] is
// the sum over dims d of index[d] * strides[t][d] (the element offset of tensor t read there).
template <size_t kTensors, typename Visit>
void ForEachElement(const std::vector<int64_t>& sizes,
                    const std::array<const std::vector<int64_t>*, kTensors>& strides,
                    Visit&& visit) {
  const int64_t count = ir::TensorType{ir::DType::kUInt8, sizes}.numel();
  std::vector<int64_t> index(sizes.size(), 0);
  std::array<int64_t, kTensors> offsets;
  for (int64_t n = 0; n < count; ++n) {
    for (size_t t = 0; t < kTensors; ++t) {
      offsets[t] = 0;
      for (size_t d = 0; d < index.size(); ++d) offsets[t] += index[d] * (*strides[t])[d];
    }
    visit(n, offsets);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

// Copies elements: out index -> in offset through `in_strides` indexed by out dims.
void Gather(const uint8_t* in, uint8_t* out, const std::vector<int64_t>& out_sizes,
            const std::vector<int64_t>& in_strides, int64_t in_offset, size_t element) {
  ForEachElement<1>(out_sizes, {&in_strides}, [&](int64_t n, const std::array<int64_t, 1>& at) {
    std::memcpy(out + n * element, in + (in_offset + at[0]) * element, element);
  });
}

const uint8_t* InputData(const ir::Node& node) { return node.input(0)->data().data(); }

size_t ElementSize(const ir::Node& node) { return ir::DTypeSize(node.output()->type().dtype); }

// The strides (in elements) that read `input` at each index of the broadcast `out_sizes`: 0 along
// the dims it is broadcast over (size 1, or missing on the left).
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in_sizes,
                                      const std::vector<int64_t>& out_sizes) {
  const std::vector<int64_t> strides = Strides(in_sizes);
  std::vector<int64_t> in_strides(out_sizes.size(), 0);
  const size_t shift = out_sizes.size() - in_sizes.size();
  for (size_t d = 0; d < in_sizes.size(); ++d) {
    in_strides[d + shift] = in_sizes[d] == 1 ? 0 : strides[d];
  }
  return in_strides;
}

enum class Comparison { kEq, kNe, kLt, kLe, kGt, kGe };

template <typename T>
bool Compares(Comparison comparison, T a, T b) {
  switch (comparison) {
    case Comparison::kEq:
      return a == b;
    case Comparison::kNe:
      return a != b;
    case Comparison::kLt:
      return a < b;
    case Comparison::kLe:
      return a <= b;
    case Comparison::kGt:
      return a > b;
    case Comparison::kGe:
      return a >= b;
  }
  return false;
}

template <typename T>
std::vector<uint8_t> CompareAs(const ir::Node& node, Comparison comparison) {
  const std::vector<int64_t>& out_sizes = node.output()->sizes();
  const std::vector<int64_t> a_strides = BroadcastStrides(node.input(0)->sizes(), out_sizes);
  const std::vector<int64_t> b_strides = BroadcastStrides(node.input(1)->sizes(), out_sizes);
  const uint8_t* a = node.input(0)->data().data();
  const uint8_t* b = node.input(1)->data().data();
  std::vector<uint8_t> result(static_cast<size_t>(node.output()->type().numel()));
  ForEachElement<2>(out_sizes, {&a_strides, &b_strides},
                    [&](int64_t n, const std::array<int64_t, 2>& at) {
                      T x, y;  // the data may be unaligned for T
                      std::memcpy(&x, a + at[0] * sizeof(T), sizeof(T));
                      std::memcpy(&y, b + at[1] * sizeof(T), sizeof(T));
                      result[static_cast<size_t>(n)] = Compares(comparison, x, y) ? 1 : 0;
                    });
  return result;
}

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
  // Broadcast dims (size 1 in the input, aligned right) get stride 0.
  const std::vector<int64_t> in_strides = BroadcastStrides(node.input(0)->sizes(), out.sizes);
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

std::vector<uint8_t> Compare(const ir::Node& node) {
  constexpr std::pair<std::string_view, Comparison> kOps[] = {
      {"edge.eq", Comparison::kEq}, {"edge.ne", Comparison::kNe}, {"edge.lt", Comparison::kLt},
      {"edge.le", Comparison::kLe}, {"edge.gt", Comparison::kGt}, {"edge.ge", Comparison::kGe}};
  for (const auto& [op, comparison] : kOps) {
    if (node.op() != op) continue;
    switch (node.input(0)->type().dtype) {
      case ir::DType::kFloat32:
        return CompareAs<float>(node, comparison);
      case ir::DType::kFloat64:
        return CompareAs<double>(node, comparison);
      case ir::DType::kInt32:
        return CompareAs<int32_t>(node, comparison);
      case ir::DType::kInt64:
        return CompareAs<int64_t>(node, comparison);
      default:
        return {};
    }
  }
  return {};
}

}  // namespace torchir::dialect::fold_rules
