// torchir-op-coverage: writes docs/op-coverage.md from the compiler's own tables and the zoo.
//
// For every model of a zoo directory (tools/export_ir.py --zoo: <zoo>/<model>/<flavour>/
// model.json + weights.safetensors) it lowers the graph with a lowering trace (what each ATen op
// became), then optimises and partitions it once per delegate backend to see which Edge ops
// each backend actually took. With the Core ATen list (tools/coverage/core_aten_ops.txt), the
// lowering rule table, its refusals and the Edge op table it renders one markdown page. Every
// claim on the page is either a table fact or something a zoo model was seen to do.
//
//   torchir-op-coverage --zoo build/zoo --core-ops tools/coverage/core_aten_ops.txt -o docs/op-coverage.md
//   torchir-op-coverage ... --check docs/op-coverage.md   (exit 1 when the page drifted)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backend/partition_result.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/emit/atomic_file.h"
#include "compiler/ir/dtype.h"
#include "compiler/lowering/lowering.h"
#include "tools/cli/command_line.h"
#include "tools/cli/report_error.h"
#include "tools/pipeline/compile_program.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/optimize.h"

namespace torchir {
namespace {

namespace fs = std::filesystem;

// The delegate backends whose takings the page reports, with their column titles.
const std::vector<std::pair<std::string, std::string>> kBackends = {{"xnnpack", "XNNPACK"},
                                                                   {"native", "native"}};

// What the zoo showed.
struct ZooFacts {
  lowering::LoweringTrace trace;  // ATen op -> what it became, over every model
  // ATen op -> model -> flavours using it.
  std::map<std::string, std::map<std::string, std::set<std::string>>> users;
  std::map<std::string, size_t> model_nodes;  // model -> its largest ATen node count
  // backend -> Edge ops it took in at least one model.
  std::map<std::string, std::set<std::string>> delegated;
  size_t programs = 0;
};

absl::Status ReadZooModel(const fs::path& dir, const std::string& model,
                          const std::string& flavour, ZooFacts& facts) {
  pipeline::LoadOptions load;
  load.model_path = (dir / "model.json").string();
  load.weights_path = (dir / "weights.safetensors").string();
  absl::StatusOr<pipeline::LoadedModel> loaded = pipeline::LoadModel(load);
  if (!loaded.ok()) return loaded.status();
  size_t nodes = 0;
  for (const ir::Node* node : loaded->graph->nodes()) {
    facts.users[node->op()][model].insert(flavour);
    ++nodes;
  }
  facts.model_nodes[model] = std::max(facts.model_nodes[model], nodes);
  for (const auto& [backend, title] : kBackends) {
    // Lower afresh for each backend: partitioning rewrites the graph.
    absl::StatusOr<std::unique_ptr<ir::Graph>> edge =
        lowering::LowerToEdge(*loaded->graph, &facts.trace);
    if (!edge.ok()) return edge.status();
    absl::Status optimized = pipeline::OptimizeEdgeGraph(**edge, {});
    if (!optimized.ok()) return optimized;
    absl::StatusOr<backend::Partitioning> partitioning =
        pipeline::PartitionForBackend(**edge, backend);
    if (!partitioning.ok()) return partitioning.status();
    for (const backend::BackendPartition& part : partitioning->backends) {
      for (const backend::DelegateSummary& delegate : part.result.delegates) {
        facts.delegated[backend].insert(delegate.ops.begin(), delegate.ops.end());
      }
    }
  }
  ++facts.programs;
  return absl::OkStatus();
}

absl::StatusOr<ZooFacts> ReadZoo(const fs::path& zoo) {
  if (!fs::is_directory(zoo)) {
    return absl::NotFoundError(absl::StrCat("zoo directory '", zoo.string(), "' not found"));
  }
  std::vector<fs::path> models;
  for (const fs::directory_entry& entry : fs::directory_iterator(zoo)) {
    if (entry.is_directory()) models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  ZooFacts facts;
  for (const fs::path& model : models) {
    std::vector<fs::path> flavours;
    for (const fs::directory_entry& entry : fs::directory_iterator(model)) {
      if (fs::exists(entry.path() / "model.json")) flavours.push_back(entry.path());
    }
    std::sort(flavours.begin(), flavours.end());
    for (const fs::path& flavour : flavours) {
      absl::Status status = ReadZooModel(flavour, model.filename().string(),
                                         flavour.filename().string(), facts);
      if (!status.ok()) {
        return absl::Status(status.code(), absl::StrCat(flavour.string(), ": ", status.message()));
      }
    }
  }
  if (facts.programs == 0) {
    return absl::NotFoundError(absl::StrCat("no <model>/<flavour>/model.json under '",
                                            zoo.string(), "'"));
  }
  return facts;
}

absl::StatusOr<std::vector<std::string>> ReadCoreOps(const std::string& path,
                                                     std::string* header) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::vector<std::string> ops;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (header->empty()) *header = line.substr(line.find_first_not_of("# "));
      continue;
    }
    if (line.rfind("aten.", 0) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", path, "': '", line, "' is not an ATen op name"));
    }
    ops.push_back(line);
  }
  if (ops.empty()) return absl::InvalidArgumentError(absl::StrCat("'", path, "' lists no op"));
  return ops;
}

