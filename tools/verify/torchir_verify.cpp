// torchir-verify: runs a model at one stage of the compiler and compares its
// outputs with the ones PyTorch computed.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/cli/command_line.h"
#include "tools/cli/report_error.h"
#include "tools/pipeline/compile_program.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/lower.h"
#include "tools/pipeline/tensor_file.h"
#include "tools/reference/edge_reference.h"
#include "tools/reference/reference_executor.h"
#include "tools/verify/compare.h"

namespace {

using torchir::reference::HostTensor;

constexpr char kDescription[] =
    "Runs a model exported by pytorch-ir on given inputs at one stage of the compiler and\n"
    "compares each output with the expected one: |actual - expected| <= atol + rtol *\n"
    "|expected| element-wise (NaN matches NaN; integer and bool outputs must be equal).\n"
    "Tensors are read from .safetensors files keyed by graph input and output names.";

constexpr char kEpilog[] =
    "stages:\n"
    "  aten   the ATen graph as loaded, run op by op by the LibTorch reference executor\n"
    "  edge   the graph lowered to the Edge dialect, run op by op by the Edge reference\n"
    "         executor (LibTorch, one implementation per Edge op, independent of lowering)\n"
    "  pte    the whole compiler (lower, optimise, plan, emit a .pte in memory), run by\n"
    "         the torchir runtime with its portable kernels\n"
    "\n"
    "examples:\n"
    "  torchir-verify model.json --weights weights.safetensors --inputs inputs.safetensors \\\n"
    "      --expected expected.safetensors\n"
    "  torchir-verify model.json --weights model.pt --inputs in.safetensors \\\n"
    "      --expected out.safetensors --atol 1e-4 --rtol 1e-4\n"
    "\n"
    "exit status: 0 all outputs match, 1 a mismatch or an invalid model or file,\n"
    "2 usage error";

// The backend --stage pte compiles for (--backend).
std::string g_backend;
// The --inputs file, which --stage pte hands to torchir-run.
std::string g_inputs_path;

// One stage that can be verified: how to compute the outputs there.
struct Stage {
  const char* name;
  absl::StatusOr<std::vector<HostTensor>> (*run)(const torchir::pipeline::LoadedModel& model,
                                                 const std::vector<HostTensor>& inputs);
};

// The graph outputs read by name from `path`, as the graph's types.
absl::StatusOr<std::vector<HostTensor>> ReadTensorsFor(
    const std::string& path, const std::vector<torchir::ir::Value*>& values,
    const std::string& role) {
  std::vector<std::string> names;
  std::vector<torchir::ir::TensorType> types;
  for (const torchir::ir::Value* value : values) {
    names.push_back(value->name());
    types.push_back(value->type());
  }
  return torchir::pipeline::ReadNamedTensors(path, names, types, role);
}

// Runs `program` once in a torchir-run process (the one beside this executable) on the tensors
// of `inputs_path` and reads back its outputs. Files go to a fresh directory under $TMPDIR,
// removed afterwards.
absl::StatusOr<std::vector<HostTensor>> RunInTorchirRun(
    const std::vector<uint8_t>& program, const std::string& inputs_path,
    const std::vector<torchir::ir::Value*>& outputs) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path runner = self.parent_path() / "torchir-run";
  if (error || !std::filesystem::exists(runner)) {
    return absl::NotFoundError(
        absl::StrCat("--stage pte runs the program with torchir-run, expected at '",
                     runner.string(), "': build it beside torchir-verify"));
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/torchir-verify.XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot make a directory like '", pattern, "': ", std::strerror(errno)));
  }
  const std::filesystem::path dir = pattern;
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{dir};
  const std::string pte = (dir / "program.pte").string();
  const std::string out = (dir / "outputs.safetensors").string();
  {
    std::ofstream file(pte, std::ios::binary);
    file.write(reinterpret_cast<const char*>(program.data()),
               static_cast<std::streamsize>(program.size()));
    if (!file.flush()) return absl::InternalError("cannot write '" + pte + "'");
  }
  std::vector<std::string> args = {runner.string(), pte, "--inputs", inputs_path,
                                   "--outputs",     out, "--quiet"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int spawn = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
      spawn != 0) {
    return absl::InternalError(
        absl::StrCat("cannot start '", runner.string(), "': ", std::strerror(spawn)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(errno)));
  }
  if (WIFSIGNALED(status)) {
    return absl::InternalError(absl::StrCat("torchir-run died of signal ", WTERMSIG(status), " (",
                                            strsignal(WTERMSIG(status)), ") running the program"));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat("torchir-run failed (exit ", WEXITSTATUS(status),
                                            ") running the program; its message is above"));
  }
  return ReadTensorsFor(out, outputs, "program output");
}

