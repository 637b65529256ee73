// The model benchmarks' results side by side: a console reporter that also
// keeps every result, then prints markdown tables (latency per thread count
// with the ratio to the fastest PyTorch path, torchir / best PyTorch, load +
// init times) that docs/benchmarks.md quotes.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace torchir::benchmarks {

// "mobilenet_v2/torchir_xnnpack/threads:1": one forward call.
std::string LatencyBenchmarkName(const std::string& model, const std::string& variant, int threads);
// "mobilenet_v2/load/pytorch_mobile": load + init, ready to run.
std::string LoadBenchmarkName(const std::string& model, const std::string& variant);

// What the tables show, in row/column order.
struct SummaryLayout {
  std::vector<std::string> models;
  std::vector<std::string> torchir_variants;  // "torchir_xnnpack", "torchir_portable"
  std::vector<std::string> torch_variants;    // the PyTorch paths
  std::vector<int> thread_counts;             // {1, 2}
};

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(OutputOptions options) : ConsoleReporter(options) {}
  void ReportRuns(const std::vector<Run>& runs) override;

  // Prints the tables for the benchmarks of `layout` that ran; refused or
  // failed variants show as "refused" with the reason listed below.
  void PrintSummary(const SummaryLayout& layout, std::ostream& out) const;

 private:
  struct Result {
    std::vector<double> milliseconds;  // one per repetition
    std::optional<double> median;      // the "median" aggregate, when reported
    std::string error;
  };
  // The median time in ms of `name`; nullopt when it did not run or failed.
  std::optional<double> Milliseconds(const std::string& name) const;
  // The fastest PyTorch path of `model` at `threads`: (variant, ms).
  std::optional<std::pair<std::string, double>> BestTorch(const SummaryLayout& layout,
                                                          const std::string& model,
                                                          int threads) const;
  // "12.34" or "refused" (noting the reason) or "-" (did not run).
  std::string Cell(const std::string& name, std::vector<std::string>* notes) const;

  std::map<std::string, Result> results_;
};

}  // namespace torchir::benchmarks
