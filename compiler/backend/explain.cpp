#include "compiler/backend/explain.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backend/backend_registry.h"
#include "compiler/ir/graph_printer.h"

namespace torchir::backend {
namespace {

// "1 delegate", "2 delegates".
std::string Count(size_t n, const char* noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

// "1.82 G", "301 M", "940 k", "12": MAC counts people can read.
std::string FormatCount(uint64_t count) {
  static const struct {
    double scale;
    const char* suffix;
  } kUnits[] = {{1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}};
  for (const auto& unit : kUnits) {
    if (static_cast<double>(count) >= unit.scale) {
      char text[32];
      std::snprintf(text, sizeof(text), "%.3g%s", static_cast<double>(count) / unit.scale,
                    unit.suffix);
      return text;
    }
  }
  return std::to_string(count);
}

std::string Percent(double share) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f%%", 100.0 * share);
  return text;
}

// Where one node ended up after the whole list ran.
struct NodeOutcome {
  std::string node;
  std::string op;
  const std::string* taken_by = nullptr;  // the backend's name, or null: portable
  int64_t delegate_index = -1;
  std::vector<std::pair<std::string, std::string>> refusals;  // (backend, reason), list order
};

// Every node any backend saw, in the order they were first seen: the first backend's
// graph order, then nodes an earlier backend added (layout conversions) that a later
// one saw.
std::vector<NodeOutcome> CollectOutcomes(const Partitioning& partitioning) {
  std::vector<NodeOutcome> outcomes;
  std::unordered_map<std::string, size_t> index;
  for (const BackendPartition& backend : partitioning.backends) {
    for (const NodeDecision& decision : backend.result.decisions) {
      auto [it, inserted] = index.emplace(decision.node, outcomes.size());
      if (inserted) {
        NodeOutcome outcome;
        outcome.node = decision.node;
        outcome.op = decision.op;
        outcomes.push_back(std::move(outcome));
      }
      NodeOutcome& outcome = outcomes[it->second];
      if (outcome.taken_by != nullptr) continue;  // a node is seen again only if not taken
      if (decision.taken) {
        outcome.taken_by = &backend.backend;
        outcome.delegate_index = decision.delegate_index;
      } else {
        outcome.refusals.emplace_back(backend.backend, decision.reason);
      }
    }
  }
  return outcomes;
}

std::string Refusals(const NodeOutcome& outcome, bool name_backends) {
  std::vector<std::string> parts;
  for (const auto& [backend, reason] : outcome.refusals) {
    parts.push_back(name_backends ? absl::StrCat(backend, ": ", reason) : reason);
  }
  return absl::StrJoin(parts, "; ");
}

void RenderBackend(const BackendPartition& backend, uint64_t total_macs, std::string& out) {
  const PartitionResult& result = backend.result;
  size_t taken = 0;
  for (const NodeDecision& decision : result.decisions) taken += decision.taken ? 1 : 0;
  const uint64_t macs = result.DelegatedMacs();
  absl::StrAppend(
      &out, backend.backend, ": ", taken, " of ", result.decisions.size(),
      " Edge nodes delegated in ", Count(result.delegates.size(), "delegate"), "; MACs ",
      FormatCount(macs), " of ", FormatCount(total_macs), " delegated (",
      Percent(total_macs == 0 ? 1.0 : static_cast<double>(macs) / static_cast<double>(total_macs)),
      ")\n");
  for (const DelegateSummary& delegate : result.delegates) {
    absl::StrAppend(&out, "  delegate ", delegate.delegate_index, " '", delegate.call_node, "'",
                    delegate.detail.empty() ? "" : absl::StrCat(" (", delegate.detail, ")"), ": ",
                    Count(delegate.ops.size(), "node"), ", ", FormatCount(delegate.macs),
                    " MACs, blob ", ir::FormatBytes(delegate.blob_bytes), "\n");
  }
  for (const std::string& note : result.notes) absl::StrAppend(&out, "  ", note, "\n");
}

}  // namespace

std::string RenderExplanation(const Partitioning& partitioning) {
  if (partitioning.backends.empty()) {
    return absl::StrCat("backend '", kPortableBackendName,
                        "' delegates nothing: every node runs on the portable kernels\n");
  }
  std::string out;
  for (const BackendPartition& backend : partitioning.backends) {
    RenderBackend(backend, partitioning.total_macs, out);
  }

  const bool name_backends = partitioning.backends.size() > 1;
  const std::vector<NodeOutcome> outcomes = CollectOutcomes(partitioning);
  std::map<std::string, std::pair<size_t, size_t>> histogram;  // op -> (delegated, not)
  std::string delegated;
  std::string left_out;
  size_t delegated_count = 0;
  size_t left_out_count = 0;
  for (const NodeOutcome& outcome : outcomes) {
    const std::string head = absl::StrCat("  node '", outcome.node, "' (", outcome.op, "): ");
    if (outcome.taken_by != nullptr) {
      ++histogram[outcome.op].first;
      ++delegated_count;
      absl::StrAppend(
          &delegated, head, *outcome.taken_by, " delegate ", outcome.delegate_index,
          outcome.refusals.empty() ? "" : absl::StrCat(" (", Refusals(outcome, name_backends), ")"),
          "\n");
    } else {
      ++histogram[outcome.op].second;
      ++left_out_count;
      absl::StrAppend(&left_out, head, Refusals(outcome, name_backends), "\n");
    }
  }
  absl::StrAppend(&out, "delegated (", delegated_count, "):\n", delegated, "not delegated (",
                  left_out_count, "):\n", left_out);

  size_t width = 2;
  for (const auto& [op, counts] : histogram) width = std::max(width, op.size());
  out += "op histogram:\n";
  char line[256];
  std::snprintf(line, sizeof(line), "  %-*s %9s %13s\n", static_cast<int>(width), "op", "delegated",
                "not delegated");
  out += line;
  for (const auto& [op, counts] : histogram) {
    std::snprintf(line, sizeof(line), "  %-*s %9zu %13zu\n", static_cast<int>(width), op.c_str(),
                  counts.first, counts.second);
    out += line;
  }
  return out;
}

}  // namespace torchir::backend
