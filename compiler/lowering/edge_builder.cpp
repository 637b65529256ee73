#include "compiler/lowering/edge_builder.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/ir/scalar_encoding.h"

namespace torchir::lowering {
namespace {

using ir::DType;

// The dtype an operand of `dtype` computes in when the op's kernels do not take `dtype` itself,
// the way PyTorch's CPU kernels run them: float16 and bfloat16 in float32, 8- and 16-bit
// integers in a wider integer; nullopt when the op takes `dtype` or has no such wider dtype.
// Rounding the wide result back to the narrow dtype after each op gives PyTorch's results:
// its reduced-float kernels also compute each op in float32 and round its result, and
// integer arithmetic modulo 2^8 or 2^16 is the same whether done narrow or wide.
std::optional<DType> WideDType(DType dtype, const dialect::DTypeSet& allowed) {
  if (allowed.Contains(dtype)) return std::nullopt;
  switch (dtype) {
    case DType::kFloat16:
    case DType::kBFloat16:
      if (allowed.Contains(DType::kFloat32)) return DType::kFloat32;
      break;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt16:
      if (allowed.Contains(DType::kInt32)) return DType::kInt32;
      if (allowed.Contains(DType::kInt64)) return DType::kInt64;
      break;
    default:
      break;
  }
  return std::nullopt;
}

const dialect::DTypeSet* Allowed(const dialect::EdgeOpDef& def, const std::string& type_var) {
  for (const dialect::TypeVariable& var : def.type_vars) {
    if (var.name == type_var) return &var.allowed;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<std::vector<ir::Value*>> EdgeBuilder::Emit(std::string_view op,
                                                          const std::vector<ir::Value*>& inputs,
                                                          const Attrs& attrs) {
  const dialect::EdgeOpDef* def = dialect::FindEdgeOp(op);
  if (def == nullptr) {
    return absl::InternalError(absl::StrCat("lowering emitted unknown op '", std::string(op), "'"));
  }
  // Type variables whose operands come in a dtype the op does not take but computes wide:
  // variable -> (narrow, wide).
  std::map<std::string, std::pair<DType, DType>> widened;
  for (size_t i = 0; i < inputs.size() && !def->inputs.empty(); ++i) {
    const dialect::TensorOperand& operand = def->inputs[std::min(i, def->inputs.size() - 1)];
    const dialect::DTypeSet* allowed =
        operand.type_var.empty() ? nullptr : Allowed(*def, operand.type_var);
    if (allowed == nullptr || inputs[i] == nullptr) continue;
    std::optional<DType> wide = WideDType(inputs[i]->dtype(), *allowed);
    if (wide) widened.emplace(operand.type_var, std::make_pair(inputs[i]->dtype(), *wide));
  }
  if (widened.empty()) return EmitNode(*def, inputs, attrs);

  std::vector<ir::Value*> wide_inputs = inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const dialect::TensorOperand& operand = def->inputs[std::min(i, def->inputs.size() - 1)];
    auto it = widened.find(operand.type_var);
    if (it == widened.end() || inputs[i]->dtype() != it->second.first) continue;
    absl::StatusOr<ir::Value*> wide = CastTo(inputs[i], it->second.second);
    if (!wide.ok()) return wide.status();
    wide_inputs[i] = *wide;
  }
  absl::StatusOr<std::vector<ir::Value*>> outputs = EmitNode(*def, wide_inputs, attrs);
  if (!outputs.ok()) return outputs.status();
  for (size_t i = 0; i < outputs->size() && i < def->outputs.size(); ++i) {
    auto it = widened.find(def->outputs[i].type_var);
    if (it == widened.end()) continue;
    absl::StatusOr<ir::Value*> narrow = CastTo((*outputs)[i], it->second.first);
    if (!narrow.ok()) return narrow.status();
    (*outputs)[i] = *narrow;
  }
  return outputs;
}

absl::StatusOr<std::vector<ir::Value*>> EdgeBuilder::EmitNode(
    const dialect::EdgeOpDef& op_def, const std::vector<ir::Value*>& inputs, const Attrs& attrs) {
  const dialect::EdgeOpDef* def = &op_def;
  const std::string op = def->name;
  // Build the node with placeholder output types, ask the shape rule, then fix them.
  std::string name = graph_->UniqueNodeName(name_base_);
  std::vector<std::string> output_names;
  std::vector<ir::TensorType> output_types(def->outputs.size());
  for (size_t i = 0; i < def->outputs.size(); ++i) {
    output_names.push_back(graph_->UniqueValueName(
        def->outputs.size() == 1 ? name : absl::StrCat(name, "_", i)));
  }
  ir::Node* node = graph_->AppendNode(name, std::string(op), inputs, output_names, output_types);
  for (const auto& [key, value] : attrs) node->SetAttr(key, value);
  std::vector<const ir::TensorType*> types;
  for (const ir::Value* input : inputs) types.push_back(&input->type());
  absl::StatusOr<std::vector<ir::TensorType>> computed = def->shape_rule(types, *node);
  absl::Status status = computed.status();
  if (status.ok()) {
    for (size_t i = 0; i < node->num_outputs(); ++i) node->output(i)->set_type((*computed)[i]);
    status = dialect::VerifyEdgeNode(*node);
  } else {
    status = absl::InvalidArgumentError(
        absl::StrCat("node '", name, "' (", std::string(op), "): ", status.message()));
  }
  if (!status.ok()) {
    graph_->EraseNode(node);
    return status;
  }
  if (emitted_ops_ != nullptr) emitted_ops_->push_back(std::string(op));
  return node->outputs();
}

absl::StatusOr<ir::Value*> EdgeBuilder::Emit1(std::string_view op,
                                              const std::vector<ir::Value*>& inputs,
                                              const Attrs& attrs) {
  absl::StatusOr<std::vector<ir::Value*>> outputs = Emit(op, inputs, attrs);
  if (!outputs.ok()) return outputs.status();
  return outputs->front();
}

absl::StatusOr<ir::Value*> EdgeBuilder::Scalar(double value, ir::DType dtype) {
  std::vector<uint8_t> bytes;
  ir::Number number;
  number.real = value;
  if (!ir::AppendScalar(dtype, number, &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("scalar ", value, " cannot be represented as ",
                                                   std::string(ir::DTypeName(dtype))));
  }
  return Constant(ir::TensorType{dtype, {}}, ir::TensorData::Copy(bytes.data(), bytes.size()));
}

ir::Value* EdgeBuilder::Constant(const ir::TensorType& type, ir::TensorData data) {
  std::string name = graph_->UniqueValueName(absl::StrCat("_const_", name_base_));
  return graph_->AddConstant(name, type, std::move(data));
}

absl::StatusOr<ir::Value*> EdgeBuilder::CastTo(ir::Value* value, ir::DType dtype) {
  if (value->dtype() == dtype) return value;
  return Emit1("edge.cast", {value}, {{"dtype", ir::AttrValue::OfDType(dtype)}});
}

absl::StatusOr<ir::Value*> EdgeBuilder::ReshapeTo(ir::Value* value,
                                                 const std::vector<int64_t>& sizes) {
  if (value->sizes() == sizes) return value;
  return Emit1("edge.reshape", {value}, {{"shape", ir::AttrValue::IntList(sizes)}});
}

}  // namespace torchir::lowering
