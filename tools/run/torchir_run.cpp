// torchir-run: loads a .pte program with the torchir runtime, runs it on given
// or random inputs, times it and writes the outputs.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "backends/native/runtime/native_backend.h"
#include "compiler/frontend/safetensors.h"
#include "compiler/ir/graph_printer.h"
#include "tools/bench/atomic_write.h"
#include "tools/bench/instruction_recorder.h"
#include "tools/bench/latency_stats.h"
#include "tools/bench/method_io.h"
#include "tools/bench/process_memory.h"
#include "tools/bench/profile_table.h"
#include "tools/bench/run_summary.h"
#include "tools/cli/command_line.h"
#include "tools/cli/report_error.h"
#include "tools/cli/thread_count.h"
#include "tools/pipeline/run_program.h"
#include "tools/pipeline/tensor_file.h"
#include "tools/verify/compare.h"

namespace {

using torchir::reference::HostTensor;

constexpr char kDescription[] =
    "Runs a compiled torchir program (.pte) on the CPU with the torchir runtime, its\n"
    "portable kernels and the XNNPACK delegate (--threads sets the delegate's threads).\n"
    "Inputs come from a .safetensors file keyed by the graph's input names, or are random\n"
    "(uniform in [-1, 1) for floats, [0, 10) for integers) when none are given. Prints\n"
    "load, init and per-iteration latency; --outputs writes the outputs keyed by the\n"
    "graph's output names; --json writes the same numbers, every iteration's latency\n"
    "and the process's resident memory before load and at its peak (Linux) included,\n"
    "as one JSON object for scripts (benchmarks/peers/). torchir-bench is the same\n"
    "runner on the runtime alone, for devices, with latency percentiles and a trace.";

constexpr char kEpilog[] =
    "examples:\n"
    "  torchir-run model.pte\n"
    "  torchir-run model.pte --inputs in.safetensors --outputs out.safetensors\n"
    "  torchir-run model.pte --iterations 50 --warmup 5 --profile\n"
    "  torchir-run model.pte --threads 2 --iterations 50\n"
    "  torchir-run model.pte --inputs in.safetensors --expected out.safetensors\n"
    "\n"
    "exit status: 0 success, 1 an invalid program or input file, a failed run or a mismatch\n"
    "with --expected, 2 usage error";

// Random inputs (tools/bench/method_io.h) as HostTensors, to be set before every run.
std::vector<HostTensor> RandomInputs(torchir::pipeline::HostProgram& program, uint32_t seed) {
  const torchir::bench::InputBytes bytes = torchir::bench::RandomInputs(program.method(), seed);
  const std::vector<torchir::ir::TensorType> types = program.InputTypes();
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < bytes.size(); ++i) {
    inputs.push_back(
        HostTensor{types[i], torchir::ir::TensorData::Copy(bytes[i].data(), bytes[i].size())});
  }
  return inputs;
}

std::string Milliseconds(double seconds) { return torchir::bench::FormatMilliseconds(seconds); }

}  // namespace

