// What the generic passes need to know about Edge ops: all are pure, and the
// elementwise ones that do not care about operand order are commutative.
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
