#include "compiler/frontend/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/frontend/mapped_file.h"
#include "compiler/frontend/quoted_text.h"
#include "compiler/frontend/untrusted_json.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace torchir::frontend {
namespace {

// Debian's Abseil has its own string_view, which StrCat requires (docs/decisions.md).
absl::string_view Absl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

std::string_view Std(absl::string_view text) { return std::string_view(text.data(), text.size()); }

absl::string_view DTypeText(ir::DType dtype) { return Absl(ir::DTypeName(dtype)); }

constexpr size_t kHeaderLengthBytes = 8;
constexpr std::string_view kMetadataKey = "__metadata__";

struct DTypeCode {
  std::string_view code;
  ir::DType dtype;
};

constexpr std::array<DTypeCode, 16> kDTypeCodes = {{
    {"BOOL", ir::DType::kBool},
    {"U8", ir::DType::kUInt8},
    {"I8", ir::DType::kInt8},
    {"I16", ir::DType::kInt16},
    {"U16", ir::DType::kUInt16},
    {"F16", ir::DType::kFloat16},
    {"BF16", ir::DType::kBFloat16},
    {"I32", ir::DType::kInt32},
    {"U32", ir::DType::kUInt32},
    {"F32", ir::DType::kFloat32},
    {"F64", ir::DType::kFloat64},
    {"I64", ir::DType::kInt64},
    {"U64", ir::DType::kUInt64},
    {"F8_E4M3", ir::DType::kFloat8E4M3FN},
    {"F8_E5M2", ir::DType::kFloat8E5M2},
    {"C64", ir::DType::kComplex64},
}};

uint64_t LoadLittleEndian64(const uint8_t* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

// numel * element size of `shape`, or nullopt on overflow.
std::optional<uint64_t> ByteSize(const std::vector<int64_t>& shape, ir::DType dtype) {
  uint64_t bytes = ir::DTypeSize(dtype);
  bool zero = false;
  uint64_t product = bytes;
  for (int64_t dim : shape) {
    if (dim == 0) zero = true;
    if (!zero && __builtin_mul_overflow(product, static_cast<uint64_t>(dim), &product)) {
      return std::nullopt;
    }
  }
  if (zero) return 0;
  // Sizes must also fit the signed arithmetic downstream code does on them.
  if (product > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return product;
}

// Reads a JSON integer that must be >= 0 and fit int64.
std::optional<int64_t> NonNegativeInt(const rapidjson::Value& value) {
  if (value.IsInt64()) {
    int64_t v = value.GetInt64();
    if (v >= 0) return v;
    return std::nullopt;
  }
  return std::nullopt;
}

std::string JsonTypeName(const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "a boolean";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType:
      return "a string";
    case rapidjson::kNumberType:
      return "a number";
  }
  return "a value";
}

// A tensor entry as declared in the header.
struct Entry {
  StoredTensor tensor;
  uint64_t begin = 0;
  uint64_t end = 0;
};

class HeaderParser {
 public:
  HeaderParser(absl::string_view name, uint64_t buffer_size)
      : name_(name), buffer_size_(buffer_size) {}

  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": ", message));
  }
  absl::Status TensorError(absl::string_view tensor, absl::string_view message) const {
    return Error(absl::StrCat("tensor ", QuotedForMessage(Std(tensor)), ": ", message));
  }

  absl::Status ParseMetadata(const rapidjson::Value& value,
                             std::map<std::string, std::string>* metadata) const {
    if (!value.IsObject()) {
      return Error(absl::StrCat("'__metadata__' is ", JsonTypeName(value), ", expected an object"));
    }
    for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
      std::string key(it->name.GetString(), it->name.GetStringLength());
      if (!it->value.IsString()) {
        return Error(absl::StrCat("'__metadata__' entry ", QuotedForMessage(key), " is ",
                                  JsonTypeName(it->value), ", expected a string"));
      }
      metadata->emplace(std::move(key),
                        std::string(it->value.GetString(), it->value.GetStringLength()));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Entry> ParseEntry(const std::string& tensor_name,
                                   const rapidjson::Value& value) const {
    const std::string& t = tensor_name;
    if (!value.IsObject()) {
      return TensorError(t, absl::StrCat("entry is ", JsonTypeName(value), ", expected an object"));
    }
    auto dtype_it = value.FindMember("dtype");
    auto shape_it = value.FindMember("shape");
    auto offsets_it = value.FindMember("data_offsets");
    if (dtype_it == value.MemberEnd()) return TensorError(t, "missing 'dtype'");
    if (shape_it == value.MemberEnd()) return TensorError(t, "missing 'shape'");
    if (offsets_it == value.MemberEnd()) return TensorError(t, "missing 'data_offsets'");

    Entry entry;
    entry.tensor.name = tensor_name;

    const rapidjson::Value& dtype = dtype_it->value;
    if (!dtype.IsString()) {
      return TensorError(t,
                         absl::StrCat("'dtype' is ", JsonTypeName(dtype), ", expected a string"));
    }
    absl::string_view dtype_name(dtype.GetString(), dtype.GetStringLength());
    std::optional<ir::DType> parsed =
        ParseSafetensorsDType(std::string_view(dtype_name.data(), dtype_name.size()));
    if (!parsed) {
      return TensorError(t, absl::StrCat("unsupported dtype ", QuotedForMessage(Std(dtype_name))));
    }
    entry.tensor.dtype = *parsed;

    const rapidjson::Value& shape = shape_it->value;
    if (!shape.IsArray()) {
      return TensorError(t,
                         absl::StrCat("'shape' is ", JsonTypeName(shape), ", expected an array"));
    }
    entry.tensor.shape.reserve(shape.Size());
    for (rapidjson::SizeType i = 0; i < shape.Size(); ++i) {
      std::optional<int64_t> dim = NonNegativeInt(shape[i]);
      if (!dim) {
        return TensorError(
            t, absl::StrCat("'shape' element ", i, " is not a non-negative 64-bit integer"));
      }
      entry.tensor.shape.push_back(*dim);
    }

    const rapidjson::Value& offsets = offsets_it->value;
    if (!offsets.IsArray() || offsets.Size() != 2) {
      return TensorError(t, "'data_offsets' is not an array [begin, end]");
    }
    std::optional<int64_t> begin = NonNegativeInt(offsets[0]);
    std::optional<int64_t> end = NonNegativeInt(offsets[1]);
    if (!begin || !end) {
      return TensorError(t, "'data_offsets' are not non-negative 64-bit integers");
    }
    entry.begin = static_cast<uint64_t>(*begin);
    entry.end = static_cast<uint64_t>(*end);
    std::string range = absl::StrCat("[", entry.begin, ", ", entry.end, "]");
    if (entry.begin > entry.end) {
      return TensorError(t, absl::StrCat("data_offsets ", range, " have begin > end"));
    }
    if (entry.end > buffer_size_) {
      return TensorError(t, absl::StrCat("data_offsets ", range, " end past the data buffer (",
                                         buffer_size_, " bytes)"));
    }
    std::optional<uint64_t> bytes = ByteSize(entry.tensor.shape, entry.tensor.dtype);
    if (!bytes) {
      return TensorError(
          t, absl::StrCat("shape ", ShapeString(entry.tensor.shape), " ",
                          DTypeText(entry.tensor.dtype), " overflows 64-bit byte sizes"));
    }
    if (*bytes != entry.end - entry.begin) {
      return TensorError(t, absl::StrCat("data_offsets ", range, " do not match shape ",
                                         ShapeString(entry.tensor.shape), " ",
                                         DTypeText(entry.tensor.dtype), " (", *bytes, " bytes)"));
    }
    return entry;
  }

 private:
  absl::string_view name_;
  uint64_t buffer_size_;
};

}  // namespace

