// Where the XNNPACK delegate blobs of a .pte file are: the byte ranges of the data segments
// that delegate calls with backend id "XnnpackBackend" name. For tests and fuzzers that
// corrupt blobs on purpose (the zoo byte-flip test, the program-loader fuzzer's mutator).
// Header-only, no exceptions: the fuzzer builds it with the runtime's flags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "schema/file_header.h"
#include "schema/program_generated.h"

namespace torchir::testing::xnnpack {

// A byte range of the file.
struct BlobRange {
  size_t offset = 0;
  size_t size = 0;
};

// The XNNPACK blob ranges of `file` (each once, in segment order), or none when the file is
// not a well-formed program or its ranges lie outside it.
inline std::vector<BlobRange> XnnpackBlobRanges(const uint8_t* file, size_t size) {
  std::vector<BlobRange> ranges;
  pte::FileHeader header;
  if (size < pte::kFileHeaderSize || !pte::DecodeFileHeader(file, &header)) return ranges;
  if (header.flatbuffer_offset > size || header.flatbuffer_size > size - header.flatbuffer_offset ||
      header.segment_base_offset > size || header.flatbuffer_offset % 8 != 0) {
    return ranges;  // the runtime refuses an unaligned FlatBuffer too
  }
  const uint8_t* buffer = file + header.flatbuffer_offset;
  flatbuffers::Verifier verifier(buffer, static_cast<size_t>(header.flatbuffer_size));
  if (!pte::VerifyProgramBuffer(verifier)) return ranges;
  const pte::Program* program = pte::GetProgram(buffer);
  if (program->methods() == nullptr || program->segments() == nullptr) return ranges;
  std::vector<bool> seen(program->segments()->size(), false);
  for (const pte::Method* method : *program->methods()) {
    if (method->delegates() == nullptr) continue;
    for (const pte::BackendDelegate* delegate : *method->delegates()) {
      if (delegate->backend_id() == nullptr ||
          std::strcmp(delegate->backend_id()->c_str(), "XnnpackBackend") != 0) {
        continue;
      }
      const uint32_t index = delegate->segment_index();
      if (index >= seen.size() || seen[index]) continue;
      seen[index] = true;
      const pte::Segment* segment = program->segments()->Get(index);
      const uint64_t begin = header.segment_base_offset + segment->offset();
      if (segment->offset() > size || begin > size || segment->size() > size - begin) continue;
      ranges.push_back({static_cast<size_t>(begin), static_cast<size_t>(segment->size())});
    }
  }
  return ranges;
}

}  // namespace torchir::testing::xnnpack
