// Reading torch.save(model.state_dict(), path) files: the zip format that is
// torch.save's default since PyTorch 1.6.
//
// The archive holds <prefix>/data.pkl (prefix: the archive's top folder,
// whatever its name) and one stored entry <prefix>/data/<key> per storage.
// Reading:
//   1. parse the zip directory (zip_archive.h) and check data.pkl's CRC-32;
//   2. unpickle data.pkl (pickle.h), which must yield a dict (usually an
//      OrderedDict, possibly carrying _metadata) of name -> tensor;
//   3. per tensor, find its storage entry, check that the storage size matches
//      its declared element count and that the strided view fits inside it;
//   4. contiguous views become zero-copy views of the mapped file; strided or
//      overlapping (e.g. expanded) views are copied into dense row-major form.
// Tensor data CRCs are not checked: that would read every weight at load.
// The legacy pre-1.6 format and TorchScript archives are rejected with an
// error saying what to do instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/frontend/pickle.h"
#include "compiler/frontend/weight_file.h"
#include "compiler/ir/dtype.h"

namespace torchir::frontend {

// Bounds for reading untrusted .pt files.
struct TorchPtOptions {
  // Total bytes the dense copies of non-contiguous tensors may allocate. An
  // expanded view can describe far more bytes than the file holds.
  uint64_t max_copied_bytes = uint64_t{8} << 30;
  // Check data.pkl against its CRC-32. Fuzzers turn this off to reach the
  // unpickler through mutated archives.
  bool verify_pickle_crc32 = true;
  PickleLimits pickle_limits;
};

// Parses a torch.save zip image of `size` bytes at `data`, kept alive by
// `owner`. Returns the state_dict's tensors in its order. `name` (usually the
// path) prefixes every error message.
absl::StatusOr<std::vector<StoredTensor>> ParseTorchPt(std::shared_ptr<const void> owner,
                                                       const uint8_t* data, size_t size,
                                                       std::string_view name,
                                                       const TorchPtOptions& options = {});

// Maps `path` and parses it with ParseTorchPt.
absl::StatusOr<std::vector<StoredTensor>> ReadTorchPt(const std::string& path,
                                                      const TorchPtOptions& options = {});

// True when the bytes start like a zip archive (a local file header).
bool LooksLikeZip(const uint8_t* data, size_t size);

// True when the bytes start like the legacy (pre-1.6, non-zip) torch.save
// format: a bare pickle of torch's magic number.
bool LooksLikeLegacyTorchSave(const uint8_t* data, size_t size);

// The element type of a torch storage class ("FloatStorage" -> float32);
// "UntypedStorage" holds bytes. nullopt when unknown.
std::optional<ir::DType> DTypeFromTorchStorageType(std::string_view storage_type);

}  // namespace torchir::frontend
