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

// How FileDataLoader::Open brings a file in.
enum class FileLoad {
  // Mapped read-only: nothing is read at load, weights are paged in on first use
  // and shared with the page cache.
  kMap,
  // Read whole into private memory that asks for 2 MiB pages (Linux transparent
  // huge pages in "madvise" mode; where the kernel has none, 4 KiB pages): the
  // load copies the file, and every run then reads its weights through far
  // fewer TLB entries. For a process that runs a large model many times.
  kHugePages,
};

// A program file in memory, mapped (weights paged in on first use, never
// copied) or read into huge pages (FileLoad).
class FileDataLoader : public DataLoader {
 public:
  // kIoError when the file cannot be opened, mapped or read.
  static Result<FileDataLoader> Open(const char* path, FileLoad load = FileLoad::kMap);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader& operator=(FileDataLoader&&) = delete;
  FileDataLoader(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  Span<const uint8_t> data() const override { return Span<const uint8_t>(data_, size_); }

 private:
  FileDataLoader(const uint8_t* data, size_t size, void* mapping = nullptr,
                 size_t mapping_bytes = 0)
      : data_(data), size_(size), mapping_(mapping), mapping_bytes_(mapping_bytes) {}
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  // kHugePages: the whole anonymous mapping data_ lies in (unmapped at the end).
  void* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
};

}  // namespace torchir::runtime
