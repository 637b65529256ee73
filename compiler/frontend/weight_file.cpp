#include "compiler/frontend/weight_file.h"

#include <utility>

#include "compiler/frontend/mapped_file.h"
#include "compiler/frontend/safetensors.h"
#include "compiler/frontend/torch_pt.h"

namespace torchir::frontend {

absl::StatusOr<std::unique_ptr<WeightFile>> WeightFile::Open(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  const MappedFile& mapped = **file;
  if (LooksLikeZip(mapped.data(), mapped.size()) ||
      LooksLikeLegacyTorchSave(mapped.data(), mapped.size())) {
    absl::StatusOr<std::vector<StoredTensor>> tensors =
        ParseTorchPt(*file, mapped.data(), mapped.size(), path);
    if (!tensors.ok()) return tensors.status();
    return std::make_unique<WeightFile>(path, "pytorch", *std::move(tensors));
  }
  absl::StatusOr<SafetensorsContents> contents =
      ParseSafetensors(*file, mapped.data(), mapped.size(), path);
  if (!contents.ok()) return contents.status();
  return std::make_unique<WeightFile>(path, "safetensors", std::move(contents->tensors),
                                      std::move(contents->metadata));
}

WeightFile::WeightFile(std::string path, std::string format, std::vector<StoredTensor> tensors,
                       std::map<std::string, std::string> metadata)
    : path_(std::move(path)),
      format_(std::move(format)),
      tensors_(std::move(tensors)),
      metadata_(std::move(metadata)) {
  index_.reserve(tensors_.size());
  for (size_t i = 0; i < tensors_.size(); ++i) index_.emplace(tensors_[i].name, i);
}

const StoredTensor* WeightFile::Find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace torchir::frontend