int main(int argc, char** argv) {
  torchir::cli::CommandLine cli("torchir-run", "torchir-run PROGRAM.pte [options]", kDescription);
  cli.AddPositional("PROGRAM.pte", "the program written by torchir-compile");
  cli.AddOption("inputs", "FILE", ".safetensors with one tensor per program input, by name");
  cli.AddOption("outputs", "FILE", "write the outputs here (.safetensors, keyed by output name)");
  cli.AddOption("expected", "FILE",
                "compare the outputs with these (.safetensors, keyed by output name); exit 1 "
                "on a mismatch");
  cli.AddOption("atol", "A", "absolute tolerance for --expected", "1e-4");
  cli.AddOption("rtol", "R", "relative tolerance for --expected", "1e-4");
  cli.AddOption("iterations", "N", "timed runs", "1");
  cli.AddOption("warmup", "N", "untimed runs before the timed ones", "0");
  cli.AddOption("seed", "S", "seed for random inputs", "0");
  cli.AddOption("method", "NAME", "the method to run", "forward");
  cli.AddOption("threads", "N", "threads for each XNNPACK delegate (1: the calling thread only)",
                "1");
  cli.AddSwitch("huge-pages",
                "read the program into memory backed by 2 MiB pages (Linux transparent huge "
                "pages) instead of mapping it: load copies the file, runs then miss the TLB "
                "less on the weights");
  cli.AddOption("native-isa", "NAME",
                "run the native delegates' kernels for at most this instruction set: avx512, "
                "avx2, sse4 or portable on x86-64, neon or portable on arm64 (default: the "
                "widest this CPU has); weights packed for another are repacked at init");
  cli.AddSwitch("profile", "print the time of each instruction, slowest first");
  cli.AddSwitch("quiet", "print nothing but errors");
  cli.AddOption("json", "FILE",
                "write load, init, every timed iteration's latency (ms), resident memory before "
                "load and at peak (KiB) and the --expected verdict as one JSON object");
  cli.SetEpilog(kEpilog);
  cli.Parse(argc, argv);
  const std::string path = cli.positionals()[0];
  const long long iterations = cli.GetInt("iterations", 1, 1000000);
  const long long warmup = cli.GetInt("warmup", 0, 1000000);
  const bool quiet = cli.Switch("quiet");
  torchir::pipeline::HostOptions options;
  options.num_threads = static_cast<uint32_t>(cli.GetInt("threads", 1, 1024));
  options.huge_pages = cli.Switch("huge-pages");
  if (std::string warning = torchir::cli::ThreadCountWarning(options.num_threads);
      !warning.empty() && !quiet) {
    std::cerr << "warning: " << warning << "\n";
  }

  // Before the program is loaded: its native delegates check their weights' layout at init.
  if (cli.Has("native-isa")) {
    const std::string isa = cli.Get("native-isa");
    const torchir::runtime::Error error = torchir::runtime::native::LimitNativeKernels(isa.c_str());
    if (error == torchir::runtime::Error::kNotSupported) {
      cli.UsageError("--native-isa " + isa + ": not an instruction set of this CPU's family");
    } else if (error != torchir::runtime::Error::kOk) {
      cli.UsageError("--native-isa " + isa + ": not one of " +
                     torchir::runtime::native::NativeKernelNames());
    }
  }

  const long long rss_before_load_kib = torchir::bench::ResidentKib();
  absl::StatusOr<std::unique_ptr<torchir::pipeline::HostProgram>> host =
      torchir::pipeline::HostProgram::Open(path, cli.Get("method"), options);
  if (!host.ok()) return torchir::cli::ReportError(host.status());
  torchir::pipeline::HostProgram& program = **host;

  std::vector<HostTensor> inputs;
  if (cli.Has("inputs")) {
    absl::StatusOr<std::vector<HostTensor>> read = torchir::pipeline::ReadNamedTensors(
        cli.Get("inputs"), program.InputNames(), program.InputTypes(), "program input");
    if (!read.ok()) return torchir::cli::ReportError(read.status());
    inputs = std::move(*read);
  } else {
    inputs = RandomInputs(program, static_cast<uint32_t>(cli.GetInt("seed", 0, UINT32_MAX)));
  }
  if (absl::Status status = program.SetInputs(inputs); !status.ok()) {
    return torchir::cli::ReportError(status);
  }

  // The planner may reuse an input's bytes once the input is consumed, so every
  // run gets its inputs copied in again (outside the timed region).
  for (long long i = 0; i < warmup; ++i) {
    absl::Status status = program.SetInputs(inputs);
    if (status.ok()) status = program.Execute();
    if (!status.ok()) return torchir::cli::ReportError(status);
  }
  torchir::bench::InstructionRecorder tracer(program.method().num_instructions(), 0);
  if (cli.Switch("profile")) {
    tracer.SizeNodeTotals(torchir::bench::DebugNodeCounts(program.method()));
    program.set_event_tracer(&tracer);
  }
  std::vector<double> latencies;
  latencies.reserve(static_cast<size_t>(iterations));
  for (long long i = 0; i < iterations; ++i) {
    if (i > 0 || warmup > 0) {
      if (absl::Status status = program.SetInputs(inputs); !status.ok()) {
        return torchir::cli::ReportError(status);
      }
    }
    auto start = std::chrono::steady_clock::now();
    if (absl::Status status = program.Execute(); !status.ok()) {
      return torchir::cli::ReportError(status);
    }
    latencies.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  program.set_event_tracer(nullptr);
  // The peak of load, init and the runs; read before the outputs are copied out and the
  // --json text is built, which would count this tool's own bookkeeping.
  const long long peak_rss_kib = torchir::bench::PeakResidentKib();
  std::vector<HostTensor> outputs = program.Outputs();

  if (cli.Has("outputs")) {
    std::vector<torchir::frontend::StoredTensor> stored;
    const std::vector<std::string> names = program.OutputNames();
    for (size_t i = 0; i < outputs.size(); ++i) {
      // A program may return one value twice (the graph lists it twice): written once, read
      // back by name for both. Two different tensors under one name stay an error.
      size_t first = 0;
      while (first < i && names[first] != names[i]) ++first;
      if (first < i && outputs[first].type.dtype == outputs[i].type.dtype &&
          outputs[first].type.sizes == outputs[i].type.sizes &&
          outputs[first].data.size() == outputs[i].data.size() &&
          std::memcmp(outputs[first].data.data(), outputs[i].data.data(), outputs[i].data.size()) ==
              0) {
        continue;
      }
      stored.push_back(torchir::frontend::StoredTensor{names[i], outputs[i].type.dtype,
                                                       outputs[i].type.sizes, outputs[i].data});
    }
    if (absl::Status status = torchir::frontend::WriteSafetensors(cli.Get("outputs"), stored);
        !status.ok()) {
      return torchir::cli::ReportError(status);
    }
  }
  int status = 0;
  if (cli.Has("expected")) {
    absl::StatusOr<std::vector<HostTensor>> expected = torchir::pipeline::ReadNamedTensors(
        cli.Get("expected"), program.OutputNames(), program.OutputTypes(), "program output");
    if (!expected.ok()) return torchir::cli::ReportError(expected.status());
    torchir::verify::Tolerance tolerance{cli.GetDouble("atol"), cli.GetDouble("rtol")};
    for (size_t i = 0; i < outputs.size(); ++i) {
      torchir::verify::Comparison c =
          torchir::verify::Compare(outputs[i], (*expected)[i], tolerance);
      if (!c.passed) status = 1;
      if (!quiet || !c.passed) {
        std::cout << (c.passed ? "PASS " : "FAIL ") << program.OutputNames()[i]
                  << " vs expected: " << torchir::verify::Describe(c) << "\n";
      }
    }
  }
  if (cli.Has("json")) {
    torchir::bench::RunSummary summary;
    summary.program = path;
    summary.file_bytes = program.program().file_size();
    summary.load_seconds = program.load_seconds();
    summary.init_seconds = program.init_seconds();
    summary.init_bytes = program.init_bytes();
    summary.threads = program.num_threads();
    summary.rss_before_load_kib = rss_before_load_kib;
    summary.peak_rss_kib = peak_rss_kib;
    summary.warmup = warmup;
    summary.latencies = latencies;
    summary.expected = !cli.Has("expected") ? "none" : status == 0 ? "pass" : "fail";
    const std::string json = torchir::bench::RunSummaryJson(summary);
    std::string error;
    if (!torchir::bench::WriteFileAtomically(cli.Get("json"), json, &error)) {
      std::cerr << "error: " << error << "\n";
      return 1;
    }
  }
  if (quiet) return status;

  std::cout << path << ": " << torchir::ir::FormatBytes(program.program().file_size()) << ", load "
            << Milliseconds(program.load_seconds()) << ", init "
            << Milliseconds(program.init_seconds()) << " ("
            << torchir::ir::FormatBytes(program.init_bytes()) << " allocated), threads "
            << program.num_threads() << "\n";
  const torchir::bench::LatencySummary latency = torchir::bench::Summarize(latencies);
  std::cout << "latency over " << iterations << " run(s): mean " << Milliseconds(latency.mean)
            << ", median " << Milliseconds(latency.p50) << ", min " << Milliseconds(latency.min)
            << ", max " << Milliseconds(latency.max) << "\n";
  const std::vector<std::string> names = program.OutputNames();
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "output " << names[i] << " " << outputs[i].type.ToString() << "\n";
  }
  if (cli.Switch("profile")) {
    std::fflush(stdout);
    torchir::bench::PrintProfile(stdout, program.method(), tracer.totals(), iterations,
                                 &tracer.node_totals());
  }
  return status;  // 1 when an output differed from --expected
}
