#include "tools/bench/bench_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace torchir::bench {

const char kBenchHelp[] =
    "usage: torchir-bench PROGRAM.pte [options]\n"
    "\n"
    "Loads a compiled torchir program (.pte) with the torchir runtime alone (portable kernels\n"
    "and the XNNPACK delegate), runs it --warmup times untimed and --iterations times timed,\n"
    "and prints the load time (reading and validating the file), the init time (Method::Load:\n"
    "arenas, kernels, delegate setup), latency min/p50/p90/p99/max over the timed runs and the\n"
    "process's peak resident memory. It needs no compiler, Abseil or LibTorch, so it\n"
    "cross-builds and runs on the device itself.\n"
    "\n"
    "inputs:\n"
    "  --inputs FILE        .safetensors with one tensor per program input, keyed by input name\n"
    "                       (torchir-inspect lists the names and types)\n"
    "  --seed S             without --inputs: random inputs from seed S (default 0); floats\n"
    "                       uniform in [-1, 1), integers in [0, 10)\n"
    "  --method NAME        the method to run (default forward)\n"
    "\n"
    "checking:\n"
    "  --expected FILE      compare the last run's outputs with these (.safetensors keyed by\n"
    "                       output name); exit 1 on a mismatch\n"
    "  --atol A, --rtol R   tolerances for --expected: |out - exp| <= A + R * |exp| (1e-4)\n"
    "\n"
    "timing:\n"
    "  --warmup N           untimed runs first (default 1)\n"
    "  --iterations N       timed runs (default 10)\n"
    "  --threads N          threads of each XNNPACK delegate (default 1: the calling thread);\n"
    "                       more than the device's cores only makes them wait\n"
    "  --huge-pages         read the program into memory backed by 2 MiB pages (Linux THP)\n"
    "                       instead of mapping it: load copies the file, runs then miss the\n"
    "                       TLB less on the weights (regnet_x_400mf and resnet50: 1.5 % faster)\n"
    "  --native-isa NAME    run the native delegates' kernels for at most this instruction set:\n"
    "                       avx512, avx2, sse4 or portable on x86-64, neon or portable on arm64\n"
    "                       (default: the widest this CPU has). avx2 on an AVX-512 machine\n"
    "                       times the kernels a CPU without AVX-512 runs; weights packed for\n"
    "                       another set are repacked at init (torchir-compile --target NAME\n"
    "                       packs them for it). XNNPACK's delegates still pick their own.\n"
    "\n"
    "reports:\n"
    "  --profile            print each instruction's mean time and share, slowest first\n"
    "  --trace FILE.json    write a Chrome trace-event file (open it in chrome://tracing or\n"
    "                       ui.perfetto.dev): one event per instruction of the last\n"
    "                       --trace-iterations timed runs, named after its graph node, with\n"
    "                       the op and the IR node names (a delegate call: every node it took)\n"
    "  --trace-iterations N how many of the last timed runs go into the trace (default 1)\n"
    "  --json FILE          write the numbers above, every timed run's latency included, as one\n"
    "                       JSON object for scripts\n"
    "  --quiet              print nothing but errors and mismatches\n"
    "  --help               this text\n"
    "\n"
    "--profile and --trace time every instruction, which adds a little to the latency.\n"
    "Output files are written whole or not at all.\n"
    "\n"
    "examples:\n"
    "  torchir-bench mobilenet_v2.pte --iterations 50 --threads 4\n"
    "  torchir-bench mobilenet_v2.pte --inputs in.safetensors --expected out.safetensors\n"
    "  torchir-bench mobilenet_v2.pte --profile --trace trace.json\n"
    "\n"
    "exit status: 0 success, 1 an invalid program or input file, a failed run or a mismatch\n"
    "with --expected, 2 usage error\n";

namespace {

bool ParseInteger(const std::string& flag, const char* text, long long min, long long max,
                  long long* out, std::string* error) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0 || value < min || value > max) {
    *error = "--" + flag + " takes an integer in [" + std::to_string(min) + ", " +
             std::to_string(max) + "], not '" + text + "'";
    return false;
  }
  *out = value;
  return true;
}

