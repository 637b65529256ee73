// The fixed 64-byte header at the start of every .pte file, ahead of the
// FlatBuffer. Plain C++ with no dependencies, shared by the emitter (which
// writes it) and the runtime (which reads it). All integers little-endian.
//
//   offset size field
//   0      4    magic "TIRP"
//   4      4    header version (kFileHeaderVersion)
//   8      8    flatbuffer_offset: where the Program FlatBuffer starts (64)
//   16     8    flatbuffer_size: its length in bytes
//   24     8    segment_base_offset: where segment data starts (page-aligned;
//               Segment.offset counts from here); equals the file size when
//               there are no segments
//   32     8    segment_data_size: bytes from segment_base_offset to the end
//               (the last segment, aligned to 64, plus kSegmentTailPadding)
//   40     8    file_size: total bytes; a loader rejects a shorter buffer
//   48     16   reserved, zero
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace torchir::pte {

inline constexpr char kFileMagic[4] = {'T', 'I', 'R', 'P'};
inline constexpr uint32_t kFileHeaderVersion = 1;
inline constexpr size_t kFileHeaderSize = 64;
// Alignment of every segment (cache line, and enough for any SIMD load).
inline constexpr uint64_t kSegmentAlignment = 64;
// Alignment of the segment base, so a loader can map the segment data alone.
inline constexpr uint64_t kSegmentBaseAlignment = 4096;
// Zero bytes after the last segment (counted in segment_data_size), so that a
// kernel reading a little past the end of a constant (whole SIMD registers,
// XNNPACK's XNN_EXTRA_BYTES) never leaves the file's mapping.
inline constexpr uint64_t kSegmentTailPadding = 64;

struct FileHeader {
  uint32_t version = kFileHeaderVersion;
  uint64_t flatbuffer_offset = kFileHeaderSize;
  uint64_t flatbuffer_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
  uint64_t file_size = 0;
};

namespace detail {
inline uint64_t LoadLE(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline void StoreLE(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
}  // namespace detail

// Writes `header` into `out` (kFileHeaderSize bytes).
inline void EncodeFileHeader(const FileHeader& header, uint8_t* out) {
  std::memset(out, 0, kFileHeaderSize);
  std::memcpy(out, kFileMagic, 4);
  detail::StoreLE(out + 4, header.version, 4);
  detail::StoreLE(out + 8, header.flatbuffer_offset, 8);
  detail::StoreLE(out + 16, header.flatbuffer_size, 8);
  detail::StoreLE(out + 24, header.segment_base_offset, 8);
  detail::StoreLE(out + 32, header.segment_data_size, 8);
  detail::StoreLE(out + 40, header.file_size, 8);
}

// Reads the header fields from `data` (at least kFileHeaderSize bytes). False
// when the magic is wrong; the caller checks the version and the ranges.
inline bool DecodeFileHeader(const uint8_t* data, FileHeader* header) {
  if (std::memcmp(data, kFileMagic, 4) != 0) return false;
  header->version = static_cast<uint32_t>(detail::LoadLE(data + 4, 4));
  header->flatbuffer_offset = detail::LoadLE(data + 8, 8);
  header->flatbuffer_size = detail::LoadLE(data + 16, 8);
  header->segment_base_offset = detail::LoadLE(data + 24, 8);
  header->segment_data_size = detail::LoadLE(data + 32, 8);
  header->file_size = detail::LoadLE(data + 40, 8);
  return true;
}

// The Program table's `version` this code writes and the range a runtime
// accepts (see schema/README.md).
inline constexpr uint32_t kProgramVersion = 1;
inline constexpr uint32_t kMinSupportedProgramVersion = 1;
inline constexpr uint32_t kMaxSupportedProgramVersion = 1;

}  // namespace torchir::pte
