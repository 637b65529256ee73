// Corrupts one backend's delegate data in real programs one byte at a time and runs each
// corrupted program through Program::Load, Method::Load (the delegates' init: blob checks,
// XNNPACK's subgraph, runtime and weight packing, the native delegate's argument and
// packed-weight checks) and Execute, with the portable kernels and both delegates registered.
// Every outcome must be a clean Error or a successful run: a crash or an abort (XNNPACK's
// asserts) ends the process with the program, byte and mask that caused it on stderr.
//
//   delegate_blob_flip_check --backend-id ID [--constant-prefix BYTES] [--max-trials N]
//                            [--exhaustive-below BYTES] PROGRAM.pte...
//
// Corrupted: the blob of every delegate whose backend id is ID ("XnnpackBackend",
// "NativeBackend"), and with --constant-prefix the first BYTES of every uint8 constant those
// delegates' calls pass (the native delegate's packed weights: 64 covers their header).
// Trials: every such byte XORed with each of 0xFF, 0x01 and 0x80 (an index off by one, a sign
// or exponent bit). Weight packing at init dominates the cost (XNNPACK packs per init, about
// 1 ms per MiB of weights), so programs smaller than BYTES (default 1 MiB) get every trial and
// larger ones at most N (default 1000), sampled deterministically: N trials evenly spread over
// the trial list, each shifted inside its stride by a fixed hash of its rank, so every region
// is visited and every run tries the same bytes. Exits 1 when an original program does not
// run or no delegate data was found at all; prints per-program counts.
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "backends/native/runtime/native_backend.h"
#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/platform/platform.h"
#include "tests/backends/delegate_ranges.h"

namespace {

using torchir::runtime::BufferDataLoader;
using torchir::runtime::Error;
using torchir::runtime::MallocAllocator;
using torchir::runtime::Method;
using torchir::runtime::Program;
using torchir::runtime::Result;
using torchir::testing::ByteRange;

constexpr uint8_t kMasks[] = {0xFF, 0x01, 0x80};
// What XNNPACK may allocate per delegate: a flipped window parameter must fail cleanly
// instead of having XNNPACK fill gigabytes of indirection buffer.
constexpr uint64_t kXnnpackMemoryBudget = uint64_t{256} << 20;
constexpr size_t kNumMasks = sizeof(kMasks);

// What the crash handler reports (async-signal-safe: fixed buffers, write()).
char g_current_program[512];
volatile size_t g_current_offset = 0;
volatile unsigned g_current_mask = 0;

void WriteString(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void OnCrash(int signal) {
  char line[160];
  std::snprintf(line, sizeof(line), "\nCRASH (signal %d) at file offset %zu, mask 0x%02x\n", signal,
                static_cast<size_t>(g_current_offset), g_current_mask);
  WriteString(line);
  WriteString("program: ");
  WriteString(g_current_program);
  WriteString("\n");
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// A file's bytes in 64-byte aligned storage (a mapped file is page-aligned).
struct AlignedFile {
  std::unique_ptr<uint64_t[]> words;
  uint8_t* data = nullptr;
  size_t size = 0;
};

bool ReadFile(const char* path, AlignedFile* file) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  file->size = static_cast<size_t>(in.tellg());
  file->words.reset(new uint64_t[file->size / 8 + 16]());
  file->data = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(file->words.get()) + 63) &
                                          ~uintptr_t{63});
  in.seekg(0);
  in.read(reinterpret_cast<char*>(file->data), static_cast<std::streamsize>(file->size));
  return static_cast<bool>(in);
}

enum class Outcome { kRefusedAtLoad, kRefusedAtInit, kFailedAtExecute, kRan };

// Loads, inits and runs every method of the program in `data`.
Outcome Run(const uint8_t* data, size_t size) {
  BufferDataLoader loader(data, size);
  Result<Program> program = Program::Load(loader);
  if (!program.ok()) return Outcome::kRefusedAtLoad;
  Outcome outcome = Outcome::kRan;
  for (size_t m = 0; m < program->num_methods(); ++m) {
    MallocAllocator allocator;
    Result<Method> method = Method::Load(*program, program->method_name(m), allocator);
    if (!method.ok()) return Outcome::kRefusedAtInit;
    // Inputs: zeros, so a run is deterministic.
    for (size_t i = 0; i < method->num_inputs(); ++i) {
      const auto& input = method->mutable_input(i);
      std::memset(input.mutable_data(), 0, input.nbytes());
    }
    if (method->Execute() != Error::kOk) outcome = Outcome::kFailedAtExecute;
  }
  return outcome;
}

