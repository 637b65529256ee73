// Where one backend's delegate data sits in a .pte file, for tests and fuzzers that corrupt it
// on purpose (the zoo byte-flip check, the program-loader fuzzer's mutator):
//   - the byte ranges of the data segments that delegates with a given backend id name (their
//     blobs: XNNPACK's "TXN1", the native delegate's "TNV1");
//   - the first bytes of the constant tensors of one dtype that the calls of those delegates
//     pass (the native delegate's packed weights: uint8 tensors behind a 64-byte header).
// Header-only, no exceptions: the fuzzer builds it with the runtime's flags.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "schema/file_header.h"
#include "schema/program_generated.h"

namespace torchir::testing {

// A byte range of the file.
struct ByteRange {
  size_t offset = 0;
  size_t size = 0;
};

namespace detail {

// The program of a well-formed file, or nullptr.
inline const pte::Program* ParseProgram(const uint8_t* file, size_t size, pte::FileHeader* header) {
  if (size < pte::kFileHeaderSize || !pte::DecodeFileHeader(file, header)) return nullptr;
  if (header->flatbuffer_offset > size ||
      header->flatbuffer_size > size - header->flatbuffer_offset ||
      header->segment_base_offset > size || header->flatbuffer_offset % 8 != 0) {
    return nullptr;  // the runtime refuses an unaligned FlatBuffer too
  }
  const uint8_t* buffer = file + header->flatbuffer_offset;
  flatbuffers::Verifier verifier(buffer, static_cast<size_t>(header->flatbuffer_size));
  if (!pte::VerifyProgramBuffer(verifier)) return nullptr;
  const pte::Program* program = pte::GetProgram(buffer);
  return program->methods() != nullptr && program->segments() != nullptr ? program : nullptr;
}

// Whether `delegate` is one of `backend_id`'s.
inline bool IsBackend(const pte::BackendDelegate* delegate, const char* backend_id) {
  return delegate->backend_id() != nullptr &&
         std::strcmp(delegate->backend_id()->c_str(), backend_id) == 0;
}

// [offset, offset + length) of segment `index`, clipped to the segment; false when the segment
// or the start lies outside the file.
inline bool SegmentRange(const pte::FileHeader& header, const pte::Program& program, uint32_t index,
                         uint64_t offset, uint64_t length, size_t size, ByteRange* range) {
  if (index >= program.segments()->size()) return false;
  const pte::Segment* segment = program.segments()->Get(index);
  const uint64_t begin = header.segment_base_offset + segment->offset();
  if (segment->offset() > size || begin > size || segment->size() > size - begin ||
      offset >= segment->size()) {
    return false;
  }
  range->offset = static_cast<size_t>(begin + offset);
  range->size = static_cast<size_t>(std::min(length, segment->size() - offset));
  return range->size > 0;
}

}  // namespace detail

// The blob ranges of `backend_id`'s delegates in `file` (each once, in segment order), or none
// when the file is not a well-formed program or its ranges lie outside it.
inline std::vector<ByteRange> DelegateBlobRanges(const uint8_t* file, size_t size,
                                                 const char* backend_id) {
  std::vector<ByteRange> ranges;
  pte::FileHeader header;
  const pte::Program* program = detail::ParseProgram(file, size, &header);
  if (program == nullptr) return ranges;
  std::vector<bool> seen(program->segments()->size(), false);
  for (const pte::Method* method : *program->methods()) {
    if (method->delegates() == nullptr) continue;
    for (const pte::BackendDelegate* delegate : *method->delegates()) {
      if (!detail::IsBackend(delegate, backend_id)) continue;
      const uint32_t index = delegate->segment_index();
      if (index >= seen.size() || seen[index]) continue;
      seen[index] = true;
      ByteRange range;
      if (detail::SegmentRange(header, *program, index, 0, UINT64_MAX, size, &range)) {
        ranges.push_back(range);
      }
    }
  }
  return ranges;
}

// The first `prefix` bytes (or fewer, at a segment's end) of every constant tensor of `type`
// that a call of a `backend_id` delegate passes, each once, in file order.
inline std::vector<ByteRange> DelegateConstantRanges(const uint8_t* file, size_t size,
                                                     const char* backend_id, pte::ScalarType type,
                                                     size_t prefix) {
  std::vector<ByteRange> ranges;
  pte::FileHeader header;
  const pte::Program* program = detail::ParseProgram(file, size, &header);
  if (program == nullptr || prefix == 0) return ranges;
  for (const pte::Method* method : *program->methods()) {
    if (method->delegates() == nullptr || method->instructions() == nullptr ||
        method->values() == nullptr) {
      continue;
    }
    for (const pte::Instruction* instruction : *method->instructions()) {
      const pte::DelegateCall* call = instruction->kind_as_DelegateCall();
      if (call == nullptr || call->args() == nullptr ||
          call->delegate_index() >= method->delegates()->size() ||
          !detail::IsBackend(method->delegates()->Get(call->delegate_index()), backend_id)) {
        continue;
      }
      for (int32_t arg : *call->args()) {
        if (arg < 0 || static_cast<uint32_t>(arg) >= method->values()->size()) continue;
        const pte::Tensor* tensor =
            method->values()->Get(static_cast<uint32_t>(arg))->value_as_Tensor();
        if (tensor == nullptr || tensor->scalar_type() != type || tensor->constant() == nullptr) {
          continue;
        }
        ByteRange range;
        if (detail::SegmentRange(header, *program, tensor->constant()->segment_index(),
                                 tensor->constant()->offset(), prefix, size, &range)) {
          ranges.push_back(range);
        }
      }
    }
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  ranges.erase(
      std::unique(ranges.begin(), ranges.end(),
                  [](const ByteRange& a, const ByteRange& b) { return a.offset == b.offset; }),
      ranges.end());
  return ranges;
}

}  // namespace torchir::testing
