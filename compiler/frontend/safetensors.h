// The .safetensors format: reading (zero-copy, fully validated) and writing.
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON, then the
// data buffer. The JSON object maps each tensor name to
//   {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// with offsets relative to the data buffer, plus an optional "__metadata__"
// object of string values.
//
// The reader trusts nothing in the file. It checks, in order:
//   1. the header length fits in the file and is at most kMaxSafetensorsHeaderBytes;
//   2. the header is JSON holding an object, read under the rules of
//      untrusted_json.h (UTF-8, no NUL or BOM, nesting <= 64, no duplicate keys);
//   3. every entry has a known dtype, a shape of non-negative integers whose
//      byte size does not overflow, and offsets with begin <= end <= buffer size
//      and end - begin equal to the byte size;
//   4. "__metadata__" holds only strings (names are unique by rule 2);
//   5. the tensors tile the data buffer: no overlap, no holes, no trailing bytes
//      (the format forbids all three).
// Tensor data are views into the caller's buffer; elements may be unaligned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/frontend/weight_file.h"
#include "compiler/ir/dtype.h"

namespace torchir::frontend {

// Headers larger than this are rejected as absurd (the reference
// implementation uses the same bound).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// The content of a .safetensors file.
struct SafetensorsContents {
  std::vector<StoredTensor> tensors;            // in data-buffer order
  std::map<std::string, std::string> metadata;  // the "__metadata__" object
};

// Parses a .safetensors image of `size` bytes at `data`, which `owner` keeps
// alive; the tensors view into it. `name` (usually the path) prefixes every
// error message.
absl::StatusOr<SafetensorsContents> ParseSafetensors(std::shared_ptr<const void> owner,
                                                     const uint8_t* data, size_t size,
                                                     std::string_view name);

// Maps `path` and parses it with ParseSafetensors.
absl::StatusOr<SafetensorsContents> ReadSafetensors(const std::string& path);

// Writes `tensors` (in the given order, packed) and `metadata` to `path`. The
// output is deterministic: the header lists "__metadata__" first (when not
// empty) and then the tensors in order, padded with spaces to a multiple of 8
// bytes. Writes a temporary file beside `path` and renames it, so `path` never
// holds a partial file. Fails on duplicate or reserved names, dtypes the format
// lacks (complex128), or data whose size does not match dtype and shape.
absl::Status WriteSafetensors(const std::string& path, const std::vector<StoredTensor>& tensors,
                              const std::map<std::string, std::string>& metadata = {});

// The safetensors spelling of a dtype ("F32", "BF16", ...); nullopt if none.
std::optional<std::string_view> SafetensorsDTypeName(ir::DType dtype);

// Parses a safetensors dtype string; nullopt when unknown.
std::optional<ir::DType> ParseSafetensorsDType(std::string_view name);

}  // namespace torchir::frontend
