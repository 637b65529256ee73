// Latency of the zoo networks on torchir side by side with the PyTorch paths a
// user would deploy, in one process and one run, then load + init times, then
// summary tables (markdown) with torchir / fastest PyTorch path per model.
//
//   torchir_model_benchmark --bench_dir=DIR [--models=resnet18,text_cnn] [--native_isa=avx2]
//                           [benchmark flags]
//
// DIR/<model>/ holds what `tools/export_ir.py MODEL --torchscript` writes (for
// torchvision networks, tools/export_torchvision.py MODEL --torchscript);
// scripts/bench.sh exports the networks, sets the BLAS and OpenMP environment
// and runs this. Per model, in this order:
//   <model>/torchir_xnnpack/threads:N     CompileProgram(backend "xnnpack"), Method::Execute
//   <model>/torchir_native/threads:N      backend "native,xnnpack": torchir's own kernels first
//   <model>/torchir_portable/threads:1    the portable kernels (single-threaded)
//   <model>/pytorch_mobile/threads:N      mobile.pt on the lite interpreter (XNNPACK)
//   <model>/torchscript_onednn/threads:N  traced_frozen.pt + optimize_for_inference (oneDNN)
//   <model>/torchscript_traced/threads:N  traced.pt, unoptimised (eager-like)
//   <model>/torchscript_blas/threads:N    torchscript_onednn's module with ATen on one OpenMP
//                                         thread and OpenBLAS on N (N >= 2: the transformers)
//   <model>/load/<variant>                from the file to ready to run
// A torchir backend that CompileProgram does not offer is left out. Every
// variant is checked against expected.safetensors before it is timed and
// refused (skipped with the reason) when it differs.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/native/runtime/native_backend.h"
#include "benchmarks/cpu_round_trip.h"
#include "benchmarks/libtorch_models.h"
#include "benchmarks/model_setup.h"
#include "benchmarks/summary_reporter.h"
#include "tools/pipeline/compile_program.h"

namespace torchir::benchmarks {
namespace {

constexpr char kDefaultModels[] =
    "resnet18,mobilenet_v2,mobilenet_v3_large,tiny_vit,tiny_gpt,text_cnn,resnet50,efficientnet_b0,"
    "regnet_x_400mf";
constexpr int kThreadCounts[] = {1, kMaxBenchmarkThreads};

std::string g_bench_dir;
// --native_isa=avx2: the native kernels (and the weights compiled for "host") of at most that
// instruction set; empty: this CPU's widest.
std::string g_native_isa;

// The setup of the model being benchmarked; benchmarks run model by model, so
// the previous model's programs and modules are released when the next starts.
ModelSetup& Setup(const std::string& model) {
  static std::unique_ptr<ModelSetup> current;
  if (!current || current->name() != model) {
    current.reset();
    current = std::make_unique<ModelSetup>(model, absl::StrCat(g_bench_dir, "/", model));
  }
  return *current;
}

// Waits, untimed, when the benchmark about to run is not the one that ran last. The variant
// before may leave threads spinning on a core: OpenBLAS's workers poll for 2^28 TSC ticks after
// each GEMM (0.1 s at 2.6 GHz) before they sleep. Random interleaving makes every repetition
// follow another variant, and without the wait a 2-thread variant shared its second core with
// them (encoder_small at 2 threads ran 1.03x slower with torchscript_blas interleaved,
// docs/benchmarks.md). The wait covers 2^28 ticks at down to 1 GHz.
// `key` names the benchmark.
void SettleAfterOtherBenchmarks(const std::string& key) {
  static std::string last;
  if (key == last) return;
  last = key;
  usleep(300 * 1000);
}

void Skip(benchmark::State& state, const absl::Status& status) {
  state.SkipWithError(std::string(status.message()).c_str());
}

// On several threads, the CPU 0 <-> 1 round trip (`FastestCpuRoundTripNanoseconds`) just before
// and just after the repetition, as its counters `round_trip_start_ns` and `round_trip_end_ns`. The
// host moves the two vCPUs between cores that share an L3 (50-90 ns here) and cores that do not
// (290-350 ns), for seconds to minutes at a time, and every 2-thread row runs 1.1-1.6 times
// slower in the second placement, PyTorch's too (docs/benchmarks.md, session 31):
// scripts/bench_modes.py compares the variants within one placement.
class RoundTripCounters {
 public:
  RoundTripCounters(benchmark::State& state, int threads) : state_(state), threads_(threads) {
    if (threads_ > 1) start_ = FastestCpuRoundTripNanoseconds();
  }
  ~RoundTripCounters() {
    if (threads_ <= 1 || state_.error_occurred()) return;
    state_.counters["round_trip_start_ns"] = start_;
    state_.counters["round_trip_end_ns"] = FastestCpuRoundTripNanoseconds();
  }
  RoundTripCounters(const RoundTripCounters&) = delete;
  RoundTripCounters& operator=(const RoundTripCounters&) = delete;

