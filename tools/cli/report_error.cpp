#include "tools/cli/report_error.h"

#include <iostream>
#include <string>

#include "absl/strings/str_split.h"

namespace torchir::cli {

int ReportError(const absl::Status& status) {
  std::string message(status.message());
  for (absl::string_view line : absl::StrSplit(message, '\n', absl::SkipEmpty())) {
    std::cerr << "error: " << line << "\n";
  }
  return 1;
}

}  // namespace torchir::cli
