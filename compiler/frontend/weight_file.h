// Reading tensors from weights files: .safetensors and PyTorch's torch.save zip.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/tensor_data.h"

namespace torchir::frontend {

// One tensor of a weights file: dense, row-major, little-endian bytes.
struct StoredTensor {
  std::string name;
  ir::DType dtype = ir::DType::kFloat32;
  std::vector<int64_t> shape;
  ir::TensorData data;  // a view into the mapped file where possible
};

// The tensors of one weights file, by name, in file order.
class WeightFile {
 public:
  // Opens `path`, sniffing the format from its content: a zip archive is read
  // as a torch.save() state_dict, a bare pickle is rejected as the legacy
  // torch.save format, anything else is read as .safetensors. Every error
  // names the file and what is wrong with it.
  static absl::StatusOr<std::unique_ptr<WeightFile>> Open(const std::string& path);

  // Tensor names must be unique; Find() returns the first of duplicates.
  WeightFile(std::string path, std::string format, std::vector<StoredTensor> tensors,
             std::map<std::string, std::string> metadata = {});

  const std::string& path() const { return path_; }
  // "safetensors" or "pytorch".
  const std::string& format() const { return format_; }
  const std::vector<StoredTensor>& tensors() const { return tensors_; }
  // The safetensors "__metadata__" strings; empty for other formats.
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // nullptr when absent.
  const StoredTensor* Find(std::string_view name) const;

 private:
  std::string path_;
  std::string format_;
  std::vector<StoredTensor> tensors_;
  std::map<std::string, std::string> metadata_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace torchir::frontend
