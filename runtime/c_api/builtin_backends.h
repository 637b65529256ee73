// The kernels and backends the C API registers when it loads a method. The
// only file of the C API that names a backend (builtin_backends.cpp), as
// tools/pipeline/builtin_backends.cpp is on the compiler side: the C API is
// the SDK's outer layer and sits on the backends it was built with
// (docs/architecture.md).
#pragma once

#include <cstdint>

#include "runtime/core/error.h"

namespace torchir::c_api {

struct BuiltinBackendOptions {
  // Threads per XNNPACK delegate (>= 1).
  uint32_t num_threads = 1;
  // XNNPACK's memory budget per delegate; 0 keeps the backend's default.
  uint64_t xnnpack_max_memory_bytes = 0;
};

// Registers the portable kernels and every built-in backend, or updates the
// backends' options for the delegates initialised next. Process-wide and not
// thread-safe: the caller serialises it with the loads it precedes.
runtime::Error RegisterBuiltinBackends(const BuiltinBackendOptions& options);

// The TORCHIR_BACKEND_* bits of the built-in backends.
uint32_t BuiltinBackendBits();

}  // namespace torchir::c_api
