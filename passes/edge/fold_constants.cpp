#include "passes/edge/fold_constants.h"

#include <cstring>
#include <vector>

#include "compiler/ir/tensor_limits.h"

namespace torchir::passes {
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

bool AllConstant(const ir::Node& node) {
  for (const ir::Value* input : node.inputs()) {
    if (!input->is_constant_like() || input->data().size() != input->type().nbytes()) return false;
  }
  return node.num_inputs() > 0 && node.num_outputs() == 1;
}

// The folded bytes of `node`, or empty when the op is not foldable here.
std::vector<uint8_t> Evaluate(const ir::Node& node) {
  const std::string& op = node.op();
  const ir::TensorType& out = node.output()->type();
  const ir::TensorType& in = node.input(0)->type();
  const uint8_t* data = node.input(0)->data().data();
  const size_t element = ir::DTypeSize(out.dtype);
  std::vector<uint8_t> result(out.nbytes());
  if (op == "edge.reshape") {
    std::memcpy(result.data(), data, result.size());
    return result;
  }
  const std::vector<int64_t> strides = Strides(in.sizes);
  if (op == "edge.permute") {
    const auto& dims = node.FindAttr("dims")->as_int_list();
    std::vector<int64_t> in_strides;
    for (int64_t d : dims) in_strides.push_back(strides[static_cast<size_t>(d)]);
    Gather(data, result.data(), out.sizes, in_strides, 0, element);
    return result;
  }
  if (op == "edge.slice") {
    const auto dim = static_cast<size_t>(node.FindAttr("dim")->as_int());
    std::vector<int64_t> in_strides = strides;
    // A single element never steps; otherwise step < size, so the product stays below numel
    // (a step from the file may be near 2^63).
    in_strides[dim] = out.sizes[dim] > 1 ? strides[dim] * node.FindAttr("step")->as_int() : 0;
    Gather(data, result.data(), out.sizes, in_strides,
           node.FindAttr("start")->as_int() * strides[dim], element);
    return result;
  }
  if (op == "edge.expand") {
    // Broadcast dims (size 1 in the input, aligned right) get stride 0.
    std::vector<int64_t> in_strides(out.sizes.size(), 0);
    const size_t shift = out.sizes.size() - in.sizes.size();
    for (size_t d = 0; d < in.sizes.size(); ++d) {
      in_strides[d + shift] = in.sizes[d] == 1 ? 0 : strides[d];
    }
    Gather(data, result.data(), out.sizes, in_strides, 0, element);
    return result;
  }
  if (op == "edge.concatenate") {
    const auto dim = static_cast<size_t>(node.FindAttr("dim")->as_int());
    int64_t outer = 1, inner_out = 1;
    for (size_t d = 0; d < dim; ++d) outer *= out.sizes[d];
    for (size_t d = dim; d < out.sizes.size(); ++d) inner_out *= out.sizes[d];
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
  return {};
}

}  // namespace

absl::Status FoldConstants::Run(ir::Graph& graph, PassContext& context) {
  int64_t folded = 0;
  for (ir::Node* node : graph.NodeSnapshot()) {
    const std::string& op = node->op();
    if (op != "edge.reshape" && op != "edge.permute" && op != "edge.slice" &&
        op != "edge.expand" && op != "edge.concatenate") {
      continue;
    }
    if (!AllConstant(*node) || node->output()->type().numel() == 0) continue;
    // An expand of a small constant can ask for more than any program may hold:
    // leave such a node to the memory limit (tools/pipeline/) instead of
    // allocating its result here.
    if (node->output()->type().nbytes() > ir::kDefaultMaxProgramBytes) continue;
    std::vector<uint8_t> bytes = Evaluate(*node);
    if (bytes.empty()) continue;
    ir::Value* constant = graph.AddConstant(graph.UniqueValueName(node->output()->name() + "_folded"),
                                            node->output()->type(),
                                            ir::TensorData::Copy(bytes.data(), bytes.size()));
    graph.ReplaceAllUsesWith(node->output(), constant);
    graph.EraseNode(node);
    ++folded;
  }
  if (folded > 0) {
    context.MarkChanged();
    context.AddToCounter("nodes_folded", folded);
  }
  return absl::OkStatus();
}

}  // namespace torchir::passes
