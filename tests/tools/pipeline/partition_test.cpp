// The partition stage with an ordered backend list: each node goes to the first
// listed backend that takes it, delegate indices are unique across backends, the
// rest stays portable, and --explain says who took each node and why the others
// did not. A test-only backend that takes every edge.add stands beside XNNPACK.
#include "tools/pipeline/partition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/backend/explain.h"
#include "compiler/dialect/delegate_call.h"
#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"
#include "tools/pipeline/builtin_backends.h"
#include "tools/pipeline/compile_program.h"

namespace torchir::pipeline {
namespace {

using testing::EdgeGraphBuilder;
using ::testing::ElementsAre;
using testing::F32;
using ::testing::HasSubstr;
using testing::I64;

constexpr char kAddOnlyReason[] = "takes only edge.add";

// Takes every edge.add, each into a delegate of its own, whatever its dtype.
class AddOnlyBackend : public backend::Backend {
 public:
  std::string name() const override { return "add_only"; }
  std::string description() const override { return "every edge.add, one delegate each"; }
  backend::Capability CheckNode(const ir::Node& node) const override {
    return node.op() == "edge.add" ? backend::Capability::Yes()
                                   : backend::Capability::No(kAddOnlyReason);
  }
  absl::StatusOr<backend::PartitionResult> Partition(ir::Graph& graph,
                                                     int64_t first_delegate_index) const override {
    backend::PartitionResult result;
    for (ir::Node* node : graph.NodeSnapshot()) {
      if (!dialect::IsEdgeOpName(node->op())) continue;
      backend::NodeDecision decision;
      decision.node = node->name();
      decision.op = node->op();
      backend::Capability capability = CheckNode(*node);
      if (!capability.supported) {
        decision.reason = capability.reason;
        result.decisions.push_back(decision);
        continue;
      }
      const int64_t index = first_delegate_index + static_cast<int64_t>(result.payloads.size());
      ir::Value* sum = node->output(0);
      ir::Node* call = graph.InsertNodeBefore(
          node, graph.UniqueNodeName(absl::StrCat("add_only_delegate_", index)),
          dialect::kDelegateCallOp, node->inputs(),
          {graph.UniqueValueName(absl::StrCat(sum->name(), "_add_only"))}, {sum->type()});
      call->SetAttr(dialect::kDelegateIndexAttr, ir::AttrValue::Int(index));
      graph.ReplaceAllUsesWith(sum, call->output(0));
      graph.EraseNode(node);
      decision.taken = true;
      decision.delegate_index = index;
      result.decisions.push_back(decision);
      backend::DelegateSummary summary;
      summary.delegate_index = index;
      summary.call_node = call->name();
      summary.nodes = {decision.node};
      summary.ops = {decision.op};
      summary.blob_bytes = 3;
      result.delegates.push_back(summary);
      emit::DelegatePayload payload;
      payload.backend_id = "AddOnlyBackend";
      payload.blob = {'a', 'd', 'd'};
      result.payloads.push_back(payload);
    }
    return result;
  }
};

// The built-in backends plus add_only.
const backend::BackendRegistry& Registry() {
  static const backend::BackendRegistry* const registry = [] {
    auto* built = new backend::BackendRegistry();
    EXPECT_TRUE(RegisterBuiltinBackends(*built).ok());
    EXPECT_TRUE(built->Register(std::make_unique<AddOnlyBackend>()).ok());
    return built;
  }();
  return *registry;
}

// conv -> sum = conv + conv -> rows (reshape) -> gram (matmul, nobody takes it); and an
// int64 add XNNPACK refuses (float32 only).
std::unique_ptr<ir::Graph> ConvAddMatmul() {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 4, 4}));
  ir::Value* conv = g.Conv(x, g.Weight("w", F32({4, 2, 3, 3})), nullptr, {1, 1}, {1, 1}, {}, 1,
                           -testing::kInf, testing::kInf, "conv");
  ir::Value* sum = g.Op("edge.add", {conv, conv}, {}, "sum");
  ir::Value* rows = g.Reshape(sum, {1, 4, 16}, "rows");
  g.Output(g.Op("edge.matmul", {rows, g.Input("y", F32({1, 16, 5}))}, {}, "gram"));
  g.Output(g.Op("edge.add", {g.Input("i", I64({3})), g.Input("j", I64({3}))}, {}, "count"));
  return g.Build();
}

