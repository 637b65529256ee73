#include "compiler/emit/constant_pool.h"

#include <cstring>
#include <functional>
#include <string_view>

#include "schema/file_header.h"

namespace torchir::emit {

uint64_t ConstantPool::Add(const uint8_t* data, size_t size) {
  used_ = true;
  // Any offset inside the segment holds zero bytes.
  if (size == 0) return 0;
  const size_t hash =
      std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(data), size));
  auto [first, last] = by_hash_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    const SegmentPiece& piece = pieces_[it->second];
    if (piece.size == size && std::memcmp(piece.data, data, size) == 0) return piece.offset;
  }
  const uint64_t offset = AlignUp(size_, pte::kSegmentAlignment);
  by_hash_.emplace(hash, pieces_.size());
  pieces_.push_back({offset, data, size});
  size_ = offset + size;
  return offset;
}

}  // namespace torchir::emit
