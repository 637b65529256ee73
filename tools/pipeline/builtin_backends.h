// The compile-side backends torchir ships, in one registry the tools share.
#pragma once

#include "absl/status/status.h"
#include "compiler/backend/backend_registry.h"

namespace torchir::pipeline {

// Registers every built-in backend into `registry` (so far: xnnpack). Called once by
// BuiltinBackends(); tests call it to combine the built-in backends with their own.
absl::Status RegisterBuiltinBackends(backend::BackendRegistry& registry);

// A registry filled by RegisterBuiltinBackends on first use (a function-local static:
// no static-initialisation order to depend on).
const backend::BackendRegistry& BuiltinBackends();

}  // namespace torchir::pipeline