bool ParseNonNegative(const std::string& flag, const char* text, double* out, std::string* error) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*text == '\0' || *end != '\0' || errno != 0 || !std::isfinite(value) || value < 0) {
    *error = "--" + flag + " takes a non-negative number, not '" + text + "'";
    return false;
  }
  *out = value;
  return true;
}

}  // namespace

bool ParseBenchOptions(int argc, const char* const* argv, BenchOptions* options,
                       std::string* error) {
  bool has_seed = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      if (!options->program.empty()) {
        *error = "one program only: '" + options->program + "' and '" + arg + "' given";
        return false;
      }
      options->program = arg;
      continue;
    }
    std::string flag = arg.substr(2);
    const char* value = nullptr;
    std::string inline_value;
    if (const size_t equals = flag.find('='); equals != std::string::npos) {
      inline_value = flag.substr(equals + 1);
      flag.resize(equals);
      value = inline_value.c_str();
    }
    const auto take_value = [&]() -> const char* {
      if (value != nullptr) return value;
      if (i + 1 >= argc) return nullptr;
      return argv[++i];
    };
    const auto is_switch = [&](bool* target) {
      if (value != nullptr) {
        *error = "--" + flag + " takes no value";
        return false;
      }
      *target = true;
      return true;
    };
    if (flag == "help") {
      options->help = true;
      return true;
    }
    if (flag == "profile") {
      if (!is_switch(&options->profile)) return false;
      continue;
    }
    if (flag == "huge-pages") {
      if (!is_switch(&options->huge_pages)) return false;
      continue;
    }
    if (flag == "quiet") {
      if (!is_switch(&options->quiet)) return false;
      continue;
    }
    const char* text = take_value();
    if (text == nullptr) {
      *error = "--" + flag + " needs a value";
      bool known = false;
      for (const char* name :
           {"inputs", "seed", "method", "expected", "atol", "rtol", "warmup", "iterations",
            "threads", "trace", "trace-iterations", "json", "native-isa"}) {
        known = known || flag == name;
      }
      if (!known) *error = "unknown option --" + flag + " (see --help)";
      return false;
    }
    long long number = 0;
    if (flag == "inputs") {
      options->inputs = text;
    } else if (flag == "expected") {
      options->expected = text;
    } else if (flag == "method") {
      options->method = text;
    } else if (flag == "trace") {
      options->trace = text;
    } else if (flag == "json") {
      options->json = text;
    } else if (flag == "native-isa") {
      options->native_isa = text;
    } else if (flag == "seed") {
      if (!ParseInteger(flag, text, 0, UINT32_MAX, &number, error)) return false;
      options->seed = static_cast<uint32_t>(number);
      has_seed = true;
    } else if (flag == "warmup") {
      if (!ParseInteger(flag, text, 0, 1000000, &options->warmup, error)) return false;
    } else if (flag == "iterations") {
      if (!ParseInteger(flag, text, 1, 1000000, &options->iterations, error)) return false;
    } else if (flag == "trace-iterations") {
      if (!ParseInteger(flag, text, 1, 1000, &options->trace_iterations, error)) return false;
    } else if (flag == "threads") {
      if (!ParseInteger(flag, text, 1, 1024, &number, error)) return false;
      options->threads = static_cast<uint32_t>(number);
    } else if (flag == "atol") {
      if (!ParseNonNegative(flag, text, &options->atol, error)) return false;
    } else if (flag == "rtol") {
      if (!ParseNonNegative(flag, text, &options->rtol, error)) return false;
    } else {
      *error = "unknown option --" + flag + " (see --help)";
      return false;
    }
  }
  if (options->program.empty()) {
    *error = "no program given (usage: torchir-bench PROGRAM.pte [options]; see --help)";
    return false;
  }
  if (has_seed && !options->inputs.empty()) {
    *error = "--seed makes random inputs; it cannot go with --inputs";
    return false;
  }
  return true;
}

}  // namespace torchir::bench
