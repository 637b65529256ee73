#include "compiler/emit/segment_builder.h"

#include <cstring>

#include "schema/file_header.h"

namespace torchir::emit {

uint32_t SegmentBuilder::Add(uint64_t size, std::vector<SegmentPiece> pieces) {
  uint64_t offset = ranges_.empty() ? 0 : AlignUp(data_size(), pte::kSegmentAlignment);
  ranges_.push_back({offset, size});
  pieces_.push_back(std::move(pieces));
  return static_cast<uint32_t>(ranges_.size() - 1);
}

uint64_t SegmentBuilder::data_size() const {
  return ranges_.empty() ? 0 : ranges_.back().offset + ranges_.back().size;
}

std::vector<uint8_t> SegmentBuilder::LayOutFile(const uint8_t* flatbuffer,
                                                size_t flatbuffer_size) const {
  pte::FileHeader header;
  header.flatbuffer_offset = pte::kFileHeaderSize;
  header.flatbuffer_size = flatbuffer_size;
  // Page-aligned even without segments (the file then ends at the base): one
  // rule for every file, and a loader may map the segment area on its own.
  header.segment_base_offset =
      AlignUp(pte::kFileHeaderSize + flatbuffer_size, pte::kSegmentBaseAlignment);
  header.segment_data_size =
      ranges_.empty() ? 0
                      : AlignUp(data_size(), pte::kSegmentAlignment) + pte::kSegmentTailPadding;
  header.file_size = header.segment_base_offset + header.segment_data_size;

  // Value-initialised: every gap (after the FlatBuffer, between segments) is zero.
  std::vector<uint8_t> file(header.file_size);
  pte::EncodeFileHeader(header, file.data());
  if (flatbuffer_size > 0) {
    std::memcpy(file.data() + pte::kFileHeaderSize, flatbuffer, flatbuffer_size);
  }
  uint8_t* base = file.data() + header.segment_base_offset;
  for (size_t i = 0; i < ranges_.size(); ++i) {
    for (const SegmentPiece& piece : pieces_[i]) {
      if (piece.size > 0) {
        std::memcpy(base + ranges_[i].offset + piece.offset, piece.data, piece.size);
      }
    }
  }
  return file;
}

}  // namespace torchir::emit
