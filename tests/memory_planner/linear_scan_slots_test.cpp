#include "memory_planner/linear_scan_slots.h"

#include <gtest/gtest.h>

#include "memory_planner/gap_fit.h"
#include "memory_planner/greedy_by_size.h"
#include "memory_planner/live_bytes.h"
#include "tests/memory_planner/suboptimal_cases.h"

namespace torchir::memory_planner {
namespace {

TEST(LinearScanSlotsTest, Name) { EXPECT_EQ(LinearScanSlots().Name(), "linear_scan_slots"); }

TEST(LinearScanSlotsTest, AlternatesTwoSlotsAlongAChain) {
  const std::vector<Block> chain = test_util::AlternatingChainCase();
  const std::vector<uint64_t> offsets = LinearScanSlots().Place(chain);
  for (size_t i = 0; i < chain.size(); ++i) EXPECT_EQ(offsets[i], i % 2 == 0 ? 0u : 12u) << i;
  EXPECT_EQ(ArenaExtent(chain, offsets), test_util::kAlternatingChainSlots);
  EXPECT_EQ(ArenaExtent(chain, GreedyBySize().Place(chain)), test_util::kAlternatingChainGreedy);
  EXPECT_EQ(PeakLiveBytes(chain), test_util::kAlternatingChainLowerBound);
}

TEST(LinearScanSlotsTest, PrefersTheSmallestFreeSlotThatFits) {
  // Slots of 100 and 10 are free when the 8-byte block arrives: it takes the 10.
  const std::vector<Block> blocks = {{100, 1, 0, 0}, {10, 1, 0, 0}, {8, 1, 1, 1}};
  EXPECT_EQ(LinearScanSlots().Place(blocks), (std::vector<uint64_t>{0, 100, 100}));
}

TEST(LinearScanSlotsTest, GrowsTheLargestFreeSlotWhenNoneFits) {
  const std::vector<Block> blocks = {{10, 1, 0, 0}, {20, 1, 0, 0}, {30, 1, 1, 1}, {5, 1, 1, 1}};
  // At 0 the 20-byte block opens slot 0 (larger first) and the 10-byte one slot 1. At 1 the
  // 30-byte block grows slot 0 to 30, pushing slot 1 to offset 30; the 5 takes slot 1.
  EXPECT_EQ(LinearScanSlots().Place(blocks), (std::vector<uint64_t>{30, 0, 0, 30}));
}

TEST(LinearScanSlotsTest, AlignsEachSlot) {
  // The 8-byte block opens slot 0 at 0; slot 1 holds a block aligned to 16, so it starts at 16,
  // not 8. The empty block takes no slot.
  const std::vector<Block> blocks = {{3, 16, 0, 1}, {8, 1, 0, 1}, {0, 64, 0, 1}};
  EXPECT_EQ(LinearScanSlots().Place(blocks), (std::vector<uint64_t>{16, 0, 0}));
}

}  // namespace
}  // namespace torchir::memory_planner
