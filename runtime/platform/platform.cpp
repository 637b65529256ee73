#include "runtime/platform/platform.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace torchir::runtime {
namespace {

void DefaultLog(LogLevel level, const char* message) {
  const char* prefix = level == LogLevel::kError ? "error" : level == LogLevel::kInfo ? "info" : "debug";
  std::fprintf(stderr, "torchir runtime %s: %s\n", prefix, message);
}

[[noreturn]] void DefaultAbort(const char* message) {
  std::fprintf(stderr, "torchir runtime abort: %s\n", message);
  std::abort();
}

LogHook g_log_hook = DefaultLog;
AbortHook g_abort_hook = DefaultAbort;
LogLevel g_min_level = LogLevel::kError;

}  // namespace

void SetLogHook(LogHook hook) { g_log_hook = hook != nullptr ? hook : DefaultLog; }
void SetAbortHook(AbortHook hook) { g_abort_hook = hook != nullptr ? hook : DefaultAbort; }
void SetMinLogLevel(LogLevel level) { g_min_level = level; }

void Log(LogLevel level, const char* format, ...) {
  if (static_cast<int>(level) < static_cast<int>(g_min_level)) return;
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  g_log_hook(level, buffer);
}

void Abort(const char* message) {
  g_abort_hook(message);
  // A hook that returns breaks its contract; stop anyway.
  std::abort();
}

uint64_t NowNanoseconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace torchir::runtime
