#include "tools/bench/process_memory.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace torchir::bench {
namespace {

// A "Field:   123 kB" line of /proc/self/status, in KiB, or -1.
long long ProcStatusKib(const char* field) {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  const size_t length = std::strlen(field);
  char line[256];
  long long kib = -1;
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::strncmp(line, field, length) == 0 && line[length] == ':') {
      kib = std::strtoll(line + length + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(status);
  return kib;
}

}  // namespace

long long ResidentKib() { return ProcStatusKib("VmRSS"); }

long long PeakResidentKib() {
  const long long hwm = ProcStatusKib("VmHWM");
  if (hwm >= 0) return hwm;
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
#ifdef __APPLE__
  return static_cast<long long>(usage.ru_maxrss) / 1024;  // bytes on macOS and iOS
#else
  return static_cast<long long>(usage.ru_maxrss);  // KiB on Linux and Android
#endif
}

}  // namespace torchir::bench
