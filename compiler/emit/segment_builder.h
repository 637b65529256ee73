// Packs the data segments of a .pte file (constant tensors, delegate blobs) and
// lays out the whole file around the Program FlatBuffer:
//
//   [64-byte FileHeader][FlatBuffer at 64][zeros to the page-aligned segment base]
//   [segment 0][zeros to 64][segment 1]...
//
// Segment offsets are relative to the segment base and 64-byte aligned, so they
// are known before the FlatBuffer (which records them) is finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace torchir::emit {

// Bytes placed at `offset` inside a segment. Not copied: they must stay alive
// until the file is laid out.
struct SegmentPiece {
  uint64_t offset = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Where a segment lies, relative to the segment base.
struct SegmentRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

class SegmentBuilder {
 public:
  // Appends a segment of `size` bytes holding `pieces` (each inside it; zeros
  // elsewhere) and returns its index.
  uint32_t Add(uint64_t size, std::vector<SegmentPiece> pieces);

  size_t count() const { return ranges_.size(); }
  const std::vector<SegmentRange>& ranges() const { return ranges_; }
  // Bytes from the segment base to the end of the last segment.
  uint64_t data_size() const;

  // The whole file: the header, `flatbuffer` at pte::kFileHeaderSize, zeros up
  // to the pte::kSegmentBaseAlignment-aligned segment base, then the segments
  // (none: the file ends at the base).
  std::vector<uint8_t> LayOutFile(const uint8_t* flatbuffer, size_t flatbuffer_size) const;

 private:
  std::vector<SegmentRange> ranges_;
  std::vector<std::vector<SegmentPiece>> pieces_;
};

// `value` rounded up to a multiple of `alignment` (a power of two).
inline uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace torchir::emit
