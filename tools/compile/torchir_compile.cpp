// torchir-compile: the compiler driver.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/backend/explain.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/emit/atomic_file.h"
#include "compiler/ir/graph_printer.h"
#include "memory_planner/report.h"
#include "passes/pass_statistics.h"
#include "tools/cli/command_line.h"
#include "tools/cli/report_error.h"
#include "tools/pipeline/builtin_backends.h"
#include "tools/pipeline/compile_program.h"
#include "tools/pipeline/graph_memory_plan.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/lower.h"
#include "tools/pipeline/memory_limit.h"
#include "tools/pipeline/optimize.h"
#include "tools/pipeline/partition.h"

namespace {

constexpr char kDescription[] =
    "Compiles a model exported by pytorch-ir (a JSON graph of ATen ops, without weight\n"
    "values) together with its state_dict (.safetensors or a torch.save .pt file).\n"
    "The driver loads and validates the graph, binds the weights, lowers the ATen ops to the\n"
    "Edge dialect (listing every unsupported op at once), optimises the Edge graph (batch-norm\n"
    "folding, activation fusion, constant folding, CSE, DCE), hands what the listed backends\n"
    "can run to their delegates (--backend xnnpack, the default; with a list such as\n"
    "--backend native,xnnpack each node goes to the first backend that takes it; --explain\n"
    "says which backend took each node and why the others did not; what no backend takes\n"
    "stays on the portable kernels), plans activation memory and, with -o,\n"
    "writes a .pte program for the torchir runtime. Every problem is printed as one\n"
    "'error: ...' line naming file, node and tensor; on any error no output file is written\n"
    "(an existing one is left as it was).";

constexpr char kEpilog[] =
    "examples:\n"
    "  torchir-compile model.json --weights weights.safetensors -o model.pte\n"
    "  torchir-compile model.json --weights weights.safetensors\n"
    "  torchir-compile model.json --weights weights.safetensors --explain\n"
    "  torchir-compile model.json --weights weights.safetensors --backend portable -o m.pte\n"
    "  torchir-compile model.json --weights model.pt --dump-graph aten\n"
    "  torchir-compile model.json --weights weights.safetensors --dump-graph edge\n"
    "  torchir-compile model.json --memory-report\n"
    "  torchir-compile big.json --weights big.safetensors --max-memory 32G -o big.pte\n"
    "\n"
    "exit status: 0 success, 1 invalid model or weights (or the output cannot be written),\n"
    "2 usage error";

// "1 segment", "2 segments".
std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string Percent(double share) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f%%", 100.0 * share);
  return text;
}

// ", 1 xnnpack delegate (98.50% of MACs)", ", 2 native delegates, 1 xnnpack delegate (...)":
// the delegates of each listed backend (none for --backend portable).
std::string Delegates(const torchir::pipeline::CompiledProgram& program) {
  std::vector<std::string> counts;
  for (const torchir::backend::BackendPartition& backend : program.partitioning.backends) {
    counts.push_back(
        Count(backend.result.delegates.size(), (backend.backend + " delegate").c_str()));
  }
  if (counts.empty()) return "";
  return ", " + absl::StrJoin(counts, ", ") + " (" +
         Percent(program.partitioning.DelegatedMacShare()) + " of MACs)";
}

// The line -o prints, e.g. "wrote m.pte: 13.6 MiB (program 9.1 KiB, 1 segment), 65
// instructions, 12 operators, arena 3.1 MiB".
std::string WroteLine(const std::string& path, const torchir::pipeline::CompiledProgram& program) {
  const torchir::emit::EmitStats& stats = program.stats;
  return "wrote " + path + ": " + torchir::ir::FormatBytes(stats.file_bytes) + " (program " +
         torchir::ir::FormatBytes(stats.flatbuffer_bytes) + ", " +
         Count(stats.segment_count, "segment") + "), " +
         Count(stats.instruction_count, "instruction") + ", " +
         Count(stats.operator_count, "operator") + ", arena " +
         torchir::ir::FormatBytes(program.plan.result.plan.TotalSize()) + Delegates(program);
}

}  // namespace

