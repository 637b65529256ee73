#include "compiler/frontend/untrusted_json.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/frontend/quoted_text.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace torchir::frontend {
namespace {

// Numbers reach the handler as text (kParseNumbersAsStringsFlag) and are
// converted by NumberToDom: RapidJSON 1.1.0's own full-precision conversion has
// undefined behaviour on some inputs (__builtin_clzll(0) in DiyFp::Normalize
// for "1844674407370955161596", found by fuzz_safetensors) and wrong results
// on others; std::from_chars rounds correctly and needs no locale.
constexpr unsigned kParseFlags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag |
    rapidjson::kParseNanAndInfFlag | rapidjson::kParseNumbersAsStringsFlag;

// Objects with more keys than this switch from a linear scan to a hash set.
constexpr size_t kLinearKeyScan = 16;

// Debian's Abseil has its own string_view, which StrCat requires (docs/decisions.md).
absl::string_view Absl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

// A SAX handler that checks nesting and duplicate keys while forwarding every
// event to a Document, so the DOM is built in the same single pass.
class CheckingHandler {
 public:
  using Ch = char;
  using SizeType = rapidjson::SizeType;

  CheckingHandler(rapidjson::Document* document, const rapidjson::MemoryStream* stream,
                  std::string_view text, int max_depth)
      : document_(document), stream_(stream), text_(text), max_depth_(max_depth) {}

  // The reader's handler interface. With kParseNumbersAsStringsFlag every
  // number arrives through RawNumber; the typed number events stay for the
  // interface only.
  bool Null() { return Scalar() && document_->Null(); }
  bool Bool(bool b) { return Scalar() && document_->Bool(b); }
  bool Int(int i) { return Scalar() && document_->Int(i); }
  bool Uint(unsigned u) { return Scalar() && document_->Uint(u); }
  bool Int64(int64_t i) { return Scalar() && document_->Int64(i); }
  bool Uint64(uint64_t u) { return Scalar() && document_->Uint64(u); }
  bool Double(double d) { return Scalar() && document_->Double(d); }
  bool RawNumber(const Ch* s, SizeType n, bool /*copy*/) {
    return Scalar() && NumberToDom(std::string_view(s, n));
  }
  bool String(const Ch* s, SizeType n, bool copy) {
    return Scalar() && document_->String(s, n, copy);
  }
  bool StartObject() { return Open(/*is_object=*/true) && document_->StartObject(); }
  bool Key(const Ch* s, SizeType n, bool copy) {
    return AddKey(std::string_view(s, n)) && document_->Key(s, n, copy);
  }
  bool EndObject(SizeType members) {
    Close();
    return document_->EndObject(members);
  }
  bool StartArray() { return Open(/*is_object=*/false) && document_->StartArray(); }
  bool EndArray(SizeType elements) {
    Close();
    return document_->EndArray(elements);
  }

  // Set when a check stopped the parse: the byte offset and the problem.
  bool failed() const { return !problem_.empty(); }
  size_t problem_offset() const { return problem_offset_; }
  const std::string& problem() const { return problem_; }

 private:
  struct KeyRef {
    size_t offset;  // in arena_
    size_t size;
  };
  struct KeyHash {
    const CheckingHandler* handler;
    size_t operator()(size_t key) const {
      return std::hash<std::string_view>()(handler->KeyText(key));
    }
  };
  struct KeyEqual {
    const CheckingHandler* handler;
    bool operator()(size_t a, size_t b) const { return handler->KeyText(a) == handler->KeyText(b); }
  };
  using KeySet = std::unordered_set<size_t, KeyHash, KeyEqual>;  // indices into keys_

  // One open array or object.
  struct Frame {
    bool is_object;
    size_t elements = 0;            // arrays: values seen so far
    size_t first_key = 0;           // objects: index of the first key in keys_
    size_t arena_begin = 0;         // objects: size of arena_ when the object opened
    std::unique_ptr<KeySet> large;  // objects with many keys: all of them
  };

