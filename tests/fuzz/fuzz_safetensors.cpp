// libFuzzer target: the .safetensors reader on arbitrary bytes.
#include <cstddef>
#include <cstdint>

#include "compiler/frontend/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<torchir::frontend::SafetensorsContents> contents =
      torchir::frontend::ParseSafetensors(nullptr, data, size, "fuzz.safetensors");
  if (!contents.ok()) return 0;
  // Read every byte the views claim, so ASan checks that they lie in the input.
  volatile uint8_t sink = 0;
  for (const torchir::frontend::StoredTensor& tensor : contents->tensors) {
    for (size_t i = 0; i < tensor.data.size(); ++i) sink = sink ^ tensor.data.data()[i];
  }
  return 0;
}
