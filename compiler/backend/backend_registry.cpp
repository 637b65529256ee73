#include "compiler/backend/backend_registry.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace torchir::backend {

absl::Status BackendRegistry::Register(std::unique_ptr<Backend> backend) {
  if (backend == nullptr) return absl::InvalidArgumentError("cannot register a null backend");
  const std::string name = backend->name();
  if (name.empty() || name.find_first_of(", \t") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "backend name '", name, "' cannot be given in a --backend list (empty, comma or space)"));
  }
  if (name == kPortableBackendName) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend name '", name, "' is reserved: it means nothing is delegated"));
  }
  if (Find(name) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat("backend '", name, "' is already registered"));
  }
  backends_.push_back(std::move(backend));
  return absl::OkStatus();
}

const Backend* BackendRegistry::Find(absl::string_view name) const {
  for (const std::unique_ptr<Backend>& backend : backends_) {
    if (backend->name() == name) return backend.get();
  }
  return nullptr;
}

std::vector<std::string> BackendRegistry::Names() const {
  std::vector<std::string> names;
  for (const std::unique_ptr<Backend>& backend : backends_) names.push_back(backend->name());
  return names;
}

}  // namespace torchir::backend
