#include "memory_planner/occupancy_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace torchir::memory_planner {
namespace {

// The occupied bytes as a sorted list of disjoint ranges, merging what the index reports and
// closing holes smaller than `smallest` (the smallest block).
std::vector<std::pair<uint64_t, uint64_t>> Occupied(OccupancyIndex& index, int32_t id,
                                                    uint64_t smallest = 1) {
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  uint64_t previous_begin = 0;
  index.ForEachOccupied(id, [&](const ByteRange& range) {
    EXPECT_GE(range.begin, previous_begin) << "ranges must come in order of begin";
    previous_begin = range.begin;
    if (!merged.empty() && range.begin < merged.back().second + smallest) {
      merged.back().second = std::max(merged.back().second, range.end);
    } else {
      merged.emplace_back(range.begin, range.end);
    }
    return true;
  });
  return merged;
}

// The same, from every placed block overlapping block `id`, the slow way. Holes smaller than the
// smallest block count as taken: no block can use them, and the index may close them.
std::vector<std::pair<uint64_t, uint64_t>> BruteForce(const std::vector<Block>& blocks,
                                                      const std::vector<ByteRange>& placed,
                                                      int32_t id) {
  uint64_t smallest = UINT64_MAX;
  for (const Block& block : blocks) smallest = std::min(smallest, block.size);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (size_t other = 0; other < blocks.size(); ++other) {
    if (placed[other].end == 0) continue;
    if (blocks[other].first_use <= blocks[id].last_use &&
        blocks[id].first_use <= blocks[other].last_use) {
      ranges.emplace_back(placed[other].begin, placed[other].end);
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& range : ranges) {
    if (!merged.empty() && range.first < merged.back().second + smallest) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  return merged;
}

TEST(OccupancyIndexTest, NothingIsOccupiedBeforeAnythingIsPlaced) {
  const std::vector<Block> blocks = {{8, 1, 0, 3}, {8, 1, 2, 5}};
  OccupancyIndex index(blocks);
  EXPECT_TRUE(Occupied(index, 0).empty());
}

TEST(OccupancyIndexTest, ReportsOnlyBlocksLiveAtTheSameTime) {
  const std::vector<Block> blocks = {{8, 1, 0, 1}, {8, 1, 2, 3}, {8, 1, 1, 2}, {8, 1, 4, 4}};
  OccupancyIndex index(blocks);
  index.Place(0, {0, 8});
  index.Place(1, {16, 24});
  index.Place(3, {100, 108});
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(Occupied(index, 2), (Ranges{{0, 8}, {16, 24}}));  // touching ends overlap
  EXPECT_EQ(Occupied(index, 3), (Ranges{{100, 108}}));
}

TEST(OccupancyIndexTest, ClosesHolesTooSmallForAnyBlock) {
  // The smallest block has 8 bytes, so the 4-byte hole between the first two goes; the 8-byte
  // hole before the third stays.
  const std::vector<Block> blocks = {{8, 1, 0, 9}, {8, 1, 0, 9}, {8, 1, 0, 9}, {8, 1, 5, 5}};
  OccupancyIndex index(blocks);
  index.Place(0, {0, 8});
  index.Place(1, {12, 20});
  index.Place(2, {28, 36});
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(Occupied(index, 3), (Ranges{{0, 20}, {28, 36}}));
}

TEST(OccupancyIndexTest, StopsWhenTheVisitorSaysSo) {
  const std::vector<Block> blocks = {{8, 1, 0, 0}, {8, 1, 0, 0}, {8, 1, 0, 0}};
  OccupancyIndex index(blocks);
  index.Place(0, {0, 8});
  index.Place(1, {8, 16});
  int visits = 0;
  index.ForEachOccupied(2, [&](const ByteRange&) { return ++visits < 1; });
  EXPECT_EQ(visits, 1);
}

// Long programs exercise the multi-chunk path: lifetimes crossing chunk boundaries, whole chunks
// answered by the unions of the tree over chunks.
TEST(OccupancyIndexTest, MatchesBruteForceOnRandomPlacements) {
  std::mt19937_64 rng(9);
  for (int round = 0; round < 60; ++round) {
    const int count = 50 + static_cast<int>(rng() % 400);
    const int64_t span = 20 + static_cast<int64_t>(rng() % 2000);
    std::vector<Block> blocks;
    for (int i = 0; i < count; ++i) {
      // Sparse times in odd rounds exercise the sorting path of the time compression.
      const int64_t first = static_cast<int64_t>(rng() % span) * (round % 2 ? 1000003 : 1);
      const int64_t length =
          rng() % 10 == 0 ? static_cast<int64_t>(rng() % span) : static_cast<int64_t>(rng() % 6);
      blocks.push_back({1 + rng() % 100, 1, first, first + length * (round % 2 ? 1000003 : 1)});
    }
    uint64_t smallest = UINT64_MAX;
    for (const Block& block : blocks) smallest = std::min(smallest, block.size);
    OccupancyIndex index(blocks);
    std::vector<ByteRange> placed(blocks.size());
    std::vector<int32_t> order(blocks.size());
    for (int i = 0; i < count; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (int32_t id : order) {
      ASSERT_EQ(Occupied(index, id, smallest), BruteForce(blocks, placed, id)) << "round " << round;
      const uint64_t begin = rng() % 1000;
      placed[id] = ByteRange{begin, begin + blocks[id].size};
      index.Place(id, placed[id]);
    }
  }
}

}  // namespace
}  // namespace torchir::memory_planner
