#include "memory_planner/lifetimes.h"

#include <algorithm>
#include <numeric>

namespace torchir::memory_planner {
namespace {

void Widen(int64_t first, int64_t last, Lifetime* lifetime) {
  if (!lifetime->used()) {
    *lifetime = Lifetime{first, last};
    return;
  }
  lifetime->first_use = std::min(lifetime->first_use, first);
  lifetime->last_use = std::max(lifetime->last_use, last);
}

// Number of view_of links from each buffer to its root, memoised so chains are walked once.
std::vector<int32_t> ViewDepths(const Program& valid_program) {
  std::vector<int32_t> depth(valid_program.buffer_count, -1);
  std::vector<BufferId> path;
  for (BufferId start = 0; start < valid_program.buffer_count; ++start) {
    path.clear();
    BufferId current = start;
    while (current != kNoBuffer && depth[current] < 0) {
      path.push_back(current);
      current = valid_program.view_of[current];
    }
    int32_t next = current == kNoBuffer ? 0 : depth[current] + 1;
    for (auto it = path.rbegin(); it != path.rend(); ++it) depth[*it] = next++;
  }
  return depth;
}

}  // namespace

Expected<std::vector<Lifetime>> ComputeLifetimes(const Program& program) {
  if (auto error = ValidateProgram(program)) return *error;
  std::vector<Lifetime> lifetimes(program.buffer_count);
  const int64_t end =
      program.instructions.empty() ? 0 : static_cast<int64_t>(program.instructions.size()) - 1;

  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const int64_t time = static_cast<int64_t>(i);
    for (BufferId id : program.instructions[i].reads) Widen(time, time, &lifetimes[id]);
    for (BufferId id : program.instructions[i].writes) Widen(time, time, &lifetimes[id]);
  }
  for (BufferId id : program.graph_inputs) Widen(0, 0, &lifetimes[id]);
  for (BufferId id : program.graph_outputs) Widen(end, end, &lifetimes[id]);

  if (program.view_of.empty()) return lifetimes;
  const std::vector<int32_t> depth = ViewDepths(program);
  std::vector<BufferId> deepest_first(program.buffer_count);
  std::iota(deepest_first.begin(), deepest_first.end(), 0);
  std::stable_sort(deepest_first.begin(), deepest_first.end(),
                   [&](BufferId a, BufferId b) { return depth[a] > depth[b]; });
  for (BufferId id : deepest_first) {
    const BufferId base = program.view_of[id];
    if (base == kNoBuffer || !lifetimes[id].used()) continue;
    Widen(lifetimes[id].first_use, lifetimes[id].last_use, &lifetimes[base]);
  }
  return lifetimes;
}

}  // namespace torchir::memory_planner
