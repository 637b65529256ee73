// Convolution (1-d and 2-d, grouped and depthwise) and linear: XNNPACK's
// convolution_2d, depthwise_convolution_2d and fully_connected.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/partitioner/capability_helpers.h"
#include "backends/xnnpack/partitioner/op_capability.h"

namespace torchir::xnnpack {
namespace {

// Depthwise: one group per input channel (the filter's second dim is 1). With a single
// input channel that is an ordinary convolution.
bool IsDepthwise(const ir::Node& node) {
  const int64_t groups = IntAttr(node, "groups");
  return groups > 1 && groups == node.input(0)->sizes()[1];
}

// The range check both ops share: XNNPACK needs output_min < output_max.
std::string OutputRangeProblem(const ir::Node& node) {
  const double min = DoubleAttr(node, "output_min");
  const double max = DoubleAttr(node, "output_max");
  if (min < max) return "";
  return absl::StrCat("fused clamp [", min, ", ", max,
                      "] is empty: XNNPACK needs output_min < output_max");
}

// A convolution's window as XNNPACK's 2-d node takes it: a 1-d convolution is a 2-d one over
// [N, 1, L, C] (the same bytes as [N, L, C]).
struct ConvolutionWindow {
  std::vector<int64_t> kernel, stride, padding, dilation;  // [h, w] each
};

ConvolutionWindow ConvolutionWindowOf(const ir::Node& node) {
  const bool one_dimensional = node.input(0)->sizes().size() == 3;
  auto two_d = [&](const std::vector<int64_t>& list, int64_t height) {
    return one_dimensional ? std::vector<int64_t>{height, list[0]} : list;
  };
  const std::vector<int64_t>& weight_sizes = node.input(1)->sizes();
  return ConvolutionWindow{{one_dimensional ? 1 : weight_sizes[2], weight_sizes.back()},
                           two_d(IntsAttr(node, "stride"), 1),
                           two_d(IntsAttr(node, "padding"), 0),
                           two_d(IntsAttr(node, "dilation"), 1)};
}

// The window slots convolution_2d and depthwise_convolution_2d share; PyTorch pads
// symmetrically. The caller fills the channel slots.
template <typename Op>
std::vector<int64_t> WindowInts(const ConvolutionWindow& w) {
  std::vector<int64_t> ints(Op::kNumInts);
  ints[Op::kPadTop] = ints[Op::kPadBottom] = w.padding[0];
  ints[Op::kPadLeft] = ints[Op::kPadRight] = w.padding[1];
  ints[Op::kKernelH] = w.kernel[0];
  ints[Op::kKernelW] = w.kernel[1];
  ints[Op::kStrideH] = w.stride[0];
  ints[Op::kStrideW] = w.stride[1];
  ints[Op::kDilationH] = w.dilation[0];
  ints[Op::kDilationW] = w.dilation[1];
  return ints;
}

Support CheckConvolution(const ir::Node& node) {
  const size_t rank = node.input(0)->sizes().size();
  if (rank != 3 && rank != 4) {
    return Support::No(absl::StrCat(rank - 2, "-d convolution: XNNPACK has 2-d convolution ",
                                    "only (1-d runs as 2-d of height 1)"));
  }
  if (std::string reason = NotAConstantReason(node.input(1), "weight"); !reason.empty()) {
    return Support::No(reason);
  }
  if (node.num_inputs() > 2) {
    if (std::string reason = NotAConstantReason(node.input(2), "bias"); !reason.empty()) {
      return Support::No(reason);
    }
  }
  if (std::string problem = OutputRangeProblem(node); !problem.empty()) {
    return Support::No(problem);
  }
  const ConvolutionWindow w = ConvolutionWindowOf(node);
  if (std::string problem = WindowRangeProblem(w.kernel, w.stride, w.padding, w.dilation);
      !problem.empty()) {
    return Support::No(problem);
  }
  return Support::Yes(LayoutNeed::kChannelsLast);
}

absl::Status SerializeConvolution(const ir::Node& node, SubgraphSerializer& subgraph) {
  ir::Value* input = node.input(0);
  ir::Value* weight = node.input(1);
  ir::Value* output = node.output(0);
  const bool one_dimensional = input->sizes().size() == 3;
  const ConvolutionWindow window = ConvolutionWindowOf(node);
  const std::vector<int64_t>& weight_sizes = weight->sizes();
  const int64_t groups = IntAttr(node, "groups");
  const int64_t channels = input->sizes()[1];
  const int64_t out_channels = weight_sizes[0];

  uint32_t x = subgraph.Operand(input);
  if (one_dimensional) {
    const std::vector<int64_t> dims = subgraph.Dims(input);
    const std::vector<int64_t> nhwc = {dims[0], 1, dims[1], dims[2]};
    const uint32_t reshaped = subgraph.Internal(nhwc);
    subgraph.AddNode<node_params::StaticReshape>({x}, reshaped, nhwc);
    x = reshaped;
  }
  const bool depthwise = IsDepthwise(node);
  std::vector<uint32_t> inputs = {
      x, subgraph.Constant(weight, depthwise ? DepthwiseFilterTransform(weight_sizes)
                                             : ConvolutionFilterTransform(weight_sizes))};
  if (node.num_inputs() > 2) {
    ir::Value* bias = node.input(2);
    inputs.push_back(subgraph.Constant(bias, {bias->sizes(), {0}}));
  }
  std::vector<double> range(node_params::OutputRangeFloats::kNumFloats);
  range[node_params::OutputRangeFloats::kOutputMin] = DoubleAttr(node, "output_min");
  range[node_params::OutputRangeFloats::kOutputMax] = DoubleAttr(node, "output_max");
  std::vector<int64_t> dims;  // 1-d: the output's [N, L_out, C_out]
  uint32_t result;
  if (one_dimensional) {
    dims = subgraph.Dims(output);
    result = subgraph.Internal({dims[0], 1, dims[1], dims[2]});
  } else {
    result = subgraph.Output(output);
  }
  if (depthwise) {
    using Op = node_params::DepthwiseConvolution2d;
    std::vector<int64_t> ints = WindowInts<Op>(window);
    ints[Op::kDepthMultiplier] = out_channels / channels;
    ints[Op::kInputChannels] = channels;
    subgraph.AddNode<Op>(inputs, result, ints, range);
  } else {
    using Op = node_params::Convolution2d;
    std::vector<int64_t> ints = WindowInts<Op>(window);
    ints[Op::kGroups] = groups;
    ints[Op::kGroupInputChannels] = channels / groups;
    ints[Op::kGroupOutputChannels] = out_channels / groups;
    subgraph.AddNode<Op>(inputs, result, ints, range);
  }
  if (one_dimensional) {
    subgraph.AddNode<node_params::StaticReshape>({result}, subgraph.Output(output), dims);
  }
  return absl::OkStatus();
}

Support CheckLinear(const ir::Node& node) {
  if (std::string reason = NotAConstantReason(node.input(1), "weight"); !reason.empty()) {
    return Support::No(reason);
  }
  if (node.num_inputs() > 2) {
    if (std::string reason = NotAConstantReason(node.input(2), "bias"); !reason.empty()) {
      return Support::No(reason);
    }
  }
  if (std::string problem = OutputRangeProblem(node); !problem.empty()) {
    return Support::No(problem);
  }
  // fully_connected reduces the innermost stored dim; channels-last stores C innermost.
  const size_t rank = node.input(0)->sizes().size();
  return Support::Yes(rank == 3 || rank == 4 ? LayoutNeed::kLogical : LayoutNeed::kAny);
}

absl::Status SerializeLinear(const ir::Node& node, SubgraphSerializer& subgraph) {
  ir::Value* weight = node.input(1);
  std::vector<uint32_t> inputs = {subgraph.Operand(node.input(0)),
                                  subgraph.Constant(weight, {weight->sizes(), {0, 1}})};
  if (node.num_inputs() > 2) {
    ir::Value* bias = node.input(2);
    inputs.push_back(subgraph.Constant(bias, {bias->sizes(), {0}}));
  }
  subgraph.AddNode<node_params::FullyConnected>(
      inputs, subgraph.Output(node.output(0)), {},
      {DoubleAttr(node, "output_min"), DoubleAttr(node, "output_max")});
  return absl::OkStatus();
}

}  // namespace

std::vector<OpCapability> ConvolutionCapabilities() {
  return {
      {"edge.convolution", CheckConvolution, SerializeConvolution},
      {"edge.linear", CheckLinear, SerializeLinear},
  };
}

}  // namespace torchir::xnnpack
