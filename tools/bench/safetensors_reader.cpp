#include "tools/bench/safetensors_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace torchir::bench {
namespace {

using runtime::ScalarType;

struct DTypeCode {
  const char* code;
  ScalarType type;
};

constexpr DTypeCode kDTypeCodes[] = {
    {"F32", ScalarType::kFloat32},
    {"F64", ScalarType::kFloat64},
    {"F16", ScalarType::kFloat16},
    {"BF16", ScalarType::kBFloat16},
    {"I8", ScalarType::kInt8},
    {"I16", ScalarType::kInt16},
    {"I32", ScalarType::kInt32},
    {"I64", ScalarType::kInt64},
    {"U8", ScalarType::kUInt8},
    {"BOOL", ScalarType::kBool},
    {"U16", ScalarType::kUInt16},
    {"U32", ScalarType::kUInt32},
    {"U64", ScalarType::kUInt64},
    {"F8_E4M3", ScalarType::kFloat8E4M3FN},
    {"F8_E5M2", ScalarType::kFloat8E5M2},
};

// Deep enough for any metadata a writer puts in; bounds the recursion.
constexpr int kMaxJsonDepth = 16;

// A recursive-descent reader for the JSON subset a safetensors header uses:
// objects, arrays, strings, integers; other values are skipped by shape.
class HeaderParser {
 public:
  HeaderParser(const char* begin, const char* end) : start_(begin), p_(begin), end_(end) {}

  const std::string& error() const { return error_; }

  bool Fail(const std::string& what) {
    if (error_.empty()) {
      error_ = what + " at header byte " + std::to_string(p_ - start_);
    }
    return false;
  }

  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool Peek(char c) {
    SkipSpace();
    return p_ < end_ && *p_ == c;
  }
  bool Expect(char c) {
    if (!Peek(c)) return Fail(std::string("expected '") + c + "'");
    ++p_;
    return true;
  }
  bool AtEnd() {
    SkipSpace();
    return p_ >= end_;
  }

  bool String(std::string* out) {
    if (!Expect('"')) return false;
    out->clear();
    while (p_ < end_ && *p_ != '"') {
      char c = *p_++;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (p_ >= end_) break;
      c = *p_++;
      switch (c) {
        case '"':
        case '\\':
        case '/':
          out->push_back(c);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          if (end_ - p_ < 4) return Fail("short \\u escape");
          unsigned code = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = *p_++;
            code <<= 4;
            if (h >= '0' && h <= '9')
              code |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
              code |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
              code |= static_cast<unsigned>(h - 'A' + 10);
            else
              return Fail("bad \\u escape");
          }
          // Names are compared byte for byte; surrogate pairs stay two 3-byte units.
          if (code < 0x80) {
            out->push_back(static_cast<char>(code));
          } else if (code < 0x800) {
            out->push_back(static_cast<char>(0xC0 | (code >> 6)));
            out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
          } else {
            out->push_back(static_cast<char>(0xE0 | (code >> 12)));
            out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
          }
          break;
        }
        default:
          return Fail("bad escape in a string");
      }
    }
    if (p_ >= end_) return Fail("unterminated string");
    ++p_;
    return true;
  }

  // A non-negative integer below 2^63.
  bool Unsigned(int64_t* out) {
    SkipSpace();
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') return Fail("expected a non-negative integer");
    uint64_t value = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      const uint64_t digit = static_cast<uint64_t>(*p_++ - '0');
      if (value > (static_cast<uint64_t>(INT64_MAX) - digit) / 10) return Fail("integer too large");
      value = value * 10 + digit;
    }
    *out = static_cast<int64_t>(value);
    return true;
  }

  bool UnsignedList(std::vector<int64_t>* out) {
    out->clear();
    if (!Expect('[')) return false;
    if (Peek(']')) {
      ++p_;
      return true;
    }
    while (true) {
      int64_t value = 0;
      if (!Unsigned(&value)) return false;
      out->push_back(value);
      if (Peek(']')) {
        ++p_;
        return true;
      }
      if (!Expect(',')) return false;
    }
  }

  // Any JSON value, checked only for shape.
  bool SkipValue(int depth) {
    if (depth > kMaxJsonDepth) return Fail("header nested too deeply");
    SkipSpace();
    if (p_ >= end_) return Fail("unexpected end of header");
    std::string ignored;
    switch (*p_) {
      case '"':
        return String(&ignored);
      case '{':
      case '[': {
        const char close = *p_ == '{' ? '}' : ']';
        const bool object = *p_ == '{';
        ++p_;
        if (Peek(close)) {
          ++p_;
          return true;
        }
        while (true) {
          if (object && !(String(&ignored) && Expect(':'))) return false;
          if (!SkipValue(depth + 1)) return false;
          if (Peek(close)) {
            ++p_;
            return true;
          }
          if (!Expect(',')) return false;
        }
      }
      default: {
        const char* start = p_;
        while (p_ < end_ && std::strchr(",]} \t\r\n", *p_) == nullptr) ++p_;
        if (p_ == start) return Fail("expected a value");
        return true;
      }
    }
  }

 private:
  const char* start_;
  const char* p_;
  const char* end_;
  std::string error_;
};

