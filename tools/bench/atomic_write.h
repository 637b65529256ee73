// Writing an output file so that readers see all of it or nothing: the text
// goes to a temporary file beside `path`, which is renamed over it only when
// every byte is written. The runtime-only twin of compiler/emit/atomic_file.h
// (which returns absl::Status).
#pragma once

#include <string>

namespace torchir::bench {

// False with `error` ("PATH: cannot write: reason") on failure; no temporary
// file is left behind and an existing `path` is untouched.
bool WriteFileAtomically(const std::string& path, const std::string& text, std::string* error);

}  // namespace torchir::bench
