// Writing an output file so that readers see either the old file or the whole
// new one, never a partial write (the "no partial output file" rule).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace torchir::emit {

// Writes `bytes` to a fresh PATH.tmp-XXXXXX in the same directory (so the
// rename stays within one file system), fsyncs it, and renames it over `path`.
// On any failure the temporary file is removed and `path` is left as it was.
// Errors name `path` and the system error.
absl::Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace torchir::emit
