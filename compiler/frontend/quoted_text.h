// Quotes text that came from an untrusted file (a tensor name, a JSON key) for
// a one-line error message.
#pragma once

#include <string>
#include <string_view>

namespace torchir::frontend {

// `text` in single quotes, safe to print on one line: control bytes, DEL,
// quotes and backslashes are escaped (\n, \t, \xNN, \', \\), and text longer
// than `max_bytes` is cut at a UTF-8 character boundary and followed by its
// full length ("'abc...' (1048576 bytes)"), so a hostile 100 MB name cannot
// flood a terminal or split a message into several lines.
std::string QuotedForMessage(std::string_view text, size_t max_bytes = 200);

}  // namespace torchir::frontend
