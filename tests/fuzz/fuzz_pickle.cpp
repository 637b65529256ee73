// libFuzzer target: the pickle machine on arbitrary bytes (the .pt target
// reaches it only through a valid zip).
#include <cstddef>
#include <cstdint>

#include "compiler/frontend/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  torchir::frontend::PickleLimits limits;
  limits.max_values = 1 << 20;
  absl::StatusOr<torchir::frontend::PickleDocument> document =
      torchir::frontend::Unpickle(data, size, "fuzz.pkl", limits);
  if (document.ok()) {
    // Walk one level of the result: every pointer must be valid.
    const torchir::frontend::PickleValue& root = document->root();
    volatile size_t sink = root.text.size() + root.items.size() + root.entries.size();
    for (const auto* item : root.items) sink = sink + static_cast<size_t>(item->kind);
    for (const auto& [key, value] : root.entries)
      sink = sink + key->text.size() + value->items.size();
  }
  return 0;
}
