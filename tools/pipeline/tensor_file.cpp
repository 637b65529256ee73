#include "tools/pipeline/tensor_file.h"

#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/frontend/weight_file.h"

namespace torchir::pipeline {

absl::StatusOr<std::vector<reference::HostTensor>> ReadNamedTensors(
    const std::string& path, const std::vector<std::string>& names,
    const std::vector<ir::TensorType>& types, const std::string& role) {
  absl::StatusOr<std::unique_ptr<frontend::WeightFile>> file = frontend::WeightFile::Open(path);
  if (!file.ok()) return file.status();
  std::vector<std::string> problems;
  std::vector<reference::HostTensor> tensors;
  for (size_t i = 0; i < names.size(); ++i) {
    const frontend::StoredTensor* stored = (*file)->Find(names[i]);
    if (stored == nullptr) {
      problems.push_back(absl::StrCat(path, ": no tensor '", names[i], "' for ", role, " '",
                                      names[i], "' (", types[i].ToString(), ")"));
      continue;
    }
    reference::HostTensor tensor{ir::TensorType{stored->dtype, stored->shape}, stored->data};
    if (tensor.type != types[i]) {
      problems.push_back(absl::StrCat(path, ": tensor '", names[i], "' is ",
                                      tensor.type.ToString(), " but ", role, " '", names[i],
                                      "' is ", types[i].ToString()));
    }
    tensors.push_back(std::move(tensor));
  }
  std::set<std::string> wanted(names.begin(), names.end());
  for (const frontend::StoredTensor& stored : (*file)->tensors()) {
    if (wanted.count(stored.name) == 0) {
      problems.push_back(absl::StrCat(path, ": tensor '", stored.name, "' is not a ", role, " (",
                                      role, "s: ", absl::StrJoin(wanted.begin(), wanted.end(), ", "),
                                      ")"));
    }
  }
  if (!problems.empty()) return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  return tensors;
}

}  // namespace torchir::pipeline
