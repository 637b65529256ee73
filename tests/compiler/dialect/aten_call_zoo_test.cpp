// Binds every node of every model the zoo exported (tools/export_ir.py, both flavours): the
// schema table and the binder must cover real exports, not only hand-written graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/dialect/aten_call.h"
#include "compiler/frontend/ir_reader.h"

namespace torchir::dialect {
namespace {

namespace fs = std::filesystem;

// The zoo directory: $TORCHIR_ZOO_DIR, else <build dir>/zoo.
fs::path ZooDir() {
  if (const char* dir = std::getenv("TORCHIR_ZOO_DIR")) return dir;
  return fs::path(TORCHIR_BINARY_DIR_DEFAULT) / "zoo";
}

std::vector<fs::path> ZooModels() {
  std::vector<fs::path> models;
  std::error_code error;
  if (!fs::is_directory(ZooDir(), error)) return models;
  for (const fs::directory_entry& model : fs::directory_iterator(ZooDir(), error)) {
    for (const char* flavour : {"export", "core"}) {
      fs::path json = model.path() / flavour / "model.json";
      if (fs::is_regular_file(json, error)) models.push_back(json);
    }
  }
  std::sort(models.begin(), models.end());
  return models;
}

TEST(AtenCallZoo, EveryNodeOfEveryZooModelBinds) {
  const std::vector<fs::path> models = ZooModels();
  if (models.empty()) GTEST_SKIP() << "no zoo at " << ZooDir() << " (run the zoo_generate test)";
  size_t nodes = 0;
  std::map<std::string, size_t> ops;
  for (const fs::path& path : models) {
    absl::StatusOr<std::unique_ptr<ir::Graph>> graph = frontend::ReadPytorchIrFile(path.string());
    if (!graph.ok()) {
      ADD_FAILURE() << path << ": " << graph.status();
      continue;
    }
    for (ir::Node* node : (*graph)->nodes()) {
      if (node->op() == "getitem") continue;  // not an ATen op; see aten_call.h
      ++nodes;
      ++ops[node->op()];
      absl::StatusOr<AtenCall> call = BindAtenCall(*node);
      EXPECT_TRUE(call.ok()) << path << ": " << call.status();
    }
  }
  EXPECT_GT(nodes, 0u);
  RecordProperty("models", static_cast<int>(models.size()));
  RecordProperty("nodes", static_cast<int>(nodes));
  RecordProperty("ops", static_cast<int>(ops.size()));
  std::cout << "bound " << nodes << " nodes of " << ops.size() << " ops in " << models.size()
            << " zoo exports\n";
}

}  // namespace
}  // namespace torchir::dialect
