#include "memory_planner/greedy_by_breadth.h"

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
  const std::vector<int32_t> order = OrderByPriority(blocks, breadth);
  return PlaceInOrder(blocks, order, policy_);
}

}  // namespace torchir::memory_planner