// ---- Rendering ------------------------------------------------------------------------------

std::string Code(const std::string& text) { return absl::StrCat("`", text, "`"); }

// The dtypes the op's portable kernel takes: its first type variable or input 0's fixed set.
dialect::DTypeSet PortableDTypes(const dialect::EdgeOpDef& def) {
  if (!def.type_vars.empty()) return def.type_vars.front().allowed;
  if (!def.inputs.empty()) return def.inputs.front().fixed;
  return {};
}

// The dtypes in every one of `sets`, by name ("float32, int64"), "-" when none.
std::string DTypesText(const std::vector<dialect::DTypeSet>& sets) {
  std::vector<std::string> names;
  for (int d = 0; d < ir::kNumDTypes; ++d) {
    const auto dtype = static_cast<ir::DType>(d);
    if (std::all_of(sets.begin(), sets.end(),
                    [&](const dialect::DTypeSet& set) { return set.Contains(dtype); })) {
      names.emplace_back(ir::DTypeName(dtype));
    }
  }
  return names.empty() ? "-" : absl::StrJoin(names, ", ");
}

bool IsEdgeOp(const std::string& made) { return made.rfind("edge.", 0) == 0; }

// "relu (e, c, p), relu_inplace (e), +4 more": the smallest models first (op-level cases).
std::string ZooText(const ZooFacts& facts, const std::string& op) {
  auto users = facts.users.find(op);
  if (users == facts.users.end()) return "-";
  std::vector<std::string> models;
  for (const auto& [model, flavours] : users->second) models.push_back(model);
  std::stable_sort(models.begin(), models.end(), [&](const std::string& a, const std::string& b) {
    return facts.model_nodes.at(a) < facts.model_nodes.at(b);
  });
  std::vector<std::string> shown;
  for (size_t i = 0; i < models.size() && i < 3; ++i) {
    std::vector<std::string> letters;
    for (const std::string& flavour : users->second.at(models[i])) {
      letters.push_back(flavour == "pytorch_ir" ? "p" : flavour.substr(0, 1));
    }
    shown.push_back(absl::StrCat(models[i], " (", absl::StrJoin(letters, ","), ")"));
  }
  if (models.size() > 3) shown.push_back(absl::StrCat("+", models.size() - 3, " more"));
  return absl::StrJoin(shown, ", ");
}

struct AtenRow {
  std::string lowers_to = "-";
  std::string dtypes = "-";
  std::vector<std::string> backends;  // per kBackends: the Edge ops that backend took
};

AtenRow DescribeAten(const ZooFacts& facts, const std::string& op) {
  AtenRow row;
  row.backends.assign(kBackends.size(), "-");
  auto made = facts.trace.edge_ops.find(op);
  if (made == facts.trace.edge_ops.end()) return row;
  std::vector<std::string> parts;
  std::vector<dialect::DTypeSet> kernels;
  for (const std::string& what : made->second) {
    if (!IsEdgeOp(what)) {
      parts.push_back(what);
      continue;
    }
    parts.push_back(Code(what));
    const dialect::EdgeOpDef* def = dialect::FindEdgeOp(what);
    if (def != nullptr) kernels.push_back(PortableDTypes(*def));
  }
  row.lowers_to = absl::StrJoin(parts, ", ");
  if (!kernels.empty()) row.dtypes = DTypesText(kernels);
  for (size_t b = 0; b < kBackends.size(); ++b) {
    auto taken = facts.delegated.find(kBackends[b].first);
    std::vector<std::string> ops;
    for (const std::string& what : made->second) {
      if (taken != facts.delegated.end() && taken->second.count(what) != 0) ops.push_back(what);
    }
    if (!ops.empty()) row.backends[b] = absl::StrJoin(ops, ", ");
  }
  return row;
}

// A table header: `leading` columns, one per backend, then the zoo column.
std::string TableHeader(const std::vector<std::string>& leading) {
  std::vector<std::string> titles = leading;
  for (const auto& [name, title] : kBackends) titles.push_back(title);
  titles.push_back("zoo models (flavours)");
  return absl::StrCat("| ", absl::StrJoin(titles, " | "), " |\n|",
                      absl::StrJoin(std::vector<std::string>(titles.size(), "---"), "|"), "|\n");
}

