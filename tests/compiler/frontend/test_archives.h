// Hand-built pickles and zip archives for tests of malformed and unusual
// weight files that PyTorch itself would not write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchir::frontend::testing {

// Emits pickle opcodes; every method returns *this for chaining.
class PickleWriter {
 public:
  PickleWriter& Proto(int version = 2);
  PickleWriter& Op(uint8_t opcode);  // any opcode without an argument
  PickleWriter& Raw(const std::string& bytes);
  PickleWriter& Mark() { return Op('('); }
  PickleWriter& Stop() { return Op('.'); }
  PickleWriter& None() { return Op('N'); }
  PickleWriter& Bool(bool value) { return Op(value ? 0x88 : 0x89); }
  // BININT1, BININT2, BININT or LONG1, whichever fits.
  PickleWriter& Int(int64_t value);
  PickleWriter& Float(double value);
  PickleWriter& Str(const std::string& text);                                // BINUNICODE
  PickleWriter& Global(const std::string& module, const std::string& name);  // GLOBAL
  PickleWriter& BinPut(uint8_t index);
  PickleWriter& BinGet(uint8_t index);
  // A tuple of ints, built with MARK ... TUPLE.
  PickleWriter& IntTuple(const std::vector<int64_t>& values);
  // torch.save's persistent id of a storage followed by BINPERSID.
  PickleWriter& Storage(const std::string& type, const std::string& key, int64_t numel);
  // torch._utils._rebuild_tensor_v2(storage, offset, sizes, strides, False, OrderedDict()).
  PickleWriter& Tensor(const std::string& storage_type, const std::string& key, int64_t numel,
                       int64_t offset, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides);

  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// One file of a hand-built zip archive.
struct ZipFile {
  std::string name;
  std::string data;
  uint16_t method = 0;  // recorded as is; the data are never compressed
  uint16_t flags = 0;
};

struct ZipOptions {
  bool zip64 = false;  // ZIP64 extra fields, end record and locator
  std::string comment;
};

// A zip archive of stored files.
std::string BuildZip(const std::vector<ZipFile>& files, const ZipOptions& options = {});

// A torch.save-like archive: <prefix>/data.pkl, <prefix>/data/<key> per
// storage, <prefix>/version.
std::string BuildTorchArchive(const std::string& prefix, const std::string& data_pkl,
                              const std::vector<std::pair<std::string, std::string>>& storages);

// `count` little-endian float32 values 0, 1, 2, ...
std::string FloatRange(int count);

}  // namespace torchir::frontend::testing
