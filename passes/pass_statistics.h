// What the PassManager measured about each pass run, and its rendering as a table.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace torchir::passes {

// One run of one pass.
struct PassStatistics {
  std::string pass_name;
  // 1-based iteration inside a fixed-point group; 0 for a pass the pipeline runs once.
  int iteration = 0;
  bool changed = false;
  // Wall time of the pass itself (verification and dumps excluded).
  std::chrono::nanoseconds wall_time{0};
  // The pass's own counters (PassContext::AddToCounter), in first-use order.
  std::vector<std::pair<std::string, int64_t>> counters;
};

// Writes one row per run plus a total, e.g.
//   pass                               iter  changed   time (ms)  counters
//   common_subexpression_elimination      -  yes           0.052  nodes_merged=3
//   dead_code_elimination                 1  no            0.010
//   total                                                  0.062
void PrintPassStatistics(const std::vector<PassStatistics>& statistics, std::ostream& out);

}  // namespace torchir::passes