  // Gives the document the number `text` (syntax checked by RapidJSON) with
  // the type RapidJSON would choose: an integer when it fits int64 or uint64,
  // else a double.
  bool NumberToDom(std::string_view text) {
    const bool minus = text[0] == '-';
    const std::string_view body = text.substr(minus ? 1 : 0);
    if (body[0] == 'N') return document_->Double(std::numeric_limits<double>::quiet_NaN());
    if (body[0] == 'I') {
      return document_->Double(minus ? -std::numeric_limits<double>::infinity()
                                     : std::numeric_limits<double>::infinity());
    }
    if (body.find_first_of(".eE") == std::string_view::npos) {
      uint64_t value = 0;
      bool overflow = false;
      for (char digit : body) {
        overflow = overflow || __builtin_mul_overflow(value, 10, &value) ||
                   __builtin_add_overflow(value, static_cast<uint64_t>(digit - '0'), &value);
      }
      if (!overflow && !minus) return document_->Uint64(value);
      if (!overflow && value <= (uint64_t{1} << 63)) {
        return document_->Int64(static_cast<int64_t>(~value + 1));
      }
    }
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range) {
      if (DecimalExponent(body) > 0) {
        return Stop(stream_->Tell() - text.size(),
                    "malformed JSON: Number too big to be stored in double");
      }
      value = minus ? -0.0 : 0.0;  // below the smallest subnormal: RapidJSON gives zero too
    } else if (error != std::errc() || end != text.data() + text.size()) {
      return Stop(stream_->Tell() - text.size(), "malformed JSON: unreadable number");
    }
    return document_->Double(value);
  }

  // The power of ten of the leading non-zero digit of an unsigned decimal
  // literal that is not zero ("123.4e5" -> 7, "0.05" -> -2).
  static int64_t DecimalExponent(std::string_view body) {
    const size_t e = body.find_first_of("eE");
    const std::string_view mantissa = body.substr(0, e);
    int64_t exponent = 0;
    if (e != std::string_view::npos) {
      std::string_view digits = body.substr(e + 1);
      const bool negative = !digits.empty() && digits[0] == '-';
      if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
      for (char digit : digits)
        exponent = std::min<int64_t>(exponent * 10 + (digit - '0'), 1 << 30);
      if (negative) exponent = -exponent;
    }
    const size_t point = std::min(mantissa.find('.'), mantissa.size());
    const size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos) return exponent;
    const int64_t position = first < point ? static_cast<int64_t>(point - first - 1)
                                           : -static_cast<int64_t>(first - point);
    return position + exponent;
  }

  std::string_view KeyText(size_t key) const {
    return std::string_view(arena_.data() + keys_[key].offset, keys_[key].size);
  }

  bool Scalar() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().elements;
    return true;
  }

  bool Open(bool is_object) {
    Scalar();
    if (frames_.size() >= static_cast<size_t>(max_depth_)) {
      // The iterative parser calls this before consuming the bracket.
      return Stop(stream_->Tell(),
                  absl::StrCat("arrays and objects nested deeper than ", max_depth_, " levels"));
    }
    Frame frame;
    frame.is_object = is_object;
    frame.first_key = keys_.size();
    frame.arena_begin = arena_.size();
    frames_.push_back(std::move(frame));
    return true;
  }

  void Close() {
    Frame& frame = frames_.back();
    if (frame.is_object) {
      keys_.resize(frame.first_key);
      arena_.resize(frame.arena_begin);
    }
    frames_.pop_back();
  }

  bool AddKey(std::string_view key) {
    Frame& frame = frames_.back();
    const size_t index = keys_.size();
    keys_.push_back({arena_.size(), key.size()});
    arena_.append(key.data(), key.size());
    bool duplicate = false;
    if (frame.large != nullptr) {
      duplicate = !frame.large->insert(index).second;
    } else {
      for (size_t i = frame.first_key; i < index && !duplicate; ++i) {
        duplicate = keys_[i].size == key.size() && KeyText(i) == key;
      }
      if (!duplicate && index + 1 - frame.first_key > kLinearKeyScan) {
        frame.large = std::make_unique<KeySet>(64, KeyHash{this}, KeyEqual{this});
        for (size_t i = frame.first_key; i <= index; ++i) frame.large->insert(i);
      }
    }
    if (!duplicate) return true;
    return Stop(KeyStart(), absl::StrCat("duplicate key ", QuotedForMessage(key),
                                         " in the object at ", PathOfInnermostObject()));
  }

  // Offset of the opening quote of the key just parsed: the stream stands
  // after its closing quote, and only that opening quote is unescaped before it.
  size_t KeyStart() const {
    size_t i = stream_->Tell() - 1;  // the closing quote
    while (i > 0) {
      --i;
      if (text_[i] != '"') continue;
      size_t backslashes = 0;
      while (backslashes < i && text_[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return 0;
  }

  // "$", "$.nodes[3]", "$.constants['a b']": where the innermost open object sits.
  std::string PathOfInnermostObject() const {
    std::string path = "$";
    for (size_t f = 0; f + 1 < frames_.size(); ++f) {
      const Frame& frame = frames_[f];
      if (!frame.is_object) {
        absl::StrAppend(&path, "[", frame.elements - 1, "]");
        continue;
      }
      // The member being read is the last key of this frame.
      const std::string_view key = KeyText(frames_[f + 1].first_key - 1);
      bool plain = !key.empty();
      for (char c : key) {
        plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '_');
      }
      if (plain) {
        absl::StrAppend(&path, ".", Absl(key));
      } else {
        absl::StrAppend(&path, "[", QuotedForMessage(key, 40), "]");
      }
    }
    return path;
  }

  bool Stop(size_t offset, std::string problem) {
    problem_offset_ = offset;
    problem_ = std::move(problem);
    return false;
  }

  rapidjson::Document* document_;
  const rapidjson::MemoryStream* stream_;
  std::string_view text_;
  int max_depth_;
  std::vector<Frame> frames_;
  // Keys of the open objects, innermost last; their bytes live in arena_.
  std::vector<KeyRef> keys_;
  std::string arena_;
  size_t problem_offset_ = 0;
  std::string problem_;
};

// "model.json:3:14: <problem> (byte 52)" for a whole file;
// "w.safetensors: safetensors header 1:9: <problem> (byte 16)" for a part of one.
absl::Status ErrorAt(std::string_view text, const JsonSource& source, size_t offset,
                     std::string_view problem) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  const uint64_t byte = source.offset_in_file + offset;
  if (source.part.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(Absl(source.file), ":", line, ":", column, ": ",
                                                   Absl(problem), " (byte ", byte, ")"));
  }
  return absl::InvalidArgumentError(absl::StrCat(Absl(source.file), ": ", Absl(source.part), " ",
                                                 line, ":", column, ": ", Absl(problem), " (byte ",
                                                 byte, " of the file)"));
}

}  // namespace

