// Folds an inference batch norm into the convolution or linear that feeds it.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// For each edge.batch_norm whose input is the only use of an edge.convolution
// (or of an edge.linear with a rank-2 output, whose features are BN's dim 1):
//   1. require float32 constant data for the producer's weight and bias (when
//      present) and for the running mean/var and the affine weight/bias, and no
//      clamp already fused into the producer;
//   2. scale[c] = gamma[c] / sqrt(var[c] + eps), shift[c] = beta[c] - mean[c] * scale[c]
//      (gamma = 1, beta = 0 when absent), computed in double;
//   3. the producer gets new constants W'[c, ...] = W[c, ...] * scale[c] and
//      b'[c] = b[c] * scale[c] + shift[c] (b = 0 when absent);
//   4. readers of the batch norm read the producer instead and the batch norm is
//      erased (the old weights become dead; dead_code_elimination removes them).
// Counter: batch_norms_folded.
class FoldBatchNorm : public Pass {
 public:
  static constexpr std::string_view kName = "fold_batch_norm";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
