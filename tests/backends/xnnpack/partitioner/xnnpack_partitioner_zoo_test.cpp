// The partitioner on the real models of the zoo (tools/export_ir.py, both
// flavours): the convolutional networks go to XNNPACK whole, every model
// partitions into a graph that still verifies, with blobs the FlatBuffers
// verifier accepts, the same bytes every time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "tests/backends/xnnpack/partitioner/blob_reader.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/lower.h"

namespace torchir::xnnpack {
namespace {

namespace fs = std::filesystem;

// The zoo directory: $TORCHIR_ZOO_DIR, else <build dir>/zoo.
fs::path ZooDir() {
  if (const char* dir = std::getenv("TORCHIR_ZOO_DIR")) return dir;
  return fs::path(TORCHIR_BINARY_DIR_DEFAULT) / "zoo";
}

struct Partitioned {
  pipeline::LoadedModel model;
  std::unique_ptr<ir::Graph> graph;
  XnnpackPartitionResult result;
};

// Loads, lowers and partitions one export; nullopt (with a failure) on error.
std::optional<Partitioned> PartitionExport(const fs::path& dir) {
  pipeline::LoadOptions options;
  options.model_path = (dir / "model.json").string();
  options.weights_path = (dir / "weights.safetensors").string();
  absl::StatusOr<pipeline::LoadedModel> model = pipeline::LoadModel(options);
  if (!model.ok()) {
    ADD_FAILURE() << dir << ": " << model.status();
    return std::nullopt;
  }
  absl::StatusOr<std::unique_ptr<ir::Graph>> graph = pipeline::LowerModel(*model);
  if (!graph.ok()) {
    ADD_FAILURE() << dir << ": " << graph.status();
    return std::nullopt;
  }
  absl::StatusOr<XnnpackPartitionResult> result = PartitionForXnnpack(**graph);
  if (!result.ok()) {
    ADD_FAILURE() << dir << ": " << result.status();
    return std::nullopt;
  }
  return Partitioned{std::move(*model), std::move(*graph), std::move(*result)};
}

std::vector<fs::path> Exports(const std::vector<std::string>& models) {
  std::vector<fs::path> dirs;
  std::error_code error;
  for (const std::string& model : models) {
    for (const char* flavour : {"export", "core"}) {
      fs::path dir = ZooDir() / model / flavour;
      if (fs::is_regular_file(dir / "model.json", error)) dirs.push_back(dir);
    }
  }
  return dirs;
}

TEST(XnnpackPartitionerZooTest, ConvolutionalNetworksGoToXnnpackWhole) {
  std::vector<fs::path> dirs = Exports({"resnet18", "mobilenet_v2", "mobilenet_v3_large"});
  if (dirs.empty()) GTEST_SKIP() << "no zoo at " << ZooDir() << " (run the zoo_generate test)";
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.string());
    std::optional<Partitioned> partitioned = PartitionExport(dir);
    ASSERT_TRUE(partitioned.has_value());
    const XnnpackPartitionResult& result = partitioned->result;
    EXPECT_GT(result.total_macs, 100'000'000u);
    EXPECT_GE(result.DelegatedMacShare(), 0.99)
        << result.delegated_macs << " of " << result.total_macs << " MACs delegated";
    // One channels-last region, entered and left through one conversion each way.
    EXPECT_EQ(result.delegates.size(), 1u);
    EXPECT_LE(result.permutes_inserted, 2u);
  }
}

TEST(XnnpackPartitionerZooTest, EveryModelPartitionsIntoAValidGraphDeterministically) {
  std::vector<std::string> models;
  std::error_code error;
  if (fs::is_directory(ZooDir(), error)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(ZooDir(), error)) {
      models.push_back(entry.path().filename().string());
    }
  }
  std::sort(models.begin(), models.end());
  std::vector<fs::path> dirs = Exports(models);
  if (dirs.empty()) GTEST_SKIP() << "no zoo at " << ZooDir() << " (run the zoo_generate test)";
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.string());
    std::optional<Partitioned> partitioned = PartitionExport(dir);
    ASSERT_TRUE(partitioned.has_value());
    const ir::Graph& graph = *partitioned->graph;
    EXPECT_TRUE(graph.CheckInvariants().empty());
    size_t calls = 0;
    for (const ir::Node* node : graph.nodes()) {
      if (node->op() == dialect::kDelegateCallOp) {
        ++calls;
        continue;
      }
      absl::Status status = dialect::VerifyEdgeNode(*node);
      EXPECT_TRUE(status.ok()) << status;
    }
    const XnnpackPartitionResult& result = partitioned->result;
    EXPECT_EQ(calls, result.payloads.size());
    for (size_t i = 0; i < result.payloads.size(); ++i) {
      EXPECT_NE(testing::BlobOf(result, i), nullptr);
    }
    EXPECT_LE(result.delegated_macs, result.total_macs);
    std::optional<Partitioned> again = PartitionExport(dir);
    ASSERT_TRUE(again.has_value());
    ASSERT_EQ(again->result.payloads.size(), result.payloads.size());
    for (size_t i = 0; i < result.payloads.size(); ++i) {
      EXPECT_EQ(again->result.payloads[i].blob, result.payloads[i].blob) << "delegate " << i;
    }
    EXPECT_EQ(again->result.left_out.size(), result.left_out.size());
  }
}

}  // namespace
}  // namespace torchir::xnnpack