 private:
  benchmark::State& state_;
  int threads_;
  double start_ = 0;
};

void TorchirLatency(benchmark::State& state, const std::string& model, const std::string& backend,
                    int threads) {
  SettleAfterOtherBenchmarks(absl::StrCat(model, "/", backend, "/", threads));
  ModelSetup& setup = Setup(model);
  absl::StatusOr<pipeline::HostProgram*> program = setup.Torchir(backend, threads);
  if (!program.ok()) return Skip(state, program.status());
  runtime::Method& method = (*program)->method();
  const std::vector<reference::HostTensor>& inputs = setup.inputs();
  const RoundTripCounters round_trip(state, threads);
  for (auto _ : state) {
    // Timed with the run: the memory planner may reuse an input's bytes once
    // it is consumed, so each call needs its inputs copied in again.
    runtime::Error error = runtime::Error::kOk;
    for (size_t i = 0; i < inputs.size() && error == runtime::Error::kOk; ++i) {
      error = method.SetInput(i, inputs[i].data.data(), inputs[i].data.size());
    }
    if (error == runtime::Error::kOk) error = method.Execute();
    if (error != runtime::Error::kOk) {
      state.SkipWithError(runtime::ErrorName(error));
      break;
    }
  }
}

void TorchLatency(benchmark::State& state, const std::string& model, TorchPath path, int threads) {
  SettleAfterOtherBenchmarks(
      absl::StrCat(model, "/", std::string(TorchPathName(path)), "/", threads));
  absl::StatusOr<LibTorchModel*> torch = Setup(model).Torch(path, threads);
  if (!torch.ok()) return Skip(state, torch.status());
  const RoundTripCounters round_trip(state, threads);
  for (auto _ : state) {
    if (absl::Status status = (*torch)->Run(); !status.ok()) {
      Skip(state, status);
      break;
    }
  }
}

void TorchirLoad(benchmark::State& state, const std::string& model, const std::string& backend) {
  SettleAfterOtherBenchmarks(absl::StrCat(model, "/load/", backend));
  // Only a variant that computes the right outputs is reported.
  if (absl::StatusOr<pipeline::HostProgram*> checked = Setup(model).Torchir(backend, 1);
      !checked.ok()) {
    return Skip(state, checked.status());
  }
  absl::StatusOr<std::string> file = Setup(model).ProgramFile(backend);
  if (!file.ok()) return Skip(state, file.status());
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<pipeline::HostProgram>> program = OpenProgramFile(*file, 1);
    if (!program.ok()) {
      Skip(state, program.status());
      break;
    }
    state.PauseTiming();  // the teardown is not part of loading
    program->reset();
    state.ResumeTiming();
  }
}

void TorchLoad(benchmark::State& state, const std::string& model, TorchPath path) {
  SettleAfterOtherBenchmarks(absl::StrCat(model, "/load/", std::string(TorchPathName(path))));
  ModelSetup& setup = Setup(model);
  if (absl::StatusOr<LibTorchModel*> checked = setup.Torch(path, 1); !checked.ok()) {
    return Skip(state, checked.status());
  }
  const std::string file = setup.TorchFile(path);
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<LibTorchModel>> loaded =
        LibTorchModel::Load(file, path, setup.inputs());
    if (!loaded.ok()) {
      Skip(state, loaded.status());
      break;
    }
    state.PauseTiming();
    loaded->reset();
    state.ResumeTiming();
  }
}

