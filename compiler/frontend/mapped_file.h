// A whole file mapped read-only into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace torchir::frontend {

// The bytes of one file, mapped read-only for the lifetime of the object.
// Readers hand out ir::TensorData views into the mapping that hold the
// shared_ptr, so the mapping lives as long as any tensor viewing it. As with
// any mmap, truncating the file while it is mapped makes reads fault (SIGBUS):
// weights files are expected to stay put while the compiler runs.
class MappedFile {
 public:
  // Maps `path`. An empty file yields size() == 0 and a valid, non-null
  // data() pointer. Errors name the path and the system's reason.
  static absl::StatusOr<std::shared_ptr<const MappedFile>> Open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile(std::string path, const uint8_t* data, size_t size, bool mapped);

  std::string path_;
  const uint8_t* data_;
  size_t size_;
  bool mapped_;  // false for empty files, which cannot be mmapped
};

}  // namespace torchir::frontend