// Trial `t` of a program: which byte (an offset into the concatenated blob ranges) and mask.
void TrialAt(size_t t, const std::vector<ByteRange>& ranges, size_t* offset, uint8_t* mask) {
  size_t byte = t / kNumMasks;
  *mask = kMasks[t % kNumMasks];
  for (const ByteRange& range : ranges) {
    if (byte < range.size) {
      *offset = range.offset + byte;
      return;
    }
    byte -= range.size;
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t max_trials = 1000;
  size_t exhaustive_below = size_t{1} << 20;
  size_t constant_prefix = 0;
  const char* backend_id = nullptr;
  std::vector<const char*> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--backend-id") == 0 && i + 1 < argc) {
      backend_id = argv[++i];
    } else if (std::strcmp(argv[i], "--constant-prefix") == 0 && i + 1 < argc) {
      constant_prefix = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--max-trials") == 0 && i + 1 < argc) {
      max_trials = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--exhaustive-below") == 0 && i + 1 < argc) {
      exhaustive_below = std::strtoull(argv[++i], nullptr, 10);
    } else {
      paths.push_back(argv[i]);
    }
  }
  if (paths.empty() || max_trials == 0 || backend_id == nullptr) {
    std::fprintf(stderr,
                 "usage: %s --backend-id ID [--constant-prefix BYTES] [--max-trials N] "
                 "[--exhaustive-below BYTES] PROGRAM.pte...\n",
                 argv[0]);
    return 2;
  }
  for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(signal, OnCrash);
  if (std::getenv("TORCHIR_TEST_LOG") == nullptr) {
    torchir::runtime::SetLogHook([](torchir::runtime::LogLevel, const char*) {});
  }
  if (torchir::runtime::portable::RegisterPortableKernels() != Error::kOk ||
      torchir::runtime::xnnpack::RegisterXnnpackBackend({1, kXnnpackMemoryBudget}) != Error::kOk ||
      torchir::runtime::native::RegisterNativeBackend({1}) != Error::kOk) {
    std::fprintf(stderr, "cannot register the kernels or the backends\n");
    return 1;
  }

  int failures = 0;
  size_t programs_with_blobs = 0, total_trials = 0;
  for (const char* path : paths) {
    std::snprintf(g_current_program, sizeof(g_current_program), "%s", path);
    AlignedFile file;
    if (!ReadFile(path, &file)) {
      std::fprintf(stderr, "FAIL %s: cannot read it\n", path);
      ++failures;
      continue;
    }
    if (Run(file.data, file.size) != Outcome::kRan) {
      std::fprintf(stderr, "FAIL %s: the original program does not run\n", path);
      ++failures;
      continue;
    }
    std::vector<ByteRange> ranges =
        torchir::testing::DelegateBlobRanges(file.data, file.size, backend_id);
    const size_t num_blobs = ranges.size();
    if (constant_prefix > 0) {
      for (const ByteRange& range : torchir::testing::DelegateConstantRanges(
               file.data, file.size, backend_id, torchir::pte::ScalarType::UInt8,
               constant_prefix)) {
        ranges.push_back(range);
      }
    }
    size_t blob_bytes = 0;
    for (const ByteRange& range : ranges) blob_bytes += range.size;
    if (blob_bytes == 0) {
      std::printf("%s: no %s data\n", path, backend_id);
      continue;
    }
    ++programs_with_blobs;
    const size_t all_trials = blob_bytes * kNumMasks;
    const size_t trials =
        file.size < exhaustive_below || all_trials < max_trials ? all_trials : max_trials;
    size_t counts[4] = {};
    for (size_t k = 0; k < trials; ++k) {
      // Evenly spread, each shifted inside its stride by a fixed hash of k.
      const size_t begin = k * all_trials / trials, end = (k + 1) * all_trials / trials;
      const size_t t = begin + (k * 2654435761u) % (end - begin);
      size_t offset = 0;
      uint8_t mask = 0;
      TrialAt(t, ranges, &offset, &mask);
      g_current_offset = offset;
      g_current_mask = mask;
      file.data[offset] ^= mask;
      ++counts[static_cast<int>(Run(file.data, file.size))];
      file.data[offset] ^= mask;
    }
    total_trials += trials;
    std::printf(
        "%s: %zu blob(s), %zu constant(s), %zu bytes, %zu of %zu trials%s: refused at load %zu, "
        "at init %zu, failed at execute %zu, ran %zu\n",
        path, num_blobs, ranges.size() - num_blobs, blob_bytes, trials, all_trials,
        trials < all_trials ? " (sampled)" : "", counts[0], counts[1], counts[2], counts[3]);
    std::fflush(stdout);
  }
  std::printf("%zu program(s) with %s data, %zu trials, no crash\n", programs_with_blobs,
              backend_id, total_trials);
  if (programs_with_blobs == 0) {
    std::fprintf(stderr, "FAIL: no %s data in any program\n", backend_id);
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}
