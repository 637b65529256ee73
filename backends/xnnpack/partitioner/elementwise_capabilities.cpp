// Elementwise ops: the binary arithmetic XNNPACK broadcasts (add2, subtract,
// multiply2, divide, maximum2, minimum2), the unary ops it has, the ones built
// from a few of its nodes (hardsigmoid, silu, rsqrt, reciprocal, elu with a scale, pow),
// and softmax.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/partitioner/capability_helpers.h"
#include "backends/xnnpack/partitioner/op_capability.h"

namespace torchir::xnnpack {
namespace {

const std::vector<double> kUnbounded = {-kInfinity, kInfinity};

// --- binary ---------------------------------------------------------------------------------

// An activation of lower rank than the result broadcasts correctly only when its elements
// sit in the same order as its broadcast view's in the region layout; constants are
// repacked at compile time, so they always fit.
Support CheckBinary(const ir::Node& node) {
  const size_t rank = node.output(0)->sizes().size();
  for (const ir::Value* operand : node.inputs()) {
    const size_t operand_rank = operand->sizes().size();
    if (operand->is_constant_like() || operand_rank == 0 || operand_rank == rank) continue;
    if (!BroadcastKeepsOrder(operand->sizes(), rank, Layout::kChannelsLast)) {
      return Support::Yes(LayoutNeed::kLogical);
    }
  }
  return Support::Yes();
}

template <typename Op>
absl::Status SerializeBinary(const ir::Node& node, SubgraphSerializer& subgraph) {
  const size_t rank = node.output(0)->sizes().size();
  const uint32_t a = subgraph.BroadcastOperand(node.input(0), rank);
  const uint32_t b = subgraph.BroadcastOperand(node.input(1), rank);
  const uint32_t out = subgraph.Output(node.output(0));
  if constexpr (std::is_base_of_v<node_params::OutputRangeFloats, Op>) {
    subgraph.AddNode<Op>({a, b}, out, {}, kUnbounded);
  } else {
    subgraph.AddNode<Op>({a, b}, out);
  }
  return absl::OkStatus();
}

// --- unary ----------------------------------------------------------------------------------

// Every unary op takes any input but a 0-d one: XNNPACK's unary nodes read the last dim as
// channels, so the delegate refuses rank 0 at init (a full reduction's sqrt in a vector norm).
Support Always(const ir::Node& node) {
  if (node.input(0)->sizes().empty()) {
    return Support::No("a 0-d input: XNNPACK's unary nodes need at least 1 dim");
  }
  return Support::Yes();
}

template <typename Op>
absl::Status SerializeUnary(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  subgraph.AddNode<Op>({x}, subgraph.Output(node.output(0)));
  return absl::OkStatus();
}

Support CheckClamp(const ir::Node& node) {
  const double min = DoubleAttr(node, "min");
  const double max = DoubleAttr(node, "max");
  if (min < max) return Support::Yes();
  return Support::No(absl::StrCat("clamp to [", min, ", ", max, "]: XNNPACK needs min < max"));
}

// A clamp folds into the node before it when that node clamps its output anyway
// (convolution, fully-connected, binary arithmetic, pooling); else it is its own node.
absl::Status SerializeClamp(const ir::Node& node, SubgraphSerializer& subgraph) {
  const double min = DoubleAttr(node, "min");
  const double max = DoubleAttr(node, "max");
  if (subgraph.FoldClamp(node.input(0), node.output(0), min, max)) return absl::OkStatus();
  const uint32_t x = subgraph.Operand(node.input(0));
  subgraph.AddNode<node_params::Clamp>({x}, subgraph.Output(node.output(0)), {}, {min, max});
  return absl::OkStatus();
}

absl::Status SerializeLeakyRelu(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  subgraph.AddNode<node_params::LeakyRelu>({x}, subgraph.Output(node.output(0)), {},
                                           {DoubleAttr(node, "negative_slope")});
  return absl::OkStatus();
}

// relu6(x + 3) / 6 = add2(x, 3) clamped to [0, 6], times 1/6 (PyTorch's vectorised kernel
// multiplies by 1/6 too).
absl::Status SerializeHardsigmoid(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  const std::vector<int64_t> dims = subgraph.Dims(node.output(0));
  const uint32_t shifted = subgraph.Internal(dims);
  subgraph.AddNode<node_params::Add2>({x, subgraph.StaticData({1}, {3.0f})}, shifted, {},
                                      {0.0, 6.0});
  subgraph.AddNode<node_params::Multiply2>({shifted, subgraph.StaticData({1}, {1.0f / 6.0f})},
                                           subgraph.Output(node.output(0)), {}, kUnbounded);
  return absl::OkStatus();
}

// x * sigmoid(x).
absl::Status SerializeSilu(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  const uint32_t gate = subgraph.Internal(subgraph.Dims(node.output(0)));
  subgraph.AddNode<node_params::Sigmoid>({x}, gate);
  subgraph.AddNode<node_params::Multiply2>({x, gate}, subgraph.Output(node.output(0)), {},
                                           kUnbounded);
  return absl::OkStatus();
}

// 1 / sqrt(x).
absl::Status SerializeRsqrt(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  const uint32_t root = subgraph.Internal(subgraph.Dims(node.output(0)));
  subgraph.AddNode<node_params::SquareRoot>({x}, root);
  subgraph.AddNode<node_params::Divide>({subgraph.StaticData({1}, {1.0f}), root},
                                        subgraph.Output(node.output(0)), {}, kUnbounded);
  return absl::OkStatus();
}

// 1 / x.
absl::Status SerializeReciprocal(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  subgraph.AddNode<node_params::Divide>({subgraph.StaticData({1}, {1.0f}), x},
                                        subgraph.Output(node.output(0)), {}, kUnbounded);
  return absl::OkStatus();
}

// XNNPACK's elu is alpha * (exp(x) - 1) below 0, x above: edge.elu with input_scale 1 (elu,
// selu; not celu), the scale a multiply after it.
Support CheckElu(const ir::Node& node) {
  const double input_scale = DoubleAttr(node, "input_scale");
  if (input_scale == 1.0) return Support::Yes();
  return Support::No(absl::StrCat("elu with input_scale ", input_scale,
                                  ": XNNPACK's elu scales no input (celu is such an elu)"));
}

absl::Status SerializeElu(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  const uint32_t out = subgraph.Output(node.output(0));
  const double alpha = DoubleAttr(node, "alpha");
  const double scale = DoubleAttr(node, "scale");
  if (scale == 1.0) {
    subgraph.AddNode<node_params::Elu>({x}, out, {}, {alpha});
    return absl::OkStatus();
  }
  const uint32_t unscaled = subgraph.Internal(subgraph.Dims(node.output(0)));
  subgraph.AddNode<node_params::Elu>({x}, unscaled, {}, {alpha});
  subgraph.AddNode<node_params::Multiply2>(
      {unscaled, subgraph.StaticData({1}, {static_cast<float>(scale)})}, out, {}, kUnbounded);
  return absl::OkStatus();
}

// XNNPACK's prelu takes one constant slope per channel of the innermost stored dim: dim 1 of
// a 3-d/4-d tensor in a channels-last region, the last dim of a 2-d one; a single slope
// (any rank >= 1) is repeated along the innermost dim.
Support CheckPrelu(const ir::Node& node) {
  const ir::Value* weight = node.input(1);
  if (std::string reason = NotAConstantReason(weight, "weight"); !reason.empty()) {
    return Support::No(reason);
  }
  const size_t rank = node.input(0)->sizes().size();
  if (rank == 0) return Support::No("prelu of a 0-d tensor: XNNPACK needs at least 1 dim");
  if (weight->type().numel() == 1) {
    if (!ScalarConstant(weight).has_value()) {
      return Support::No(absl::StrCat("weight '", weight->name(), "' has no bound value"));
    }
    return Support::Yes();
  }
  if (rank == 3 || rank == 4) return Support::Yes(LayoutNeed::kChannelsLast);
  if (rank == 2) return Support::Yes();
  return Support::No(absl::StrCat("prelu with one slope per channel of a rank-", rank,
                                  " tensor: XNNPACK's channels are the innermost stored dim"));
}

absl::Status SerializePrelu(const ir::Node& node, SubgraphSerializer& subgraph) {
  ir::Value* weight = node.input(1);
  const uint32_t x = subgraph.Operand(node.input(0));
  const std::vector<int64_t> dims = subgraph.Dims(node.output(0));
  const int64_t channels = dims.back();
  const uint32_t slope =
      weight->type().numel() == 1
          ? subgraph.StaticData({channels}, std::vector<float>(static_cast<size_t>(channels),
                                                               *ScalarConstant(weight)))
          : subgraph.Constant(weight, {weight->sizes(), {0}});
  subgraph.AddNode<node_params::Prelu>({x, slope}, subgraph.Output(node.output(0)));
  return absl::OkStatus();
}

// x ** 2 and x ** 0.5, the exponents XNNPACK has nodes for.
Support CheckPow(const ir::Node& node) {
  const ir::Value* exponent = node.input(1);
  if (!exponent->is_constant_like() || exponent->type().numel() != 1) {
    return Support::No(absl::StrCat("exponent '", exponent->name(),
                                    "' is not a one-element constant: XNNPACK has square and "
                                    "square root only"));
  }
  if (node.input(0)->sizes() != node.output(0)->sizes()) {
    return Support::No("the exponent broadcasts the base to a larger shape");
  }
  std::optional<float> value = ScalarConstant(exponent);
  if (!value.has_value()) {
    return Support::No(absl::StrCat("exponent '", exponent->name(), "' has no bound value"));
  }
  if (*value != 2.0f && *value != 0.5f) {
    return Support::No(
        absl::StrCat("exponent ", *value, ": XNNPACK has square (2) and square root (0.5) only"));
  }
  return Support::Yes();
}

absl::Status SerializePow(const ir::Node& node, SubgraphSerializer& subgraph) {
  const uint32_t x = subgraph.Operand(node.input(0));
  const uint32_t out = subgraph.Output(node.output(0));
  if (*ScalarConstant(node.input(1)) == 2.0f) {
    subgraph.AddNode<node_params::Square>({x}, out);
  } else {
    subgraph.AddNode<node_params::SquareRoot>({x}, out);
  }
  return absl::OkStatus();
}

// XNNPACK normalises the innermost stored dim: logical last in a logical region, C (dim 1)
// of a channels-last 3-d/4-d tensor.
Support CheckSoftmax(const ir::Node& node) {
  const int64_t rank = static_cast<int64_t>(node.input(0)->sizes().size());
  if (rank == 0) return Support::No("softmax of a 0-d tensor: XNNPACK needs at least 1 dim");
  int64_t dim = IntAttr(node, "dim");
  if (dim < 0) dim += rank;
  const bool channels_last_rank = rank == 3 || rank == 4;
  if (dim == rank - 1) {
    return Support::Yes(channels_last_rank ? LayoutNeed::kLogical : LayoutNeed::kAny);
  }
  if (dim == 1 && channels_last_rank) return Support::Yes(LayoutNeed::kChannelsLast);
  return Support::No(absl::StrCat("softmax over dim ", dim, " of a rank-", rank,
                                  " tensor: XNNPACK normalises the innermost stored dim only "
                                  "(the last, or the channels of a channels-last tensor)"));
}

}  // namespace

std::vector<OpCapability> ElementwiseCapabilities() {
  return {
      {"edge.add", CheckBinary, SerializeBinary<node_params::Add2>},
      {"edge.sub", CheckBinary, SerializeBinary<node_params::Subtract>},
      {"edge.mul", CheckBinary, SerializeBinary<node_params::Multiply2>},
      {"edge.div", CheckBinary, SerializeBinary<node_params::Divide>},
      {"edge.maximum", CheckBinary, SerializeBinary<node_params::Maximum2>},
      {"edge.minimum", CheckBinary, SerializeBinary<node_params::Minimum2>},
      {"edge.clamp", CheckClamp, SerializeClamp},
      {"edge.hardswish", Always, SerializeUnary<node_params::Hardswish>},
      {"edge.hardsigmoid", Always, SerializeHardsigmoid},
      {"edge.sigmoid", Always, SerializeUnary<node_params::Sigmoid>},
      {"edge.silu", Always, SerializeSilu},
      {"edge.leaky_relu", Always, SerializeLeakyRelu},
      {"edge.neg", Always, SerializeUnary<node_params::Negate>},
      {"edge.abs", Always, SerializeUnary<node_params::Abs>},
      {"edge.sqrt", Always, SerializeUnary<node_params::SquareRoot>},
      {"edge.rsqrt", Always, SerializeRsqrt},
      {"edge.reciprocal", Always, SerializeReciprocal},
      {"edge.floor", Always, SerializeUnary<node_params::Floor>},
      {"edge.ceil", Always, SerializeUnary<node_params::Ceiling>},
      {"edge.round", Always, SerializeUnary<node_params::BankersRounding>},
      {"edge.elu", CheckElu, SerializeElu},
      {"edge.prelu", CheckPrelu, SerializePrelu},
      {"edge.pow", CheckPow, SerializePow},
      {"edge.softmax", CheckSoftmax, SerializeUnary<node_params::Softmax>},
  };
}

}  // namespace torchir::xnnpack
