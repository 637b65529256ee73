// How a compiler stage that sums up a family of problems in one line (262
// missing weights) still hands over every problem: the full list rides along as
// an absl::Status payload under this type URL, one problem per line. The CLIs
// print the summary as their one `error:` line and the list with --verbose.
#pragma once

namespace torchir::ir {

inline constexpr char kErrorDetailsPayload[] = "type.torchir/error-details";

}  // namespace torchir::ir