backend::Partitioning Partition(ir::Graph& graph, const std::string& list) {
  absl::StatusOr<std::vector<const backend::Backend*>> backends =
      ResolveBackendList(list, Registry());
  EXPECT_TRUE(backends.ok()) << backends.status();
  if (!backends.ok()) return {};
  absl::StatusOr<backend::Partitioning> partitioning = PartitionForBackends(graph, *backends);
  EXPECT_TRUE(partitioning.ok()) << partitioning.status();
  return partitioning.ok() ? std::move(*partitioning) : backend::Partitioning{};
}

// The backend ids of the payloads, in delegate_index order.
std::vector<std::string> BackendIds(const backend::Partitioning& partitioning) {
  std::vector<std::string> ids;
  for (const emit::DelegatePayload& payload : partitioning.payloads)
    ids.push_back(payload.backend_id);
  return ids;
}

// Every delegate call's index, checked unique.
std::set<int64_t> DelegateIndices(const ir::Graph& graph) {
  std::set<int64_t> indices;
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() != dialect::kDelegateCallOp) continue;
    EXPECT_TRUE(indices.insert(node->FindAttr(dialect::kDelegateIndexAttr)->as_int()).second)
        << node->name();
  }
  return indices;
}

TEST(PartitionTest, EachNodeGoesToTheFirstListedBackendThatTakesIt) {
  auto graph = ConvAddMatmul();
  backend::Partitioning partitioning = Partition(*graph, "add_only,xnnpack");
  ASSERT_EQ(partitioning.backends.size(), 2u);
  EXPECT_EQ(partitioning.backends[0].backend, "add_only");
  EXPECT_EQ(partitioning.backends[1].backend, "xnnpack");
  // Both adds to add_only (0, 1), the convolution alone to XNNPACK (2).
  EXPECT_THAT(BackendIds(partitioning),
              ElementsAre("AddOnlyBackend", "AddOnlyBackend", "XnnpackBackend"));
  EXPECT_THAT(DelegateIndices(*graph), ElementsAre(0, 1, 2));
  ASSERT_EQ(partitioning.backends[1].result.delegates.size(), 1u);
  EXPECT_EQ(partitioning.backends[1].result.delegates[0].nodes, std::vector<std::string>{"conv"});
  EXPECT_EQ(partitioning.backends[1].result.delegates[0].call_node, "xnnpack_delegate_2");
  EXPECT_EQ(graph->FindNode("sum"), nullptr);
  EXPECT_NE(graph->FindNode("gram"), nullptr);  // nobody takes it: portable
  EXPECT_EQ(partitioning.total_macs, 4u * 16 * 2 * 9 + 4 * 5 * 16);
  EXPECT_EQ(partitioning.DelegatedMacs(), 4u * 16 * 2 * 9);
}

TEST(PartitionTest, EachPayloadCarriesTheNodesItsDelegateTook) {
  // The emitter writes them as the delegate call's debug handle (for traces).
  auto graph = ConvAddMatmul();
  backend::Partitioning partitioning = Partition(*graph, "add_only,xnnpack");
  ASSERT_EQ(partitioning.payloads.size(), 3u);
  EXPECT_EQ(partitioning.payloads[2].node_names, std::vector<std::string>{"conv"});
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(partitioning.payloads[i].node_names,
              partitioning.backends[0].result.delegates[i].nodes);
    EXPECT_EQ(partitioning.payloads[i].node_names.size(), 1u);
  }
}