std::string Render(const ZooFacts& facts, const std::vector<std::string>& core_ops,
                   const std::string& core_header) {
  const std::vector<std::string> accepted_list = lowering::SupportedAtenOps();
  const std::set<std::string> accepted(accepted_list.begin(), accepted_list.end());
  const std::map<std::string, std::string>& refused = lowering::RefusedAtenOps();
  const std::set<std::string> core(core_ops.begin(), core_ops.end());

  size_t core_accepted = 0, core_refused = 0, core_missing = 0, core_unseen = 0;
  for (const std::string& op : core_ops) {
    if (accepted.count(op) != 0) {
      ++core_accepted;
      if (facts.users.count(op) == 0) ++core_unseen;
    } else if (refused.count(op) != 0) {
      ++core_refused;
    } else {
      ++core_missing;
    }
  }
  size_t other_accepted = 0, other_unseen = 0;
  for (const std::string& op : accepted_list) {
    if (core.count(op) != 0) continue;
    ++other_accepted;
    if (facts.users.count(op) == 0) ++other_unseen;
  }

  std::string md;
  absl::StrAppend(
      &md, "# Operator coverage\n\n",
      "<!-- Generated by torchir-op-coverage; do not edit. The test op_coverage_docs fails when "
      "this page and the compiler's tables or the zoo disagree. Regenerate with:\n",
      "     build/bin/torchir-op-coverage --zoo build/zoo --core-ops "
      "tools/coverage/core_aten_ops.txt -o docs/op-coverage.md -->\n\n",
      "Which ATen ops torchir accepts, what each becomes, and where it runs. Sources: the lowering "
      "rule table and its refusals (`compiler/lowering/`), the Edge op table "
      "(`compiler/dialect/edge_ops.cpp`), the Core ATen list "
      "(`tools/coverage/core_aten_ops.txt`), and the zoo: every model of `build/zoo` (",
      facts.programs, " programs) was lowered with a trace of what each ATen op became, then "
      "optimised and partitioned once per backend.\n\n",
      "- **lowers to**: the Edge ops its lowering rule emitted in the zoo (a decomposition when "
      "several; `edge.cast` is an explicit type promotion), or that it made no node.\n",
      "- **portable dtypes**: the dtypes every one of those Edge ops' portable kernels takes "
      "(the Edge table's type constraint).\n",
      "- **XNNPACK**, **native**: the ones among those Edge ops that backend took in at least "
      "one zoo model (after optimisation, so an op fused into another counts as the other).\n",
      "- **zoo models**: the smallest zoo models that contain the op, with their flavours "
      "(e = `export`, c = `core`, p = `pytorch_ir`; docs/zoo.md); each runs at the aten, edge "
      "and pte stages on the portable kernels and both backends.\n\n");

  absl::StrAppend(&md, "## Summary\n\n| | ops |\n|---|---:|\n", "| Core ATen IR: ", core_header,
                  " | ", core_ops.size(), " |\n", "| ... accepted | ", core_accepted, " |\n",
                  "| ... refused on purpose (reasons below) | ", core_refused, " |\n",
                  "| ... not accepted yet | ", core_missing, " |\n",
                  "| ... accepted but in no zoo model | ", core_unseen, " |\n",
                  "| other accepted ATen ops (pre-dispatch forms, in-place variants, overloads) | ",
                  other_accepted, " |\n", "| ... in no zoo model | ", other_unseen, " |\n\n");

  absl::StrAppend(&md, "## Core ATen ops\n\n",
                  TableHeader({"ATen op", "status", "lowers to", "portable dtypes"}));
  for (const std::string& op : core_ops) {
    std::string status;
    AtenRow row;
    row.backends.assign(kBackends.size(), "-");
    if (accepted.count(op) != 0) {
      status = facts.users.count(op) != 0 ? "accepted" : "accepted, **in no zoo model**";
      row = DescribeAten(facts, op);
    } else if (refused.count(op) != 0) {
      status = "refused";
    } else {
      status = "**not yet**";
    }
    absl::StrAppend(&md, "| ", Code(op), " | ", status, " | ", row.lowers_to, " | ", row.dtypes,
                    " | ", absl::StrJoin(row.backends, " | "), " | ", ZooText(facts, op), " |\n");
  }

  absl::StrAppend(&md, "\n## Other accepted ATen ops\n\n",
                  "The pre-dispatch forms `torch.export` writes (`aten.conv2d`, `aten.linear`, "
                  "in-place `_` variants, `.Scalar` overloads, composites) and the rest of what "
                  "the rule table accepts.\n\n",
                  TableHeader({"ATen op", "lowers to", "portable dtypes"}));
  for (const std::string& op : accepted_list) {
    if (core.count(op) != 0) continue;
    AtenRow row = DescribeAten(facts, op);
    absl::StrAppend(&md, "| ", Code(op), " | ", row.lowers_to, " | ", row.dtypes, " | ",
                    absl::StrJoin(row.backends, " | "), " | ", ZooText(facts, op), " |\n");
  }

  absl::StrAppend(&md, "\n## Refused on purpose\n\n",
                  "Compiling a graph with one of these fails with one line per op, naming its "
                  "nodes and this reason.\n\n| ATen op | core | reason |\n|---|---|---|\n");
  for (const auto& [op, reason] : refused) {
    absl::StrAppend(&md, "| ", Code(op), " | ", core.count(op) != 0 ? "yes" : "", " | ", reason,
                    " |\n");
  }

  absl::StrAppend(&md, "\n## Edge ops\n\n| Edge op | portable dtypes |");
  for (const auto& [name, title] : kBackends) absl::StrAppend(&md, " ", title, " in the zoo |");
  absl::StrAppend(&md, "\n|---|---|");
  for (size_t b = 0; b < kBackends.size(); ++b) md += "---|";
  md += "\n";
  for (const dialect::EdgeOpDef& def : dialect::EdgeOps()) {
    absl::StrAppend(&md, "| ", Code(def.name), " | ", DTypesText({PortableDTypes(def)}), " |");
    for (const auto& [name, title] : kBackends) {
      auto taken = facts.delegated.find(name);
      bool yes = taken != facts.delegated.end() && taken->second.count(def.name) != 0;
      absl::StrAppend(&md, " ", yes ? "yes" : "-", " |");
    }
    md += "\n";
  }
  return md;
}

