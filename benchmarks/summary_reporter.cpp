#include "benchmarks/summary_reporter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace torchir::benchmarks {
namespace {

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string Ratio(double value, double base) { return absl::StrFormat("%.2fx", value / base); }

std::string Milliseconds(double value) {
  return value >= 100 ? absl::StrFormat("%.1f", value) : absl::StrFormat("%.3g", value);
}

}  // namespace

std::string LatencyBenchmarkName(const std::string& model, const std::string& variant,
                                 int threads) {
  return absl::StrCat(model, "/", variant, "/threads:", threads);
}

std::string LoadBenchmarkName(const std::string& model, const std::string& variant) {
  return absl::StrCat(model, "/load/", variant);
}

void SummaryReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    Result& result = results_[run.run_name.function_name];
    if (run.error_occurred) {
      result.error = run.error_message;
      continue;
    }
    const double ms =
        run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e3;
    if (run.run_type == Run::RT_Aggregate) {
      if (run.aggregate_name == "median") result.median = ms;
    } else {
      result.milliseconds.push_back(ms);
    }
  }
}

std::optional<double> SummaryReporter::Milliseconds(const std::string& name) const {
  auto found = results_.find(name);
  if (found == results_.end() || !found->second.error.empty()) return std::nullopt;
  if (found->second.median) return found->second.median;
  if (found->second.milliseconds.empty()) return std::nullopt;
  return Median(found->second.milliseconds);
}

std::optional<std::pair<std::string, double>> SummaryReporter::BestTorch(
    const SummaryLayout& layout, const std::string& model, int threads) const {
  std::optional<std::pair<std::string, double>> best;
  for (const std::string& variant : layout.torch_variants) {
    std::optional<double> ms = Milliseconds(LatencyBenchmarkName(model, variant, threads));
    if (ms && (!best || *ms < best->second)) best = std::make_pair(variant, *ms);
  }
  return best;
}

std::string SummaryReporter::Cell(const std::string& name, std::vector<std::string>* notes) const {
  if (std::optional<double> ms = Milliseconds(name)) return benchmarks::Milliseconds(*ms);
  auto found = results_.find(name);
  if (found == results_.end()) return "-";
  notes->push_back(absl::StrCat("`", name, "`: ", found->second.error));
  return "refused";
}

void SummaryReporter::PrintSummary(const SummaryLayout& layout, std::ostream& out) const {
  std::vector<std::string> notes;
  std::vector<std::string> variants = layout.torchir_variants;
  variants.insert(variants.end(), layout.torch_variants.begin(), layout.torch_variants.end());

  out << "\n### Latency: ms per forward call (median); in brackets, the ratio to the fastest "
         "PyTorch path at the same thread count\n\n| model | variant |";
  for (int threads : layout.thread_counts) out << " " << threads << " thread(s) |";
  out << "\n|---|---|";
  for (size_t i = 0; i < layout.thread_counts.size(); ++i) out << "---:|";
  out << "\n";
  for (const std::string& model : layout.models) {
    for (const std::string& variant : variants) {
      std::string row = absl::StrCat("| ", model, " | ", variant, " |");
      bool any = false;
      for (int threads : layout.thread_counts) {
        const std::string name = LatencyBenchmarkName(model, variant, threads);
        if (results_.count(name) == 0) {
          absl::StrAppend(&row, " |");
          continue;
        }
        any = true;
        std::string cell = Cell(name, &notes);
        std::optional<double> ms = Milliseconds(name);
        std::optional<std::pair<std::string, double>> best = BestTorch(layout, model, threads);
        if (ms && best) absl::StrAppend(&cell, " (", Ratio(*ms, best->second), ")");
        absl::StrAppend(&row, " ", cell, " |");
      }
      if (any) out << row << "\n";
    }
  }

  // One column per thread count for the fastest PyTorch path, then one per
  // torchir variant that ran at that count (the portable kernels only at 1).
  std::vector<std::pair<int, std::string>> columns;
  for (int threads : layout.thread_counts) {
    columns.emplace_back(threads, "");
    for (const std::string& variant : layout.torchir_variants) {
      for (const std::string& model : layout.models) {
        if (results_.count(LatencyBenchmarkName(model, variant, threads)) != 0) {
          columns.emplace_back(threads, variant);
          break;
        }
      }
    }
  }
  out << "\n### torchir / fastest PyTorch path (below 1: torchir is faster)\n\n| model |";
  for (const auto& [threads, variant] : columns) {
    if (variant.empty()) {
      out << " fastest PyTorch, " << threads << " thread(s) |";
    } else {
      out << " " << variant << " |";
    }
  }
  out << "\n|---|";
  for (const auto& [threads, variant] : columns) out << (variant.empty() ? "---|" : "---:|");
  out << "\n";
  for (const std::string& model : layout.models) {
    out << "| " << model << " |";
    for (const auto& [threads, variant] : columns) {
      std::optional<std::pair<std::string, double>> best = BestTorch(layout, model, threads);
      if (variant.empty()) {
        out << " "
            << (best ? absl::StrCat(best->first, " ", benchmarks::Milliseconds(best->second), " ms")
                     : std::string("-"))
            << " |";
        continue;
      }
      std::optional<double> ms = Milliseconds(LatencyBenchmarkName(model, variant, threads));
      out << " " << (ms && best ? Ratio(*ms, best->second) : std::string("-")) << " |";
    }
    out << "\n";
  }

  out << "\n### Load + init: ms from the file to ready to run\n\n| model |";
  for (const std::string& variant : variants) out << " " << variant << " |";
  out << "\n|---|";
  for (size_t i = 0; i < variants.size(); ++i) out << "---:|";
  out << "\n";
  for (const std::string& model : layout.models) {
    out << "| " << model << " |";
    for (const std::string& variant : variants) {
      out << " " << Cell(LoadBenchmarkName(model, variant), &notes) << " |";
    }
    out << "\n";
  }

  if (!notes.empty()) {
    std::sort(notes.begin(), notes.end());
    notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
    out << "\nRefused or failed (not reported):\n";
    for (const std::string& note : notes) out << "- " << note << "\n";
  }
}

}  // namespace torchir::benchmarks
