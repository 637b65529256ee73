// The compile-side backends a pipeline can choose from, by name. A registry is a
// plain object filled by an explicit call (tools/pipeline/builtin_backends.h
// registers the built-in ones), never by static initialisers: what is registered
// does not depend on link order, and tests register their own backends in their
// own registry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compiler/backend/backend.h"

namespace torchir::backend {

// The name that means "no backend": every node runs on the portable kernels. No
// backend may register under it.
inline constexpr char kPortableBackendName[] = "portable";

class BackendRegistry {
 public:
  // Adds `backend`. InvalidArgument for an empty name, one with a comma or space (it
  // could not be given in a list) or kPortableBackendName; AlreadyExists when the name
  // is taken.
  absl::Status Register(std::unique_ptr<Backend> backend);

  // The backend registered as `name`, or nullptr.
  const Backend* Find(absl::string_view name) const;

  // The registered names in registration order.
  std::vector<std::string> Names() const;

 private:
  std::vector<std::unique_ptr<Backend>> backends_;
};

}  // namespace torchir::backend
