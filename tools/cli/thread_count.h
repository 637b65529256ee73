// Checking a --threads value against the machine the tool runs on.
#pragma once

#include <string>

namespace torchir::cli {

// The warning a tool prints when `threads` exceeds `cores` (the machine's
// hardware threads; 0 when unknown, which never warns), or "" when it does not:
// more threads than cores only makes them wait on each other.
std::string ThreadCountWarning(unsigned threads, unsigned cores);

// ThreadCountWarning against std::thread::hardware_concurrency().
std::string ThreadCountWarning(unsigned threads);

}  // namespace torchir::cli
