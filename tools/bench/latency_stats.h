// Latency percentiles over a run's timed iterations.
#pragma once

#include <vector>

namespace torchir::bench {

struct LatencySummary {
  double min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;  // seconds
};

// Nearest-rank percentiles of `seconds` (all zero when empty).
LatencySummary Summarize(std::vector<double> seconds);

}  // namespace torchir::bench
