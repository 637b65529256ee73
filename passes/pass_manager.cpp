#include "passes/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/graph_printer.h"

namespace torchir::passes {
namespace {

// "'cse'" or "'cse' (iteration 2)": how errors and dumps name a pass run.
std::string DescribeRun(const Pass& pass, int iteration) {
  std::string text =
      absl::StrCat("'", absl::string_view(pass.name().data(), pass.name().size()), "'");
  if (iteration > 0) absl::StrAppend(&text, " (iteration ", iteration, ")");
  return text;
}

}  // namespace

PassManager::PassManager(PassManagerOptions options) : options_(std::move(options)) {
  if (options_.op_properties == nullptr) options_.op_properties = &GetDefaultOpProperties();
}

PassManager& PassManager::Add(std::unique_ptr<Pass> pass) {
  Entry entry;
  entry.passes.push_back(std::move(pass));
  entries_.push_back(std::move(entry));
  return *this;
}

PassManager& PassManager::AddFixedPointGroup(std::vector<std::unique_ptr<Pass>> passes,
                                             FixedPointOptions options) {
  Entry entry;
  entry.passes = std::move(passes);
  entry.fixed_point = true;
  entry.fixed_point_options = options;
  entries_.push_back(std::move(entry));
  return *this;
}

std::vector<std::string> PassManager::PassNames() const {
  std::vector<std::string> names;
  for (const Entry& entry : entries_) {
    for (const auto& pass : entry.passes) {
      std::string name(pass->name());
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

absl::Status PassManager::ValidateOptions() const {
  std::vector<std::string> names = PassNames();
  for (const std::string& wanted : options_.dump_graph_after) {
    if (std::find(names.begin(), names.end(), wanted) == names.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dump-graph-after: unknown pass '", wanted,
                       "'; valid passes: ", names.empty() ? "(none)" : absl::StrJoin(names, ", ")));
    }
  }
  for (const Entry& entry : entries_) {
    if (entry.passes.empty()) return absl::InvalidArgumentError("empty fixed-point pass group");
    for (const auto& pass : entry.passes) {
      if (pass == nullptr) return absl::InvalidArgumentError("null pass in the pipeline");
    }
    if (entry.fixed_point && entry.fixed_point_options.max_iterations < 1) {
      return absl::InvalidArgumentError(absl::StrCat("fixed-point group starting with ",
                                                     DescribeRun(*entry.passes.front(), 0),
                                                     ": max_iterations must be at least 1"));
    }
  }
  return absl::OkStatus();
}

absl::Status PassManager::Run(ir::Graph& graph) {
  statistics_.clear();
  if (absl::Status status = ValidateOptions(); !status.ok()) return status;
  if (absl::Status status = Verify(graph, "before the first pass"); !status.ok()) return status;
  for (const Entry& entry : entries_) {
    if (entry.fixed_point) {
      if (absl::Status status = RunFixedPoint(entry, graph); !status.ok()) return status;
      continue;
    }
    bool changed = false;
    if (absl::Status status = RunPass(*entry.passes.front(), 0, graph, &changed); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status PassManager::RunFixedPoint(const Entry& entry, ir::Graph& graph) {
  const int max_iterations = entry.fixed_point_options.max_iterations;
  for (int iteration = 1; iteration <= max_iterations; ++iteration) {
    bool any_changed = false;
    for (const auto& pass : entry.passes) {
      bool changed = false;
      if (absl::Status status = RunPass(*pass, iteration, graph, &changed); !status.ok()) {
        return status;
      }
      any_changed = any_changed || changed;
    }
    if (!any_changed) return absl::OkStatus();
  }
  if (entry.fixed_point_options.fail_if_not_converged) {
    std::vector<std::string> names;
    for (const auto& pass : entry.passes) names.emplace_back(pass->name());
    return absl::FailedPreconditionError(
        absl::StrCat("fixed-point group [", absl::StrJoin(names, ", "),
                     "] still changed the graph after ", max_iterations, " iterations"));
  }
  return absl::OkStatus();
}

absl::Status PassManager::RunPass(Pass& pass, int iteration, ir::Graph& graph, bool* changed) {
  PassContext context(*options_.op_properties);
  auto start = std::chrono::steady_clock::now();
  absl::Status status = pass.Run(graph, context);
  auto end = std::chrono::steady_clock::now();

  PassStatistics row;
  row.pass_name = std::string(pass.name());
  row.iteration = iteration;
  row.changed = context.changed();
  row.wall_time = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start);
  row.counters = context.counters();
  statistics_.push_back(std::move(row));
  *changed = context.changed();

  if (!status.ok()) {
    return absl::Status(
        status.code(), absl::StrCat("pass ", DescribeRun(pass, iteration), ": ", status.message()));
  }
  const auto& dump = options_.dump_graph_after;
  if (std::find(dump.begin(), dump.end(), pass.name()) != dump.end()) {
    std::ostream& out = options_.dump_stream != nullptr ? *options_.dump_stream : std::cerr;
    out << "// ----- graph after pass " << DescribeRun(pass, iteration) << " -----\n";
    ir::PrintGraph(graph, out);
  }
  return Verify(graph, absl::StrCat("after pass ", DescribeRun(pass, iteration)));
}

absl::Status PassManager::Verify(const ir::Graph& graph, const std::string& after) const {
  if (!options_.verify_after_each_pass) return absl::OkStatus();
  std::vector<std::string> problems = graph.CheckInvariants();
  if (!problems.empty()) {
    return absl::InternalError(
        absl::StrCat("graph invariants broken ", after, ": ", absl::StrJoin(problems, "; ")));
  }
  if (options_.verifier) {
    absl::Status status = options_.verifier(graph);
    if (!status.ok()) {
      return absl::Status(
          status.code(), absl::StrCat("graph verification failed ", after, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace torchir::passes