TEST(PartitionTest, TheOrderOfTheListDecides) {
  auto graph = ConvAddMatmul();
  backend::Partitioning partitioning = Partition(*graph, "xnnpack,add_only");
  // XNNPACK takes the float add with the convolution and the reshape (0); add_only only
  // the int64 add (1).
  EXPECT_THAT(BackendIds(partitioning), ElementsAre("XnnpackBackend", "AddOnlyBackend"));
  EXPECT_THAT(DelegateIndices(*graph), ElementsAre(0, 1));
  ASSERT_EQ(partitioning.backends[0].result.delegates.size(), 1u);
  EXPECT_THAT(partitioning.backends[0].result.delegates[0].nodes,
              ElementsAre("conv", "sum", "rows"));
  ASSERT_EQ(partitioning.backends[1].result.delegates.size(), 1u);
  EXPECT_THAT(partitioning.backends[1].result.delegates[0].nodes, ElementsAre("count"));
}

TEST(PartitionTest, ExplainSaysWhoTookEachNodeAndWhyTheOthersDidNot) {
  auto graph = ConvAddMatmul();
  const std::string text = backend::RenderExplanation(Partition(*graph, "add_only,xnnpack"));
  EXPECT_THAT(text, HasSubstr("add_only: 2 of 5 Edge nodes delegated in 2 delegates"));
  EXPECT_THAT(text, HasSubstr("  node 'sum' (edge.add): add_only delegate 0\n"));
  EXPECT_THAT(text, HasSubstr("  node 'count' (edge.add): add_only delegate 1\n"));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("  node 'conv' (edge.convolution): xnnpack delegate "
                                           "2 (add_only: ",
                                           kAddOnlyReason, ")\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat(
                        "  node 'gram' (edge.matmul): add_only: ", kAddOnlyReason, "; xnnpack: ")));
  EXPECT_THAT(text, HasSubstr("no batch matrix multiply"));
  EXPECT_THAT(text, HasSubstr("not delegated (2):\n"));  // gram, and rows (data movement)
  EXPECT_THAT(text, HasSubstr("  node 'rows' (edge.reshape): add_only: "));
}

TEST(PartitionTest, PortableDelegatesNothing) {
  auto graph = ConvAddMatmul();
  const size_t nodes = graph->num_nodes();
  backend::Partitioning partitioning = Partition(*graph, "portable");
  EXPECT_TRUE(partitioning.backends.empty());
  EXPECT_TRUE(partitioning.payloads.empty());
  EXPECT_EQ(graph->num_nodes(), nodes);
}

TEST(PartitionTest, BadListsAreRefusedWithTheProblem) {
  auto error = [](const std::string& list) {
    absl::StatusOr<std::vector<const backend::Backend*>> backends =
        ResolveBackendList(list, Registry());
    EXPECT_EQ(backends.status().code(), absl::StatusCode::kInvalidArgument) << list;
    return std::string(backends.status().message());
  };
  EXPECT_EQ(error("tflite"),
            "unknown backend 'tflite' (available: xnnpack, native, add_only, portable)");
  EXPECT_EQ(error("add_only,tflite"),
            "unknown backend 'tflite' (available: xnnpack, native, add_only, portable)");
  EXPECT_THAT(error("xnnpack,,add_only"), HasSubstr("has an empty entry"));
  EXPECT_THAT(error(""), HasSubstr("has an empty entry"));
  EXPECT_THAT(error("xnnpack,xnnpack"), HasSubstr("names 'xnnpack' twice"));
  EXPECT_THAT(error("xnnpack,portable"), HasSubstr("cannot be listed with other backends"));
}

TEST(PartitionTest, TheBuiltInListIsWhatToolsOffer) {
  EXPECT_THAT(AvailableBackends(), ElementsAre("xnnpack", "native", "portable"));
  EXPECT_THAT(DescribeAvailableBackends(),
              ::testing::MatchesRegex("xnnpack: [^;]+; native: [^;]+; portable, alone: every "
                                      "node runs on the portable kernels"));
  EXPECT_TRUE(CheckBackendList("xnnpack").ok());
  EXPECT_TRUE(CheckBackendList("portable").ok());
  EXPECT_TRUE(CheckBackendList("native,xnnpack").ok());
  EXPECT_EQ(CheckBackendList("native,tflite").message(),
            "unknown backend 'tflite' (available: xnnpack, native, portable)");
}

