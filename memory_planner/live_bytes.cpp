#include "memory_planner/live_bytes.h"

#include <algorithm>
#include <numeric>

namespace torchir::memory_planner {
namespace {

// Sorts `keys` with `sizes` and returns prefix sums: prefix[i] = sum of the first i sizes.
std::vector<uint64_t> SortWithPrefix(std::vector<std::pair<int64_t, uint64_t>>& items,
                                     std::vector<int64_t>* keys) {
  std::sort(items.begin(), items.end());
  keys->resize(items.size());
  std::vector<uint64_t> prefix(items.size() + 1, 0);
  for (size_t i = 0; i < items.size(); ++i) {
    (*keys)[i] = items[i].first;
    prefix[i + 1] = prefix[i] + items[i].second;
  }
  return prefix;
}

}  // namespace

LiveBytesProfile::LiveBytesProfile(const std::vector<Block>& blocks) {
  std::vector<std::pair<int64_t, uint64_t>> items(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) items[i] = {blocks[i].first_use, blocks[i].size};
  first_prefix_ = SortWithPrefix(items, &sorted_first_);
  for (size_t i = 0; i < blocks.size(); ++i) items[i] = {blocks[i].last_use, blocks[i].size};
  last_prefix_ = SortWithPrefix(items, &sorted_last_);

  starts_ = sorted_first_;
  starts_.erase(std::unique(starts_.begin(), starts_.end()), starts_.end());
  const size_t count = starts_.size();
  tree_.assign(2 * count, 0);
  for (size_t i = 0; i < count; ++i) tree_[count + i] = At(starts_[i]);
  for (size_t i = count; i-- > 1;) tree_[i] = std::max(tree_[2 * i], tree_[2 * i + 1]);
}

uint64_t LiveBytesProfile::At(int64_t time) const {
  const size_t started =
      std::upper_bound(sorted_first_.begin(), sorted_first_.end(), time) - sorted_first_.begin();
  const size_t ended =
      std::lower_bound(sorted_last_.begin(), sorted_last_.end(), time) - sorted_last_.begin();
  // Every block that ended before `time` also started before it, so this never underflows.
  return first_prefix_[started] - last_prefix_[ended];
}

uint64_t LiveBytesProfile::PeakWithin(int64_t first, int64_t last) const {
  if (first > last) return 0;
  // The peak inside [first, last] is at `first` itself or at a later start inside the window.
  uint64_t peak = first == kMinTime ? 0 : At(first);
  const size_t count = starts_.size();
  size_t lo = std::upper_bound(starts_.begin(), starts_.end(), first) - starts_.begin();
  size_t hi = std::upper_bound(starts_.begin(), starts_.end(), last) - starts_.begin();
  if (first == kMinTime) lo = 0;
  for (lo += count, hi += count; lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) peak = std::max(peak, tree_[lo++]);
    if (hi & 1) peak = std::max(peak, tree_[--hi]);
  }
  return peak;
}

uint64_t PeakLiveBytes(const std::vector<Block>& blocks) { return LiveBytesProfile(blocks).Peak(); }

}  // namespace torchir::memory_planner
