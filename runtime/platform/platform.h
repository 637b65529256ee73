// The runtime's only contact with the platform: logging, aborting and a clock.
// Each goes through a hook an app can replace (e.g. to route logs to logcat),
// before loading any program.
#pragma once

#include <cstdint>

namespace torchir::runtime {

enum class LogLevel { kDebug, kInfo, kError };

// Receives one formatted message (no trailing newline).
using LogHook = void (*)(LogLevel level, const char* message);
// Must not return.
using AbortHook = void (*)(const char* message);

// Installs hooks; nullptr restores the default (stderr / std::abort).
void SetLogHook(LogHook hook);
void SetAbortHook(AbortHook hook);
// Messages below this level are dropped (default kError).
void SetMinLogLevel(LogLevel level);

// printf-style; formats into a fixed stack buffer (no allocation).
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] void Abort(const char* message);

// Monotonic time in nanoseconds.
uint64_t NowNanoseconds();

}  // namespace torchir::runtime
