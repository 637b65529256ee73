// Lowering of the batch-norm, layer-norm and group-norm families (inference only).
#include <algorithm>
#include <vector>

#include "compiler/lowering/rule_table.h"
#include "compiler/lowering/rules/rule_helpers.h"

namespace torchir::lowering {
namespace {

using dialect::AtenCall;
using ir::AttrValue;

// A constant of ones shaped `sizes`, of `dtype`: the implicit weight of an affine op given a bias
// only.
absl::StatusOr<ir::Value*> Ones(EdgeBuilder& builder, const std::vector<int64_t>& sizes,
                                ir::DType dtype) {
  const ir::TensorType type{ir::DType::kFloat32, sizes};
  TORCHIR_RETURN_IF_ERROR(CheckMaterializable(type));
  const std::vector<float> ones(static_cast<size_t>(type.numel()), 1.0f);
  ir::Value* value =
      builder.Constant(type, ir::TensorData::Copy(ones.data(), ones.size() * sizeof(float)));
  return builder.CastTo(value, dtype);
}

// edge.batch_norm(input, mean, var[, weight[, bias]]) for every eval-mode batch-norm op. `outputs`
// is the ATen node's output count; the saved statistics after the first are unusable.
Results BatchNormEval(LoweringContext& ctx, const AtenCall& call, size_t outputs) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mean, ctx.OptionalTensor(call, "running_mean"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * var, ctx.OptionalTensor(call, "running_var"));
  TORCHIR_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  if (mean == nullptr || var == nullptr) {
    return Unsupported("eval-mode batch norm needs running_mean and running_var");
  }
  std::vector<ir::Value*> inputs = {input, mean, var};
  if (bias != nullptr && weight == nullptr) {
    if (input->type().rank() < 2) return Unsupported("batch norm input has no channel dimension");
    TORCHIR_ASSIGN_OR_RETURN(weight, Ones(ctx.builder(), {input->sizes()[1]}, input->dtype()));
  }
  if (weight != nullptr) inputs.push_back(weight);
  if (bias != nullptr) inputs.push_back(bias);
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * out, ctx.builder().Emit1("edge.batch_norm", inputs,
                                                                {{"eps", AttrValue::Double(eps)}}));
  std::vector<ir::Value*> results(outputs, nullptr);
  results[0] = out;
  return results;
}

// Batch norm with training=true normalises with the batch's own statistics over every dim but
// the channels (dim 1): mean, biased variance, invstd = 1 / sqrt(var + eps), then as ATen's CPU
// kernel out = x * alpha + beta with alpha = invstd * weight, beta = bias - mean * alpha (the
// same rounding order). `outputs` as for BatchNormEval; with 3 the saved statistics are the
// batch mean and invstd, [C] each. Given running statistics, ATen also updates them in place
// (a training side effect): that is only dropped when nothing else in the graph reads them.
Results BatchNormTraining(LoweringContext& ctx, const AtenCall& call, size_t outputs) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  TORCHIR_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  for (const char* name : {"running_mean", "running_var"}) {
    if (!call.Find(name).ok()) continue;
    TORCHIR_ASSIGN_OR_RETURN(ir::Value * stats, call.OptionalTensor(name));
    if (stats != nullptr && (stats->uses().size() > 1 || stats->is_graph_output())) {
      return Unsupported(absl::StrCat(
          "batch norm with training=true updates ", name,
          " in place and this graph reads it afterwards; torchir compiles inference: export the "
          "model in eval() mode"));
    }
  }
  const std::vector<int64_t>& sizes = input->sizes();
  if (sizes.size() < 2) return Unsupported("batch norm input has no channel dimension");
  EdgeBuilder& builder = ctx.builder();
  const ir::DType dtype = input->dtype();
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < static_cast<int64_t>(sizes.size()); ++d) dims.push_back(d);
  const Attrs over_batch = {{"dims", AttrValue::IntList(dims)}, {"keepdim", AttrValue::Bool(true)}};
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mean, builder.Emit1("edge.mean", {input}, over_batch));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * centred, builder.Emit1("edge.sub", {input, mean}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * square, builder.Emit1("edge.mul", {centred, centred}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * var, builder.Emit1("edge.mean", {square}, over_batch));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * eps_value, builder.Scalar(eps, dtype));
  TORCHIR_ASSIGN_OR_RETURN(var, builder.Emit1("edge.add", {var, eps_value}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * invstd, builder.Emit1("edge.sqrt", {var}));
  TORCHIR_ASSIGN_OR_RETURN(invstd, builder.Emit1("edge.reciprocal", {invstd}));
  // Per-channel operands broadcast as [C, 1, ...] against [N, C, ...].
  std::vector<int64_t> channel_shape(sizes.size() - 1, 1);
  channel_shape[0] = sizes[1];
  ir::Value* alpha = invstd;
  if (weight != nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(weight, builder.ReshapeTo(weight, channel_shape));
    TORCHIR_ASSIGN_OR_RETURN(alpha, builder.Emit1("edge.mul", {invstd, weight}));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * shift, builder.Emit1("edge.mul", {mean, alpha}));
  ir::Value* beta = nullptr;
  if (bias != nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(bias, builder.ReshapeTo(bias, channel_shape));
    TORCHIR_ASSIGN_OR_RETURN(beta, builder.Emit1("edge.sub", {bias, shift}));
  } else {
    TORCHIR_ASSIGN_OR_RETURN(beta, builder.Emit1("edge.neg", {shift}));
  }
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * out, builder.Emit1("edge.mul", {input, alpha}));
  TORCHIR_ASSIGN_OR_RETURN(out, builder.Emit1("edge.add", {out, beta}));
  std::vector<ir::Value*> results(outputs, nullptr);
  results[0] = out;
  if (outputs == 3) {
    TORCHIR_ASSIGN_OR_RETURN(results[1], builder.ReshapeTo(mean, {sizes[1]}));
    TORCHIR_ASSIGN_OR_RETURN(results[2], builder.ReshapeTo(invstd, {sizes[1]}));
  }
  return results;
}

