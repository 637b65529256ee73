#include "compiler/frontend/zip_archive.h"

#include <algorithm>
#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchir::frontend {
namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;

constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kZip64EndSize = 56;
constexpr size_t kZip64LocatorSize = 20;
constexpr size_t kMaxCommentSize = 0xffff;

constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kFlagEncrypted = 0x0001;

// A bounds-checked little-endian reader over [data, data + size).
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool Has(size_t offset, size_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }
  // Callers check Has(offset, N) first.
  uint16_t U16(size_t offset) const {
    return static_cast<uint16_t>(data_[offset] | (data_[offset + 1] << 8));
  }
  uint32_t U32(size_t offset) const {
    return static_cast<uint32_t>(U16(offset)) | (static_cast<uint32_t>(U16(offset + 2)) << 16);
  }
  uint64_t U64(size_t offset) const {
    return static_cast<uint64_t>(U32(offset)) | (static_cast<uint64_t>(U32(offset + 4)) << 32);
  }
  const uint8_t* At(size_t offset) const { return data_ + offset; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
};

// Where the central directory is and how many entries it holds.
struct Directory {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t entries = 0;
};

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

}  // namespace

uint32_t Crc32(absl::Span<const uint8_t> bytes) {
  static const std::array<uint32_t, 256> kTable = MakeCrcTable();
  uint32_t crc = 0xffffffffu;
  for (uint8_t byte : bytes) crc = kTable[(crc ^ byte) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

absl::StatusOr<ZipArchive> ZipArchive::Parse(const uint8_t* data, size_t size,
                                             std::string_view path) {
  const absl::string_view name(path.data(), path.size());
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": zip archive: ", message));
  };
  Reader reader(data, size);
  if (size < kEndSize) {
    return error(absl::StrCat("file of ", size, " bytes is too short to hold a zip directory"));
  }

  // 1. The end-of-central-directory record: the last one whose comment fits.
  std::optional<size_t> end;
  const size_t lowest = size - kEndSize >= kMaxCommentSize ? size - kEndSize - kMaxCommentSize : 0;
  for (size_t offset = size - kEndSize + 1; offset-- > lowest;) {
    if (reader.U32(offset) == kEndSignature &&
        reader.U16(offset + 20) <= size - kEndSize - offset) {
      end = offset;
      break;
    }
  }
  if (!end) return error("no end-of-central-directory record (truncated or not a zip file)");

  Directory directory;
  const uint16_t disk = reader.U16(*end + 4);
  const uint16_t directory_disk = reader.U16(*end + 6);
  const uint16_t disk_entries = reader.U16(*end + 8);
  directory.entries = reader.U16(*end + 10);
  directory.size = reader.U32(*end + 12);
  directory.offset = reader.U32(*end + 16);

  // 2. ZIP64: a locator right before the record points to the ZIP64 record.
  if (*end >= kZip64LocatorSize && reader.U32(*end - kZip64LocatorSize) == kZip64LocatorSignature) {
    const size_t locator = *end - kZip64LocatorSize;
    const uint32_t locator_disk = reader.U32(locator + 4);
    const uint64_t record = reader.U64(locator + 8);
    const uint32_t total_disks = reader.U32(locator + 16);
    if (locator_disk != 0 || total_disks > 1) return error("multi-disk archives are not supported");
    if (record > locator || locator - record < kZip64EndSize) {
      return error(absl::StrCat("ZIP64 end record offset ", record, " is out of range"));
    }
    const size_t at = static_cast<size_t>(record);
    if (reader.U32(at) != kZip64EndSignature) {
      return error(absl::StrCat("no ZIP64 end record at offset ", record));
    }
    if (reader.U32(at + 16) != 0 || reader.U32(at + 20) != 0) {
      return error("multi-disk archives are not supported");
    }
    const uint64_t zip64_disk_entries = reader.U64(at + 24);
    directory.entries = reader.U64(at + 32);
    directory.size = reader.U64(at + 40);
    directory.offset = reader.U64(at + 48);
    if (zip64_disk_entries != directory.entries) {
      return error("multi-disk archives are not supported");
    }
  } else {
    if (disk != 0 || directory_disk != 0 || disk_entries != directory.entries) {
      return error("multi-disk archives are not supported");
    }
  }

  // 3. The central directory.
  if (directory.offset > size || directory.size > size - directory.offset) {
    return error(absl::StrCat("central directory [", directory.offset, ", +", directory.size,
                              ") lies outside the file (", size, " bytes)"));
  }
  if (directory.entries > directory.size / kCentralHeaderSize) {
    return error(absl::StrCat("central directory of ", directory.size, " bytes cannot hold ",
                              directory.entries, " entries"));
  }
  ZipArchive archive(data, size, std::string(name));
  archive.entries_.reserve(static_cast<size_t>(directory.entries));
  Reader central(data + directory.offset, static_cast<size_t>(directory.size));
  size_t offset = 0;
  for (uint64_t i = 0; i < directory.entries; ++i) {
    auto entry_error = [&](absl::string_view message) {
      return error(absl::StrCat("central directory entry ", i, " (at offset ",
                                directory.offset + offset, "): ", message));
    };
    if (!central.Has(offset, kCentralHeaderSize)) return entry_error("truncated");
    if (central.U32(offset) != kCentralHeaderSignature) return entry_error("bad signature");
    ZipEntry entry;
    entry.flags = central.U16(offset + 8);
    entry.method = central.U16(offset + 10);
    entry.crc32 = central.U32(offset + 16);
    entry.compressed_size = central.U32(offset + 20);
    entry.uncompressed_size = central.U32(offset + 24);
    const uint16_t name_length = central.U16(offset + 28);
    const uint16_t extra_length = central.U16(offset + 30);
    const uint16_t comment_length = central.U16(offset + 32);
    const uint16_t start_disk = central.U16(offset + 34);
    entry.local_header_offset = central.U32(offset + 42);
    const size_t variable = size_t{name_length} + extra_length + comment_length;
    if (!central.Has(offset + kCentralHeaderSize, variable)) {
      return entry_error("name, extra field or comment runs past the central directory");
    }
    const size_t name_at = offset + kCentralHeaderSize;
    entry.name.assign(reinterpret_cast<const char*>(central.At(name_at)), name_length);

    // ZIP64 extra field: the 64-bit values appear only for the fields set to
    // all ones, in this order.
    bool need_uncompressed = entry.uncompressed_size == 0xffffffffu;
    bool need_compressed = entry.compressed_size == 0xffffffffu;
    bool need_offset = entry.local_header_offset == 0xffffffffu;
    bool need_disk = start_disk == 0xffff;
    Reader extra(central.At(name_at + name_length), extra_length);
    for (size_t field = 0; field + 4 <= extra_length;) {
      const uint16_t id = extra.U16(field);
      const uint16_t length = extra.U16(field + 2);
      if (!extra.Has(field + 4, length)) return entry_error("extra field runs past its end");
      if (id == kZip64ExtraId) {
        Reader zip64(extra.At(field + 4), length);
        size_t at = 0;
        auto take = [&](bool needed, uint64_t* value) {
          if (!needed) return true;
          if (!zip64.Has(at, 8)) return false;
          *value = zip64.U64(at);
          at += 8;
          return true;
        };
        uint64_t disk64 = 0;
        if (!take(need_uncompressed, &entry.uncompressed_size) ||
            !take(need_compressed, &entry.compressed_size) ||
            !take(need_offset, &entry.local_header_offset)) {
          return entry_error("ZIP64 extra field is too short");
        }
        if (need_disk) {
          if (!zip64.Has(at, 4)) return entry_error("ZIP64 extra field is too short");
          disk64 = zip64.U32(at);
        }
        need_uncompressed = need_compressed = need_offset = need_disk = false;
        if (disk64 != 0) return entry_error("multi-disk archives are not supported");
      }
      field += 4 + size_t{length};
    }
    if (need_uncompressed || need_compressed || need_offset) {
      return entry_error("sizes or offset need a ZIP64 extra field, which is missing");
    }
    if (need_disk || start_disk != 0) return entry_error("multi-disk archives are not supported");
    if (entry.local_header_offset > size) {
      return entry_error(absl::StrCat("local header offset ", entry.local_header_offset,
                                      " is past the end of the file"));
    }
    if (!archive.index_.emplace(entry.name, archive.entries_.size()).second) {
      return entry_error(absl::StrCat("duplicate entry name '", entry.name, "'"));
    }
    archive.entries_.push_back(std::move(entry));
    offset = name_at + variable;
  }
  return archive;
}