int main(int argc, char** argv) {
  using torchir::cli::CommandLine;
  CommandLine cli("torchir-compile", "torchir-compile MODEL.json [--weights FILE] [options]",
                  kDescription);
  cli.AddPositional("MODEL.json", "the pytorch-ir graph", /*required=*/false);
  cli.AddOption("weights", "FILE",
                "state_dict as .safetensors or .pt; its tensors are bound to the graph's "
                "weight placeholders through weight_name_mapping");
  cli.AddOption("output", "OUT.pte",
                "(-o) compile and write the program to OUT.pte (needs every weight bound); the "
                "file is replaced atomically and only on success");
  cli.AddOption(
      "backend", "NAME[,NAME...]",
      "the backends the program targets, in order of preference: each node goes to the first "
      "listed backend that takes it, the rest to the portable kernels (" +
          torchir::pipeline::DescribeAvailableBackends() +
          "); NAME: " + absl::StrJoin(torchir::pipeline::AvailableBackends(), ", "),
      torchir::pipeline::CompileOptions().backend);
  cli.AddOption("target", "CPU",
                "the CPU family the program is for: the native backend packs its weights for "
                "that family's kernels (a runtime on another family repacks them once at load, "
                "and logs it); CPU: " +
                    torchir::pipeline::TargetNames() + " (host: this machine's best)",
                torchir::pipeline::CompileOptions().target);
  cli.AddOption("threads", "N",
                "the most threads the program's delegates will run on (the runtime's "
                "--threads): their working memory (native GEMM blocks, ~115 KiB per thread on "
                "AVX-512, Winograd up to ~2 MB) is planned into the arena for N threads, sharing "
                "bytes with tensors dead while each delegate runs; a runtime running more "
                "threads allocates those delegates' memory at load instead; N: 1 (the runtime's "
                "default thread count) to 1024",
                std::to_string(torchir::pipeline::CompileOptions().threads));
  cli.AddSwitch("explain",
                "print what each --backend took (its delegates, their MACs and blob sizes), "
                "which backend and delegate took each Edge node and why the backends before it "
                "did not, every node left on the portable kernels with each backend's reason, "
                "a delegated / not delegated op histogram and the delegated share of MACs");
  cli.AddOption("dump-graph", "STAGE",
                "print the graph after STAGE to stdout; STAGE: aten (as loaded), edge (lowered, "
                "optimised and partitioned for --backend: the graph the program holds)");
  cli.AddSwitch("summary", "print inputs, outputs, weight totals and the op histogram");
  cli.AddSwitch("memory-report",
                "plan activation memory and print arena size, lower bound, naive total and "
                "every algorithm tried (over the optimised, partitioned Edge graph, one "
                "instruction per node: the plan -o writes into the program)");
  cli.AddOption("dump-graph-after", "PASS[,PASS...]",
                "print the Edge graph after each named optimisation pass; PASS: " +
                    absl::StrJoin(torchir::pipeline::OptimizationPassNames(), ", "));
  cli.AddSwitch("pass-stats", "print each optimisation pass's time, changes and counters");
  cli.AddSwitch("verify-stages",
                "run the Edge verifier after every pass (always on in debug builds)");
  cli.AddOption("max-memory", "SIZE",
                "refuse a program that needs more than SIZE bytes of memory (planned arenas plus "
                "constants); SIZE in bytes or with a suffix K, M, G, T (powers of 1024)",
                "16G");
  cli.AddSwitch("quiet", "do not print warnings nor the one-line result");
  cli.AddSwitch("verbose",
                "list every problem of an error that sums up several (missing "
                "weights, shape mismatches)");
  cli.AddSwitch("list-edge-ops", "print the Edge op table (markdown) and exit");
  cli.SetEpilog(kEpilog);
  cli.Parse(argc, argv);
  if (cli.Switch("list-edge-ops")) {
    std::cout << torchir::dialect::RenderEdgeOpTableMarkdown();
    return 0;
  }
  if (cli.positionals().empty()) cli.UsageError("missing MODEL.json");

  std::string stage = cli.Get("dump-graph");
  if (cli.Has("dump-graph") && stage != "aten" && stage != "edge") {
    cli.UsageError("--dump-graph: unknown stage '" + stage + "' (available: aten, edge)");
  }
  if (absl::Status backends = torchir::pipeline::CheckBackendList(cli.Get("backend"));
      !backends.ok()) {
    cli.UsageError("--backend: " + std::string(backends.message()));
  }
  const absl::StatusOr<torchir::native::KernelTarget> target =
      torchir::pipeline::ParseTarget(cli.Get("target"));
  if (!target.ok()) cli.UsageError("--target: " + std::string(target.status().message()));
  const std::optional<uint64_t> max_memory =
      torchir::pipeline::ParseByteSize(cli.Get("max-memory"));
  if (!max_memory) {
    cli.UsageError("--max-memory: '" + cli.Get("max-memory") +
                   "' is not a size (bytes, or a number with K, M, G or T)");
  }
  const uint32_t threads = static_cast<uint32_t>(cli.GetInt("threads", 1, 1024));
  const bool verbose = cli.Switch("verbose");
  auto report_error = [verbose](const absl::Status& status) {
    return torchir::cli::ReportError(status, verbose);
  };
  const bool write_program = cli.Has("output");
  const std::string output_path = cli.Get("output");
  if (write_program && output_path.empty()) cli.UsageError("--output: empty path");

  torchir::pipeline::LoadOptions options;
  options.model_path = cli.positionals()[0];
  options.weights_path = cli.Get("weights");
  // A program carries its weights: say up front which ones are missing.
  options.require_all_weights = write_program;
  absl::StatusOr<torchir::pipeline::LoadedModel> model = torchir::pipeline::LoadModel(options);
  if (!model.ok()) return report_error(model.status());
  if (!cli.Switch("quiet")) {
    for (const std::string& warning : model->warnings) std::cerr << "warning: " << warning << "\n";
  }
  const torchir::ir::Graph& graph = *model->graph;
  if (cli.Has("dump-graph") && stage == "aten") {
    torchir::ir::PrintSummary(graph, std::cout);
    std::cout << "\n";
    torchir::ir::PrintGraph(graph, std::cout);
    if (!write_program) return 0;
  }

  if (cli.Switch("summary")) torchir::ir::PrintSummary(graph, std::cout);

  // Lower to Edge and optimise.
  torchir::pipeline::OptimizeOptions optimize;
  optimize.verify_each_pass = cli.Switch("verify-stages");
  optimize.dump_stream = &std::cout;
  if (cli.Has("dump-graph-after")) {
    optimize.dump_graph_after = absl::StrSplit(cli.Get("dump-graph-after"), ',', absl::SkipEmpty());
  }
  // With -o the whole pipeline runs and its stages' results feed the reports below;
  // without it, only lowering (and planning when a report asks for it).
  std::optional<torchir::pipeline::CompiledProgram> compiled;
  std::unique_ptr<torchir::ir::Graph> lowered;
  std::vector<torchir::passes::PassStatistics> lowering_statistics;
  if (write_program) {
    torchir::pipeline::CompileOptions compile;
    compile.backend = cli.Get("backend");
    compile.target = cli.Get("target");
    compile.threads = threads;
    compile.optimize = optimize;
    compile.max_memory_bytes = *max_memory;
    absl::StatusOr<torchir::pipeline::CompiledProgram> program =
        torchir::pipeline::CompileProgram(*model, compile);
    if (!program.ok()) return report_error(program.status());
    compiled = std::move(*program);
    absl::Status written = torchir::emit::WriteFileAtomically(output_path, compiled->bytes);
    if (!written.ok()) return report_error(written);
  } else {
    absl::StatusOr<std::unique_ptr<torchir::ir::Graph>> edge =
        torchir::pipeline::LowerModel(*model, optimize, &lowering_statistics);
    if (!edge.ok()) return report_error(edge.status());
    lowered = std::move(*edge);
  }
  // Without -o, the reports that describe the program's graph (--explain, --memory-report,
  // --dump-graph edge) partition the lowered graph as -o would.
  std::optional<torchir::backend::Partitioning> partitioning;
  const bool report_program_graph = cli.Switch("explain") || cli.Switch("memory-report") ||
                                    (cli.Has("dump-graph") && stage == "edge");
  if (compiled) {
    partitioning = compiled->partitioning;
  } else if (report_program_graph) {
    absl::StatusOr<torchir::backend::Partitioning> partitioned =
        torchir::pipeline::PartitionForBackend(*lowered, cli.Get("backend"),
                                               &torchir::pipeline::BuiltinBackends(*target));
    if (!partitioned.ok()) return report_error(partitioned.status());
    partitioning = std::move(*partitioned);
    if (absl::Status declared = torchir::pipeline::DeclareDelegateScratch(
            *lowered, *partitioning, torchir::pipeline::BuiltinBackends(*target), threads);
        !declared.ok()) {
      return report_error(declared);
    }
  }
  const torchir::ir::Graph& edge = compiled ? *compiled->edge_graph : *lowered;
  const std::vector<torchir::passes::PassStatistics>& statistics =
      compiled ? compiled->pass_statistics : lowering_statistics;
  if (cli.Switch("pass-stats")) torchir::passes::PrintPassStatistics(statistics, std::cout);

  if (cli.Switch("memory-report")) {
    absl::StatusOr<torchir::pipeline::GraphMemoryPlan> planned;
    if (!compiled) {
      planned = torchir::pipeline::PlanGraphMemory(edge);
      if (!planned.ok()) return report_error(planned.status());
    }
    const torchir::pipeline::GraphMemoryPlan* plan = compiled ? &compiled->plan : &*planned;
    std::cout << torchir::memory_planner::RenderReport(plan->report);
    std::cout << "peak live bytes: " << plan->file_order_peak << " in node order, "
              << plan->memory_aware_peak << " in memory-aware order ("
              << (plan->reordered ? "used" : "not lower, node order kept") << ")\n";
    std::cout << "outputs written over an input: " << plan->in_place_outputs << "\n";
    std::cout << "planning time: " << plan->planning_seconds * 1e3 << " ms\n";
  }
  if (cli.Switch("explain")) std::cout << torchir::backend::RenderExplanation(*partitioning);
  if (cli.Has("dump-graph") && stage == "edge") {
    torchir::ir::PrintSummary(edge, std::cout);
    std::cout << "\n";
    torchir::ir::PrintGraph(edge, std::cout);
  }
  if (write_program) {
    if (!cli.Switch("quiet")) std::cerr << WroteLine(output_path, *compiled) << "\n";
  } else if (!cli.Has("dump-graph") && !cli.Switch("summary") && !cli.Switch("memory-report") &&
             !cli.Switch("pass-stats") && !cli.Switch("explain")) {
    std::cerr << options.model_path << ": ok, " << graph.num_nodes() << " ATen nodes lowered to "
              << edge.num_nodes() << " Edge nodes";
    if (model->weights) std::cerr << ", weights bound from " << options.weights_path;
    std::cerr << "\n";
  }
  return 0;
}