// batch_norm, native_batch_norm and _native_batch_norm_legit (with running statistics): the
// running statistics in eval mode, the batch's own with training=true.
Results BatchNormEither(LoweringContext& ctx, const AtenCall& call, size_t outputs) {
  TORCHIR_ASSIGN_OR_RETURN(bool training, call.Bool("training"));
  if (training) return BatchNormTraining(ctx, call, outputs);
  return BatchNormEval(ctx, call, outputs);
}

Results BatchNorm(LoweringContext& ctx, const AtenCall& call) {
  return BatchNormEither(ctx, call, 1);
}

// _native_batch_norm_legit_no_training, _native_batch_norm_legit, native_batch_norm: (out,
// save_mean, save_invstd).
Results NativeBatchNormNoTraining(LoweringContext& ctx, const AtenCall& call) {
  return BatchNormEval(ctx, call, 3);
}

Results NativeBatchNorm(LoweringContext& ctx, const AtenCall& call) {
  return BatchNormEither(ctx, call, 3);
}

// _native_batch_norm_legit.no_stats: batch statistics only (ATen has no statistics to use with
// training=false).
Results NativeBatchNormNoStats(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(bool training, call.Bool("training"));
  if (!training) {
    return absl::InvalidArgumentError(
        "_native_batch_norm_legit.no_stats with training=false has no statistics to normalise "
        "with");
  }
  return BatchNormTraining(ctx, call, 3);
}

// edge.layer_norm(input[, weight[, bias]]); `outputs` as for BatchNormEval (out, mean, rstd).
Results LayerNormImpl(LoweringContext& ctx, const AtenCall& call, size_t outputs) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(std::vector<int64_t> normalized_shape, call.IntList("normalized_shape"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  TORCHIR_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  std::vector<ir::Value*> inputs = {input};
  if (bias != nullptr && weight == nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(weight, Ones(ctx.builder(), normalized_shape, input->dtype()));
  }
  if (weight != nullptr) inputs.push_back(weight);
  if (bias != nullptr) inputs.push_back(bias);
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * out,
      ctx.builder().Emit1("edge.layer_norm", inputs,
                          {{"normalized_shape", AttrValue::IntList(normalized_shape)},
                           {"eps", AttrValue::Double(eps)}}));
  std::vector<ir::Value*> results(outputs, nullptr);
  results[0] = out;
  return results;
}

