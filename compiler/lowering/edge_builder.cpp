#include "compiler/lowering/edge_builder.h"

#include "absl/strings/str_cat.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/ir/scalar_encoding.h"

namespace torchir::lowering {

absl::StatusOr<std::vector<ir::Value*>> EdgeBuilder::Emit(std::string_view op,
                                                          const std::vector<ir::Value*>& inputs,
                                                          const Attrs& attrs) {
  const dialect::EdgeOpDef* def = dialect::FindEdgeOp(op);
  if (def == nullptr) {
    return absl::InternalError(absl::StrCat("lowering emitted unknown op '", std::string(op), "'"));
  }
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
