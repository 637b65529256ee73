#include "tools/bench/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace torchir::bench {
namespace {

// The smallest value with at least `percent` % of the values at or below it.
double NearestRank(const std::vector<double>& sorted, double percent) {
  const auto rank = static_cast<size_t>(std::ceil(percent / 100.0 * sorted.size()));
  return sorted[rank == 0 ? 0 : rank - 1];
}

}  // namespace

LatencySummary Summarize(std::vector<double> seconds) {
  LatencySummary summary;
  if (seconds.empty()) return summary;
  std::sort(seconds.begin(), seconds.end());
  double sum = 0;
  for (double s : seconds) sum += s;
  summary.min = seconds.front();
  summary.max = seconds.back();
  summary.p50 = NearestRank(seconds, 50);
  summary.p90 = NearestRank(seconds, 90);
  summary.p99 = NearestRank(seconds, 99);
  summary.mean = sum / static_cast<double>(seconds.size());
  return summary;
}

}  // namespace torchir::bench