int Main(int argc, char** argv) {
  cli::CommandLine cl(
      "torchir-op-coverage", "torchir-op-coverage --zoo DIR --core-ops FILE (-o OUT.md | --check FILE.md)",
      "Writes the operator coverage page (docs/op-coverage.md): every Core ATen op and every "
      "ATen op the compiler accepts, what it lowers to, the dtypes of its portable kernels, "
      "which delegate backends took it and the zoo models that exercise it. It lowers, optimises "
      "and partitions every model of the zoo directory (tools/export_ir.py --zoo) to find out.");
  cl.AddOption("zoo", "DIR", "the zoo: DIR/<model>/<flavour>/model.json + weights.safetensors");
  cl.AddOption("core-ops", "FILE",
               "the Core ATen op list, one op per line (tools/coverage/core_aten_ops.txt)");
  cl.AddOption("output", "OUT.md", "write the page to OUT.md (-o)");
  cl.AddOption("check", "FILE.md",
               "instead of writing, compare with FILE.md and exit 1 when they differ");
  cl.SetEpilog(
      "example:\n  torchir-op-coverage --zoo build/zoo --core-ops tools/coverage/core_aten_ops.txt "
      "-o docs/op-coverage.md\n\nexit status: 0 success, 1 invalid input or a stale page, 2 "
      "usage error");
  cl.Parse(argc, argv);
  if (!cl.Has("zoo") || !cl.Has("core-ops")) cl.UsageError("--zoo and --core-ops are required");
  if (cl.Has("output") == cl.Has("check")) cl.UsageError("give exactly one of -o and --check");

  std::string core_header;
  absl::StatusOr<std::vector<std::string>> core_ops = ReadCoreOps(cl.Get("core-ops"), &core_header);
  if (!core_ops.ok()) return cli::ReportError(core_ops.status());
  absl::StatusOr<ZooFacts> facts = ReadZoo(cl.Get("zoo"));
  if (!facts.ok()) return cli::ReportError(facts.status());
  const std::string page = Render(*facts, *core_ops, core_header);

  if (cl.Has("check")) {
    std::ifstream file(cl.Get("check"));
    std::string current((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (current != page) {
      std::fprintf(stderr,
                   "error: %s is out of date (the compiler's tables or the zoo changed); "
                   "regenerate it with: build/bin/torchir-op-coverage --zoo %s --core-ops %s -o "
                   "%s\n",
                   cl.Get("check").c_str(), cl.Get("zoo").c_str(), cl.Get("core-ops").c_str(),
                   cl.Get("check").c_str());
      return 1;
    }
    std::printf("%s is up to date (%zu zoo programs)\n", cl.Get("check").c_str(),
                facts->programs);
    return 0;
  }
  absl::Status written = emit::WriteFileAtomically(
      cl.Get("output"), std::vector<uint8_t>(page.begin(), page.end()));
  if (!written.ok()) return cli::ReportError(written);
  std::printf("wrote %s (%zu zoo programs)\n", cl.Get("output").c_str(), facts->programs);
  return 0;
}

}  // namespace
}  // namespace torchir

int main(int argc, char** argv) { return torchir::Main(argc, argv); }
