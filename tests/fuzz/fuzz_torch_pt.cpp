// libFuzzer target: the torch.save (.pt) reader on arbitrary bytes: the zip
// reader, the unpickler and the strided-view checks behind them.
#include <cstddef>
#include <cstdint>

#include "compiler/frontend/torch_pt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  torchir::frontend::TorchPtOptions options;
  options.max_copied_bytes = 64 << 20;  // below libFuzzer's malloc limit
  options.verify_pickle_crc32 = false;  // let mutations of data.pkl reach the unpickler
  absl::StatusOr<std::vector<torchir::frontend::StoredTensor>> tensors =
      torchir::frontend::ParseTorchPt(nullptr, data, size, "fuzz.pt", options);
  if (!tensors.ok()) return 0;
  volatile uint8_t sink = 0;
  for (const torchir::frontend::StoredTensor& tensor : *tensors) {
    for (size_t i = 0; i < tensor.data.size(); ++i) sink = sink ^ tensor.data.data()[i];
  }
  return 0;
}
