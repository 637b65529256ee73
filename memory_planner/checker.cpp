#include "memory_planner/checker.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <queue>
#include <set>
#include <utility>

namespace torchir::memory_planner {
namespace {

constexpr size_t kMaxProblems = 100;
constexpr uint64_t kMaxBytes = std::numeric_limits<uint64_t>::max();

// Collects problem lines up to kMaxProblems.
class Problems {
 public:
  void Add(std::string line) {
    if (lines_.size() < kMaxProblems) {
      lines_.push_back(std::move(line));
    } else if (lines_.size() == kMaxProblems) {
      lines_.push_back("(stopped after " + std::to_string(kMaxProblems) + " problems)");
    }
  }
  bool Full() const { return lines_.size() > kMaxProblems; }
  std::vector<std::string> Take() { return std::move(lines_); }

 private:
  std::vector<std::string> lines_;
};

// a + b, saturating, so a corrupt offset cannot wrap around into the arena.
uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > kMaxBytes - b ? kMaxBytes : a + b; }

std::string Range(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

// The bytes and the instructions a storage group holds.
struct Group {
  BufferId root = kNoBuffer;
  ArenaId arena = 0;
  uint64_t begin = kMaxBytes;  // lowest placed byte of any member
  uint64_t end = 0;            // one past the highest, extra_bytes included
  int64_t first_use = std::numeric_limits<int64_t>::max();
  int64_t last_use = std::numeric_limits<int64_t>::min();
};

void CheckBufferPlacement(const Problem& problem, const Plan& plan, BufferId id,
                          Problems* problems) {
  const Buffer& buffer = problem.buffers[id];
  const Placement& placement = plan.placements[id];
  const std::string label = BufferLabel(problem, id);
  if (placement.arena != buffer.arena) {
    problems->Add(label + ": placed in arena " + std::to_string(placement.arena) +
                  " but belongs to arena " + std::to_string(buffer.arena));
  }
  if (buffer.alignment == 0 || (buffer.alignment & (buffer.alignment - 1)) != 0) {
    problems->Add(label + ": alignment " + std::to_string(buffer.alignment) +
                  " is not a power of two");
  } else if (placement.offset % buffer.alignment != 0) {
    problems->Add(label + ": offset " + std::to_string(placement.offset) +
                  " is not a multiple of its alignment " + std::to_string(buffer.alignment));
  }
  if (placement.arena < 0 || static_cast<size_t>(placement.arena) >= plan.arenas.size()) {
    problems->Add(label + ": placed in unknown arena " + std::to_string(placement.arena));
    return;
  }
  const uint64_t end =
      SaturatingAdd(SaturatingAdd(placement.offset, buffer.size), buffer.extra_bytes);
  const uint64_t arena_size = plan.arenas[placement.arena].size;
  if (end > arena_size) {
    problems->Add(label + ": bytes " + Range(placement.offset, end) + " (extra_bytes included)" +
                  " exceed arena " + std::to_string(placement.arena) + " of " +
                  std::to_string(arena_size) + " bytes");
  }
}

void CheckViewPlacement(const Problem& problem, const Plan& plan, BufferId id, Problems* problems) {
  const Buffer& view = problem.buffers[id];
  const std::string label = BufferLabel(problem, id);
  if (view.base < 0 || static_cast<size_t>(view.base) >= problem.buffers.size()) {
    problems->Add(label + ": base " + std::to_string(view.base) + " does not exist");
    return;
  }
  const Buffer& base = problem.buffers[view.base];
  const Placement& view_at = plan.placements[id];
  const Placement& base_at = plan.placements[view.base];
  const std::string base_label = BufferLabel(problem, view.base);
  if (view_at.arena != base_at.arena) {
    problems->Add(label + ": a view placed in arena " + std::to_string(view_at.arena) +
                  " but its base " + base_label + " is in arena " + std::to_string(base_at.arena));
    return;
  }
  const uint64_t expected = SaturatingAdd(base_at.offset, view.offset_in_base);
  if (view_at.offset != expected) {
    problems->Add(label + ": a view at offset " + std::to_string(view_at.offset) +
                  " but its base " + base_label + " + offset_in_base is " +
                  std::to_string(expected));
  }
  const uint64_t view_end = SaturatingAdd(view_at.offset, view.size);
  const uint64_t base_end = SaturatingAdd(base_at.offset, base.size);
  if (view_at.offset < base_at.offset || view_end > base_end) {
    problems->Add(label + ": a view at " + Range(view_at.offset, view_end) + " outside its base " +
                  base_label + " at " + Range(base_at.offset, base_end));
  }
}

// Groups buffers by following base links to their root; buffers on a cycle get no group.
std::vector<Group> BuildGroups(const Problem& problem, const Plan& plan, Problems* problems) {
  const size_t count = problem.buffers.size();
  enum class State : uint8_t { kUnvisited, kOnPath, kDone };
  std::vector<State> state(count, State::kUnvisited);
  std::vector<BufferId> root(count, kNoBuffer);
  std::vector<BufferId> path;
  for (size_t start = 0; start < count; ++start) {
    path.clear();
    BufferId current = static_cast<BufferId>(start);
    while (state[current] == State::kUnvisited) {
      state[current] = State::kOnPath;
      path.push_back(current);
      const BufferId base = problem.buffers[current].base;
      // A missing base is reported by the view check; the buffer then roots its own group.
      if (base < 0 || static_cast<size_t>(base) >= count) break;
      current = base;
    }
    // `current` is now the root, a buffer resolved earlier (kDone), or a buffer on this path.
    BufferId resolved = kNoBuffer;
    if (state[current] == State::kDone) {
      resolved = root[current];
    } else if (current == path.back() &&
               !(problem.buffers[current].base >= 0 &&
                 static_cast<size_t>(problem.buffers[current].base) < count)) {
      resolved = current;  // the path ended at a root
    } else {
      problems->Add(BufferLabel(problem, current) +
                    ": its base links loop; the loop's bytes are not checked for overlap");
    }
    for (BufferId id : path) {
      root[id] = resolved;
      state[id] = State::kDone;
    }
  }

  std::vector<int32_t> group_of_root(count, -1);
  std::vector<Group> groups;
  for (size_t id = 0; id < count; ++id) {
    if (root[id] == kNoBuffer) continue;
    int32_t& index = group_of_root[root[id]];
    if (index < 0) {
      index = static_cast<int32_t>(groups.size());
      groups.push_back(Group{root[id], plan.placements[root[id]].arena});
    }
    Group& group = groups[index];
    const Buffer& buffer = problem.buffers[id];
    const uint64_t offset = plan.placements[id].offset;
    const uint64_t end = SaturatingAdd(SaturatingAdd(offset, buffer.size), buffer.extra_bytes);
    if (end > offset) {
      group.begin = std::min(group.begin, offset);
      group.end = std::max(group.end, end);
    }
    group.first_use = std::min(group.first_use, buffer.first_use);
    group.last_use = std::max(group.last_use, buffer.last_use);
  }
  return groups;
}

std::string DescribeGroup(const Problem& problem, const Group& group) {
  return BufferLabel(problem, group.root) + " at " + Range(group.begin, group.end) + " live [" +
         std::to_string(group.first_use) + ", " + std::to_string(group.last_use) + "]";
}

// Sweeps time in order of first_use, keeping the live groups of each arena in a set ordered by
// offset. On a valid plan the live set never overlaps, so a newcomer can only collide with the
// live group just below it or with those starting inside its extent; the first overlap in sweep
// order is therefore always found.
void CheckOverlaps(const Problem& problem, std::vector<Group> groups, size_t arena_count,
                   Problems* problems) {
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [](const Group& group) { return group.end <= group.begin; }),
               groups.end());
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    if (a.first_use != b.first_use) return a.first_use < b.first_use;
    return a.root < b.root;
  });
  using Live = std::set<std::pair<uint64_t, int32_t>>;  // (begin, index into groups)
  std::vector<Live> live_by_arena(arena_count);
  using Expiry = std::pair<int64_t, int32_t>;  // (last_use, index into groups)
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<Expiry>> expiries;

  for (size_t index = 0; index < groups.size() && !problems->Full(); ++index) {
    const Group& group = groups[index];
    while (!expiries.empty() && expiries.top().first < group.first_use) {
      const Group& expired = groups[expiries.top().second];
      live_by_arena[expired.arena].erase({expired.begin, expiries.top().second});
      expiries.pop();
    }
    if (group.arena < 0 || static_cast<size_t>(group.arena) >= live_by_arena.size()) {
      continue;  // reported by the placement check
    }
    Live& live = live_by_arena[group.arena];
    auto above = live.lower_bound({group.begin, -1});
    if (above != live.begin()) {
      const Group& below = groups[std::prev(above)->second];
      if (below.end > group.begin) {
        problems->Add("overlap: " + DescribeGroup(problem, below) + " and " +
                      DescribeGroup(problem, group));
      }
    }
    for (auto it = above; it != live.end() && it->first < group.end; ++it) {
      problems->Add("overlap: " + DescribeGroup(problem, groups[it->second]) + " and " +
                    DescribeGroup(problem, group));
    }
    live.insert({group.begin, static_cast<int32_t>(index)});
    expiries.push({group.last_use, static_cast<int32_t>(index)});
  }
}

}  // namespace

std::vector<std::string> CheckPlan(const Problem& problem, const Plan& plan) {
  Problems problems;
  if (plan.placements.size() != problem.buffers.size()) {
    problems.Add("the plan has " + std::to_string(plan.placements.size()) + " placements for " +
                 std::to_string(problem.buffers.size()) + " buffers");
    return problems.Take();
  }
  if (plan.arenas.size() != problem.arenas.size()) {
    problems.Add("the plan has " + std::to_string(plan.arenas.size()) + " arenas, the problem " +
                 std::to_string(problem.arenas.size()));
  }
  for (size_t id = 0; id < problem.buffers.size(); ++id) {
    CheckBufferPlacement(problem, plan, static_cast<BufferId>(id), &problems);
    if (problem.buffers[id].base != kNoBuffer) {
      CheckViewPlacement(problem, plan, static_cast<BufferId>(id), &problems);
    }
  }
  CheckOverlaps(problem, BuildGroups(problem, plan, &problems), plan.arenas.size(), &problems);
  return problems.Take();
}

}  // namespace torchir::memory_planner
