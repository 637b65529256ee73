#include "compiler/emit/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"

namespace torchir::emit {
namespace {

absl::Status SystemError(const std::string& path, const std::string& what, int error) {
  return absl::UnknownError(absl::StrCat(path, ": ", what, ": ", std::strerror(error)));
}

// Creates PATH.tmp-XXXXXX exclusively. Not mkstemp: it creates mode 0600, and
// the output should get the usual 0666 & ~umask like any other new file.
int CreateTemporary(const std::string& path, std::string* temporary, int* error) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device seed;
  std::mt19937 random(seed());
  std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string suffix(6, ' ');
    for (char& c : suffix) c = kAlphabet[pick(random)];
    *temporary = path + ".tmp-" + suffix;
    int fd = ::open(temporary->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    *error = errno;
    if (*error != EEXIST) return -1;
  }
  return -1;
}

absl::Status WriteAll(int fd, const std::vector<uint8_t>& bytes, const std::string& temporary) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError(temporary, "write failed", errno);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return SystemError(temporary, "fsync failed", errno);
  return absl::OkStatus();
}

// Makes the rename itself durable; best effort, the data is already safe.
void SyncDirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  if (path.empty()) return absl::InvalidArgumentError("empty output path");
  std::string temporary;
  int error = 0;
  int fd = CreateTemporary(path, &temporary, &error);
  if (fd < 0) return SystemError(path, "cannot create a temporary file beside it", error);
  absl::Status status = WriteAll(fd, bytes, temporary);
  if (::close(fd) != 0 && status.ok()) status = SystemError(temporary, "close failed", errno);
  if (status.ok() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = SystemError(path, "cannot replace it", errno);
  }
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    return status;
  }
  SyncDirectoryOf(path);
  return absl::OkStatus();
}

}  // namespace torchir::emit
