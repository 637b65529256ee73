#include "compiler/frontend/quoted_text.h"

#include <cstdio>

namespace torchir::frontend {

std::string QuotedForMessage(std::string_view text, size_t max_bytes) {
  size_t shown = text.size();
  if (shown > max_bytes) {
    shown = max_bytes;
    // Back up over UTF-8 continuation bytes so no character is cut in half.
    while (shown > 0 && (static_cast<unsigned char>(text[shown]) & 0xC0) == 0x80) --shown;
  }
  std::string quoted = "'";
  quoted.reserve(shown + 2);
  for (size_t i = 0; i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\n':
        quoted += "\\n";
        break;
      case '\r':
        quoted += "\\r";
        break;
      case '\t':
        quoted += "\\t";
        break;
      case '\'':
        quoted += "\\'";
        break;
      case '\\':
        quoted += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char escaped[5];
          std::snprintf(escaped, sizeof(escaped), "\\x%02X", c);
          quoted += escaped;
        } else {
          quoted += static_cast<char>(c);
        }
    }
  }
  if (shown < text.size()) {
    quoted += "...' (" + std::to_string(text.size()) + " bytes)";
  } else {
    quoted += "'";
  }
  return quoted;
}

}  // namespace torchir::frontend
