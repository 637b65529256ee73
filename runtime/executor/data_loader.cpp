#include "runtime/executor/data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "runtime/platform/platform.h"

namespace torchir::runtime {

// A zero-length file still gets a valid, aligned (empty) view.
alignas(16) static const uint8_t kEmpty[16] = {};

namespace {

constexpr size_t kHugePageBytes = size_t{2} << 20;

// Reads `size` bytes of `fd` into a private anonymous mapping whose 2 MiB-aligned
// start the kernel is asked to back with huge pages; the mapping (and where the
// data starts in it) in *mapping / *mapping_bytes / *data. False with errno set.
bool ReadIntoHugePages(int fd, size_t size, void** mapping, size_t* mapping_bytes, uint8_t** data) {
  // A 2 MiB-aligned start inside: THP backs only aligned 2 MiB ranges.
  if (size > SIZE_MAX - 2 * kHugePageBytes) {
    errno = ENOMEM;
    return false;
  }
  const size_t bytes = size + kHugePageBytes;
  void* raw = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return false;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uint8_t* aligned =
      reinterpret_cast<uint8_t*>((start + kHugePageBytes - 1) & ~(kHugePageBytes - 1));
#ifdef MADV_HUGEPAGE
  // Advice only: without THP the pages stay 4 KiB and everything works the same.
  ::madvise(aligned, (size + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
#endif
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::read(fd, aligned + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const int error = got == 0 ? EIO : errno;  // 0: the file shrank under us
      ::munmap(raw, bytes);
      errno = error;
      return false;
    }
    done += static_cast<size_t>(got);
  }
  *mapping = raw;
  *mapping_bytes = bytes;
  *data = aligned;
  return true;
}

}  // namespace

Result<FileDataLoader> FileDataLoader::Open(const char* path, FileLoad load) {
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
  if (load == FileLoad::kHugePages) {
    void* mapping = nullptr;
    size_t mapping_bytes = 0;
    uint8_t* data = nullptr;
    const bool read = ReadIntoHugePages(fd, size, &mapping, &mapping_bytes, &data);
    const int error = errno;
    ::close(fd);
    if (!read) {
      Log(LogLevel::kError, "%s: cannot read into memory: %s", path, std::strerror(error));
      return Error::kIoError;
    }
    // Read-only from now on, as a mapped file is.
    ::mprotect(data, size, PROT_READ);
    return FileDataLoader(data, size, mapping, mapping_bytes);
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
    : data_(other.data_),
      size_(other.size_),
      mapping_(other.mapping_),
      mapping_bytes_(other.mapping_bytes_) {
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapping_ = nullptr;
  other.mapping_bytes_ = 0;
}

FileDataLoader::~FileDataLoader() {
  if (mapping_ != nullptr) {
    ::munmap(mapping_, mapping_bytes_);
  } else if (data_ != nullptr && size_ > 0) {
    ::munmap(const_cast<uint8_t*>(data_), size_);
  }
}

}  // namespace torchir::runtime
