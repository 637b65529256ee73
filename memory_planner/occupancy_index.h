// Which bytes the already-placed blocks hold while a given block is live: the question every
// gap-fitting placement asks, answered from time-bucketed, offset-sorted lists instead of a scan
// over all placed blocks.
#pragma once

#include <cstdint>
#include <vector>

#include "memory_planner/storage_groups.h"

namespace torchir::memory_planner {

// Bytes [begin, end).
struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Built once over every block of an arena; blocks are then placed one by one:
//   1. compress time to the distinct first_use values (two blocks overlap in time exactly when
//      their compressed ranges do, since the later start is one of them) and cut it into chunks
//      of 2^k consecutive starts, k the smallest (at least 6) for which the blocks span at most
//      2 chunks each on average, so the per-chunk records stay linear in number;
//   2. per chunk, a placed block live over the whole chunk only adds its bytes to the chunk's
//      covering union: sorted disjoint ranges that also close holes smaller than the smallest
//      block (no block fits there), so they collapse as blocks pack. A block live over part of
//      the chunk goes into its partial list instead, sorted by offset, with its lifetime;
//   3. a block whose lifetime stays within one chunk (most of them) merges the covering union
//      with the partial entries live with it, both already in offset order: no sorting;
//   4. a longer block reads the chunks at its two ends the same way, plus the byte unions of the
//      nodes of an 8-ary tree over the chunks that exactly cover the chunks in between (every
//      block live there is live with it; at most 14 nodes per level), and sorts those ranges.
//      Unions over long stretches of time collapse as blocks pack, so even a block live across
//      the whole program reads a few hundred ranges rather than every placed block.
class OccupancyIndex {
 public:
  explicit OccupancyIndex(const std::vector<Block>& blocks);

  // Records that block `id` now holds `bytes` (non-empty).
  void Place(int32_t id, ByteRange bytes);

  // Calls visit(range) for byte ranges whose union is the bytes held by placed blocks whose
  // lifetimes overlap block `id`'s, plus possibly holes between them smaller than the smallest
  // block (which no block can use), in ascending order of begin; the ranges may overlap one
  // another. Stops early when visit returns false.
  template <typename Visit>
  void ForEachOccupied(int32_t id, Visit&& visit);

 private:
  // A placed block live over part of a chunk: its bytes and compressed lifetime.
  struct Entry {
    ByteRange bytes;
    int32_t first;
    int32_t last;
  };
  struct Chunk {
    std::vector<ByteRange> covering;  // union of the blocks live over the whole chunk
    std::vector<Entry> partial;       // the other live blocks, sorted by bytes.begin
  };

  // Step 1: fills first_, last_ and time_count_.
  void CompressTime(const std::vector<Block>& blocks);
  int32_t ChunkOf(int32_t time) const { return time >> chunk_shift_; }
  bool Covers(int32_t first, int32_t last, int32_t chunk) const;

  // Step 4: the ranges for a block spanning several chunks, sorted by begin.
  const std::vector<ByteRange>& CollectAcrossChunks(int32_t first, int32_t last);

  std::vector<int32_t> first_;  // per block: compressed first_use
  std::vector<int32_t> last_;   // per block: compressed last_use
  uint64_t slack_ = 0;          // holes this small fit no block: unions close them
  int32_t time_count_ = 0;
  int chunk_shift_ = 0;
  std::vector<Chunk> chunks_;
  // The 8-ary tree: united_[level][i] is the union of the bytes of every placed block live in
  // chunks [i * 8^level, (i + 1) * 8^level); level 0 holds one node per chunk.
  std::vector<std::vector<std::vector<ByteRange>>> united_;
  std::vector<ByteRange> scratch_;
};

template <typename Visit>
void OccupancyIndex::ForEachOccupied(int32_t id, Visit&& visit) {
  const int32_t first = first_[id];
  const int32_t last = last_[id];
  if (ChunkOf(first) != ChunkOf(last)) {
    for (const ByteRange& range : CollectAcrossChunks(first, last)) {
      if (!visit(range)) return;
    }
    return;
  }
  // Merge the covering union with the live partial entries, both sorted by begin.
  const Chunk& chunk = chunks_[ChunkOf(first)];
  auto covering = chunk.covering.begin();
  for (const Entry& entry : chunk.partial) {
    if (entry.last < first || last < entry.first) continue;
    for (; covering != chunk.covering.end() && covering->begin <= entry.bytes.begin; ++covering) {
      if (!visit(*covering)) return;
    }
    if (!visit(entry.bytes)) return;
  }
  for (; covering != chunk.covering.end(); ++covering) {
    if (!visit(*covering)) return;
  }
}

}  // namespace torchir::memory_planner
