// Output-type rules of the Edge ops. Each takes the input types and the node
// (whose attributes the verifier has already checked for presence and kind)
// and returns the output types, or an error saying what is inconsistent.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace torchir::dialect::shape_rules {

using Types = std::vector<ir::TensorType>;
using Inputs = std::vector<const ir::TensorType*>;

// Broadcasting two shapes the NumPy/PyTorch way; error when incompatible.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b);

// Normalises a possibly negative dimension index against `rank`.
absl::StatusOr<int64_t> NormalizeDim(int64_t dim, int64_t rank);

absl::StatusOr<Types> SameAsFirst(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Broadcast(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> BroadcastToBool(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Where(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Cast(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Convolution(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Linear(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Matmul(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Normalization(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> LayerNorm(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Softmax(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Reduce(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> MaxDim(const Inputs& inputs, const ir::Node& node);
// The input's type, for ops along a valid `dim` attribute (cumsum).
absl::StatusOr<Types> AlongDim(const Inputs& inputs, const ir::Node& node);
// Values and int64 indices: the input's sizes with `k` (0 <= k <= size) along `dim`.
absl::StatusOr<Types> TopK(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Pool2d(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> AdaptiveAvgPool2d(const Inputs& inputs, const ir::Node& node);
// [N, C, H, W] -> [N, C, output_size...].
absl::StatusOr<Types> Upsample2d(const Inputs& inputs, const ir::Node& node);
// [N, C, Ho, Wo] for input [N, C, H, W] and grid [N, Ho, Wo, 2]; modes 0..2 each.
absl::StatusOr<Types> GridSampler2d(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Reshape(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Permute(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Slice(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Concatenate(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> Expand(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> IndexSelect(const Inputs& inputs, const ir::Node& node);
// The input's type; index and src of the input's rank, the index within src and (outside
// `dim`) within the input.
absl::StatusOr<Types> Scatter(const Inputs& inputs, const ir::Node& node);
absl::StatusOr<Types> ConstantPad(const Inputs& inputs, const ir::Node& node);
// edge.pad: like ConstantPad, with pads >= 0 that the mode can fill (reflect: each < the dim's
// size; circular: each <= it; replicate: a non-empty dim).
absl::StatusOr<Types> ModePad(const Inputs& inputs, const ir::Node& node);

}  // namespace torchir::dialect::shape_rules
