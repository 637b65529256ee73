// Fuses a clamp (relu, relu6, hardtanh, clamp) into the convolution or linear
// that feeds it, as that op's output clamp.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// For each edge.clamp whose input is the only use of an edge.convolution or
// edge.linear: the producer's [output_min, output_max] becomes its intersection
// with the clamp's [min, max], readers of the clamp read the producer, and the
// clamp is erased. Counter: activations_fused.
class FuseActivation : public Pass {
 public:
  static constexpr std::string_view kName = "fuse_activation";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
