// The compile-side backends torchir ships, in one registry the tools share.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/native/gemm_config.h"
#include "compiler/backend/backend_registry.h"

namespace torchir::pipeline {

// Registers every built-in backend into `registry`: xnnpack, then native (packing weights for
// `native_target`). Called by BuiltinBackends(); tests call it to combine the built-in
// backends with their own.
absl::Status RegisterBuiltinBackends(
    backend::BackendRegistry& registry,
    native::KernelTarget native_target = native::CurrentKernelTarget());

// A registry filled by RegisterBuiltinBackends for `native_target` on first use (function-local
// statics: no static-initialisation order to depend on).
const backend::BackendRegistry& BuiltinBackends(native::KernelTarget native_target);
// The registry for this machine's CPU (what --target host means).
const backend::BackendRegistry& BuiltinBackends();

// The CPU family a --target name means: "host" (this machine's), "avx512", "avx2", "sse4",
// "neon" or "portable"; InvalidArgument naming the accepted names otherwise.
absl::StatusOr<native::KernelTarget> ParseTarget(const std::string& name);
// The names ParseTarget accepts, for --help.
std::string TargetNames();

}  // namespace torchir::pipeline