const ZipEntry* ZipArchive::Find(std::string_view entry_name) const {
  auto it = index_.find(std::string(entry_name));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

absl::StatusOr<absl::Span<const uint8_t>> ZipArchive::Data(const ZipEntry& entry) const {
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": zip entry '", entry.name, "': ", message));
  };
  if (entry.flags & kFlagEncrypted) return error("encrypted entries are not supported");
  if (entry.method != 0) {
    return error(absl::StrCat("compression method ", entry.method,
                              (entry.method == 8 ? " (deflate)" : ""),
                              " is not supported; only stored entries can be read (torch.save "
                              "writes stored entries: re-save the file with torch.save)"));
  }
  if (entry.compressed_size != entry.uncompressed_size) {
    return error(absl::StrCat("stored entry has compressed size ", entry.compressed_size,
                              " != uncompressed size ", entry.uncompressed_size));
  }
  Reader reader(data_, size_);
  const uint64_t local = entry.local_header_offset;
  if (!reader.Has(local, kLocalHeaderSize)) {
    return error(absl::StrCat("local header at offset ", local, " runs past the end of the file"));
  }
  const size_t at = static_cast<size_t>(local);
  if (reader.U32(at) != kLocalHeaderSignature) {
    return error(absl::StrCat("bad local header signature at offset ", local));
  }
  const uint16_t name_length = reader.U16(at + 26);
  const uint16_t extra_length = reader.U16(at + 28);
  if (!reader.Has(at + kLocalHeaderSize, size_t{name_length} + extra_length)) {
    return error("local header name or extra field runs past the end of the file");
  }
  absl::string_view local_name(reinterpret_cast<const char*>(reader.At(at + kLocalHeaderSize)),
                               name_length);
  if (local_name != absl::string_view(entry.name)) {
    return error(absl::StrCat("local header names '", local_name, "' instead"));
  }
  const size_t start = at + kLocalHeaderSize + name_length + extra_length;
  if (start > size_ || entry.compressed_size > size_ - start) {
    return error(absl::StrCat("data [", start, ", +", entry.compressed_size,
                              ") runs past the end of the file (", size_, " bytes)"));
  }
  return absl::Span<const uint8_t>(reader.At(start), static_cast<size_t>(entry.compressed_size));
}

absl::StatusOr<absl::Span<const uint8_t>> ZipArchive::VerifiedData(const ZipEntry& entry) const {
  absl::StatusOr<absl::Span<const uint8_t>> bytes = Data(entry);
  if (!bytes.ok()) return bytes;
  const uint32_t crc = Crc32(*bytes);
  if (crc != entry.crc32) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: zip entry '%s': CRC-32 mismatch (stored %08x, computed %08x)", name_,
                        entry.name, entry.crc32, crc));
  }
  return bytes;
}

}  // namespace torchir::frontend
