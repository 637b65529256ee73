#include "memory_planner/occupancy_index.h"

#include <algorithm>
#include <limits>

namespace torchir::memory_planner {
namespace {

constexpr int kMinChunkShift = 6;           // chunks of at least 64 starts hold typical lifetimes
constexpr uint64_t kMaxChunksPerBlock = 2;  // average chunks spanned: bounds duplication
constexpr int64_t kFanOut = 8;              // children per node of the tree over chunks

// Orders ranges by begin. Most calls see a few hundred ranges, where std::sort is fastest; past
// that a radix sort on begin (8 bits per pass, as many passes as the largest begin needs) stays
// linear.
void SortByBegin(std::vector<ByteRange>* ranges) {
  constexpr size_t kRadixThreshold = 2048;
  if (ranges->size() < kRadixThreshold) {
    std::sort(ranges->begin(), ranges->end(),
              [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
    return;
  }
  uint64_t largest = 0;
  for (const ByteRange& range : *ranges) largest = std::max(largest, range.begin);
  std::vector<ByteRange> sorted(ranges->size());
  for (int shift = 0; shift < 64 && (largest >> shift) != 0; shift += 8) {
    size_t counts[257] = {};
    for (const ByteRange& range : *ranges) ++counts[((range.begin >> shift) & 0xff) + 1];
    for (int digit = 0; digit < 256; ++digit) counts[digit + 1] += counts[digit];
    for (const ByteRange& range : *ranges) sorted[counts[(range.begin >> shift) & 0xff]++] = range;
    ranges->swap(sorted);
  }
}

// Adds `bytes` to a sorted list of disjoint ranges, merging what it touches and closing holes of
// at most `slack` bytes: no block fits in them, so nothing can tell them from taken bytes.
void Unite(ByteRange bytes, uint64_t slack, std::vector<ByteRange>* united) {
  auto padded = [slack](uint64_t end) {
    return end > std::numeric_limits<uint64_t>::max() - slack ? std::numeric_limits<uint64_t>::max()
                                                              : end + slack;
  };
  auto first = std::lower_bound(
      united->begin(), united->end(), bytes.begin,
      [&](const ByteRange& range, uint64_t begin) { return padded(range.end) < begin; });
  auto last = first;
  while (last != united->end() && last->begin <= padded(bytes.end)) {
    bytes.begin = std::min(bytes.begin, last->begin);
    bytes.end = std::max(bytes.end, last->end);
    ++last;
  }
  if (first == last) {
    united->insert(first, bytes);
  } else {
    *first = bytes;
    united->erase(first + 1, last);
  }
}

}  // namespace

OccupancyIndex::OccupancyIndex(const std::vector<Block>& blocks)
    : first_(blocks.size()), last_(blocks.size()) {
  uint64_t smallest = 0;
  for (const Block& block : blocks) {
    if (block.size > 0 && (smallest == 0 || block.size < smallest)) smallest = block.size;
  }
  slack_ = smallest == 0 ? 0 : smallest - 1;

  // 1. Compress time to the distinct starts: each start gets its rank among them, each end the
  //    rank of the last start at or before it.
  CompressTime(blocks);

  // The smallest chunk size (from 64 starts up) keeping duplication linear.
  chunk_shift_ = kMinChunkShift;
  while (chunk_shift_ < 31 && (time_count_ >> chunk_shift_) > 0) {
    uint64_t spans = 0;
    for (size_t i = 0; i < blocks.size(); ++i) {
      spans += static_cast<uint64_t>(ChunkOf(last_[i]) - ChunkOf(first_[i]) + 1);
    }
    if (spans <= kMaxChunksPerBlock * blocks.size()) break;
    ++chunk_shift_;
  }
  chunks_.resize(time_count_ == 0 ? 0 : static_cast<size_t>(ChunkOf(time_count_ - 1)) + 1);
  for (size_t count = chunks_.size(); count > 0;
       count = count == 1 ? 0 : (count + kFanOut - 1) / kFanOut) {
    united_.emplace_back(count);
  }
}

void OccupancyIndex::CompressTime(const std::vector<Block>& blocks) {
  if (blocks.empty()) return;
  int64_t earliest = blocks[0].first_use;
  int64_t latest = blocks[0].first_use;
  for (const Block& block : blocks) {
    earliest = std::min(earliest, block.first_use);
    latest = std::max(latest, block.first_use);
  }
  // Instruction indices are usually dense: then a table over them beats sorting. The difference
  // is computed unsigned so that far-apart times cannot overflow.
  const uint64_t range = static_cast<uint64_t>(latest) - static_cast<uint64_t>(earliest);
  if (range < 4 * blocks.size()) {
    // starts_up_to[t - earliest] = number of distinct starts <= t.
    std::vector<int32_t> starts_up_to(range + 1, 0);
    for (const Block& block : blocks) starts_up_to[block.first_use - earliest] = 1;
    for (size_t t = 1; t <= range; ++t) starts_up_to[t] += starts_up_to[t - 1];
    time_count_ = starts_up_to[range];
    for (size_t i = 0; i < blocks.size(); ++i) {
      first_[i] = starts_up_to[blocks[i].first_use - earliest] - 1;
      last_[i] = starts_up_to[std::min(blocks[i].last_use, latest) - earliest] - 1;
    }
    return;
  }
  // Sparse times: sort instead, keeping memory access sequential.
  std::vector<std::pair<int64_t, int32_t>> by_time(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) by_time[i] = {blocks[i].first_use, int32_t(i)};
  std::sort(by_time.begin(), by_time.end());
  std::vector<int64_t> starts;
  for (const auto& [time, id] : by_time) {
    if (starts.empty() || starts.back() != time) starts.push_back(time);
    first_[id] = static_cast<int32_t>(starts.size() - 1);
  }
  time_count_ = static_cast<int32_t>(starts.size());
  for (size_t i = 0; i < blocks.size(); ++i) by_time[i] = {blocks[i].last_use, int32_t(i)};
  std::sort(by_time.begin(), by_time.end());
  size_t passed = 0;  // starts at or before the current end
  for (const auto& [time, id] : by_time) {
    while (passed < starts.size() && starts[passed] <= time) ++passed;
    last_[id] = static_cast<int32_t>(passed) - 1;
  }
}

bool OccupancyIndex::Covers(int32_t first, int32_t last, int32_t chunk) const {
  const int64_t chunk_begin = int64_t{chunk} << chunk_shift_;
  const int64_t chunk_end = std::min<int64_t>(time_count_, int64_t{chunk + 1} << chunk_shift_) - 1;
  return first <= chunk_begin && chunk_end <= last;
}

void OccupancyIndex::Place(int32_t id, ByteRange bytes) {
  const Entry entry{bytes, first_[id], last_[id]};
  const int32_t first_chunk = ChunkOf(entry.first);
  const int32_t last_chunk = ChunkOf(entry.last);
  for (int32_t chunk = first_chunk; chunk <= last_chunk; ++chunk) {
    if (Covers(entry.first, entry.last, chunk)) {
      Unite(bytes, slack_, &chunks_[chunk].covering);
      continue;
    }
    std::vector<Entry>& partial = chunks_[chunk].partial;
    auto position = std::upper_bound(
        partial.begin(), partial.end(), bytes.begin,
        [](uint64_t begin, const Entry& other) { return begin < other.bytes.begin; });
    partial.insert(position, entry);
  }
  // Every tree node over any of the chunks, level by level up to the root.
  int64_t low = first_chunk;
  int64_t high = last_chunk;
  for (std::vector<std::vector<ByteRange>>& level : united_) {
    for (int64_t node = low; node <= high; ++node) Unite(bytes, slack_, &level[node]);
    low /= kFanOut;
    high /= kFanOut;
  }
}

const std::vector<ByteRange>& OccupancyIndex::CollectAcrossChunks(int32_t first, int32_t last) {
  scratch_.clear();
  auto add_live_ranges = [&](int32_t chunk) {
    const Chunk& record = chunks_[chunk];
    scratch_.insert(scratch_.end(), record.covering.begin(), record.covering.end());
    for (const Entry& entry : record.partial) {
      if (entry.first <= last && first <= entry.last) scratch_.push_back(entry.bytes);
    }
  };
  // The chunks at the ends count whole only if the lifetime covers them entirely.
  int32_t first_whole = ChunkOf(first);
  int32_t last_whole = ChunkOf(last);
  if (!Covers(first, last, first_whole)) add_live_ranges(first_whole++);
  if (!Covers(first, last, last_whole)) add_live_ranges(last_whole--);
  // The tree nodes exactly covering [first_whole, last_whole]: at each level, the nodes left
  // over on either side of the parents that fit entirely inside.
  int64_t low = first_whole;
  int64_t high = last_whole;
  for (size_t level = 0; level < united_.size() && low <= high; ++level) {
    const int64_t parent_low = (low + kFanOut - 1) / kFanOut;
    const int64_t parent_high = (high + 1) / kFanOut - 1;
    const bool parents_inside = parent_low <= parent_high;
    for (int64_t node = low; node <= high; ++node) {
      if (parents_inside && node == parent_low * kFanOut) node = (parent_high + 1) * kFanOut;
      if (node > high) break;
      const std::vector<ByteRange>& united = united_[level][node];
      scratch_.insert(scratch_.end(), united.begin(), united.end());
    }
    if (!parents_inside) break;
    low = parent_low;
    high = parent_high;
  }
  SortByBegin(&scratch_);
  return scratch_;
}

}  // namespace torchir::memory_planner
