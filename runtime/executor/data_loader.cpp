#include "runtime/executor/data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/platform/platform.h"

namespace torchir::runtime {

// A zero-length file still gets a valid, aligned (empty) view.
alignas(16) static const uint8_t kEmpty[16] = {};

Result<FileDataLoader> FileDataLoader::Open(const char* path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    Log(LogLevel::kError, "%s: cannot open: %s", path, std::strerror(errno));
    return Error::kIoError;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    Log(LogLevel::kError, "%s: not a regular file", path);
    ::close(fd);
    return Error::kIoError;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return FileDataLoader(kEmpty, 0);
  }
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) {
    Log(LogLevel::kError, "%s: cannot map: %s", path, std::strerror(errno));
    return Error::kIoError;
  }
  return FileDataLoader(static_cast<const uint8_t*>(mapped), size);
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

FileDataLoader::~FileDataLoader() {
  if (data_ != nullptr && size_ > 0) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace torchir::runtime
