// torchir-run: loads a .pte program with the torchir runtime, runs it on given
// or random inputs, times it and writes the outputs.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/frontend/safetensors.h"
#include "compiler/ir/graph_printer.h"
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
    "as one JSON object for scripts (benchmarks/peers/).";

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

std::vector<HostTensor> RandomInputs(const std::vector<torchir::ir::TensorType>& types,
                                     uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<HostTensor> inputs;
  for (const torchir::ir::TensorType& type : types) {
    std::vector<uint8_t> bytes(type.nbytes());
    const int64_t n = type.numel();
    for (int64_t i = 0; i < n; ++i) {
      switch (type.dtype) {
        case torchir::ir::DType::kFloat32: {
          float v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
          std::memcpy(&bytes[static_cast<size_t>(i) * 4], &v, 4);
          break;
        }
        case torchir::ir::DType::kInt64: {
          int64_t v = static_cast<int64_t>(rng() % 10);
          std::memcpy(&bytes[static_cast<size_t>(i) * 8], &v, 8);
          break;
        }
        case torchir::ir::DType::kInt32: {
          int32_t v = static_cast<int32_t>(rng() % 10);
          std::memcpy(&bytes[static_cast<size_t>(i) * 4], &v, 4);
          break;
        }
        case torchir::ir::DType::kBool:
          bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(rng() & 1);
          break;
        default:
          break;  // zeros: a valid value of every other dtype
      }
    }
    inputs.push_back(
        HostTensor{type, torchir::ir::TensorData::Copy(bytes.data(), bytes.size())});
  }
  return inputs;
}

// Sums the time of each instruction over all timed iterations.
class ProfilingTracer : public torchir::runtime::EventTracer {
 public:
  explicit ProfilingTracer(size_t instructions) : totals_(instructions, 0) {}
  void BeginInstruction(size_t, const char*, bool) override {
    start_ = torchir::runtime::NowNanoseconds();
  }
  void EndInstruction(size_t index, torchir::runtime::Error) override {
    if (index < totals_.size()) totals_[index] += torchir::runtime::NowNanoseconds() - start_;
  }
  const std::vector<uint64_t>& totals() const { return totals_; }

 private:
  std::vector<uint64_t> totals_;
  uint64_t start_ = 0;
};

// The --json summary: the numbers printed below, at full precision. File names and output
// names are the only strings, and both go through JsonString.
std::string JsonString(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", c);
      quoted += escape;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

std::string JsonNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

// A "VmRSS"/"VmHWM"-style field of /proc/self/status in KiB, or -1 where there is none (not
// Linux). VmHWM starts afresh at exec, so it is this program's own peak.
long long ProcStatusKib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, field.size() + 1, field + ":") == 0) {
      return std::strtoll(line.c_str() + field.size() + 1, nullptr, 10);
    }
  }
  return -1;
}

std::string JsonKib(long long kib) { return kib < 0 ? "null" : std::to_string(kib); }