// Registers every benchmark and returns the layout of the summary tables.
SummaryLayout RegisterBenchmarks(const std::vector<std::string>& models) {
  SummaryLayout layout;
  layout.models = models;
  layout.thread_counts.assign(std::begin(kThreadCounts), std::end(kThreadCounts));
  // XNNPACK first: the backend torchir users deploy; then torchir's own kernels with XNNPACK
  // taking what they leave.
  std::vector<std::string> backends;
  for (const std::string& backend : pipeline::AvailableBackends()) {
    if (backend == "xnnpack") backends.insert(backends.begin(), backend);
    if (backend == "native") backends.push_back("native,xnnpack");
    if (backend == "portable") backends.push_back(backend);
  }
  for (const std::string& backend : backends) {
    layout.torchir_variants.push_back(TorchirVariant(backend));
  }
  for (TorchPath path : kTorchPaths) layout.torch_variants.emplace_back(TorchPathName(path));

  for (const std::string& model : models) {
    for (const std::string& backend : backends) {
      // The portable kernels are single-threaded.
      const bool threaded = backend != "portable";
      for (int threads : kThreadCounts) {
        if (threads > 1 && !threaded) continue;
        benchmark::RegisterBenchmark(
            LatencyBenchmarkName(model, TorchirVariant(backend), threads).c_str(), TorchirLatency,
            model, backend, threads)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
    for (TorchPath path : kTorchPaths) {
      for (int threads : kThreadCounts) {
        if (threads == 1 && path == TorchPath::kOneDnnBlas) continue;  // kOneDnn at 1 thread
        benchmark::RegisterBenchmark(
            LatencyBenchmarkName(model, std::string(TorchPathName(path)), threads).c_str(),
            TorchLatency, model, path, threads)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
    for (const std::string& backend : backends) {
      benchmark::RegisterBenchmark(LoadBenchmarkName(model, TorchirVariant(backend)).c_str(),
                                   TorchirLoad, model, backend)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    for (TorchPath path : kTorchPaths) {
      if (path == TorchPath::kOneDnnBlas) continue;  // kOneDnn's load
      benchmark::RegisterBenchmark(
          LoadBenchmarkName(model, std::string(TorchPathName(path))).c_str(), TorchLoad, model,
          path)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  return layout;
}

std::string Environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "(unset)" : value;
}

void AddContext(const SummaryLayout& layout) {
  benchmark::AddCustomContext("torchir_backends",
                              absl::StrJoin(pipeline::AvailableBackends(), ","));
  benchmark::AddCustomContext("models", absl::StrJoin(layout.models, ","));
  benchmark::AddCustomContext("libtorch_blas", DescribeLibTorchBlas());
  for (const char* name :
       {"OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",
        "DNNL_MAX_CPU_ISA", "LD_LIBRARY_PATH", "LD_PRELOAD"}) {
    benchmark::AddCustomContext(name, Environment(name));
  }
  std::ifstream load("/proc/loadavg");
  std::string load_average;
  std::getline(load, load_average);
  benchmark::AddCustomContext("loadavg_at_start", load_average);
}

// The two vCPUs' distance (cpu_round_trip.h), as one line of the summary.
std::string DescribeRoundTrip(double nanoseconds) {
  if (nanoseconds <= 0) return "not measured (the process may not run on CPUs 0 and 1)";
  return absl::StrFormat("%.0f ns", nanoseconds);
}

// CPU time since boot, summed over all CPUs, in seconds: busy and total.
struct MachineTime {
  double busy = 0;
  double total = 0;
};

MachineTime ReadMachineTime() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  // user nice system idle iowait irq softirq steal
  uint64_t fields[8] = {};
  stat >> cpu;
  for (uint64_t& field : fields) stat >> field;
  const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  MachineTime time;
  for (int i = 0; i < 8; ++i) {
    time.total += static_cast<double>(fields[i]) * tick;
    if (i != 3 && i != 4) time.busy += static_cast<double>(fields[i]) * tick;
  }
  return time;
}

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// Removes --bench_dir=DIR, --models=A,B and --native_isa=NAME from argv (Google Benchmark rejects
// flags it does not know). False when --bench_dir is missing.
bool TakeFlags(int* argc, char** argv, std::vector<std::string>* models) {
  std::string model_list = kDefaultModels;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--bench_dir=", 0) == 0) {
      g_bench_dir = arg.substr(arg.find('=') + 1);
    } else if (arg.rfind("--models=", 0) == 0) {
      model_list = arg.substr(arg.find('=') + 1);
    } else if (arg.rfind("--native_isa=", 0) == 0) {
      g_native_isa = arg.substr(arg.find('=') + 1);
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  *models = absl::StrSplit(model_list, ',', absl::SkipEmpty());
  return !g_bench_dir.empty() && !models->empty();
}

}  // namespace
}  // namespace torchir::benchmarks

int main(int argc, char** argv) {
  using namespace torchir::benchmarks;  // NOLINT(build/namespaces): main only
  std::vector<std::string> models;
  if (!TakeFlags(&argc, argv, &models)) {
    std::cerr << "usage: " << argv[0] << " --bench_dir=DIR [--models=" << kDefaultModels
              << "] [--native_isa=avx2] [Google Benchmark flags]\n"
                 "DIR/<model>/ holds `tools/export_ir.py MODEL --torchscript`'s files "
                 "(scripts/bench.sh writes them)\n";
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  // Before any program is compiled or loaded: "host" packs for the kernels then in use.
  if (!g_native_isa.empty() && torchir::runtime::native::LimitNativeKernels(g_native_isa.c_str()) !=
                                   torchir::runtime::Error::kOk) {
    std::cerr << "error: --native_isa=" << g_native_isa << ": not an instruction set of this CPU ("
              << torchir::runtime::native::NativeKernelNames() << ")\n";
    return 2;
  }
  benchmark::AddCustomContext("native_kernels", torchir::runtime::native::NativeKernelsInUse());
  InitLibTorch();
  const SummaryLayout layout = RegisterBenchmarks(models);
  AddContext(layout);
  SummaryReporter reporter(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                 : benchmark::ConsoleReporter::OO_Tabular);
  const double round_trip_before = CpuRoundTripNanoseconds();
  benchmark::AddCustomContext("cpu0_cpu1_round_trip_at_start",
                              DescribeRoundTrip(round_trip_before));
  const MachineTime machine_before = ReadMachineTime();
  const double process_before = ProcessCpuSeconds();
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const MachineTime machine_after = ReadMachineTime();
  const double round_trip_after = CpuRoundTripNanoseconds();
  reporter.PrintSummary(layout, std::cout);
  // Where the host put the two vCPUs, before and after: it can move them during a run.
  if (round_trip_before > 0 && round_trip_after > 0) {
    std::cout << "\nA cache line's round trip between CPU 0 and CPU 1: "
              << DescribeRoundTrip(round_trip_before) << " at the start, "
              << DescribeRoundTrip(round_trip_after)
              << " at the end (tens of ns: the two share a cache; hundreds: they do not, and "
                 "the 2-thread rows of memory-bound networks run slower; docs/benchmarks.md).\n";
  }
  // Whether the numbers can be trusted: on 2 cores, any other busy process
  // distorts the multi-threaded runs most.
  const double others =
      (machine_after.busy - machine_before.busy) - (ProcessCpuSeconds() - process_before);
  const double capacity = machine_after.total - machine_before.total;
  if (capacity > 0) {
    std::cout << "\nOther processes used " << std::fixed << std::setprecision(1)
              << 100.0 * std::max(0.0, others) / capacity
              << "% of the machine's CPU time during the run.\n";
  }
  benchmark::Shutdown();
  return 0;
}
