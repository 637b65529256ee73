#include "tools/pipeline/builtin_backends.h"

#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>

#include "backends/native/partitioner/native_compile_backend.h"
#include "backends/xnnpack/partitioner/xnnpack_compile_backend.h"

namespace torchir::pipeline {

absl::Status RegisterBuiltinBackends(backend::BackendRegistry& registry,
                                     native::KernelTarget native_target) {
  if (absl::Status status = registry.Register(xnnpack::MakeXnnpackCompileBackend()); !status.ok()) {
    return status;
  }
  return registry.Register(native::MakeNativeCompileBackend(native_target));
}

const backend::BackendRegistry& BuiltinBackends(native::KernelTarget native_target) {
  static std::mutex mutex;
  static auto* registries = new std::map<native::KernelTarget, backend::BackendRegistry*>();
  std::lock_guard<std::mutex> lock(mutex);
  backend::BackendRegistry*& registry = (*registries)[native_target];
  if (registry == nullptr) {
    registry = new backend::BackendRegistry();
    // Fails only on a name clash between built-in backends: a programming error that
    // every test run would show at once.
    if (absl::Status status = RegisterBuiltinBackends(*registry, native_target); !status.ok()) {
      std::cerr << "error: registering the built-in backends: " << status.message() << "\n";
      std::abort();
    }
  }
  return *registry;
}

const backend::BackendRegistry& BuiltinBackends() {
  return BuiltinBackends(native::CurrentKernelTarget());
}

absl::StatusOr<native::KernelTarget> ParseTarget(const std::string& name) {
  return native::ParseKernelTarget(name);
}

std::string TargetNames() { return native::KernelTargetNames(); }

}  // namespace torchir::pipeline
