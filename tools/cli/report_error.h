// Printing compiler errors the way every torchir tool does.
#pragma once

#include "absl/status/status.h"

namespace torchir::cli {

// Prints each line of `status`'s message as "error: <line>" to stderr and
// returns the exit status for an invalid input (1).
int ReportError(const absl::Status& status);

}  // namespace torchir::cli