std::optional<std::string_view> SafetensorsDTypeName(ir::DType dtype) {
  for (const DTypeCode& code : kDTypeCodes) {
    if (code.dtype == dtype) return code.code;
  }
  return std::nullopt;
}

std::optional<ir::DType> ParseSafetensorsDType(std::string_view name) {
  for (const DTypeCode& code : kDTypeCodes) {
    if (code.code == name) return code.dtype;
  }
  return std::nullopt;
}

absl::StatusOr<SafetensorsContents> ParseSafetensors(std::shared_ptr<const void> owner,
                                                     const uint8_t* data, size_t size,
                                                     std::string_view path) {
  const absl::string_view name = Absl(path);
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", message));
  };
  if (size < kHeaderLengthBytes) {
    return error(absl::StrCat("file of ", size,
                              " bytes is too short for a safetensors header length (8 bytes)"));
  }
  const uint64_t header_length = LoadLittleEndian64(data);
  const uint64_t available = size - kHeaderLengthBytes;
  if (header_length > kMaxSafetensorsHeaderBytes) {
    return error(absl::StrCat("safetensors header length ", header_length, " exceeds the limit of ",
                              kMaxSafetensorsHeaderBytes, " bytes"));
  }
  if (header_length > available) {
    return error(absl::StrCat("safetensors header length ", header_length,
                              " runs past the end of the file (", available,
                              " bytes after the length)"));
  }
  const char* header = reinterpret_cast<const char*>(data + kHeaderLengthBytes);
  const size_t header_size = static_cast<size_t>(header_length);
  if (header_size == 0) return error("safetensors header is empty");

  rapidjson::Document document;
  absl::Status parsed =
      ParseUntrustedJson(std::string_view(header, header_size),
                         JsonSource{path, "safetensors header", kHeaderLengthBytes}, &document);
  if (!parsed.ok()) return parsed;
  if (!document.IsObject()) return error("safetensors header is not a JSON object");

  const uint64_t buffer_size = available - header_length;
  const uint8_t* buffer = data + kHeaderLengthBytes + header_size;
  HeaderParser parser(name, buffer_size);

  SafetensorsContents contents;
  std::vector<Entry> entries;
  // Keys are unique: the JSON parser rejects duplicate object keys.
  for (auto it = document.MemberBegin(); it != document.MemberEnd(); ++it) {
    std::string key(it->name.GetString(), it->name.GetStringLength());
    if (key == kMetadataKey) {
      absl::Status status = parser.ParseMetadata(it->value, &contents.metadata);
      if (!status.ok()) return status;
      continue;
    }
    absl::StatusOr<Entry> entry = parser.ParseEntry(key, it->value);
    if (!entry.ok()) return entry.status();
    entries.push_back(*std::move(entry));
  }

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
  });
  uint64_t covered = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& entry = entries[i];
    if (entry.begin < covered) {
      return error(absl::StrCat("tensor ", QuotedForMessage(entry.tensor.name), ": data_offsets [",
                                entry.begin, ", ", entry.end, "] overlap tensor ",
                                QuotedForMessage(entries[i - 1].tensor.name), " (ending at ",
                                covered, ")"));
    }
    if (entry.begin > covered) {
      return error(absl::StrCat("tensor ", QuotedForMessage(entry.tensor.name), ": data_offsets [",
                                entry.begin, ", ", entry.end, "] leave a hole of ",
                                entry.begin - covered, " bytes at ", covered,
                                " in the data buffer"));
    }
    covered = entry.end;
  }
  if (covered != buffer_size) {
    return error(absl::StrCat("the data buffer has ", buffer_size - covered,
                              " trailing bytes after the last tensor (at ", covered, ")"));
  }

  contents.tensors.reserve(entries.size());
  for (Entry& entry : entries) {
    entry.tensor.data = ir::TensorData(owner, buffer + entry.begin, entry.end - entry.begin);
    contents.tensors.push_back(std::move(entry.tensor));
  }
  return contents;
}

