#include "runtime/kernel/kernel_registry.h"

#include <cstring>

#include "runtime/platform/platform.h"

namespace torchir::runtime {
namespace {

Kernel g_kernels[kMaxRegisteredKernels];
size_t g_num_kernels = 0;

bool NameEquals(const char* a, const char* b, size_t b_length) {
  return std::strlen(a) == b_length && std::memcmp(a, b, b_length) == 0;
}

}  // namespace

Error RegisterKernels(Span<const Kernel> kernels) {
  if (g_num_kernels + kernels.size() > kMaxRegisteredKernels) {
    Log(LogLevel::kError, "kernel registry full (%zu kernels)", kMaxRegisteredKernels);
    return Error::kOutOfMemory;
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& kernel = kernels[i];
    bool duplicate = FindKernel(kernel.name, std::strlen(kernel.name)) != nullptr;
    for (size_t j = 0; j < i && !duplicate; ++j) {
      duplicate = std::strcmp(kernels[j].name, kernel.name) == 0;
    }
    if (duplicate || kernel.check == nullptr || kernel.run == nullptr) {
      Log(LogLevel::kError, "kernel '%s' is already registered or incomplete", kernel.name);
      return Error::kInvalidArgument;
    }
  }
  for (const Kernel& kernel : kernels) g_kernels[g_num_kernels++] = kernel;
  return Error::kOk;
}

const Kernel* FindKernel(const char* name, size_t name_length) {
  for (size_t i = 0; i < g_num_kernels; ++i) {
    if (NameEquals(g_kernels[i].name, name, name_length)) return &g_kernels[i];
  }
  return nullptr;
}

Span<const Kernel> RegisteredKernels() { return Span<const Kernel>(g_kernels, g_num_kernels); }

}  // namespace torchir::runtime
