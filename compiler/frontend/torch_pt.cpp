#include "compiler/frontend/torch_pt.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/frontend/mapped_file.h"
#include "compiler/frontend/zip_archive.h"

namespace torchir::frontend {
namespace {

struct StorageType {
  std::string_view name;
  ir::DType dtype;
};

constexpr std::array<StorageType, 13> kStorageTypes = {{
    {"FloatStorage", ir::DType::kFloat32},
    {"DoubleStorage", ir::DType::kFloat64},
    {"HalfStorage", ir::DType::kFloat16},
    {"BFloat16Storage", ir::DType::kBFloat16},
    {"LongStorage", ir::DType::kInt64},
    {"IntStorage", ir::DType::kInt32},
    {"ShortStorage", ir::DType::kInt16},
    {"CharStorage", ir::DType::kInt8},
    {"ByteStorage", ir::DType::kUInt8},
    {"BoolStorage", ir::DType::kBool},
    {"ComplexFloatStorage", ir::DType::kComplex64},
    {"ComplexDoubleStorage", ir::DType::kComplex128},
    {"UntypedStorage", ir::DType::kUInt8},
}};

// Debian's Abseil has its own string_view, which StrCat requires (docs/decisions.md).
absl::string_view KindText(PickleValue::Kind kind) {
  std::string_view text = PickleKindName(kind);
  return absl::string_view(text.data(), text.size());
}
absl::string_view DTypeText(ir::DType dtype) {
  std::string_view text = ir::DTypeName(dtype);
  return absl::string_view(text.data(), text.size());
}

constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

std::string Ints(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

// a * b, or nullopt when it exceeds int64.
std::optional<uint64_t> Multiply(uint64_t a, uint64_t b) {
  uint64_t product;
  if (__builtin_mul_overflow(a, b, &product) || product > kInt64Max) return std::nullopt;
  return product;
}

// True when `strides` are the row-major strides of `sizes` (dims of size 1
// may have any stride).
bool IsContiguous(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];  // cannot overflow: numel was checked
  }
  return true;
}

// Copies the strided view into dense row-major bytes, a row (the innermost
// dimension) at a time.
std::vector<uint8_t> DenseCopy(const uint8_t* storage, const PickleTensorRef& ref, size_t item_size,
                               size_t numel) {
  std::vector<uint8_t> dense(numel * item_size);
  const size_t rank = ref.sizes.size();  // >= 1: a 0-d tensor is contiguous
  const size_t row_length = static_cast<size_t>(ref.sizes[rank - 1]);
  const int64_t row_stride = ref.strides[rank - 1];
  const size_t row_bytes = row_length * item_size;
  std::vector<int64_t> index(rank - 1, 0);
  int64_t row_start = ref.storage_offset;
  for (uint8_t* out = dense.data(); out < dense.data() + dense.size(); out += row_bytes) {
    if (row_stride == 1) {
      std::memcpy(out, storage + row_start * item_size, row_bytes);
    } else {
      for (size_t i = 0; i < row_length; ++i) {
        std::memcpy(out + i * item_size,
                    storage + (row_start + static_cast<int64_t>(i) * row_stride) * item_size,
                    item_size);
      }
    }
    // Odometer over the outer dimensions, the last of them fastest.
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < ref.sizes[d]) {
        row_start += ref.strides[d];
        break;
      }
      row_start -= (ref.sizes[d] - 1) * ref.strides[d];
      index[d] = 0;
    }
  }
  return dense;
}

class StateDictReader {
 public:
  StateDictReader(std::shared_ptr<const void> owner, const ZipArchive& archive,
                  absl::string_view name, std::string prefix, const TorchPtOptions& options)
      : owner_(std::move(owner)),
        archive_(archive),
        name_(name),
        prefix_(std::move(prefix)),
        options_(options) {}

