// The constant segment's layout: every constant tensor's bytes at a 64-byte
// aligned offset, identical byte ranges stored once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "compiler/emit/segment_builder.h"

namespace torchir::emit {

class ConstantPool {
 public:
  // Places `size` bytes at `data` (kept by reference, not copied) and returns
  // their offset in the segment, a multiple of pte::kSegmentAlignment. Bytes
  // equal to ones placed before return the earlier offset: lowering and the
  // passes may leave equal tensors behind (folded constants, shared scalars).
  uint64_t Add(const uint8_t* data, size_t size);

  // True until the first Add(), even of an empty tensor.
  bool empty() const { return !used_; }
  // The segment's size: the end of the last tensor placed.
  uint64_t size() const { return size_; }
  // The tensors' bytes as segment pieces, in placement order.
  const std::vector<SegmentPiece>& pieces() const { return pieces_; }

 private:
  bool used_ = false;
  uint64_t size_ = 0;
  std::vector<SegmentPiece> pieces_;
  // Content hash -> indices into pieces_; only looked up, never iterated, so
  // the layout does not depend on hash order.
  std::unordered_multimap<size_t, size_t> by_hash_;
};

}  // namespace torchir::emit
