// libFuzzer target: torchir-bench's runtime-only .safetensors reader
// (tools/bench/safetensors_reader.h) on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/safetensors_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  torchir::bench::SafetensorsFile file;
  std::string error;
  if (!file.Parse(std::vector<uint8_t>(data, data + size), "fuzz.safetensors", &error)) return 0;
  // Read every byte the views claim, so ASan checks that they lie in the file.
  volatile uint8_t sink = 0;
  for (const torchir::bench::SafetensorsTensor& tensor : file.tensors()) {
    for (size_t i = 0; i < tensor.nbytes; ++i) sink = sink ^ tensor.data[i];
  }
  return 0;
}
