// Data movement XNNPACK has: static_reshape and static_constant_pad. Neither is
// worth a delegate call on its own (a reshape is a free view on the portable
// side), so they only join regions that compute.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/partitioner/capability_helpers.h"
#include "backends/xnnpack/partitioner/op_capability.h"

namespace torchir::xnnpack {
namespace {

// A reshape that moves elements in channels-last order (e.g. [N, C, H, W] -> [N, C*H*W])
// would need a transpose, which this XNNPACK lacks: such a reshape needs a logical region.
Support CheckReshape(const ir::Node& node) {
  const bool keeps_order =
      ReshapeKeepsOrder(node.input(0)->sizes(), node.output(0)->sizes(), Layout::kChannelsLast);
  return Support::Yes(keeps_order ? LayoutNeed::kAny : LayoutNeed::kLogical);
}

absl::Status SerializeReshape(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  const std::vector<int64_t> dims = subgraph.Dims(node.output(0));
  subgraph.AddNode<node_params::StaticReshape>({x}, subgraph.Output(node.output(0)), dims);
  return absl::OkStatus();
}

Support CheckConstantPad(const ir::Node& node) {
  for (int64_t amount : IntsAttr(node, "pad")) {
    if (amount < 0) {
      return Support::No(absl::StrCat("pad ", ShapeText(IntsAttr(node, "pad")),
                                      " crops (negative amounts): XNNPACK's constant pad only "
                                      "adds elements"));
    }
  }
  return Support::Yes();
}

// Edge pads innermost dim first as (before, after) pairs; XNNPACK takes all befores then all
// afters, per stored dim.
absl::Status SerializeConstantPad(const ir::Node& node, SubgraphSerializer& subgraph) {
  const size_t rank = node.input(0)->sizes().size();
  const std::vector<int64_t>& pad = IntsAttr(node, "pad");
  std::vector<int64_t> before(rank, 0), after(rank, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    before[rank - 1 - i] = pad[2 * i];
    after[rank - 1 - i] = pad[2 * i + 1];
  }
  const std::vector<int64_t> perm = PhysicalPermutation(subgraph.layout(), rank);
  using Op = node_params::StaticConstantPad;
  const std::vector<int64_t> stored_before = PermuteSizes(before, perm);
  const std::vector<int64_t> stored_after = PermuteSizes(after, perm);
  std::vector<int64_t> ints(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    ints[Op::PrePadding(d)] = stored_before[d];
    ints[Op::PostPadding(d, rank)] = stored_after[d];
  }
  const uint32_t x = subgraph.Operand(node.input(0));
  std::vector<double> floats(Op::kNumFloats);
  floats[Op::kPaddingValue] = DoubleAttr(node, "value");
  subgraph.AddNode<Op>({x}, subgraph.Output(node.output(0)), ints, floats);
  return absl::OkStatus();
}

}  // namespace

std::vector<OpCapability> DataMovementCapabilities() {
  return {
      {"edge.reshape", CheckReshape, SerializeReshape, /*computes=*/false},
      {"edge.constant_pad", CheckConstantPad, SerializeConstantPad, /*computes=*/false},
  };
}

}  // namespace torchir::xnnpack
