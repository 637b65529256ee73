#include "memory_planner/report.h"

#include <algorithm>
#include <cstdio>

#include "memory_planner/gap_fit.h"
#include "memory_planner/live_bytes.h"
#include "memory_planner/naive.h"
#include "memory_planner/storage_groups.h"
#include "memory_planner/validation.h"

namespace torchir::memory_planner {
namespace {

double Ratio(uint64_t planned, uint64_t lower_bound) {
  if (lower_bound == 0) return 1.0;
  return static_cast<double>(planned) / static_cast<double>(lower_bound);
}

// printf into a std::string.
template <typename... Args>
std::string Format(const char* format, Args... args) {
  const int length = std::snprintf(nullptr, 0, format, args...);
  std::string text(static_cast<size_t>(length) + 1, '\0');
  std::snprintf(text.data(), text.size(), format, args...);
  text.pop_back();
  return text;
}

}  // namespace

Expected<MemoryReport> BuildReport(const Problem& problem, const SuiteResult& result) {
  if (auto error = ValidateProblem(problem)) return *error;
  if (result.plan.arenas.size() != problem.arenas.size()) {
    return Error{"the plan has " + std::to_string(result.plan.arenas.size()) +
                 " arenas, the problem " + std::to_string(problem.arenas.size())};
  }
  const StorageGroups groups = GroupStorage(problem);
  const NaivePlacement naive;
  MemoryReport report;
  report.candidates = result.candidates;
  for (size_t arena = 0; arena < problem.arenas.size(); ++arena) {
    const std::vector<Block>& blocks = groups.blocks[arena];
    ArenaReport line;
    line.name = problem.arenas[arena].name;
    line.buffer_count = static_cast<size_t>(
        std::count_if(problem.buffers.begin(), problem.buffers.end(),
                      [&](const Buffer& buffer) { return buffer.arena == ArenaId(arena); }));
    line.planned_bytes = result.plan.arenas[arena].size;
    line.lower_bound_bytes = PeakLiveBytes(blocks);
    line.naive_bytes = ArenaExtent(blocks, naive.Place(blocks));
    line.algorithm = result.plan.arenas[arena].algorithm;
    line.ratio_to_lower_bound = Ratio(line.planned_bytes, line.lower_bound_bytes);
    report.planned_bytes += line.planned_bytes;
    report.lower_bound_bytes += line.lower_bound_bytes;
    report.naive_bytes += line.naive_bytes;
    report.arenas.push_back(std::move(line));
  }
  report.ratio_to_lower_bound = Ratio(report.planned_bytes, report.lower_bound_bytes);
  return report;
}

std::string RenderReport(const MemoryReport& report) {
  size_t name_width = 5;  // "arena"
  for (const ArenaReport& arena : report.arenas)
    name_width = std::max(name_width, arena.name.size());
  const int width = static_cast<int>(name_width);

  std::string text = Format(
      "memory plan: %zu arena%s, planned %llu bytes, lower bound %llu, naive %llu, "
      "planned/lower %.3f\n",
      report.arenas.size(), report.arenas.size() == 1 ? "" : "s",
      static_cast<unsigned long long>(report.planned_bytes),
      static_cast<unsigned long long>(report.lower_bound_bytes),
      static_cast<unsigned long long>(report.naive_bytes), report.ratio_to_lower_bound);
  text += Format("%-*s %8s %12s %12s %12s %14s  %s\n", width, "arena", "buffers", "planned",
                 "lower bound", "naive", "planned/lower", "algorithm");
  for (const ArenaReport& arena : report.arenas) {
    text += Format("%-*s %8zu %12llu %12llu %12llu %14.3f  %s\n", width, arena.name.c_str(),
                   arena.buffer_count, static_cast<unsigned long long>(arena.planned_bytes),
                   static_cast<unsigned long long>(arena.lower_bound_bytes),
                   static_cast<unsigned long long>(arena.naive_bytes), arena.ratio_to_lower_bound,
                   arena.algorithm.c_str());
  }
  if (!report.candidates.empty()) {
    text += "candidates (total bytes over all arenas):\n";
    size_t algorithm_width = 0;
    for (const CandidateResult& candidate : report.candidates) {
      algorithm_width = std::max(algorithm_width, candidate.algorithm.size());
    }
    for (const CandidateResult& candidate : report.candidates) {
      text +=
          Format("  %-*s %12llu\n", static_cast<int>(algorithm_width), candidate.algorithm.c_str(),
                 static_cast<unsigned long long>(candidate.TotalSize()));
    }
  }
  return text;
}

}  // namespace torchir::memory_planner
