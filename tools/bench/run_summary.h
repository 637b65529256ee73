// What a runner measured, and the --json object both runners write from it
// (benchmarks/peers/ and scripts read it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace torchir::bench {

struct RunSummary {
  std::string program;  // the .pte path
  size_t file_bytes = 0;
  double load_seconds = 0;
  double init_seconds = 0;
  size_t init_bytes = 0;  // what Method::Load allocated
  uint32_t threads = 1;
  long long rss_before_load_kib = -1;  // -1: unknown
  long long peak_rss_kib = -1;
  long long warmup = 0;
  std::vector<double> latencies;  // seconds, one per timed run
  std::string expected = "none";  // "none", "pass" or "fail"
};

// {"program", "file_bytes", "load_ms", "init_ms", "init_bytes", "threads",
//  "rss_before_load_kib", "peak_rss_kib" (null when unknown), "warmup",
//  "latency_ms": {min, p50, p90, p99, max, mean}, "latencies_ms": [...], "expected"}
// on one line.
std::string RunSummaryJson(const RunSummary& summary);

// "12.345 ms".
std::string FormatMilliseconds(double seconds);

}  // namespace torchir::bench
