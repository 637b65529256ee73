#include "tools/bench/profile_table.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace torchir::bench {

void PrintProfile(std::FILE* out, const runtime::Method& method,
                  const std::vector<uint64_t>& totals, long long iterations) {
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
  }
}

}  // namespace torchir::bench
