#include "tools/bench/run_summary.h"

#include <cstdio>

#include "tools/bench/json_text.h"
#include "tools/bench/latency_stats.h"

namespace torchir::bench {
namespace {

std::string Ms(double seconds) { return JsonNumber(seconds * 1e3); }
std::string KibOrNull(long long kib) { return kib < 0 ? "null" : std::to_string(kib); }

}  // namespace

std::string RunSummaryJson(const RunSummary& s) {
  const LatencySummary latency = Summarize(s.latencies);
  std::string runs;
  for (double seconds : s.latencies) runs += (runs.empty() ? "" : ", ") + Ms(seconds);
  return "{\"program\": " + JsonString(s.program) +
         ", \"file_bytes\": " + std::to_string(s.file_bytes) +
         ", \"load_ms\": " + Ms(s.load_seconds) + ", \"init_ms\": " + Ms(s.init_seconds) +
         ", \"init_bytes\": " + std::to_string(s.init_bytes) +
         ", \"threads\": " + std::to_string(s.threads) +
         ", \"rss_before_load_kib\": " + KibOrNull(s.rss_before_load_kib) +
         ", \"peak_rss_kib\": " + KibOrNull(s.peak_rss_kib) +
         ", \"warmup\": " + std::to_string(s.warmup) +
         ", \"latency_ms\": {\"min\": " + Ms(latency.min) + ", \"p50\": " + Ms(latency.p50) +
         ", \"p90\": " + Ms(latency.p90) + ", \"p99\": " + Ms(latency.p99) +
         ", \"max\": " + Ms(latency.max) + ", \"mean\": " + Ms(latency.mean) +
         "}, \"latencies_ms\": [" + runs + "], \"expected\": " + JsonString(s.expected) + "}\n";
}

std::string FormatMilliseconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f ms", seconds * 1e3);
  return buffer;
}

}  // namespace torchir::bench
