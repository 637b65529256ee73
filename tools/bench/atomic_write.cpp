#include "tools/bench/atomic_write.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace torchir::bench {

bool WriteFileAtomically(const std::string& path, const std::string& text, std::string* error) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) {
    *error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  ok = std::fflush(file) == 0 && ok;
  const int saved_errno = errno;
  ok = std::fclose(file) == 0 && ok;
  if (ok && std::rename(temporary.c_str(), path.c_str()) == 0) return true;
  *error = path + ": cannot write: " + std::strerror(ok ? errno : saved_errno);
  std::remove(temporary.c_str());
  return false;
}

}  // namespace torchir::bench