absl::StatusOr<SafetensorsContents> ReadSafetensors(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  const MappedFile& mapped = **file;
  return ParseSafetensors(*file, mapped.data(), mapped.size(), path);
}

namespace {

// Serialises the header JSON, unpadded.
absl::StatusOr<std::string> BuildHeader(const std::string& path,
                                        const std::vector<StoredTensor>& tensors,
                                        const std::map<std::string, std::string>& metadata) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  auto string = [&writer](std::string_view text) {
    writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  };
  writer.StartObject();
  if (!metadata.empty()) {
    string(kMetadataKey);
    writer.StartObject();
    for (const auto& [key, value] : metadata) {
      string(key);
      string(value);
    }
    writer.EndObject();
  }
  std::set<std::string_view> names;
  uint64_t offset = 0;
  for (const StoredTensor& tensor : tensors) {
    auto error = [&](absl::string_view message) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": cannot write tensor '", tensor.name, "': ", message));
    };
    if (tensor.name == kMetadataKey) return error("the name is reserved");
    if (!names.insert(tensor.name).second) return error("duplicate name");
    if (tensor.name.size() > std::numeric_limits<rapidjson::SizeType>::max()) {
      return error("name too long");
    }
    std::optional<std::string_view> code = SafetensorsDTypeName(tensor.dtype);
    if (!code) {
      return error(absl::StrCat("safetensors has no dtype for ", DTypeText(tensor.dtype)));
    }
    for (int64_t dim : tensor.shape) {
      if (dim < 0)
        return error(absl::StrCat("negative dimension in shape ", ShapeString(tensor.shape)));
    }
    std::optional<uint64_t> bytes = ByteSize(tensor.shape, tensor.dtype);
    if (!bytes || *bytes != tensor.data.size()) {
      return error(absl::StrCat("has ", tensor.data.size(), " bytes of data, but shape ",
                                ShapeString(tensor.shape), " ", DTypeText(tensor.dtype), " needs ",
                                bytes ? absl::StrCat(*bytes) : "too many"));
    }
    string(tensor.name);
    writer.StartObject();
    string("dtype");
    string(*code);
    string("shape");
    writer.StartArray();
    for (int64_t dim : tensor.shape) writer.Int64(dim);
    writer.EndArray();
    string("data_offsets");
    writer.StartArray();
    writer.Uint64(offset);
    writer.Uint64(offset + *bytes);
    writer.EndArray();
    writer.EndObject();
    offset += *bytes;
  }
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