absl::Status ParseUntrustedJson(std::string_view text, const JsonSource& source,
                                rapidjson::Document* document, int max_depth) {
  if (text.size() > kMaxJsonBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(Absl(source.file), ": ", source.part.empty() ? "" : Absl(source.part),
                     source.part.empty() ? "" : " ", "JSON text of ", text.size(),
                     " bytes exceeds the limit of ", kMaxJsonBytes, " bytes"));
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    return ErrorAt(text, source, 0,
                   "starts with a UTF-8 byte-order mark, which JSON files must not have");
  }
  // RapidJSON takes a NUL byte for the end of the text; JSON has no place for one.
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    return ErrorAt(text, source, static_cast<const char*>(nul) - text.data(),
                   "malformed JSON: NUL byte");
  }
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  std::string problem;
  size_t problem_offset = 0;
  auto generate = [&](rapidjson::Document& target) {
    CheckingHandler handler(&target, &stream, text, max_depth);
    result = reader.Parse<kParseFlags>(stream, handler);
    if (handler.failed()) {
      problem = handler.problem();
      problem_offset = handler.problem_offset();
    }
    return !result.IsError();
  };
  document->Populate(generate);
  if (!problem.empty()) return ErrorAt(text, source, problem_offset, problem);
  if (result.IsError()) {
    std::string_view message = rapidjson::GetParseError_En(result.Code());
    if (!message.empty() && message.back() == '.') message.remove_suffix(1);
    return ErrorAt(text, source, result.Offset(), absl::StrCat("malformed JSON: ", Absl(message)));
  }
  return absl::OkStatus();
}

}  // namespace torchir::frontend
