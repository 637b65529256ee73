// torchir-bench: the device runner. Loads a .pte with the runtime alone, runs
// it on given or random inputs, reports load/init time, latency percentiles
// and peak memory, checks outputs, prints a per-instruction profile and writes
// a Chrome trace. `torchir-bench --help` says how.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#ifdef TORCHIR_BENCH_WITH_NATIVE
#include "backends/native/runtime/native_backend.h"
#endif
#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/platform/platform.h"
#include "tools/bench/atomic_write.h"
#include "tools/bench/bench_options.h"
#include "tools/bench/chrome_trace.h"
#include "tools/bench/instruction_recorder.h"
#include "tools/bench/latency_stats.h"
#include "tools/bench/method_io.h"
#include "tools/bench/process_memory.h"
#include "tools/bench/profile_table.h"
#include "tools/bench/run_summary.h"
#include "tools/cli/thread_count.h"

namespace {

using torchir::runtime::Error;

// The runtime's error log lines since the last failure report, so that a failure is
// one line: "error: PROGRAM: <what the runtime said>: runtime error <name>".
std::string g_runtime_log;

void CollectLog(torchir::runtime::LogLevel level, const char* message) {
  if (level != torchir::runtime::LogLevel::kError) return;
  if (!g_runtime_log.empty()) g_runtime_log += ": ";
  g_runtime_log += message;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

int RuntimeFailure(const std::string& context, Error error) {
  // The runtime's own lines often start with the file name already.
  std::string message =
      g_runtime_log.compare(0, context.size() + 1, context + ":") == 0 ? "" : context + ": ";
  if (!g_runtime_log.empty()) message += g_runtime_log + ": ";
  g_runtime_log.clear();
  return Fail(message + "runtime error " + torchir::runtime::ErrorName(error));
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string Ms(double seconds) { return torchir::bench::FormatMilliseconds(seconds); }

std::string Kib(long long kib) {
  if (kib < 0) return "unknown";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f MiB", static_cast<double>(kib) / 1024.0);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  torchir::bench::BenchOptions options;
  std::string error;
  if (!torchir::bench::ParseBenchOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(torchir::bench::kBenchHelp, stdout);
    return 0;
  }
  if (std::string warning = torchir::cli::ThreadCountWarning(options.threads);
      !warning.empty() && !options.quiet) {
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }
  torchir::runtime::SetLogHook(CollectLog);
  const std::string& path = options.program;
  std::string native_kernels;  // the native kernels' instruction set; empty: no native backend
  if (Error e = torchir::runtime::portable::RegisterPortableKernels(); e != Error::kOk) {
    return RuntimeFailure("registering the portable kernels", e);
  }
  if (Error e = torchir::runtime::xnnpack::RegisterXnnpackBackend({options.threads});
      e != Error::kOk) {
    return RuntimeFailure("registering the XNNPACK backend", e);
  }
#ifdef TORCHIR_BENCH_WITH_NATIVE
  // Before any delegate exists: the native ones check their weights' layout at init.
  if (!options.native_isa.empty()) {
    if (Error e = torchir::runtime::native::LimitNativeKernels(options.native_isa.c_str());
        e != Error::kOk) {
      const bool other_family = e == Error::kNotSupported;
      std::fprintf(stderr, "error: --native-isa %s: %s%s\n", options.native_isa.c_str(),
                   other_family ? "not an instruction set of this CPU's family" : "not one of ",
                   other_family ? "" : torchir::runtime::native::NativeKernelNames());
      return 2;
    }
  }
  native_kernels = torchir::runtime::native::NativeKernelsInUse();
  if (Error e = torchir::runtime::native::RegisterNativeBackend({options.threads});
      e != Error::kOk) {
    return RuntimeFailure("registering the native backend", e);
  }
#else
  if (!options.native_isa.empty()) {
    std::fprintf(stderr,
                 "error: --native-isa: this torchir-bench was built without the native "
                 "backend\n");
    return 2;
  }
#endif

  // Read the side files first: a bad one is reported before any time is spent.
  torchir::bench::SafetensorsFile input_file, expected_file;
  if (!options.inputs.empty() && !input_file.Read(options.inputs, &error)) return Fail(error);
  if (!options.expected.empty() && !expected_file.Read(options.expected, &error)) {
    return Fail(error);
  }

  const long long rss_before_load_kib = torchir::bench::ResidentKib();
  auto start = std::chrono::steady_clock::now();
  torchir::runtime::Result<torchir::runtime::FileDataLoader> file =
      torchir::runtime::FileDataLoader::Open(
          path.c_str(), options.huge_pages ? torchir::runtime::FileLoad::kHugePages
                                           : torchir::runtime::FileLoad::kMap);
  if (!file.ok()) return RuntimeFailure(path, file.error());
  torchir::runtime::Result<torchir::runtime::Program> program =
      torchir::runtime::Program::Load(*file);
  if (!program.ok()) return RuntimeFailure(path, program.error());
  const double load_seconds = SecondsSince(start);

  torchir::runtime::MallocAllocator allocator;
  start = std::chrono::steady_clock::now();
  torchir::runtime::Result<torchir::runtime::Method> loaded =
      torchir::runtime::Method::Load(*program, options.method.c_str(), allocator);
  if (!loaded.ok()) return RuntimeFailure(path, loaded.error());
  const double init_seconds = SecondsSince(start);
  torchir::runtime::Method& method = *loaded;

  torchir::bench::InputBytes inputs;
  if (!options.inputs.empty()) {
    if (!torchir::bench::InputsFromFile(method, input_file, &inputs, &error)) {
      return Fail(options.inputs + ": " + error);
    }
  } else {
    inputs = torchir::bench::RandomInputs(method, options.seed);
  }

  for (long long i = 0; i < options.warmup; ++i) {
    Error e = torchir::bench::ApplyInputs(method, inputs);
    if (e == Error::kOk) e = method.Execute();
    if (e != Error::kOk) return RuntimeFailure(path, e);
  }

  const bool tracing = !options.trace.empty();
  const auto traced =
      static_cast<size_t>(tracing ? std::min(options.trace_iterations, options.iterations) : 0);
  // Room for the nodes of every delegate call too, should its backend report them: up to 8
  // events a node (the native delegate reports a matrix product and its softmax per batch).
  size_t delegate_nodes = 0;
  for (size_t i = 0; i < method.num_instructions(); ++i) {
    if (method.instruction_is_delegate(i)) delegate_nodes += method.instruction_num_debug_nodes(i);
  }
  torchir::bench::InstructionRecorder recorder(method.num_instructions(), traced,
                                               traced * delegate_nodes * 8);
  recorder.SizeNodeTotals(torchir::bench::DebugNodeCounts(method));
  if (options.profile || tracing) method.set_event_tracer(&recorder);
  std::vector<double> latencies;
  latencies.reserve(static_cast<size_t>(options.iterations));
  for (long long i = 0; i < options.iterations; ++i) {
    // The plan may reuse input bytes: every run gets its inputs again, untimed.
    if (Error e = torchir::bench::ApplyInputs(method, inputs); e != Error::kOk) {
      return RuntimeFailure(path, e);
    }
    recorder.BeginIteration(static_cast<uint32_t>(i),
                            options.iterations - i <= static_cast<long long>(traced));
    start = std::chrono::steady_clock::now();
    if (Error e = method.Execute(); e != Error::kOk) return RuntimeFailure(path, e);
    latencies.push_back(SecondsSince(start));
  }
  method.set_event_tracer(nullptr);
  // Load, init and the runs; read before the reports below add their own bookkeeping.
  const long long peak_rss_kib = torchir::bench::PeakResidentKib();

  int status = 0;
  std::vector<torchir::bench::OutputComparison> comparisons;
  if (!options.expected.empty()) {
    if (!torchir::bench::CompareOutputs(method, expected_file, options.atol, options.rtol,
                                        &comparisons, &error)) {
      return Fail(options.expected + ": " + error);
    }
    for (const torchir::bench::OutputComparison& c : comparisons) {
      if (!c.passed) status = 1;
      if (!options.quiet || !c.passed) {
        std::printf("%s %s vs expected: %s\n", c.passed ? "PASS" : "FAIL", c.name.c_str(),
                    c.detail.c_str());
      }
    }
  }
  if (tracing) {
    const std::string trace = torchir::bench::ChromeTraceJson(method, recorder.events(), path);
    if (!torchir::bench::WriteFileAtomically(options.trace, trace, &error)) return Fail(error);
  }
  const torchir::bench::LatencySummary latency = torchir::bench::Summarize(latencies);
  if (!options.json.empty()) {
    torchir::bench::RunSummary summary;
    summary.program = path;
    summary.file_bytes = program->file_size();
    summary.load_seconds = load_seconds;
    summary.init_seconds = init_seconds;
    summary.init_bytes = allocator.allocated_bytes();
    summary.threads = options.threads;
    summary.rss_before_load_kib = rss_before_load_kib;
    summary.peak_rss_kib = peak_rss_kib;
    summary.warmup = options.warmup;
    summary.latencies = latencies;
    summary.expected = options.expected.empty() ? "none" : status == 0 ? "pass" : "fail";
    if (!torchir::bench::WriteFileAtomically(options.json, RunSummaryJson(summary), &error)) {
      return Fail(error);
    }
  }
  if (options.quiet) return status;

  std::printf("%s: %zu bytes, %zu instructions, threads %u%s%s\n", path.c_str(),
              program->file_size(), method.num_instructions(), options.threads,
              native_kernels.empty() ? "" : ", native kernels ", native_kernels.c_str());
  std::printf("load %s, init %s (%zu bytes allocated)\n", Ms(load_seconds).c_str(),
              Ms(init_seconds).c_str(), allocator.allocated_bytes());
  std::printf(
      "latency over %lld run(s) after %lld warm-up: min %s, p50 %s, p90 %s, p99 %s, "
      "max %s, mean %s\n",
      options.iterations, options.warmup, Ms(latency.min).c_str(), Ms(latency.p50).c_str(),
      Ms(latency.p90).c_str(), Ms(latency.p99).c_str(), Ms(latency.max).c_str(),
      Ms(latency.mean).c_str());
  std::printf("peak resident memory %s (%s before load)\n", Kib(peak_rss_kib).c_str(),
              Kib(rss_before_load_kib).c_str());
  if (options.profile) {
    torchir::bench::PrintProfile(stdout, method, recorder.totals(), options.iterations,
                                 &recorder.node_totals());
  }
  if (tracing) {
    std::printf("trace: %s (%zu events, open in ui.perfetto.dev or chrome://tracing)\n",
                options.trace.c_str(), recorder.events().size());
  }
  return status;  // 1 when an output differed from --expected
}