std::string Milliseconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f ms", seconds * 1e3);
  return buffer;
}

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
  if (std::string warning = torchir::cli::ThreadCountWarning(options.num_threads);
      !warning.empty() && !quiet) {
    std::cerr << "warning: " << warning << "\n";
  }

  const long long rss_before_load_kib = ProcStatusKib("VmRSS");
  absl::StatusOr<std::unique_ptr<torchir::pipeline::HostProgram>> host =
      torchir::pipeline::HostProgram::Open(path, cli.Get("method"), options);
  if (!host.ok()) return torchir::cli::ReportError(host.status());
  torchir::pipeline::HostProgram& program = **host;

  std::vector<HostTensor> inputs;
  if (cli.Has("inputs")) {
    absl::StatusOr<std::vector<HostTensor>> read =
        torchir::pipeline::ReadNamedTensors(cli.Get("inputs"), program.InputNames(),
                                            program.InputTypes(), "program input");
    if (!read.ok()) return torchir::cli::ReportError(read.status());
    inputs = std::move(*read);
  } else {
    inputs = RandomInputs(program.InputTypes(),
                          static_cast<uint32_t>(cli.GetInt("seed", 0, UINT32_MAX)));
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
  ProfilingTracer tracer(program.method().num_instructions());
  if (cli.Switch("profile")) program.set_event_tracer(&tracer);
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
  const long long peak_rss_kib = ProcStatusKib("VmHWM");
  std::vector<HostTensor> outputs = program.Outputs();

  if (cli.Has("outputs")) {
    std::vector<torchir::frontend::StoredTensor> stored;
    const std::vector<std::string> names = program.OutputNames();
    for (size_t i = 0; i < outputs.size(); ++i) {
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
    absl::StatusOr<std::vector<HostTensor>> expected =
        torchir::pipeline::ReadNamedTensors(cli.Get("expected"), program.OutputNames(),
                                            program.OutputTypes(), "program output");
    if (!expected.ok()) return torchir::cli::ReportError(expected.status());
    torchir::verify::Tolerance tolerance{cli.GetDouble("atol"), cli.GetDouble("rtol")};
    for (size_t i = 0; i < outputs.size(); ++i) {
      torchir::verify::Comparison c = torchir::verify::Compare(outputs[i], (*expected)[i], tolerance);
      if (!c.passed) status = 1;
      if (!quiet || !c.passed) {
        std::cout << (c.passed ? "PASS " : "FAIL ") << program.OutputNames()[i]
                  << " vs expected: " << torchir::verify::Describe(c) << "\n";
      }
    }
  }
  if (cli.Has("json")) {
    std::vector<std::string> ms;
    for (double l : latencies) ms.push_back(JsonNumber(l * 1e3));
    const std::string json = absl::StrCat(
        "{\"program\": ", JsonString(path), ", \"file_bytes\": ", program.program().file_size(),
        ", \"load_ms\": ", JsonNumber(program.load_seconds() * 1e3),
        ", \"init_ms\": ", JsonNumber(program.init_seconds() * 1e3),
        ", \"init_bytes\": ", program.init_bytes(), ", \"threads\": ", program.num_threads(),
        ", \"rss_before_load_kib\": ", JsonKib(rss_before_load_kib),
        ", \"peak_rss_kib\": ", JsonKib(peak_rss_kib), ", \"warmup\": ", warmup,
        ", \"latencies_ms\": [", absl::StrJoin(ms, ", "), "], \"expected\": ",
        JsonString(!cli.Has("expected") ? "none"
                   : status == 0        ? "pass"
                                        : "fail"),
        "}\n");
    std::ofstream out(cli.Get("json"));
    out << json;
    if (!out.good()) {
      std::cerr << "error: cannot write " << cli.Get("json") << "\n";
      return 1;
    }
  }
  if (quiet) return status;

  std::cout << path << ": " << torchir::ir::FormatBytes(program.program().file_size())
            << ", load " << Milliseconds(program.load_seconds()) << ", init "
            << Milliseconds(program.init_seconds()) << " ("
            << torchir::ir::FormatBytes(program.init_bytes()) << " allocated), threads "
            << program.num_threads() << "\n";
  std::vector<double> sorted = latencies;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double l : latencies) sum += l;
  std::cout << "latency over " << iterations << " run(s): mean " << Milliseconds(sum / iterations)
            << ", median " << Milliseconds(sorted[sorted.size() / 2]) << ", min "
            << Milliseconds(sorted.front()) << ", max " << Milliseconds(sorted.back()) << "\n";
  const std::vector<std::string> names = program.OutputNames();
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "output " << names[i] << " " << outputs[i].type.ToString() << "\n";
  }
  if (cli.Switch("profile")) {
    const std::vector<uint64_t>& totals = tracer.totals();
    std::vector<size_t> order(totals.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return totals[a] > totals[b]; });
    uint64_t all = 0;
    for (uint64_t t : totals) all += t;
    std::printf("%-6s %-40s %12s %7s\n", "instr", "node", "mean", "share");
    for (size_t index : order) {
      std::printf("%-6zu %-40s %12s %6.1f%%\n", index,
                  program.method().instruction_name(index),
                  Milliseconds(static_cast<double>(totals[index]) * 1e-9 / iterations).c_str(),
                  all > 0 ? 100.0 * static_cast<double>(totals[index]) / static_cast<double>(all)
                          : 0.0);
    }
  }
  return status;  // 1 when an output differed from --expected
}
