#include "memory_planner/greedy_by_breadth.h"

#include <algorithm>
#include <numeric>

#include "memory_planner/live_bytes.h"

namespace torchir::memory_planner {

std::string GreedyByBreadth::Name() const {
  return "greedy_by_breadth/" + std::string(FitPolicyName(policy_));
}

std::vector<uint64_t> GreedyByBreadth::Place(const std::vector<Block>& blocks) const {
  const LiveBytesProfile profile(blocks);
  std::vector<uint64_t> breadth(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    breadth[i] = profile.PeakWithin(blocks[i].first_use, blocks[i].last_use);
  }
  std::vector<int32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (breadth[a] != breadth[b]) return breadth[a] > breadth[b];
    if (blocks[a].size != blocks[b].size) return blocks[a].size > blocks[b].size;
    if (blocks[a].first_use != blocks[b].first_use) {
      return blocks[a].first_use < blocks[b].first_use;
    }
    return a < b;
  });
  return PlaceInOrder(blocks, order, policy_);
}

}  // namespace torchir::memory_planner
