// libFuzzer target for the runtime's program loader: Program::Load, then
// Method::Load with the portable kernels, then Execute. Any input must end in
// an Error or a successful run: no crash, no sanitizer report, no leak.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/platform/platform.h"

namespace {

// Init memory is capped so that a program asking for huge arenas fails with
// kOutOfMemory instead of exhausting the fuzzer's RSS limit.
constexpr size_t kInitBudget = 64 << 20;

void Quiet(torchir::runtime::LogLevel, const char*) {}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace torchir::runtime;
  static bool initialised = [] {
    SetLogHook(Quiet);
    return portable::RegisterPortableKernels() == Error::kOk;
  }();
  if (!initialised) __builtin_trap();

  // The runtime needs a 16-byte aligned program, as a mapped file is.
  std::vector<uint64_t> storage(size / 8 + 1);
  if (size > 0) std::memcpy(storage.data(), data, size);
  BufferDataLoader loader(storage.data(), size);
  Result<Program> program = Program::Load(loader);
  if (!program.ok()) return 0;
  static std::vector<uint8_t>* init_memory = new std::vector<uint8_t>(kInitBudget + 64);
  uintptr_t base = reinterpret_cast<uintptr_t>(init_memory->data());
  uint8_t* aligned = reinterpret_cast<uint8_t*>((base + 63) & ~uintptr_t{63});
  BufferAllocator allocator(Span<uint8_t>(aligned, kInitBudget));
  for (size_t m = 0; m < program->num_methods(); ++m) {
    Result<Method> method = Method::Load(*program, program->method_name(m), allocator);
    if (!method.ok()) continue;
    // Inputs keep whatever the arena holds; any values are valid inputs.
    (void)method->Execute();
  }
  return 0;
}
