#include "memory_planner/linear_scan_slots.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <queue>
#include <set>
#include <utility>

#include "memory_planner/gap_fit.h"

namespace torchir::memory_planner {

std::vector<uint64_t> LinearScanSlots::Place(const std::vector<Block>& blocks) const {
  std::vector<int32_t> order;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].size > 0) order.push_back(static_cast<int32_t>(i));
  }
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (blocks[a].first_use != blocks[b].first_use) {
      return blocks[a].first_use < blocks[b].first_use;
    }
    if (blocks[a].size != blocks[b].size) return blocks[a].size > blocks[b].size;
    return a < b;
  });

  struct Slot {
    uint64_t size = 0;
    uint64_t alignment = 1;
  };
  std::vector<Slot> slots;
  std::vector<int32_t> slot_of(blocks.size(), -1);
  std::set<std::pair<uint64_t, int32_t>> free_slots;  // (size, slot)
  using Busy = std::pair<int64_t, int32_t>;           // (occupant's last_use, slot)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy;

  for (int32_t id : order) {
    const Block& block = blocks[id];
    while (!busy.empty() && busy.top().first < block.first_use) {
      const int32_t slot = busy.top().second;
      free_slots.insert({slots[slot].size, slot});
      busy.pop();
    }
    int32_t slot = -1;
    auto fitting = free_slots.lower_bound({block.size, -1});
    if (fitting != free_slots.end()) {
      slot = fitting->second;
      free_slots.erase(fitting);
    } else if (!free_slots.empty()) {
      slot = std::prev(free_slots.end())->second;  // the largest; it grows
      free_slots.erase(std::prev(free_slots.end()));
    } else {
      slot = static_cast<int32_t>(slots.size());
      slots.push_back(Slot{});
    }
    slots[slot].size = std::max(slots[slot].size, block.size);
    slots[slot].alignment = std::max(slots[slot].alignment, block.alignment);
    slot_of[id] = slot;
    busy.push({block.last_use, slot});
  }

  std::vector<uint64_t> slot_offsets(slots.size(), 0);
  uint64_t end = 0;
  for (size_t slot = 0; slot < slots.size(); ++slot) {
    slot_offsets[slot] = AlignUp(end, slots[slot].alignment);
    end = slot_offsets[slot] + slots[slot].size;
  }
  std::vector<uint64_t> offsets(blocks.size(), 0);
  for (int32_t id : order) offsets[id] = slot_offsets[slot_of[id]];
  return offsets;
}

}  // namespace torchir::memory_planner