Results LayerNorm(LoweringContext& ctx, const AtenCall& call) {
  return LayerNormImpl(ctx, call, 1);
}

Results NativeLayerNorm(LoweringContext& ctx, const AtenCall& call) {
  return LayerNormImpl(ctx, call, 3);
}

// Group norm has no Edge op; it decomposes over x viewed as [N, groups, rest]: d = x - mean(x), y =
// d * rsqrt(mean(d * d) + eps), then the per-channel affine.
Results GroupNormImpl(LoweringContext& ctx, const AtenCall& call, int64_t groups, size_t outputs) {
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * input, ctx.Tensor(call, "input"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * weight, ctx.OptionalTensor(call, "weight"));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * bias, ctx.OptionalTensor(call, "bias"));
  TORCHIR_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  const std::vector<int64_t>& sizes = input->sizes();
  if (sizes.size() < 2 || groups <= 0 || sizes[1] % groups != 0) {
    return Unsupported(
        absl::StrCat("group norm of ", input->type().ToString(), " in ", groups, " groups"));
  }
  EdgeBuilder& builder = ctx.builder();
  const ir::DType dtype = input->dtype();
  const int64_t batch = sizes[0];
  TORCHIR_ASSIGN_OR_RETURN(
      ir::Value * x,
      builder.ReshapeTo(
          input, {batch, groups, input->type().numel() / std::max<int64_t>(batch * groups, 1)}));
  const Attrs over_group = {{"dims", AttrValue::IntList({2})}, {"keepdim", AttrValue::Bool(true)}};
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * mean, builder.Emit1("edge.mean", {x}, over_group));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * centred, builder.Emit1("edge.sub", {x, mean}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * square, builder.Emit1("edge.mul", {centred, centred}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * var, builder.Emit1("edge.mean", {square}, over_group));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * eps_value, builder.Scalar(eps, dtype));
  TORCHIR_ASSIGN_OR_RETURN(var, builder.Emit1("edge.add", {var, eps_value}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * rstd, builder.Emit1("edge.rsqrt", {var}));
  TORCHIR_ASSIGN_OR_RETURN(ir::Value * out, builder.Emit1("edge.mul", {centred, rstd}));
  TORCHIR_ASSIGN_OR_RETURN(out, builder.ReshapeTo(out, sizes));
  // Per-channel operands broadcast as [C, 1, ...].
  std::vector<int64_t> channel_shape(sizes.size() - 1, 1);
  channel_shape[0] = sizes[1];
  if (weight != nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(weight, builder.ReshapeTo(weight, channel_shape));
    TORCHIR_ASSIGN_OR_RETURN(out, builder.Emit1("edge.mul", {out, weight}));
  }
  if (bias != nullptr) {
    TORCHIR_ASSIGN_OR_RETURN(bias, builder.ReshapeTo(bias, channel_shape));
    TORCHIR_ASSIGN_OR_RETURN(out, builder.Emit1("edge.add", {out, bias}));
  }
  std::vector<ir::Value*> results(outputs, nullptr);
  results[0] = out;
  return results;
}

Results GroupNorm(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(int64_t groups, call.Int("num_groups"));
  return GroupNormImpl(ctx, call, groups, 1);
}

Results NativeGroupNorm(LoweringContext& ctx, const AtenCall& call) {
  TORCHIR_ASSIGN_OR_RETURN(int64_t groups, call.Int("group"));
  return GroupNormImpl(ctx, call, groups, 3);
}

}  // namespace

void AddNormalizationRules(RuleTable& table) {
  table.Add("aten.batch_norm.default", BatchNorm);
  table.Add("aten._native_batch_norm_legit_no_training.default", NativeBatchNormNoTraining);
  table.Add("aten._native_batch_norm_legit.default", NativeBatchNorm);
  table.Add("aten.native_batch_norm.default", NativeBatchNorm);
  table.Add("aten._native_batch_norm_legit.no_stats", NativeBatchNormNoStats);
  table.Add("aten.layer_norm.default", LayerNorm);
  table.Add("aten.native_layer_norm.default", NativeLayerNorm);
  table.Add("aten.group_norm.default", GroupNorm);
  table.Add("aten.native_group_norm.default", NativeGroupNorm);
}

}  // namespace torchir::lowering