  absl::StatusOr<std::vector<StoredTensor>> Read(const PickleValue& root) {
    if (root.kind != PickleValue::Kind::kDict) {
      return Error(absl::StrCat(prefix_, "/data.pkl holds a ", KindText(root.kind),
                                ", expected a state_dict (a dict of tensors); save "
                                "model.state_dict()"));
    }
    std::vector<StoredTensor> tensors;
    tensors.reserve(root.entries.size());
    std::unordered_set<std::string_view> names;
    for (const auto& [key, value] : root.entries) {
      if (key->kind != PickleValue::Kind::kString) {
        return Error(absl::StrCat("state_dict key is a ", KindText(key->kind), ", expected a str"));
      }
      const std::string& tensor_name = key->text;
      if (!names.insert(tensor_name).second) {
        return Error(absl::StrCat("duplicate state_dict key '", tensor_name, "'"));
      }
      if (value->kind != PickleValue::Kind::kTensor) {
        return Error(absl::StrCat("state_dict entry '", tensor_name, "' is a ",
                                  KindText(value->kind), ", not a tensor"));
      }
      absl::StatusOr<StoredTensor> tensor = Materialize(tensor_name, *value);
      if (!tensor.ok()) return tensor.status();
      tensors.push_back(*std::move(tensor));
    }
    return tensors;
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": ", message));
  }

  absl::StatusOr<StoredTensor> Materialize(const std::string& tensor_name,
                                           const PickleValue& value) {
    auto error = [&](absl::string_view message) {
      return Error(absl::StrCat("tensor '", tensor_name, "': ", message));
    };
    const PickleTensorRef& ref = *value.tensor;
    const std::string& storage_type = ref.storage.storage_type;
    std::optional<ir::DType> storage_dtype = DTypeFromTorchStorageType(storage_type);
    if (!storage_dtype) return error(absl::StrCat("unsupported storage type '", storage_type, "'"));
    std::optional<ir::DType> dtype = storage_dtype;
    if (!ref.dtype.empty()) {
      dtype = ir::ParseDType(ref.dtype);
      if (!dtype) return error(absl::StrCat("unsupported dtype torch.", ref.dtype));
    }

    StoredTensor tensor;
    tensor.name = tensor_name;
    tensor.dtype = *dtype;
    tensor.shape = ref.sizes;
    auto cached = materialized_.find(&value);
    if (cached != materialized_.end()) {
      tensor.data = cached->second;
      return tensor;
    }

    const std::string entry_name = absl::StrCat(prefix_, "/data/", ref.storage.key);
    const ZipEntry* entry = archive_.Find(entry_name);
    if (entry == nullptr) {
      return error(
          absl::StrCat("storage '", ref.storage.key, "' has no archive entry '", entry_name, "'"));
    }
    absl::StatusOr<absl::Span<const uint8_t>> storage = archive_.Data(*entry);
    if (!storage.ok()) return storage.status();
    std::optional<uint64_t> declared =
        Multiply(static_cast<uint64_t>(ref.storage.numel), ir::DTypeSize(*storage_dtype));
    if (!declared || *declared != storage->size()) {
      return error(absl::StrCat("storage '", ref.storage.key, "' declares ", ref.storage.numel, " ",
                                storage_type, " elements but its entry '", entry_name, "' holds ",
                                storage->size(), " bytes"));
    }

    const uint64_t item_size = ir::DTypeSize(*dtype);
    const std::string view = absl::StrCat("view (offset ", ref.storage_offset, ", size ",
                                          Ints(ref.sizes), ", stride ", Ints(ref.strides), ")");
    std::optional<uint64_t> numel = 1;
    for (int64_t size : ref.sizes) {
      if (numel) numel = Multiply(*numel, static_cast<uint64_t>(size));
    }
    std::optional<uint64_t> bytes = numel ? Multiply(*numel, item_size) : std::nullopt;
    if (!bytes) return error(absl::StrCat(view, " overflows 64-bit sizes"));

    if (*numel == 0) {
      tensor.data = ir::TensorData(owner_, storage->data(), 0);
      return tensor;
    }
    // The last element the view touches must lie inside the storage.
    std::optional<uint64_t> last = static_cast<uint64_t>(ref.storage_offset);
    for (size_t d = 0; d < ref.sizes.size() && last; ++d) {
      std::optional<uint64_t> span =
          Multiply(static_cast<uint64_t>(ref.sizes[d] - 1), static_cast<uint64_t>(ref.strides[d]));
      if (!span || *span > kInt64Max - *last) {
        last.reset();
      } else {
        *last += *span;
      }
    }
    std::optional<uint64_t> end =
        last && *last < kInt64Max ? Multiply(*last + 1, item_size) : std::nullopt;
    if (!end || *end > storage->size()) {
      return error(absl::StrCat(view, " of ", DTypeText(*dtype), " runs past the end of storage '",
                                ref.storage.key, "' (", storage->size(), " bytes)"));
    }

    if (IsContiguous(ref.sizes, ref.strides)) {
      const uint8_t* begin = storage->data() + ref.storage_offset * item_size;
      tensor.data = ir::TensorData(owner_, begin, static_cast<size_t>(*bytes));
    } else {
      if (*bytes > options_.max_copied_bytes - copied_bytes_) {
        return error(absl::StrCat("making the non-contiguous ", view, " dense needs ", *bytes,
                                  " bytes, beyond the limit of ", options_.max_copied_bytes,
                                  " bytes of copies per file"));
      }
      copied_bytes_ += *bytes;
      auto dense = std::make_shared<std::vector<uint8_t>>(DenseCopy(
          storage->data(), ref, static_cast<size_t>(item_size), static_cast<size_t>(*numel)));
      const uint8_t* begin = dense->data();
      tensor.data = ir::TensorData(std::move(dense), begin, static_cast<size_t>(*bytes));
    }
    materialized_.emplace(&value, tensor.data);
    return tensor;
  }

  std::shared_ptr<const void> owner_;
  const ZipArchive& archive_;
  absl::string_view name_;
  std::string prefix_;
  const TorchPtOptions& options_;
  uint64_t copied_bytes_ = 0;
  // Tensors referenced more than once are materialised once.
  std::unordered_map<const PickleValue*, ir::TensorData> materialized_;
};

}  // namespace

