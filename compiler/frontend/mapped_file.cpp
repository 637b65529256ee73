#include "compiler/frontend/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace torchir::frontend {
namespace {

// The data() of empty files: readers may form `data() + 0` without UB.
constexpr uint8_t kEmpty[1] = {0};

absl::Status ErrnoError(const std::string& path, const char* what, int error) {
  std::string message = absl::StrCat(path, ": ", what, ": ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  return absl::UnavailableError(message);
}

// Closes a file descriptor on scope exit.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() { ::close(fd_); }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

}  // namespace

MappedFile::MappedFile(std::string path, const uint8_t* data, size_t size, bool mapped)
    : path_(std::move(path)), data_(data), size_(size), mapped_(mapped) {}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

absl::StatusOr<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, "cannot open", errno);
  FdCloser closer(fd);

  struct stat info;
  if (::fstat(fd, &info) != 0) return ErrnoError(path, "cannot stat", errno);
  if (S_ISDIR(info.st_mode)) return ErrnoError(path, "cannot read", EISDIR);
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  if (info.st_size < 0 || static_cast<uint64_t>(info.st_size) > SIZE_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": file too large to map"));
  }
  const size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    return std::shared_ptr<const MappedFile>(new MappedFile(path, kEmpty, 0, /*mapped=*/false));
  }
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) return ErrnoError(path, "cannot mmap", errno);
  return std::shared_ptr<const MappedFile>(
      new MappedFile(path, static_cast<const uint8_t*>(address), size, /*mapped=*/true));
}

}  // namespace torchir::frontend
