#include "tests/compiler/frontend/test_archives.h"

#include <cstring>

#include "absl/types/span.h"
#include "compiler/frontend/zip_archive.h"

namespace torchir::frontend::testing {
namespace {

void Put(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

PickleWriter& PickleWriter::Proto(int version) {
  bytes_.push_back(static_cast<char>(0x80));
  bytes_.push_back(static_cast<char>(version));
  return *this;
}

PickleWriter& PickleWriter::Op(uint8_t opcode) {
  bytes_.push_back(static_cast<char>(opcode));
  return *this;
}

PickleWriter& PickleWriter::Raw(const std::string& bytes) {
  bytes_ += bytes;
  return *this;
}

PickleWriter& PickleWriter::Int(int64_t value) {
  if (value >= 0 && value < 256) {
    Op('K');
    Put(&bytes_, static_cast<uint64_t>(value), 1);
  } else if (value >= 0 && value < 65536) {
    Op('M');
    Put(&bytes_, static_cast<uint64_t>(value), 2);
  } else if (value >= INT32_MIN && value <= INT32_MAX) {
    Op('J');
    Put(&bytes_, static_cast<uint64_t>(value), 4);
  } else {
    Op(0x8a);
    Put(&bytes_, 8, 1);
    Put(&bytes_, static_cast<uint64_t>(value), 8);
  }
  return *this;
}

PickleWriter& PickleWriter::Float(double value) {
  Op('G');
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  for (int i = 7; i >= 0; --i) bytes_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  return *this;
}

PickleWriter& PickleWriter::Str(const std::string& text) {
  Op('X');
  Put(&bytes_, text.size(), 4);
  bytes_ += text;
  return *this;
}

PickleWriter& PickleWriter::Global(const std::string& module, const std::string& name) {
  Op('c');
  bytes_ += module + "\n" + name + "\n";
  return *this;
}

PickleWriter& PickleWriter::BinPut(uint8_t index) {
  Op('q');
  return Op(index);
}

PickleWriter& PickleWriter::BinGet(uint8_t index) {
  Op('h');
  return Op(index);
}

PickleWriter& PickleWriter::IntTuple(const std::vector<int64_t>& values) {
  Mark();
  for (int64_t value : values) Int(value);
  return Op('t');
}

PickleWriter& PickleWriter::Storage(const std::string& type, const std::string& key,
                                    int64_t numel) {
  Mark().Str("storage").Global("torch", type).Str(key).Str("cpu").Int(numel).Op('t');
  return Op('Q');
}

PickleWriter& PickleWriter::Tensor(const std::string& storage_type, const std::string& key,
                                   int64_t numel, int64_t offset, const std::vector<int64_t>& sizes,
                                   const std::vector<int64_t>& strides) {
  Global("torch._utils", "_rebuild_tensor_v2").Mark();
  Storage(storage_type, key, numel).Int(offset).IntTuple(sizes).IntTuple(strides).Bool(false);
  Global("collections", "OrderedDict").Op(')').Op('R');
  return Op('t').Op('R');
}

std::string BuildZip(const std::vector<ZipFile>& files, const ZipOptions& options) {
  std::string out;
  std::string central;
  for (const ZipFile& file : files) {
    const uint64_t local_offset = out.size();
    const uint32_t crc = Crc32(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(file.data.data()), file.data.size()));
    Put(&out, 0x04034b50, 4);
    Put(&out, 20, 2);
    Put(&out, file.flags, 2);
    Put(&out, file.method, 2);
    Put(&out, 0, 4);  // time, date
    Put(&out, crc, 4);
    Put(&out, file.data.size(), 4);
    Put(&out, file.data.size(), 4);
    Put(&out, file.name.size(), 2);
    Put(&out, 0, 2);
    out += file.name;
    out += file.data;

    std::string extra;
    if (options.zip64) {
      Put(&extra, 0x0001, 2);
      Put(&extra, 24, 2);
      Put(&extra, file.data.size(), 8);
      Put(&extra, file.data.size(), 8);
      Put(&extra, local_offset, 8);
    }
    Put(&central, 0x02014b50, 4);
    Put(&central, 45, 2);
    Put(&central, 45, 2);
    Put(&central, file.flags, 2);
    Put(&central, file.method, 2);
    Put(&central, 0, 4);
    Put(&central, crc, 4);
    Put(&central, options.zip64 ? 0xffffffff : file.data.size(), 4);
    Put(&central, options.zip64 ? 0xffffffff : file.data.size(), 4);
    Put(&central, file.name.size(), 2);
    Put(&central, extra.size(), 2);
    Put(&central, 0, 2);  // comment
    Put(&central, 0, 2);  // disk
    Put(&central, 0, 2);  // internal attributes
    Put(&central, 0, 4);  // external attributes
    Put(&central, options.zip64 ? 0xffffffff : local_offset, 4);
    central += file.name;
    central += extra;
  }
  const uint64_t central_offset = out.size();
  out += central;
  if (options.zip64) {
    const uint64_t record_offset = out.size();
    Put(&out, 0x06064b50, 4);
    Put(&out, 44, 8);
    Put(&out, 45, 2);
    Put(&out, 45, 2);
    Put(&out, 0, 4);
    Put(&out, 0, 4);
    Put(&out, files.size(), 8);
    Put(&out, files.size(), 8);
    Put(&out, central.size(), 8);
    Put(&out, central_offset, 8);
    Put(&out, 0x07064b50, 4);
    Put(&out, 0, 4);
    Put(&out, record_offset, 8);
    Put(&out, 1, 4);
  }
  Put(&out, 0x06054b50, 4);
  Put(&out, 0, 2);
  Put(&out, 0, 2);
  Put(&out, options.zip64 ? 0xffff : files.size(), 2);
  Put(&out, options.zip64 ? 0xffff : files.size(), 2);
  Put(&out, options.zip64 ? 0xffffffff : central.size(), 4);
  Put(&out, options.zip64 ? 0xffffffff : central_offset, 4);
  Put(&out, options.comment.size(), 2);
  out += options.comment;
  return out;
}

std::string BuildTorchArchive(const std::string& prefix, const std::string& data_pkl,
                              const std::vector<std::pair<std::string, std::string>>& storages) {
  std::vector<ZipFile> files;
  files.push_back({prefix + "/data.pkl", data_pkl});
  for (const auto& [key, bytes] : storages) files.push_back({prefix + "/data/" + key, bytes});
  files.push_back({prefix + "/version", "3\n"});
  return BuildZip(files);
}

std::string FloatRange(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    float value = static_cast<float>(i);
    out.append(reinterpret_cast<const char*>(&value), sizeof(value));
  }
  return out;
}

}  // namespace torchir::frontend::testing
