// libFuzzer target: the pytorch-ir JSON reader on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compiler/frontend/ir_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  torchir::frontend::ReadReport report;
  auto graph = torchir::frontend::ParsePytorchIr(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json", &report);
  if (graph.ok()) {
    // A graph the reader accepts must be internally consistent.
    if (!(*graph)->CheckInvariants().empty()) __builtin_trap();
  }
  return 0;
}
