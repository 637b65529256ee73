#include "passes/pass_statistics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchir::passes {

void PrintPassStatistics(const std::vector<PassStatistics>& statistics, std::ostream& out) {
  size_t name_width = 4;  // "pass", "total"
  for (const PassStatistics& row : statistics)
    name_width = std::max(name_width, row.pass_name.size());
  const int width = static_cast<int>(name_width);
  auto milliseconds = [](std::chrono::nanoseconds time) {
    return std::chrono::duration<double, std::milli>(time).count();
  };

  out << absl::StrFormat("%-*s  %4s  %-7s  %10s  %s\n", width, "pass", "iter", "changed",
                         "time (ms)", "counters");
  std::chrono::nanoseconds total{0};
  for (const PassStatistics& row : statistics) {
    std::string counters;
    for (const auto& [name, value] : row.counters) {
      absl::StrAppendFormat(&counters, "%s%s=%d", counters.empty() ? "" : " ", name, value);
    }
    std::string iteration = row.iteration == 0 ? "-" : absl::StrCat(row.iteration);
    std::string line =
        absl::StrFormat("%-*s  %4s  %-7s  %10.3f  %s", width, row.pass_name, iteration,
                        row.changed ? "yes" : "no", milliseconds(row.wall_time), counters);
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
    total += row.wall_time;
  }
  out << absl::StrFormat("%-*s  %4s  %-7s  %10.3f\n", width, "total", "", "", milliseconds(total));
}

}  // namespace torchir::passes