// A backend that numbers its delegates wrongly would make two calls share a payload.
class MisnumberingBackend : public AddOnlyBackend {
 public:
  std::string name() const override { return "misnumbering"; }
  absl::StatusOr<backend::PartitionResult> Partition(ir::Graph& graph, int64_t) const override {
    return AddOnlyBackend::Partition(graph, 0);
  }
};

TEST(PartitionTest, DelegateIndicesMustBeUniqueAcrossBackends) {
  auto graph = ConvAddMatmul();
  const backend::Backend* xnnpack = Registry().Find("xnnpack");
  MisnumberingBackend misnumbering;
  absl::StatusOr<backend::Partitioning> partitioning =
      PartitionForBackends(*graph, {xnnpack, &misnumbering});
  EXPECT_EQ(partitioning.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(partitioning.status().message(),
              HasSubstr("backend 'misnumbering' numbered its delegate 0 as 0 instead of 1"));
}

std::filesystem::path ZooDir() {
  if (const char* dir = std::getenv("TORCHIR_ZOO_DIR")) return dir;
  return std::filesystem::path(TORCHIR_BINARY_DIR_DEFAULT) / "zoo";
}

// The whole pipeline with a registry and a list of its own, on resnet18: the residual
// adds go to add_only, the rest of the network to XNNPACK, in one program.
TEST(PartitionTest, CompileProgramTakesTheRegistryAndListItIsGiven) {
  const std::filesystem::path dir = ZooDir() / "resnet18" / "export";
  std::error_code error;
  if (!std::filesystem::is_regular_file(dir / "model.json", error)) {
    GTEST_SKIP() << "no zoo at " << ZooDir();
  }
  LoadOptions load;
  load.model_path = (dir / "model.json").string();
  load.weights_path = (dir / "weights.safetensors").string();
  load.require_all_weights = true;
  absl::StatusOr<LoadedModel> model = LoadModel(load);
  ASSERT_TRUE(model.ok()) << model.status();

  CompileOptions options;
  options.backend = "add_only,xnnpack";
  options.backends = &Registry();
  absl::StatusOr<CompiledProgram> mixed = CompileProgram(*model, options);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  const backend::Partitioning& partitioning = mixed->partitioning;
  ASSERT_EQ(partitioning.backends.size(), 2u);
  const size_t adds = partitioning.backends[0].result.delegates.size();
  EXPECT_EQ(adds, 8u);  // two per residual stage
  EXPECT_GE(partitioning.backends[1].result.delegates.size(), 1u);
  std::vector<std::string> ids = BackendIds(partitioning);
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], i < adds ? "AddOnlyBackend" : "XnnpackBackend") << i;
  }
  std::set<int64_t> indices = DelegateIndices(*mixed->edge_graph);
  EXPECT_EQ(indices.size(), ids.size());
  EXPECT_EQ(*indices.rbegin(), static_cast<int64_t>(ids.size()) - 1);
  EXPECT_FALSE(mixed->bytes.empty());

  // The same model with the built-in list: XNNPACK alone takes every node.
  absl::StatusOr<CompiledProgram> xnnpack = CompileProgram(*model, CompileOptions{});
  ASSERT_TRUE(xnnpack.ok()) << xnnpack.status();
  ASSERT_EQ(xnnpack->partitioning.backends.size(), 1u);
  EXPECT_EQ(xnnpack->partitioning.backends[0].backend, "xnnpack");
  EXPECT_EQ(xnnpack->partitioning.payloads.size(), 1u);
  EXPECT_NE(xnnpack->bytes, mixed->bytes);
  // add_only is not a built-in backend.
  options.backends = nullptr;
  EXPECT_EQ(CompileProgram(*model, options).status().message(),
            "unknown backend 'add_only' (available: xnnpack, native, portable)");
}

}  // namespace
}  // namespace torchir::pipeline
