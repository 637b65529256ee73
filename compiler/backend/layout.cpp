#include "compiler/backend/layout.h"

#include <cstddef>
#include <utility>

namespace torchir::backend {
namespace {

// The logical dim ids of the non-1 dims of `sizes` in the order `perm` stores them; `ids`
// renames logical dims (to compare tensors of different ranks).
std::vector<int64_t> StoredOrder(const std::vector<int64_t>& sizes,
                                 const std::vector<int64_t>& perm,
                                 const std::vector<int64_t>& ids) {
  std::vector<int64_t> order;
  for (int64_t dim : perm) {
    if (sizes[static_cast<size_t>(dim)] != 1) order.push_back(ids[static_cast<size_t>(dim)]);
  }
  return order;
}

std::vector<int64_t> Iota(size_t n) {
  std::vector<int64_t> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<int64_t>(i);
  return values;
}

bool IsChannelsLastRank(size_t rank) { return rank == 3 || rank == 4; }

}  // namespace

std::string_view LayoutName(Layout layout) {
  return layout == Layout::kChannelsLast ? "channels-last" : "logical";
}

std::string_view LayoutNeedName(LayoutNeed need) {
  switch (need) {
    case LayoutNeed::kAny:
      return "any";
    case LayoutNeed::kChannelsLast:
      return "channels-last";
    case LayoutNeed::kLogical:
      return "logical";
  }
  return "?";
}

bool Satisfies(Layout layout, LayoutNeed need) {
  if (need == LayoutNeed::kAny) return true;
  return (need == LayoutNeed::kChannelsLast) == (layout == Layout::kChannelsLast);
}

bool CombineNeeds(LayoutNeed a, LayoutNeed b, LayoutNeed* combined) {
  if (a == LayoutNeed::kAny) {
    *combined = b;
    return true;
  }
  if (b == LayoutNeed::kAny || a == b) {
    *combined = a;
    return true;
  }
  return false;
}

std::vector<int64_t> PhysicalPermutation(Layout layout, size_t rank) {
  if (layout == Layout::kChannelsLast && rank == 3) return {0, 2, 1};
  if (layout == Layout::kChannelsLast && rank == 4) return {0, 2, 3, 1};
  return Iota(rank);
}

bool IsIdentityPermutation(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> InversePermutation(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inverse;
}

std::vector<int64_t> PermuteSizes(const std::vector<int64_t>& sizes,
                                  const std::vector<int64_t>& perm) {
  std::vector<int64_t> permuted(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) permuted[i] = sizes[static_cast<size_t>(perm[i])];
  return permuted;
}

std::vector<int64_t> PhysicalDims(const std::vector<int64_t>& sizes, Layout layout) {
  return PermuteSizes(sizes, PhysicalPermutation(layout, sizes.size()));
}

bool PermutationKeepsOrder(const std::vector<int64_t>& sizes, const std::vector<int64_t>& perm) {
  const std::vector<int64_t> ids = Iota(sizes.size());
  return StoredOrder(sizes, perm, ids) == StoredOrder(sizes, ids, ids);
}

bool BroadcastKeepsOrder(const std::vector<int64_t>& sizes, size_t rank, Layout layout) {
  if (sizes.size() > rank) return false;
  const size_t lead = rank - sizes.size();
  // Logical dim j of the operand is dim lead + j of the broadcast tensor; added dims are 1s.
  std::vector<int64_t> padded(lead, 1);
  padded.insert(padded.end(), sizes.begin(), sizes.end());
  std::vector<int64_t> padded_ids(rank, -1);
  for (size_t j = 0; j < sizes.size(); ++j) padded_ids[lead + j] = static_cast<int64_t>(j);
  return StoredOrder(sizes, PhysicalPermutation(layout, sizes.size()), Iota(sizes.size())) ==
         StoredOrder(padded, PhysicalPermutation(layout, rank), padded_ids);
}

bool ReshapeKeepsOrder(const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                       Layout layout) {
  if (PermutationKeepsOrder(from, PhysicalPermutation(layout, from.size())) &&
      PermutationKeepsOrder(to, PhysicalPermutation(layout, to.size()))) {
    return true;
  }
  // [N, C, spatial...] -> [N, C, spatial'...] stores [N, spatial..., C] -> [N, spatial'..., C]:
  // the same bytes whenever N and C stay and the spatial dims only merge or split.
  return layout == Layout::kChannelsLast && IsChannelsLastRank(from.size()) &&
         IsChannelsLastRank(to.size()) && from[0] == to[0] && from[1] == to[1];
}

}  // namespace torchir::backend
