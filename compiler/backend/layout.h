// Memory layouts inside a delegated region. Spatial ops (XNNPACK's, the native kernels')
// read channels last, so a region that holds one keeps its 3-d and 4-d activations as
// [N, L, C] and [N, H, W, C] ("channels last"); a region without one keeps every
// tensor in its logical (PyTorch, row-major) order and needs no permutes at all.
// Tensors of other ranks are always stored logically.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torchir::backend {

enum class Layout {
  kLogical,       // row-major in the logical (NC...) order
  kChannelsLast,  // 3-d [N, C, L] as [N, L, C]; 4-d [N, C, H, W] as [N, H, W, C]
};

// What a node needs of the region that takes it.
enum class LayoutNeed {
  kAny,           // correct in both layouts (elementwise ops, fully-connected on 2-d, ...)
  kChannelsLast,  // a spatial op (convolution, pooling, spatial reductions)
  kLogical,       // depends on the logical order (fully-connected over a 4-d tensor's W, ...)
};

std::string_view LayoutName(Layout layout);  // "logical", "channels-last"
std::string_view LayoutNeedName(LayoutNeed need);

// True when a node with `need` can run in a region of `layout`.
bool Satisfies(Layout layout, LayoutNeed need);

// The need of two nodes sharing a region; false when they conflict.
bool CombineNeeds(LayoutNeed a, LayoutNeed b, LayoutNeed* combined);

// The physical order of a tensor of `rank` in `layout`: physical dim i holds
// logical dim perm[i]. Identity except channels-last at rank 3 ([0, 2, 1]) and
// rank 4 ([0, 2, 3, 1]).
std::vector<int64_t> PhysicalPermutation(Layout layout, size_t rank);

// True for the identity permutation (also for an empty one).
bool IsIdentityPermutation(const std::vector<int64_t>& perm);

// perm^-1, so that permuting by perm then by the inverse is the identity.
std::vector<int64_t> InversePermutation(const std::vector<int64_t>& perm);

// sizes permuted: result[i] = sizes[perm[i]].
std::vector<int64_t> PermuteSizes(const std::vector<int64_t>& sizes,
                                  const std::vector<int64_t>& perm);

// The dims a backend sees for a logical `sizes` in `layout`.
std::vector<int64_t> PhysicalDims(const std::vector<int64_t>& sizes, Layout layout);

// True when reading a tensor of logical `sizes` stored in `perm` order gives its
// elements in logical row-major order: perm moves only dims of size 1.
bool PermutationKeepsOrder(const std::vector<int64_t>& sizes, const std::vector<int64_t>& perm);

// True when a tensor of logical `sizes` stored as `layout` holds its elements in
// the same order as the same tensor broadcast to rank `rank` (leading 1s added)
// stored as `layout`: the operand can then be reinterpreted (a free reshape) to
// broadcast against a rank-`rank` result without moving data.
bool BroadcastKeepsOrder(const std::vector<int64_t>& sizes, size_t rank, Layout layout);

// True when reshaping logical `from` to logical `to` moves no element in `layout`
// (both sides keep logical order, or both are channels-last 3-d/4-d tensors with
// the same N and C whose spatial dims merge or split).
bool ReshapeKeepsOrder(const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                       Layout layout);

}  // namespace torchir::backend
