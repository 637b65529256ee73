// The process's resident memory, for the runners' reports.
#pragma once

namespace torchir::bench {

// Resident set now, in KiB (VmRSS of /proc/self/status), or -1 where there is
// no /proc (not Linux or Android).
long long ResidentKib();
// The largest resident set so far, in KiB: VmHWM (it starts afresh at exec, so
// it is this program's own peak), else getrusage's ru_maxrss, else -1.
long long PeakResidentKib();

}  // namespace torchir::bench
