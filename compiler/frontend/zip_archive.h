// A minimal read-only ZIP reader over bytes in memory (the container of
// torch.save files).
//
// Parsing walks:
//   1. the end-of-central-directory record, searched backwards over at most
//      the last 22 + 65535 bytes (its size plus the longest comment);
//   2. the ZIP64 locator just before it, when present, and the ZIP64 record
//      it points to, whose counts and offsets then take precedence;
//   3. every central directory entry, with ZIP64 extra fields for sizes and
//      offsets that do not fit 32 bits.
// Each entry's data is located through its local header on request, because
// the local name and extra field lengths may differ from the central ones.
// Every offset and length is checked against the buffer; multi-disk archives,
// encrypted entries and duplicate names are rejected. Only stored (method 0)
// entries can be read; torch.save writes nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace torchir::frontend {

// One file of the archive, as the central directory describes it.
struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0: stored, 8: deflated, ...
  uint16_t flags = 0;   // general purpose bit flags
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;
};

// The directory of a ZIP archive held in memory. It does not own the bytes:
// they must outlive the archive and every span it returns.
class ZipArchive {
 public:
  // Parses the archive's directory. `name` (usually the file path) prefixes
  // every error message.
  static absl::StatusOr<ZipArchive> Parse(const uint8_t* data, size_t size, std::string_view name);

  // Entries in central directory order.
  const std::vector<ZipEntry>& entries() const { return entries_; }

  // The entry called `entry_name`; nullptr when absent.
  const ZipEntry* Find(std::string_view entry_name) const;

  // The bytes of a stored entry. Fails for compressed or encrypted entries,
  // a bad local header, or data outside the buffer.
  absl::StatusOr<absl::Span<const uint8_t>> Data(const ZipEntry& entry) const;

  // Data() plus a check of the bytes against the entry's CRC-32.
  absl::StatusOr<absl::Span<const uint8_t>> VerifiedData(const ZipEntry& entry) const;

 private:
  ZipArchive(const uint8_t* data, size_t size, std::string name)
      : data_(data), size_(size), name_(std::move(name)) {}

  const uint8_t* data_;
  size_t size_;
  std::string name_;
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string, size_t> index_;
};

// The CRC-32 (IEEE 802.3, as ZIP uses it) of `bytes`.
uint32_t Crc32(absl::Span<const uint8_t> bytes);

}  // namespace torchir::frontend
