// Linear-scan slots: blocks share fixed slots, handed out in time order like registers.
#pragma once

#include "memory_planner/placement_algorithm.h"

namespace torchir::memory_planner {

// Register allocation by linear scan, with slots for registers:
//   1. sweep the blocks in order of first_use (ties: larger first, then lower index);
//   2. before each block, return to the free pool every slot whose occupant's last_use has passed;
//   3. give the block the smallest free slot at least its size, else the largest free slot
//      (which grows to the block's size), else a new slot;
//   4. a slot's size and alignment are the largest of its occupants'; lay the slots out end to
//      end, in the order they were opened, and put each block at its slot's offset.
// Slots never split or merge, so it wastes bytes when sizes vary a lot, but it follows time where
// the greedy orderings follow size: on a chain whose sizes alternate it keeps two slots where
// greedy by size stacks a third block on top (see linear_scan_slots_test.cpp).
class LinearScanSlots : public PlacementAlgorithm {
 public:
  std::string Name() const override { return "linear_scan_slots"; }
  std::vector<uint64_t> Place(const std::vector<Block>& blocks) const override;
};

}  // namespace torchir::memory_planner
