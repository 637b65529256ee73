// JSON text for the runners' machine-readable output (--json, --trace): the
// two things that need care, strings and numbers. No JSON library: the device
// runner builds on the runtime alone.
#pragma once

#include <string>

namespace torchir::bench {

// `text` as a JSON string literal, quotes included; control characters escaped.
std::string JsonString(const std::string& text);
// `value` with 9 significant digits; non-finite values become null.
std::string JsonNumber(double value);

}  // namespace torchir::bench