absl::StatusOr<std::vector<HostTensor>> RunAten(const torchir::pipeline::LoadedModel& model,
                                                const std::vector<HostTensor>& inputs) {
  return torchir::reference::RunReference(*model.graph, inputs);
}

absl::StatusOr<std::vector<HostTensor>> RunEdge(const torchir::pipeline::LoadedModel& model,
                                                const std::vector<HostTensor>& inputs) {
  absl::StatusOr<std::unique_ptr<torchir::ir::Graph>> edge = torchir::pipeline::LowerModel(model);
  if (!edge.ok()) return edge.status();
  // Lowering keeps the graph's inputs and outputs in order, so the tensors read
  // by the ATen graph's names feed and check the Edge graph.
  if ((*edge)->inputs().size() != inputs.size() ||
      (*edge)->outputs().size() != model.graph->outputs().size()) {
    return absl::InternalError(absl::StrCat("the lowered graph has ", (*edge)->inputs().size(),
                                            " input(s) and ", (*edge)->outputs().size(),
                                            " output(s); the ATen graph has ", inputs.size(),
                                            " and ", model.graph->outputs().size()));
  }
  return torchir::reference::RunEdgeReference(**edge, inputs);
}

// The program runs in a torchir-run process, not in this one: the reference executor's LibTorch
// (torch 2.x) exports its own, newer cpuinfo, and in one process Debian's XNNPACK binds to it and
// reads its CPU flags through the older struct layout (on a CPU without AVX-512 it then runs
// AVX-512 kernels and dies of SIGILL). torchir-run links no LibTorch (docs/decisions.md).
absl::StatusOr<std::vector<HostTensor>> RunPte(const torchir::pipeline::LoadedModel& model,
                                               const std::vector<HostTensor>& inputs) {
  torchir::pipeline::CompileOptions options;
  if (!g_backend.empty()) options.backend = g_backend;
  absl::StatusOr<torchir::pipeline::CompiledProgram> compiled =
      torchir::pipeline::CompileProgram(model, options);
  if (!compiled.ok()) return compiled.status();
  // `inputs` were read from g_inputs_path and checked against the graph: torchir-run reads them
  // again from there.
  (void)inputs;
  return RunInTorchirRun(compiled->bytes, g_inputs_path, model.graph->outputs());
}

constexpr Stage kStages[] = {{"aten", RunAten}, {"edge", RunEdge}, {"pte", RunPte}};

std::string StageNames() {
  std::string names;
  for (const Stage& stage : kStages) absl::StrAppend(&names, names.empty() ? "" : ", ", stage.name);
  return names;
}

