// Where a program's bytes come from. The runtime reads a program in place:
// constant tensors point straight into these bytes, so a loader must outlive
// every Program and Method made from it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchir::runtime {

class DataLoader {
 public:
  virtual ~DataLoader() = default;
  // The whole program file.
  virtual Span<const uint8_t> data() const = 0;
};

// Bytes the app owns (e.g. embedded in the binary or downloaded). They must
// stay valid and unchanged while the program is in use, and start at a
// 16-byte aligned address; at a 64-byte aligned one (the segments' alignment
// in the file) the native backend's packed weights are read at full speed.
class BufferDataLoader : public DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data), size) {}
  Span<const uint8_t> data() const override { return data_; }

 private:
  Span<const uint8_t> data_;
};

// A file mapped read-only into memory: weights are paged in on first use and
// never copied.
class FileDataLoader : public DataLoader {
 public:
  // kIoError when the file cannot be opened or mapped.
  static Result<FileDataLoader> Open(const char* path);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader& operator=(FileDataLoader&&) = delete;
  FileDataLoader(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  Span<const uint8_t> data() const override { return Span<const uint8_t>(data_, size_); }

 private:
  FileDataLoader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace torchir::runtime
