#include "memory_planner/greedy_by_size.h"

#include <algorithm>
#include <numeric>

namespace torchir::memory_planner {

std::string GreedyBySize::Name() const {
  return "greedy_by_size/" + std::string(FitPolicyName(policy_));
}

std::vector<uint64_t> GreedyBySize::Place(const std::vector<Block>& blocks) const {
  std::vector<int32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (blocks[a].size != blocks[b].size) return blocks[a].size > blocks[b].size;
    if (blocks[a].first_use != blocks[b].first_use) {
      return blocks[a].first_use < blocks[b].first_use;
    }
    return a < b;
  });
  return PlaceInOrder(blocks, order, policy_);
}

}  // namespace torchir::memory_planner
