#include "tools/cli/report_error.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "compiler/ir/error_details.h"

namespace torchir::cli {

int ReportError(const absl::Status& status, bool verbose) {
  std::vector<std::string> details;
  if (auto payload = status.GetPayload(torchir::ir::kErrorDetailsPayload)) {
    details = absl::StrSplit(std::string(*payload), '\n', absl::SkipEmpty());
  }
  std::vector<std::string> lines =
      absl::StrSplit(std::string(status.message()), '\n', absl::SkipEmpty());
  // Every line of the default output is an error line: the hint rides on the last.
  if (!details.empty() && !verbose && !lines.empty()) {
    lines.back() += "; --verbose lists all " + std::to_string(details.size());
  }
  for (const std::string& line : lines) std::cerr << "error: " << line << "\n";
  if (verbose) {
    for (const std::string& line : details) std::cerr << "  " << line << "\n";
  }
  return 1;
}

}  // namespace torchir::cli
