#include "compiler/dialect/node_macs.h"

#include <limits>
#include <vector>

#include "compiler/dialect/edge_ops.h"

namespace torchir::dialect {
namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > kSaturated / a) return kSaturated;
  return a * b;
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return b > kSaturated - a ? kSaturated : a + b; }

// Product of sizes[first...]; 0 when a size is negative.
uint64_t Volume(const std::vector<int64_t>& sizes, size_t first) {
  uint64_t volume = 1;
  for (size_t i = first; i < sizes.size(); ++i) {
    if (sizes[i] < 0) return 0;
    volume = SaturatingMul(volume, static_cast<uint64_t>(sizes[i]));
  }
  return volume;
}

}  // namespace

uint64_t NodeMacs(const ir::Node& node) {
  if (node.num_outputs() == 0) return 0;
  const EdgeOpDef* def = FindEdgeOp(node.op());
  return def != nullptr && def->macs != nullptr ? def->macs(node) : 0;
}

uint64_t GraphMacs(const ir::Graph& graph) {
  uint64_t total = 0;
  for (const ir::Node* node : graph.nodes()) total = SaturatingAdd(total, NodeMacs(*node));
  return total;
}

namespace mac_rules {

uint64_t Convolution(const ir::Node& node) {
  if (node.num_outputs() == 0 || node.num_inputs() < 2 || node.input(1)->sizes().size() < 2) {
    return 0;
  }
  return SaturatingMul(Volume(node.output(0)->sizes(), 0), Volume(node.input(1)->sizes(), 1));
}

uint64_t MatrixProduct(const ir::Node& node) {
  if (node.num_outputs() == 0 || node.num_inputs() < 1 || node.input(0)->sizes().empty()) {
    return 0;
  }
  const int64_t k = node.input(0)->sizes().back();
  return k < 0 ? 0 : SaturatingMul(Volume(node.output(0)->sizes(), 0), static_cast<uint64_t>(k));
}

}  // namespace mac_rules
}  // namespace torchir::dialect
