// libFuzzer target: the ZIP reader on arbitrary bytes. The .pt target reaches
// it too, but gives up at the first archive that is not a torch.save layout;
// this one asks for every entry's data, with and without the CRC check.
#include <cstddef>
#include <cstdint>

#include "compiler/frontend/zip_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<torchir::frontend::ZipArchive> archive =
      torchir::frontend::ZipArchive::Parse(data, size, "fuzz.zip");
  if (!archive.ok()) return 0;
  volatile uint8_t sink = 0;
  for (const torchir::frontend::ZipEntry& entry : archive->entries()) {
    // Lookup by name must find an entry of that name (names are unique).
    const torchir::frontend::ZipEntry* found = archive->Find(entry.name);
    if (found == nullptr || found->name != entry.name) __builtin_trap();
    auto bytes = archive->Data(entry);
    if (bytes.ok()) {
      // Every byte of the span must lie in the input (ASan checks the reads).
      if (!bytes->empty() &&
          (bytes->data() < data || bytes->data() + bytes->size() > data + size)) {
        __builtin_trap();
      }
      for (uint8_t byte : *bytes) sink = sink ^ byte;
    }
    auto verified = archive->VerifiedData(entry);
    if (verified.ok() && !bytes.ok()) __builtin_trap();
  }
  return 0;
}
