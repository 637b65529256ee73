#include "tools/pipeline/builtin_backends.h"

#include <cstdlib>
#include <iostream>

#include "backends/xnnpack/partitioner/xnnpack_compile_backend.h"

namespace torchir::pipeline {

absl::Status RegisterBuiltinBackends(backend::BackendRegistry& registry) {
  return registry.Register(xnnpack::MakeXnnpackCompileBackend());
}

const backend::BackendRegistry& BuiltinBackends() {
  static const backend::BackendRegistry* const registry = [] {
    auto* built = new backend::BackendRegistry();
    // Fails only on a name clash between built-in backends: a programming error that
    // every test run would show at once.
    if (absl::Status status = RegisterBuiltinBackends(*built); !status.ok()) {
      std::cerr << "error: registering the built-in backends: " << status.message() << "\n";
      std::abort();
    }
    return built;
  }();
  return *registry;
}

}  // namespace torchir::pipeline
