#include <cstring>

#include "runtime/backend/backend.h"
#include "runtime/platform/platform.h"

namespace torchir::runtime {
namespace {

struct Entry {
  const char* id;
  Backend* backend;
};
Entry g_backends[kMaxRegisteredBackends];
size_t g_num_backends = 0;

}  // namespace

Error RegisterBackend(const char* id, Backend* backend) {
  if (id == nullptr || backend == nullptr) return Error::kInvalidArgument;
  if (FindBackend(id, std::strlen(id)) != nullptr) {
    Log(LogLevel::kError, "backend '%s' is already registered", id);
    return Error::kInvalidArgument;
  }
  if (g_num_backends == kMaxRegisteredBackends) return Error::kOutOfMemory;
  g_backends[g_num_backends++] = Entry{id, backend};
  return Error::kOk;
}

Backend* FindBackend(const char* id, size_t id_length) {
  for (size_t i = 0; i < g_num_backends; ++i) {
    if (std::strlen(g_backends[i].id) == id_length &&
        std::memcmp(g_backends[i].id, id, id_length) == 0) {
      return g_backends[i].backend;
    }
  }
  return nullptr;
}

}  // namespace torchir::runtime
