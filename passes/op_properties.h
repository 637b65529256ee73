// What the generic passes may assume about an op, asked per node instead of hard-coding op names.
#pragma once

#include "compiler/ir/graph.h"

namespace torchir::passes {

// Answers the questions generic passes ask about a node's op. The op tables supply their own
// implementation (the Edge op table knows every Edge op); DefaultOpProperties serves graphs
// whose ops no table describes.
class OpProperties {
 public:
  virtual ~OpProperties() = default;

  // True when the node has no side effects and its outputs depend only on its inputs and
  // attributes: two such nodes with equal inputs and attributes may be merged (CSE), and one
  // whose outputs are unused may be deleted (DCE). When unsure, answer false.
  virtual bool IsPure(const ir::Node& node) const = 0;

  // True when swapping the node's first two inputs leaves its outputs unchanged (add, mul,
  // maximum with no scaling attribute). Only asked about nodes with at least two inputs.
  virtual bool IsCommutative(const ir::Node& node) const = 0;
};

// The conservative answers for ATen-level graphs:
//   - impure: ops with no outputs (asserts, prints), in-place ATen ops (`aten.<name>_.<overload>`,
//     `aten.__i<op>__.<overload>`), `out` overloads (they write an argument), and ATen's random
//     ops (rand, randn, dropout, bernoulli, ...: two calls differ);
//   - pure: everything else;
//   - commutative: nothing (knowing that needs the op table; false is always safe).
class DefaultOpProperties : public OpProperties {
 public:
  bool IsPure(const ir::Node& node) const override;
  bool IsCommutative(const ir::Node& node) const override;
};

// A shared DefaultOpProperties.
const OpProperties& GetDefaultOpProperties();

// True for an in-place ATen op name such as "aten.add_.Tensor" or "aten.__iand__.Tensor";
// false for "aten.__and__.Tensor", "aten.relu.default" and non-ATen ops.
bool IsInPlaceAtenOp(const std::string& op);

}  // namespace torchir::passes
