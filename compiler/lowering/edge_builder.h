// Emitting Edge nodes into a graph under construction. Every node is checked
// against the Edge op table as it is made: its output types come from the op's
// shape rule, and a node the table rejects is an error, so lowering rules never
// compute shapes by hand and never produce an ill-formed Edge graph.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace torchir::dialect {
struct EdgeOpDef;
}  // namespace torchir::dialect

namespace torchir::lowering {

using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;

class EdgeBuilder {
 public:
  explicit EdgeBuilder(ir::Graph* graph) : graph_(graph) {}

  ir::Graph& graph() { return *graph_; }

  // Names new nodes after `base` (the ATen node being lowered): "conv2d",
  // then "conv2d_1", ...
  void set_name_base(std::string base) { name_base_ = std::move(base); }
  // When set, every op Emit appends is also pushed onto `*ops` (the lowering trace).
  void set_emitted_ops(std::vector<std::string>* ops) { emitted_ops_ = ops; }

  // Appends an Edge node `op` (e.g. "edge.add") and returns its outputs. Operands in a dtype
  // the op does not take, but that PyTorch's CPU kernels compute in a wider one (float16 and
  // bfloat16 in float32; int8, uint8 and int16 in int32), are cast to it first and the
  // outputs of the same type variable cast back: explicit edge.cast nodes, rounding after
  // every op as PyTorch does.
  absl::StatusOr<std::vector<ir::Value*>> Emit(std::string_view op,
                                               const std::vector<ir::Value*>& inputs,
                                               const Attrs& attrs);
  // Emit for single-output ops.
  absl::StatusOr<ir::Value*> Emit1(std::string_view op, const std::vector<ir::Value*>& inputs,
                                   const Attrs& attrs = {});

  // A 0-d constant of `dtype` holding `value` (the Edge form of a Python scalar).
  absl::StatusOr<ir::Value*> Scalar(double value, ir::DType dtype);
  // A constant with the given type and bytes (dense, little-endian).
  ir::Value* Constant(const ir::TensorType& type, ir::TensorData data);
  // `value` converted to `dtype` (no node when it already is).
  absl::StatusOr<ir::Value*> CastTo(ir::Value* value, ir::DType dtype);
  // `value` reshaped to `sizes` (no node when it already has them).
  absl::StatusOr<ir::Value*> ReshapeTo(ir::Value* value, const std::vector<int64_t>& sizes);

 private:
  // Emit without the widening: the node exactly as given.
  absl::StatusOr<std::vector<ir::Value*>> EmitNode(const dialect::EdgeOpDef& def,
                                                   const std::vector<ir::Value*>& inputs,
                                                   const Attrs& attrs);

  ir::Graph* graph_;
  std::string name_base_ = "edge";
  std::vector<std::string>* emitted_ops_ = nullptr;
};

}  // namespace torchir::lowering
