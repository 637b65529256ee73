#include "memory_planner/memory_aware_order.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "memory_planner/lifetimes.h"
#include "memory_planner/live_bytes.h"

namespace torchir::memory_planner {
namespace {

std::optional<Error> CheckSizes(const Program& program, const std::vector<uint64_t>& buffer_sizes) {
  if (buffer_sizes.size() != static_cast<size_t>(program.buffer_count)) {
    return Error{"buffer_sizes has " + std::to_string(buffer_sizes.size()) + " entries for " +
                 std::to_string(program.buffer_count) + " buffers"};
  }
  uint64_t total = 0;
  for (uint64_t size : buffer_sizes) {
    if (size > std::numeric_limits<uint64_t>::max() - total) {
      return Error{"the buffers' total size overflows 64 bits"};
    }
    total += size;
  }
  return std::nullopt;
}

// The distinct storage roots each instruction touches, split into reads and writes.
struct Touches {
  std::vector<std::vector<BufferId>> reads;
  std::vector<std::vector<BufferId>> writes;
  std::vector<std::vector<BufferId>> all;  // reads and writes, each root once
};

std::vector<BufferId> DistinctRoots(const std::vector<BufferId>& ids,
                                    const std::vector<BufferId>& root) {
  std::vector<BufferId> roots;
  for (BufferId id : ids) roots.push_back(root[id]);
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  return roots;
}

Touches CollectTouches(const Program& program, const std::vector<BufferId>& root) {
  Touches touches;
  for (const Instruction& instruction : program.instructions) {
    touches.reads.push_back(DistinctRoots(instruction.reads, root));
    touches.writes.push_back(DistinctRoots(instruction.writes, root));
    std::vector<BufferId> all = instruction.reads;
    all.insert(all.end(), instruction.writes.begin(), instruction.writes.end());
    touches.all.push_back(DistinctRoots(all, root));
  }
  return touches;
}

// Successor lists of the dependency DAG (step 1); duplicates are harmless since every edge is
// counted once in its successor's in-degree.
std::vector<std::vector<int32_t>> Dependencies(const Touches& touches, int32_t buffer_count) {
  const size_t count = touches.all.size();
  std::vector<std::vector<int32_t>> successors(count);
  std::vector<int32_t> last_writer(buffer_count, -1);
  std::vector<std::vector<int32_t>> readers_since_write(buffer_count);
  auto add_edge = [&](int32_t from, int32_t to) {
    if (from >= 0 && from != to) successors[from].push_back(to);
  };
  for (size_t i = 0; i < count; ++i) {
    const int32_t index = static_cast<int32_t>(i);
    for (BufferId root : touches.reads[i]) {
      add_edge(last_writer[root], index);
      readers_since_write[root].push_back(index);
    }
    for (BufferId root : touches.writes[i]) {
      add_edge(last_writer[root], index);
      for (int32_t reader : readers_since_write[root]) add_edge(reader, index);
      readers_since_write[root].clear();
      last_writer[root] = index;
    }
  }
  return successors;
}

}  // namespace

Expected<uint64_t> PeakLiveBytesInOrder(const Program& program,
                                        const std::vector<uint64_t>& buffer_sizes,
                                        const std::vector<int32_t>& order) {
  if (auto error = ValidateProgram(program)) return *error;
  if (auto error = CheckSizes(program, buffer_sizes)) return *error;
  if (order.size() != program.instructions.size()) {
    return Error{"the order has " + std::to_string(order.size()) + " entries for " +
                 std::to_string(program.instructions.size()) + " instructions"};
  }
  Program reordered = program;
  std::vector<bool> seen(order.size(), false);
  for (size_t k = 0; k < order.size(); ++k) {
    const int32_t index = order[k];
    if (index < 0 || static_cast<size_t>(index) >= order.size() || seen[index]) {
      return Error{"the order is not a permutation of the instructions"};
    }
    seen[index] = true;
    reordered.instructions[k] = program.instructions[index];
  }
  Expected<std::vector<Lifetime>> lifetimes = ComputeLifetimes(reordered);
  if (!lifetimes.ok()) return lifetimes.error();
  // ComputeLifetimes already widened each root over its views, so roots alone carry the bytes.
  const std::vector<BufferId> root = StorageRoots(program);
  std::vector<Block> blocks;
  for (BufferId id = 0; id < program.buffer_count; ++id) {
    const Lifetime& lifetime = lifetimes.value()[id];
    if (root[id] != id || !lifetime.used()) continue;
    blocks.push_back(Block{buffer_sizes[id], 1, lifetime.first_use, lifetime.last_use});
  }
  return PeakLiveBytes(blocks);
}

Expected<ScheduleResult> MemoryAwareOrder(const Program& program,
                                          const std::vector<uint64_t>& buffer_sizes) {
  if (auto error = ValidateProgram(program)) return *error;
  if (auto error = CheckSizes(program, buffer_sizes)) return *error;
  const size_t count = program.instructions.size();
  const std::vector<BufferId> root = StorageRoots(program);
  const Touches touches = CollectTouches(program, root);
  const std::vector<std::vector<int32_t>> successors = Dependencies(touches, program.buffer_count);

  std::vector<int32_t> in_degree(count, 0);
  for (const auto& next : successors) {
    for (int32_t to : next) ++in_degree[to];
  }
  std::vector<int32_t> remaining_touches(program.buffer_count, 0);
  for (const auto& roots : touches.all) {
    for (BufferId r : roots) ++remaining_touches[r];
  }
  std::vector<bool> allocated(program.buffer_count, false);
  std::vector<bool> kept(program.buffer_count, false);
  for (BufferId id : program.graph_inputs) allocated[root[id]] = true;
  for (BufferId id : program.graph_outputs) kept[root[id]] = true;

  // Compares (freed - allocated) without leaving unsigned arithmetic: a beats b when
  // freed_a + allocated_b > freed_b + allocated_a. The sums fit: CheckSizes bounded the total.
  struct Score {
    uint64_t freed = 0;
    uint64_t allocated = 0;
  };
  auto score_of = [&](int32_t index) {
    Score score;
    for (BufferId r : touches.all[index]) {
      if (!allocated[r]) score.allocated += buffer_sizes[r];
      if (remaining_touches[r] == 1 && !kept[r]) score.freed += buffer_sizes[r];
    }
    return score;
  };

  std::vector<int32_t> ready;
  for (size_t i = 0; i < count; ++i) {
    if (in_degree[i] == 0) ready.push_back(static_cast<int32_t>(i));
  }
  ScheduleResult result;
  result.order.reserve(count);
  while (!ready.empty()) {
    size_t best = 0;
    Score best_score = score_of(ready[0]);
    for (size_t k = 1; k < ready.size(); ++k) {
      const Score score = score_of(ready[k]);
      const uint64_t lhs = score.freed + best_score.allocated;
      const uint64_t rhs = best_score.freed + score.allocated;
      if (lhs > rhs || (lhs == rhs && ready[k] < ready[best])) {
        best = k;
        best_score = score;
      }
    }
    const int32_t chosen = ready[best];
    ready[best] = ready.back();
    ready.pop_back();
    result.order.push_back(chosen);
    for (BufferId r : touches.all[chosen]) {
      allocated[r] = true;
      --remaining_touches[r];
    }
    for (int32_t next : successors[chosen]) {
      if (--in_degree[next] == 0) ready.push_back(next);
    }
  }

  std::vector<int32_t> identity(count);
  std::iota(identity.begin(), identity.end(), 0);
  Expected<uint64_t> original_peak = PeakLiveBytesInOrder(program, buffer_sizes, identity);
  Expected<uint64_t> greedy_peak = PeakLiveBytesInOrder(program, buffer_sizes, result.order);
  if (!original_peak.ok()) return original_peak.error();
  if (!greedy_peak.ok()) return greedy_peak.error();
  result.original_peak = original_peak.value();
  result.peak = greedy_peak.value();
  result.reordered = result.peak < result.original_peak;
  if (!result.reordered) {
    result.order = std::move(identity);
    result.peak = result.original_peak;
  }
  return result;
}

}  // namespace torchir::memory_planner
