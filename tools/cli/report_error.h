// Printing compiler errors the way every torchir tool does.
#pragma once

#include "absl/status/status.h"

namespace torchir::cli {

// Prints each line of `status`'s message as "error: <line>" to stderr and
// returns the exit status for an invalid input (1). A status that sums up a
// family of problems carries the whole list (ir::kErrorDetailsPayload): with
// `verbose` each of its lines follows as "  <problem>", otherwise the last
// error line ends in "; --verbose lists all N".
int ReportError(const absl::Status& status, bool verbose = false);

}  // namespace torchir::cli
