// How many bytes are live at each instruction. Its peak is the lower bound of every valid layout:
// blocks live at the same instruction need disjoint bytes, so no arena can be smaller than the
// largest sum of their sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "memory_planner/storage_groups.h"

namespace torchir::memory_planner {

// Live bytes over time for a set of blocks, built in O(n log n):
//   1. live bytes only rise where some block starts, so it suffices to know them at the distinct
//      first_use values;
//   2. at a start s they are (sizes of blocks with first_use <= s) - (sizes with last_use < s),
//      two prefix sums over the blocks sorted by first_use and by last_use;
//   3. a max segment tree over those values answers the peak inside any window in O(log n).
class LiveBytesProfile {
 public:
  explicit LiveBytesProfile(const std::vector<Block>& blocks);

  // The largest live bytes at any instruction; 0 without blocks.
  uint64_t Peak() const { return PeakWithin(kMinTime, kMaxTime); }

  // The largest live bytes at any instruction in [first, last].
  uint64_t PeakWithin(int64_t first, int64_t last) const;

  // The bytes live at instruction `time`.
  uint64_t At(int64_t time) const;

 private:
  static constexpr int64_t kMinTime = INT64_MIN;
  static constexpr int64_t kMaxTime = INT64_MAX;

  std::vector<int64_t> starts_;         // distinct first_use values, ascending
  std::vector<uint64_t> tree_;          // max segment tree over live bytes at starts_[i]
  std::vector<int64_t> sorted_first_;   // every block's first_use, ascending
  std::vector<uint64_t> first_prefix_;  // prefix sums of sizes in that order
  std::vector<int64_t> sorted_last_;    // every block's last_use, ascending
  std::vector<uint64_t> last_prefix_;
};

// Convenience: LiveBytesProfile(blocks).Peak().
uint64_t PeakLiveBytes(const std::vector<Block>& blocks);

}  // namespace torchir::memory_planner
