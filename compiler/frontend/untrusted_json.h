// Parses JSON read from untrusted files (the pytorch-ir model, the safetensors
// header) into a RapidJSON document, with the rules every compiler-side reader
// applies (docs/input-format.md, docs/trust-boundary.md):
//   1. at most kMaxJsonBytes of text (RapidJSON keeps string lengths and
//      counts in 32 bits);
//   2. no UTF-8 byte-order mark, no NUL byte, valid UTF-8 in strings,
//      nothing after the root value but whitespace;
//   3. arrays and objects nested at most `max_depth` levels, counted as the
//      parser opens them; the parser is iterative, so no input can exhaust
//      the call stack;
//   4. no object with two equal keys (RapidJSON would keep both and lookups
//      would find the first; Python's json keeps the last: the two tools
//      would read different models from one file).
// NaN / Infinity literals are accepted (Python's json module writes them) and
// numbers are converted with correct rounding; integers that fit int64 or
// uint64 stay exact, as with RapidJSON's own types.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "rapidjson/document.h"

namespace torchir::frontend {

// Deepest nesting of arrays and objects accepted. pytorch-ir files nest 6 to
// 9 levels (constant data adds one level per dimension), so this leaves room
// while bounding the work of every recursive consumer of the document.
inline constexpr int kMaxJsonDepth = 64;

// Largest JSON text accepted, in bytes.
inline constexpr uint64_t kMaxJsonBytes = uint64_t{1} << 31;

// Where a JSON text comes from, for messages.
struct JsonSource {
  std::string_view file;        // the path; every message starts with it
  std::string_view part;        // empty when the text is the whole file, else e.g.
                                // "safetensors header"
  uint64_t offset_in_file = 0;  // where the text starts in the file
};

// Parses `text` under the rules above into `document`. On failure the status
// is InvalidArgument with one line naming the file, the position (line:column
// of the text and its byte offset in the file) and the problem, e.g.
//   model.json:3:14: duplicate key 'nodes' in the object at $ (byte 52)
//   model.json:1:65: arrays and objects nested deeper than 64 levels (byte 64)
absl::Status ParseUntrustedJson(std::string_view text, const JsonSource& source,
                                rapidjson::Document* document, int max_depth = kMaxJsonDepth);

}  // namespace torchir::frontend
