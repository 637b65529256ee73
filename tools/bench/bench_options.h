// torchir-bench's command line. A small parser of its own: the tools' shared
// one (tools/cli/command_line.h) uses Abseil, which the device runner must not.
#pragma once

#include <cstdint>
#include <string>

namespace torchir::bench {

struct BenchOptions {
  std::string program;  // the .pte
  std::string method = "forward";
  std::string inputs;  // .safetensors; empty: random inputs from `seed`
  uint32_t seed = 0;
  std::string expected;  // .safetensors to compare the outputs with
  double atol = 1e-4;
  double rtol = 1e-4;
  long long warmup = 1;
  long long iterations = 10;
  uint32_t threads = 1;     // per XNNPACK delegate
  bool huge_pages = false;  // read the program into huge pages (FileLoad::kHugePages)
  std::string native_isa;   // the widest target of the native kernels; empty: the CPU's
  bool profile = false;
  std::string trace;               // Chrome trace-event JSON
  long long trace_iterations = 1;  // the last N timed iterations go into the trace
  std::string json;                // summary JSON
  bool quiet = false;
  bool help = false;
};

// Fills `options` from argv. False with a one-line `error` naming the flag or
// value at fault (a usage error: exit status 2).
bool ParseBenchOptions(int argc, const char* const* argv, BenchOptions* options,
                       std::string* error);

// The --help text.
extern const char kBenchHelp[];

}  // namespace torchir::bench
