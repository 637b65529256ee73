#include "tools/bench/profile_table.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace torchir::bench {

std::vector<size_t> DebugNodeCounts(const runtime::Method& method) {
  std::vector<size_t> counts(method.num_instructions());
  for (size_t i = 0; i < counts.size(); ++i) counts[i] = method.instruction_num_debug_nodes(i);
  return counts;
}

void PrintProfile(std::FILE* out, const runtime::Method& method,
                  const std::vector<uint64_t>& totals, long long iterations,
                  const std::vector<std::vector<uint64_t>>* node_totals) {
  std::vector<size_t> order(totals.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return totals[a] > totals[b]; });
  uint64_t all = 0;
  for (uint64_t t : totals) all += t;
  const double runs = iterations > 0 ? static_cast<double>(iterations) : 1.0;
  std::fprintf(out, "%-6s %-16s %-40s %12s %7s\n", "instr", "op", "node", "mean", "share");
  for (size_t index : order) {
    std::string node = method.instruction_name(index);
    const size_t taken = method.instruction_num_debug_nodes(index);
    if (method.instruction_is_delegate(index)) node += " (" + std::to_string(taken) + " nodes)";
    std::fprintf(
        out, "%-6zu %-16s %-40s %9.3f ms %6.1f%%\n", index, method.instruction_op(index),
        node.c_str(), static_cast<double>(totals[index]) * 1e-6 / runs,
        all > 0 ? 100.0 * static_cast<double>(totals[index]) / static_cast<double>(all) : 0.0);
    if (node_totals == nullptr || index >= node_totals->size()) continue;
    const std::vector<uint64_t>& nodes = (*node_totals)[index];
    // One timed node is the call itself: its row would repeat the call's.
    if (std::count_if(nodes.begin(), nodes.end(), [](uint64_t t) { return t > 0; }) < 2) continue;
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (nodes[k] == 0) continue;
      const std::string name = std::string("  - ") + method.instruction_debug_node(index, k);
      std::fprintf(out, "%-6s %-16s %-40s %9.3f ms %6.1f%% of the call\n", "", "", name.c_str(),
                   static_cast<double>(nodes[k]) * 1e-6 / runs,
                   totals[index] > 0
                       ? 100.0 * static_cast<double>(nodes[k]) / static_cast<double>(totals[index])
                       : 0.0);
    }
  }
}

}  // namespace torchir::bench
