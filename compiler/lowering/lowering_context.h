// What a lowering rule sees while it turns one ATen node into Edge nodes.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/dialect/aten_call.h"
#include "compiler/ir/graph.h"
#include "compiler/lowering/edge_builder.h"

namespace torchir::lowering {

class LoweringContext {
 public:
  LoweringContext(EdgeBuilder* builder, const ir::Node* node,
                  std::function<ir::Value*(const ir::Value*)> map)
      : builder_(builder), node_(node), map_(std::move(map)) {}

  EdgeBuilder& builder() { return *builder_; }
  // The ATen node being lowered.
  const ir::Node& node() const { return *node_; }
  // The type the ATen graph records for output `i` of the node.
  const ir::TensorType& OutputType(size_t i = 0) const { return node_->output(i)->type(); }

  // The Edge value standing for an ATen value (weights and constants are
  // brought into the Edge graph on first use).
  ir::Value* Map(const ir::Value* aten_value) { return map_(aten_value); }

  // A Tensor argument as an Edge value; nullptr-free.
  absl::StatusOr<ir::Value*> Tensor(const dialect::AtenCall& call, std::string_view name);
  // A Tensor? argument as an Edge value, or nullptr when None.
  absl::StatusOr<ir::Value*> OptionalTensor(const dialect::AtenCall& call, std::string_view name);
  // A Tensor argument that may also be given as a number (`x * 0.5`) or a Scalar
  // argument: either way an Edge value of `dtype` (a 0-d constant for numbers,
  // a cast when a tensor has another dtype).
  absl::StatusOr<ir::Value*> TensorOrScalar(const dialect::AtenCall& call, std::string_view name,
                                            ir::DType dtype);

 private:
  EdgeBuilder* builder_;
  const ir::Node* node_;
  std::function<ir::Value*(const ir::Value*)> map_;
};

// A rule returns one Edge value per output of the ATen node (nullptr for an
// output nothing may read, such as batch norm's saved statistics).
using LoweringRule =
    absl::StatusOr<std::vector<ir::Value*>> (*)(LoweringContext&, const dialect::AtenCall&);

}  // namespace torchir::lowering
