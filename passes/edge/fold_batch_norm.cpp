#include "passes/edge/fold_batch_norm.h"

#include <cmath>

#include "passes/edge/constant_data.h"

namespace torchir::passes {
namespace {

bool HasNoFusedClamp(const ir::Node& producer) {
  return std::isinf(producer.FindAttr("output_min")->as_double()) &&
         std::isinf(producer.FindAttr("output_max")->as_double()) &&
         producer.FindAttr("output_min")->as_double() < 0 &&
         producer.FindAttr("output_max")->as_double() > 0;
}

// Folds `bn` into its producer; false when a precondition does not hold.
bool TryFold(ir::Graph& graph, ir::Node* bn) {
  ir::Value* x = bn->input(0);
  ir::Node* producer = x->producer();
  if (producer == nullptr || x->uses().size() != 1 || x->is_graph_output()) return false;
  const bool is_conv = producer->op() == "edge.convolution";
  const bool is_linear = producer->op() == "edge.linear" && x->type().rank() == 2;
  if ((!is_conv && !is_linear) || !HasNoFusedClamp(*producer)) return false;

  auto weight = ReadFloat32(producer->input(1));
  auto mean = ReadFloat32(bn->input(1));
  auto var = ReadFloat32(bn->input(2));
  if (!weight || !mean || !var) return false;
  const size_t channels = mean->size();
  std::vector<float> gamma(channels, 1.0f), beta(channels, 0.0f), bias(channels, 0.0f);
  if (bn->num_inputs() > 3) {
    auto values = ReadFloat32(bn->input(3));
    if (!values) return false;
    gamma = *values;
  }
  if (bn->num_inputs() > 4) {
    auto values = ReadFloat32(bn->input(4));
    if (!values) return false;
    beta = *values;
  }
  if (producer->num_inputs() > 2) {
    auto values = ReadFloat32(producer->input(2));
    if (!values) return false;
    bias = *values;
  }
  const double eps = bn->FindAttr("eps")->as_double();
  const size_t per_channel = weight->size() / channels;
  std::vector<float> new_weight(weight->size()), new_bias(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double scale = gamma[c] / std::sqrt(static_cast<double>((*var)[c]) + eps);
    const double shift = beta[c] - (*mean)[c] * scale;
    for (size_t i = 0; i < per_channel; ++i) {
      new_weight[c * per_channel + i] = static_cast<float>((*weight)[c * per_channel + i] * scale);
    }
    new_bias[c] = static_cast<float>(bias[c] * scale + shift);
  }
  ir::Value* folded_weight = AddFloat32Constant(graph, producer->input(1)->name() + "_bn_folded",
                                                producer->input(1)->sizes(), new_weight);
  ir::Value* folded_bias = AddFloat32Constant(graph, producer->name() + "_bias_bn_folded",
                                              {static_cast<int64_t>(channels)}, new_bias);
  producer->ReplaceInput(1, folded_weight);
  if (producer->num_inputs() > 2) {
    producer->ReplaceInput(2, folded_bias);
  } else {
    producer->AddInput(folded_bias);
  }
  graph.ReplaceAllUsesWith(bn->output(), x);
  graph.EraseNode(bn);
  return true;
}

}  // namespace

absl::Status FoldBatchNorm::Run(ir::Graph& graph, PassContext& context) {
  int64_t folded = 0;
  for (ir::Node* node : graph.NodeSnapshot()) {
    if (node->op() == "edge.batch_norm" && TryFold(graph, node)) ++folded;
  }
  if (folded > 0) {
    context.MarkChanged();
    context.AddToCounter("batch_norms_folded", folded);
  }
  return absl::OkStatus();
}

}  // namespace torchir::passes
