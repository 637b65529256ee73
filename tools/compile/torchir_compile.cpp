// torchir-compile: the compiler driver.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/ir/graph_printer.h"
#include "memory_planner/report.h"
#include "passes/pass_statistics.h"
#include "tools/cli/command_line.h"
#include "tools/cli/report_error.h"
#include "tools/pipeline/graph_memory_plan.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/lower.h"
#include "tools/pipeline/optimize.h"

namespace {

constexpr char kDescription[] =
    "Compiles a model exported by pytorch-ir (a JSON graph of ATen ops, without weight\n"
    "values) together with its state_dict (.safetensors or a torch.save .pt file).\n"
    "Today the driver loads and validates the graph, binds the weights, lowers the ATen ops\n"
    "to the Edge dialect (listing every unsupported op at once) and optimises the Edge graph\n"
    "(batch-norm folding, activation fusion, constant folding, CSE, DCE); writing a .pte\n"
    "program comes next. Every problem is printed as one 'error: ...' line naming file,\n"
    "node and tensor.";

constexpr char kEpilog[] =
    "examples:\n"
    "  torchir-compile model.json --weights weights.safetensors\n"
    "  torchir-compile model.json --weights model.pt --dump-graph aten\n"
    "  torchir-compile model.json --weights weights.safetensors --dump-graph edge\n"
    "  torchir-compile model.json --memory-report\n"
    "\n"
    "exit status: 0 success, 1 invalid model or weights, 2 usage error";

}  // namespace

int main(int argc, char** argv) {
  using torchir::cli::CommandLine;
  CommandLine cli("torchir-compile", "torchir-compile MODEL.json [--weights FILE] [options]",
                  kDescription);
  cli.AddPositional("MODEL.json", "the pytorch-ir graph", /*required=*/false);
  cli.AddOption("weights", "FILE",
                "state_dict as .safetensors or .pt; its tensors are bound to the graph's "
                "weight placeholders through weight_name_mapping");
  cli.AddOption("dump-graph", "STAGE",
                "print the graph after STAGE to stdout; STAGE: aten (as loaded), edge (lowered)");
  cli.AddSwitch("summary", "print inputs, outputs, weight totals and the op histogram");
  cli.AddSwitch("memory-report",
                "plan activation memory and print arena size, lower bound, naive total and "
                "every algorithm tried (over the optimised Edge graph, one instruction per "
                "node, until partitioning and emission exist)");
  cli.AddOption("dump-graph-after", "PASS[,PASS...]",
                "print the Edge graph after each named optimisation pass; PASS: " +
                    absl::StrJoin(torchir::pipeline::OptimizationPassNames(), ", "));
  cli.AddSwitch("pass-stats", "print each optimisation pass's time, changes and counters");
  cli.AddSwitch("verify-stages",
                "run the Edge verifier after every pass (always on in debug builds)");
  cli.AddSwitch("quiet", "do not print warnings");
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

  torchir::pipeline::LoadOptions options;
  options.model_path = cli.positionals()[0];
  options.weights_path = cli.Get("weights");
  absl::StatusOr<torchir::pipeline::LoadedModel> model = torchir::pipeline::LoadModel(options);
  if (!model.ok()) return torchir::cli::ReportError(model.status());
  if (!cli.Switch("quiet")) {
    for (const std::string& warning : model->warnings) std::cerr << "warning: " << warning << "\n";
  }
  const torchir::ir::Graph& graph = *model->graph;
  if (cli.Has("dump-graph") && stage == "aten") {
    torchir::ir::PrintSummary(graph, std::cout);
    std::cout << "\n";
    torchir::ir::PrintGraph(graph, std::cout);
    return 0;
  }

  if (cli.Switch("summary")) torchir::ir::PrintSummary(graph, std::cout);

  // Lower to Edge and optimise.
  torchir::pipeline::OptimizeOptions optimize;
  optimize.verify_each_pass = cli.Switch("verify-stages");
  optimize.dump_stream = &std::cout;
  if (cli.Has("dump-graph-after")) {
    optimize.dump_graph_after = absl::StrSplit(cli.Get("dump-graph-after"), ',', absl::SkipEmpty());
  }
  std::vector<torchir::passes::PassStatistics> statistics;
  absl::StatusOr<std::unique_ptr<torchir::ir::Graph>> lowered =
      torchir::pipeline::LowerModel(*model, optimize, &statistics);
  if (!lowered.ok()) return torchir::cli::ReportError(lowered.status());
  const torchir::ir::Graph& edge = **lowered;
  if (cli.Switch("pass-stats")) torchir::passes::PrintPassStatistics(statistics, std::cout);

  if (cli.Switch("memory-report")) {
    absl::StatusOr<torchir::pipeline::GraphMemoryPlan> plan =
        torchir::pipeline::PlanGraphMemory(edge);
    if (!plan.ok()) return torchir::cli::ReportError(plan.status());
    std::cout << torchir::memory_planner::RenderReport(plan->report);
    std::cout << "peak live bytes: " << plan->file_order_peak << " in node order, "
              << plan->memory_aware_peak << " in memory-aware order ("
              << (plan->reordered ? "used" : "not lower, node order kept") << ")\n";
    std::cout << "planning time: " << plan->planning_seconds * 1e3 << " ms\n";
  }
  if (cli.Has("dump-graph")) {
    torchir::ir::PrintSummary(edge, std::cout);
    std::cout << "\n";
    torchir::ir::PrintGraph(edge, std::cout);
  }
  if (!cli.Has("dump-graph") && !cli.Switch("summary") && !cli.Switch("memory-report") &&
      !cli.Switch("pass-stats")) {
    std::cerr << options.model_path << ": ok, " << graph.num_nodes() << " ATen nodes lowered to "
              << edge.num_nodes() << " Edge nodes";
    if (model->weights) std::cerr << ", weights bound from " << options.weights_path;
    std::cerr << "\n";
  }
  return 0;
}
