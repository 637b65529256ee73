#include "memory_planner/greedy_by_size.h"

namespace torchir::memory_planner {

std::string GreedyBySize::Name() const {
  return "greedy_by_size/" + std::string(FitPolicyName(policy_));
}

std::vector<uint64_t> GreedyBySize::Place(const std::vector<Block>& blocks) const {
  const std::vector<int32_t> order = OrderByPriority(blocks, {});
  return PlaceInOrder(blocks, order, policy_);
}

}  // namespace torchir::memory_planner