absl::Status WriteAll(int fd, const void* data, size_t size, const std::string& path) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat(path, ": write failed: ", std::strerror(errno)));
    }
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteSafetensors(const std::string& path, const std::vector<StoredTensor>& tensors,
                              const std::map<std::string, std::string>& metadata) {
  absl::StatusOr<std::string> header = BuildHeader(path, tensors, metadata);
  if (!header.ok()) return header.status();
  header->append((8 - header->size() % 8) % 8, ' ');
  uint8_t length[kHeaderLengthBytes];
  uint64_t header_length = header->size();
  for (size_t i = 0; i < kHeaderLengthBytes; ++i) length[i] = (header_length >> (8 * i)) & 0xff;

  std::string temporary = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot create a temporary file: ", std::strerror(errno)));
  }
  absl::Status status = WriteAll(fd, length, sizeof(length), temporary);
  if (status.ok()) status = WriteAll(fd, header->data(), header->size(), temporary);
  for (const StoredTensor& tensor : tensors) {
    if (!status.ok()) break;
    if (tensor.data.size() > 0) {
      status = WriteAll(fd, tensor.data.data(), tensor.data.size(), temporary);
    }
  }
  if (status.ok() && ::fchmod(fd, 0644) != 0) {
    status =
        absl::UnavailableError(absl::StrCat(temporary, ": chmod failed: ", std::strerror(errno)));
  }
  if (::close(fd) != 0 && status.ok()) {
    status =
        absl::UnavailableError(absl::StrCat(temporary, ": close failed: ", std::strerror(errno)));
  }
  if (status.ok() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = absl::UnavailableError(
        absl::StrCat(path, ": cannot rename ", temporary, ": ", std::strerror(errno)));
  }
  if (!status.ok()) ::unlink(temporary.c_str());
  return status;
}

}  // namespace torchir::frontend
