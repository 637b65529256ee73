// A .safetensors reader that needs nothing but the runtime's ScalarType, for
// the device runner (torchir-bench), which must cross-build without Abseil or a
// JSON library. The file is untrusted: every header field, offset and size is
// checked; a bad file gives one error message, never a crash.
//
// Format: an 8-byte little-endian header size N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [1, 3], "data_offsets": [begin, end]}, ...,
//  "__metadata__": {...}}, then the data; offsets are relative to the data's start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/scalar_type.h"

namespace torchir::bench {

// One tensor of a file, viewing the file's bytes.
struct SafetensorsTensor {
  std::string name;
  runtime::ScalarType dtype = runtime::ScalarType::kFloat32;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;
  size_t nbytes = 0;
};

class SafetensorsFile {
 public:
  // Reads and parses `path`. On failure returns false and sets `error` to one
  // line naming the file and the problem.
  bool Read(const std::string& path, std::string* error);
  // Parses `bytes` (kept by the object); `name` prefixes errors.
  bool Parse(std::vector<uint8_t> bytes, const std::string& name, std::string* error);

  // The tensors in header order.
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  // The tensor called `name`, or nullptr.
  const SafetensorsTensor* Find(const std::string& name) const;

 private:
  std::vector<uint8_t> bytes_;
  std::vector<SafetensorsTensor> tensors_;
};

// The safetensors dtype code for `type` ("F32"), or "" for one the format lacks.
const char* SafetensorsDTypeName(runtime::ScalarType type);

// "float32[1, 3, 224, 224]".
std::string DescribeTensorType(runtime::ScalarType dtype, const int64_t* sizes, size_t rank);

}  // namespace torchir::bench
