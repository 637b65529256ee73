#include "memory_planner/greedy_by_conflict.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace torchir::memory_planner {
namespace {

// Sorted keys and prefix[i] = sum of the sizes of the first i keys.
struct SortedSums {
  std::vector<int64_t> keys;
  std::vector<uint64_t> prefix;
};

SortedSums SortBy(const std::vector<Block>& blocks, int64_t Block::*key) {
  std::vector<std::pair<int64_t, uint64_t>> items(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) items[i] = {blocks[i].*key, blocks[i].size};
  std::sort(items.begin(), items.end());
  SortedSums sums;
  sums.keys.resize(items.size());
  sums.prefix.assign(items.size() + 1, 0);
  for (size_t i = 0; i < items.size(); ++i) {
    sums.keys[i] = items[i].first;
    sums.prefix[i + 1] = sums.prefix[i] + items[i].second;
  }
  return sums;
}

}  // namespace

std::vector<uint64_t> ConflictingBytes(const std::vector<Block>& blocks) {
  const SortedSums by_first = SortBy(blocks, &Block::first_use);
  const SortedSums by_last = SortBy(blocks, &Block::last_use);
  std::vector<uint64_t> conflicting(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    const size_t started =
        std::upper_bound(by_first.keys.begin(), by_first.keys.end(), blocks[i].last_use) -
        by_first.keys.begin();
    const size_t ended =
        std::lower_bound(by_last.keys.begin(), by_last.keys.end(), blocks[i].first_use) -
        by_last.keys.begin();
    conflicting[i] = by_first.prefix[started] - by_last.prefix[ended] - blocks[i].size;
  }
  return conflicting;
}

std::string GreedyByConflict::Name() const {
  return "greedy_by_conflict/" + std::string(FitPolicyName(policy_));
}

std::vector<uint64_t> GreedyByConflict::Place(const std::vector<Block>& blocks) const {
  const std::vector<uint64_t> conflicting = ConflictingBytes(blocks);
  std::vector<uint64_t> pressure(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) pressure[i] = conflicting[i] + blocks[i].size;
  const std::vector<int32_t> order = OrderByPriority(blocks, pressure);
  return PlaceInOrder(blocks, order, policy_);
}

}  // namespace torchir::memory_planner
