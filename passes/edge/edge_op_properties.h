// What the generic passes need to know about Edge ops: all are pure, and those whose
// table row says so (compiler/dialect/edge_ops.cpp) are commutative.
#pragma once

#include "passes/op_properties.h"

namespace torchir::passes {

class EdgeOpProperties : public OpProperties {
 public:
  bool IsPure(const ir::Node& node) const override;
  bool IsCommutative(const ir::Node& node) const override;
};

// A shared instance.
const EdgeOpProperties& GetEdgeOpProperties();

}  // namespace torchir::passes