bool ParseDType(const std::string& code, ScalarType* type) {
  for (const DTypeCode& entry : kDTypeCodes) {
    if (code == entry.code) {
      *type = entry.type;
      return true;
    }
  }
  return false;
}

// One tensor's entry: {"dtype": ..., "shape": [...], "data_offsets": [b, e]}.
bool ParseEntry(HeaderParser& parser, SafetensorsTensor* tensor, std::vector<int64_t>* offsets) {
  bool has_dtype = false, has_shape = false, has_offsets = false;
  if (!parser.Expect('{')) return false;
  if (parser.Peek('}')) return parser.Fail("tensor '" + tensor->name + "' has no fields");
  std::string key;
  while (true) {
    if (!parser.String(&key) || !parser.Expect(':')) return false;
    if (key == "dtype") {
      std::string code;
      if (!parser.String(&code)) return false;
      if (!ParseDType(code, &tensor->dtype)) {
        return parser.Fail("tensor '" + tensor->name + "' has unknown dtype '" + code + "'");
      }
      has_dtype = true;
    } else if (key == "shape") {
      if (!parser.UnsignedList(&tensor->shape)) return false;
      has_shape = true;
    } else if (key == "data_offsets") {
      if (!parser.UnsignedList(offsets)) return false;
      has_offsets = true;
    } else if (!parser.SkipValue(1)) {
      return false;
    }
    if (!parser.Peek(',')) break;
    parser.Expect(',');
  }
  if (!parser.Expect('}')) return false;
  if (!has_dtype || !has_shape || !has_offsets || offsets->size() != 2) {
    return parser.Fail("tensor '" + tensor->name + "' needs dtype, shape and two data_offsets");
  }
  return true;
}

}  // namespace

bool SafetensorsFile::Read(const std::string& path, std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) {
    *error = path + ": read error";
    return false;
  }
  return Parse(std::move(bytes), path, error);
}

bool SafetensorsFile::Parse(std::vector<uint8_t> bytes, const std::string& name,
                            std::string* error) {
  bytes_ = std::move(bytes);
  tensors_.clear();
  auto fail = [&](const std::string& what) {
    *error = name + ": not a valid .safetensors file: " + what;
    tensors_.clear();
    return false;
  };
  if (bytes_.size() < 8) return fail("shorter than its 8-byte header size");
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes_[static_cast<size_t>(i)];
  if (header_size > bytes_.size() - 8) {
    return fail("header of " + std::to_string(header_size) + " bytes runs past the end");
  }
  const char* header = reinterpret_cast<const char*>(bytes_.data() + 8);
  const uint8_t* data = bytes_.data() + 8 + header_size;
  const uint64_t data_size = bytes_.size() - 8 - header_size;
  HeaderParser parser(header, header + header_size);
  if (!parser.Expect('{')) return fail(parser.error());
  if (parser.Peek('}')) {
    parser.Expect('}');
  } else {
    std::string key;
    while (true) {
      if (!parser.String(&key) || !parser.Expect(':')) return fail(parser.error());
      if (key == "__metadata__") {
        if (!parser.SkipValue(1)) return fail(parser.error());
      } else {
        if (Find(key) != nullptr) return fail("tensor '" + key + "' appears twice");
        SafetensorsTensor tensor;
        tensor.name = key;
        std::vector<int64_t> offsets;
        if (!ParseEntry(parser, &tensor, &offsets)) return fail(parser.error());
        // The byte size the shape implies, with overflow checked.
        uint64_t nbytes = runtime::ElementSize(tensor.dtype);
        for (int64_t size : tensor.shape) {
          const uint64_t dim = static_cast<uint64_t>(size);
          if (dim != 0 && nbytes > UINT64_MAX / dim) {
            return fail("tensor '" + key + "' is too large");
          }
          nbytes *= dim;
        }
        const uint64_t begin = static_cast<uint64_t>(offsets[0]);
        const uint64_t end = static_cast<uint64_t>(offsets[1]);
        if (begin > end || end > data_size) {
          return fail("tensor '" + key + "' has data_offsets outside the file");
        }
        if (end - begin != nbytes) {
          return fail("tensor '" + key + "' holds " + std::to_string(end - begin) +
                      " bytes, its dtype and shape need " + std::to_string(nbytes));
        }
        tensor.data = data + begin;
        tensor.nbytes = static_cast<size_t>(nbytes);
        tensors_.push_back(std::move(tensor));
      }
      if (!parser.Peek(',')) break;
      parser.Expect(',');
    }
    if (!parser.Expect('}')) return fail(parser.error());
  }
  if (!parser.AtEnd()) return fail("text after the header object");
  return true;
}

const SafetensorsTensor* SafetensorsFile::Find(const std::string& name) const {
  for (const SafetensorsTensor& tensor : tensors_) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

const char* SafetensorsDTypeName(runtime::ScalarType type) {
  for (const DTypeCode& entry : kDTypeCodes) {
    if (entry.type == type) return entry.code;
  }
  return "";
}

std::string DescribeTensorType(runtime::ScalarType dtype, const int64_t* sizes, size_t rank) {
  std::string text = runtime::ScalarTypeName(dtype);
  text += '[';
  for (size_t i = 0; i < rank; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(sizes[i]);
  }
  return text + ']';
}

}  // namespace torchir::bench