std::optional<ir::DType> DTypeFromTorchStorageType(std::string_view storage_type) {
  for (const StorageType& type : kStorageTypes) {
    if (type.name == storage_type) return type.dtype;
  }
  return std::nullopt;
}

bool LooksLikeZip(const uint8_t* data, size_t size) {
  return size >= 4 && std::memcmp(data, "PK\x03\x04", 4) == 0;
}

bool LooksLikeLegacyTorchSave(const uint8_t* data, size_t size) {
  // A pickle PROTO opcode, then (maybe after a FRAME) the pickled magic number
  // 0x1950a86a20f9469cfc6c as a little-endian LONG1. Those bytes in a
  // .safetensors length field would mean a header of terabytes, so valid
  // .safetensors files never match.
  constexpr uint8_t kMagic[] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
  if (size < 2 || data[0] != 0x80 || data[1] < 2 || data[1] > 5) return false;
  const size_t window = std::min<size_t>(size, 32);
  for (size_t at = 2; at + sizeof(kMagic) <= window; ++at) {
    if (std::memcmp(data + at, kMagic, sizeof(kMagic)) == 0) return true;
  }
  return false;
}

absl::StatusOr<std::vector<StoredTensor>> ParseTorchPt(std::shared_ptr<const void> owner,
                                                       const uint8_t* data, size_t size,
                                                       std::string_view path,
                                                       const TorchPtOptions& options) {
  const absl::string_view name(path.data(), path.size());
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", message));
  };
  if (LooksLikeLegacyTorchSave(data, size)) {
    return error(
        "legacy (pre-1.6, non-zip) torch.save format is not supported; re-save it with "
        "torch.save(state_dict, path) using the default zip format "
        "(_use_new_zipfile_serialization=True)");
  }
  if (!LooksLikeZip(data, size)) {
    return error("not a torch.save zip archive (no zip local header at the start)");
  }
  absl::StatusOr<ZipArchive> archive = ZipArchive::Parse(data, size, path);
  if (!archive.ok()) return archive.status();
  if (archive->entries().empty()) return error("zip archive has no entries");

  const std::string& first = archive->entries().front().name;
  const size_t slash = first.find('/');
  if (slash == std::string::npos || slash == 0) {
    return error(absl::StrCat("zip entry '", first,
                              "' is not inside a top folder, as torch.save writes them"));
  }
  const std::string prefix = first.substr(0, slash);
  if (archive->Find(prefix + "/constants.pkl") != nullptr) {
    return error(
        "this is a TorchScript archive (torch.jit.save), not a state_dict; save "
        "torch.save(model.state_dict(), path) instead");
  }
  const ZipEntry* pickle_entry = archive->Find(prefix + "/data.pkl");
  if (pickle_entry == nullptr) {
    return error(absl::StrCat("no '", prefix, "/data.pkl' in the archive; not a torch.save file"));
  }
  const ZipEntry* byte_order = archive->Find(prefix + "/byteorder");
  if (byte_order != nullptr) {
    absl::StatusOr<absl::Span<const uint8_t>> order = archive->Data(*byte_order);
    if (!order.ok()) return order.status();
    absl::string_view text(reinterpret_cast<const char*>(order->data()), order->size());
    if (text != "little") {
      return error(absl::StrCat("byte order '", text, "' is not supported (only little-endian)"));
    }
  }
  absl::StatusOr<absl::Span<const uint8_t>> pickle = options.verify_pickle_crc32
                                                         ? archive->VerifiedData(*pickle_entry)
                                                         : archive->Data(*pickle_entry);
  if (!pickle.ok()) return pickle.status();
  absl::StatusOr<PickleDocument> document =
      Unpickle(pickle->data(), pickle->size(), absl::StrCat(name, ": ", pickle_entry->name),
               options.pickle_limits);
  if (!document.ok()) return document.status();
  StateDictReader reader(std::move(owner), *archive, name, prefix, options);
  return reader.Read(document->root());
}

absl::StatusOr<std::vector<StoredTensor>> ReadTorchPt(const std::string& path,
                                                      const TorchPtOptions& options) {
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  const MappedFile& mapped = **file;
  return ParseTorchPt(*file, mapped.data(), mapped.size(), path, options);
}

}  // namespace torchir::frontend