// The tensors of `path` that `values` name, in order (tensor_file.h).
std::string FormatTolerance(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  using torchir::cli::CommandLine;
  CommandLine cli("torchir-verify",
                  "torchir-verify MODEL.json --inputs FILE --expected FILE [--weights FILE] "
                  "[options]",
                  kDescription);
  cli.AddPositional("MODEL.json", "the pytorch-ir graph");
  cli.AddOption("weights", "FILE",
                "state_dict as .safetensors or .pt (needed unless the model "
                "has no weights)");
  cli.AddOption("inputs", "FILE", ".safetensors with one tensor per graph input, by name");
  cli.AddOption("expected", "FILE", ".safetensors with one tensor per graph output, by name");
  torchir::verify::Tolerance defaults;
  cli.AddOption("atol", "A", "absolute tolerance", FormatTolerance(defaults.atol));
  cli.AddOption("rtol", "R", "relative tolerance", FormatTolerance(defaults.rtol));
  cli.AddOption("atol-float64", "A",
                "at most this absolute tolerance for float64/complex128 outputs (tighter than "
                "float32's: a float64 output computed in float32 fails)",
                FormatTolerance(defaults.float64_atol));
  cli.AddOption("rtol-float64", "R",
                "at most this relative tolerance for float64/complex128 outputs",
                FormatTolerance(defaults.float64_rtol));
  cli.AddOption("stage", "STAGE", "where to compute the outputs; STAGE: " + StageNames(), "aten");
  std::string backends;
  for (const std::string& name : torchir::pipeline::AvailableBackends()) {
    absl::StrAppend(&backends, backends.empty() ? "" : ", ", name);
  }
  cli.AddOption("backend", "NAME[,NAME...]",
                "with --stage pte: the backends to compile for, in order of preference (as "
                "torchir-compile --backend); NAME: " +
                    backends,
                torchir::pipeline::CompileOptions().backend);
  cli.AddSwitch("verbose",
                "list every problem of an error that sums up several (missing "
                "weights, shape mismatches)");
  cli.SetEpilog(kEpilog);
  cli.Parse(argc, argv);
  const bool verbose = cli.Switch("verbose");

  for (const char* required : {"inputs", "expected"}) {
    if (!cli.Has(required)) cli.UsageError(std::string("--") + required + " is required");
  }
  torchir::verify::Tolerance tolerance;
  tolerance.atol = cli.GetDouble("atol");
  tolerance.rtol = cli.GetDouble("rtol");
  tolerance.float64_atol = cli.GetDouble("atol-float64");
  tolerance.float64_rtol = cli.GetDouble("rtol-float64");
  for (double value :
       {tolerance.atol, tolerance.rtol, tolerance.float64_atol, tolerance.float64_rtol}) {
    if (!(value >= 0 && std::isfinite(value))) {
      cli.UsageError(
          "--atol, --rtol, --atol-float64 and --rtol-float64 must be finite and not "
          "negative");
    }
  }
  const Stage* stage = nullptr;
  for (const Stage& candidate : kStages) {
    if (cli.Get("stage") == candidate.name) stage = &candidate;
  }
  if (stage == nullptr) {
    cli.UsageError("--stage: unknown stage '" + cli.Get("stage") + "' (available: " + StageNames() +
                   ")");
  }

  g_backend = cli.Get("backend");
  g_inputs_path = cli.Get("inputs");
  if (absl::Status known = torchir::pipeline::CheckBackendList(g_backend); !known.ok()) {
    cli.UsageError("--backend: " + std::string(known.message()));
  }

  torchir::pipeline::LoadOptions options;
  options.model_path = cli.positionals()[0];
  options.weights_path = cli.Get("weights");
  options.require_all_weights = true;
  absl::StatusOr<torchir::pipeline::LoadedModel> model = torchir::pipeline::LoadModel(options);
  if (!model.ok()) return torchir::cli::ReportError(model.status(), verbose);
  for (const std::string& warning : model->warnings) std::cerr << "warning: " << warning << "\n";
  const torchir::ir::Graph& graph = *model->graph;

  absl::StatusOr<std::vector<HostTensor>> inputs =
      ReadTensorsFor(cli.Get("inputs"), graph.inputs(), "graph input");
  absl::StatusOr<std::vector<HostTensor>> expected =
      ReadTensorsFor(cli.Get("expected"), graph.outputs(), "graph output");
  if (!inputs.ok() || !expected.ok()) {
    if (!inputs.ok()) torchir::cli::ReportError(inputs.status());
    if (!expected.ok()) torchir::cli::ReportError(expected.status());
    return 1;
  }

  absl::StatusOr<std::vector<HostTensor>> actual = stage->run(*model, *inputs);
  if (!actual.ok()) return torchir::cli::ReportError(actual.status(), verbose);

  std::cout << options.model_path << ": stage " << stage->name
            << (std::string(stage->name) == "pte" ? " (backend " + g_backend + ")" : "")
            << ", atol " << FormatTolerance(tolerance.atol) << ", rtol "
            << FormatTolerance(tolerance.rtol) << "\n";
  int passed = 0, failed = 0;
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const torchir::ir::Value& output = *graph.outputs()[i];
    torchir::verify::Comparison comparison =
        torchir::verify::Compare((*actual)[i], (*expected)[i], tolerance);
    (comparison.passed ? passed : failed) += 1;
    std::cout << (comparison.passed ? "PASS " : "FAIL ") << output.name() << " "
              << output.type().ToString() << ": " << torchir::verify::Describe(comparison) << "\n";
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
