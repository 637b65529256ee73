// The lowering driver: unsupported ops, getitem, in-place ops, weights, verification.
#include "compiler/lowering/lowering.h"
#include "compiler/lowering/aten_verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "compiler/frontend/ir_reader.h"

namespace torchir::lowering {
namespace {

std::unique_ptr<ir::Graph> Parse(const std::string& json) {
  auto graph = frontend::ParsePytorchIr(json, "test.json");
  EXPECT_TRUE(graph.ok()) << graph.status();
  return graph.ok() ? std::move(*graph) : nullptr;
}

std::string Meta(const std::string& name, const std::string& shape, const std::string& producer = "",
                 const std::string& dtype = "float32", int index = 0) {
  std::string text = "{\"name\": \"" + name + "\", \"shape\": " + shape + ", \"dtype\": \"" +
                     dtype + "\"";
  if (!producer.empty()) {
    text += ", \"producer_node\": \"" + producer + "\", \"producer_output_idx\": " +
            std::to_string(index);
  }
  return text + "}";
}

std::string Doc(const std::string& inputs, const std::string& outputs, const std::string& nodes,
                const std::string& weights = "[]", const std::string& mapping = "{}") {
  return "{\"graph_inputs\": [" + inputs + "], \"graph_outputs\": [" + outputs +
         "], \"weights\": " + weights + ", \"weight_name_mapping\": " + mapping +
         ", \"nodes\": [" + nodes + "]}";
}

std::vector<std::string> Ops(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node* node : graph.nodes()) ops.push_back(node->op());
  return ops;
}

// x -> a = op_a(x) -> b = op_b(a), float32[4] throughout.
std::unique_ptr<ir::Graph> Chain(const std::string& op_a, const std::string& op_b) {
  return Parse(Doc(Meta("x", "[4]"), Meta("b", "[4]"),
                   R"({"name": "a", "op_type": ")" + op_a + R"(",
                       "inputs": [)" + Meta("x", "[4]", "x") + R"(],
                       "outputs": [)" + Meta("a", "[4]") + R"(]},
                      {"name": "b", "op_type": ")" + op_b + R"(",
                       "inputs": [)" + Meta("a", "[4]", "a") + R"(],
                       "outputs": [)" + Meta("b", "[4]") + R"(]})"));
}

TEST(LoweringTest, ListsEveryUnsupportedOpAtOnce) {
  auto graph = Chain("aten.frobnicate.default", "aten.zorch.default");
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_FALSE(edge.ok());
  std::string message(edge.status().message());
  EXPECT_NE(message.find("unsupported op aten.frobnicate.default (1 node: 'a')"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("unsupported op aten.zorch.default (1 node: 'b')"), std::string::npos)
      << message;
}

TEST(LoweringTest, RefusedOpsGiveTheirReasonBesideUnsupportedOnes) {
  auto graph = Chain("aten.nonzero.default", "aten.zorch.default");
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_FALSE(edge.ok());
  std::string message(edge.status().message());
  EXPECT_NE(message.find("refused op aten.nonzero.default (1 node: 'a'): its output shape "
                         "depends on the input values"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("unsupported op aten.zorch.default (1 node: 'b')"), std::string::npos)
      << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
}

TEST(LoweringTest, RefusalsAndRulesAreDisjointAndEveryRefusalHasAReason) {
  const std::vector<std::string> ruled = SupportedAtenOps();
  for (const auto& [op, reason] : RefusedAtenOps()) {
    EXPECT_EQ(std::find(ruled.begin(), ruled.end(), op), ruled.end()) << op;
    EXPECT_GT(reason.size(), 20u) << op;
  }
  EXPECT_NE(RefusedAtenOps().count("aten.convolution_backward.default"), 0u);
}

TEST(LoweringTest, TraceRecordsWhatEachAtenOpBecame) {
  auto graph = Parse(Doc(Meta("x", "[2, 3]"), Meta("c", "[2, 3]"),
                         R"({"name": "r", "op_type": "aten.relu.default",
                             "inputs": [)" + Meta("x", "[2, 3]", "x") + R"(],
                             "outputs": [)" + Meta("r", "[2, 3]") + R"(]},
                            {"name": "c", "op_type": "aten.clone.default",
                             "inputs": [)" + Meta("r", "[2, 3]", "r") + R"(],
                             "outputs": [)" + Meta("c", "[2, 3]") + R"(]})"));
  ASSERT_NE(graph, nullptr);
  LoweringTrace trace;
  ASSERT_TRUE(LowerToEdge(*graph, &trace).ok());
  ASSERT_EQ(trace.edge_ops.size(), 2u);
  EXPECT_EQ(trace.edge_ops["aten.relu.default"], std::set<std::string>{"edge.clamp"});
  EXPECT_EQ(trace.edge_ops["aten.clone.default"],
            std::set<std::string>{std::string(kTraceIdentity)});
}

TEST(LoweringTest, WeightsComeOverWithTheirKeysAndLinearBecomesEdgeLinear) {
  auto graph = Parse(Doc(Meta("x", "[2, 3]"), Meta("linear", "[2, 4]"),
                         R"({"name": "linear", "op_type": "aten.linear.default",
                             "inputs": [)" + Meta("x", "[2, 3]", "x") + ", " +
                             Meta("p_w", "[4, 3]") + R"(],
                             "outputs": [)" + Meta("linear", "[2, 4]") + R"(]})",
                         "[" + Meta("fc.weight", "[4, 3]") + "]", R"({"p_w": "fc.weight"})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_EQ(Ops(**edge), (std::vector<std::string>{"edge.linear"}));
  ASSERT_EQ((*edge)->weights().size(), 1u);
  EXPECT_EQ((*edge)->weights()[0]->state_dict_key(), "fc.weight");
  EXPECT_EQ((*edge)->outputs()[0]->type().sizes, (std::vector<int64_t>{2, 4}));
}

TEST(LoweringTest, CoreAddmmWithTransposedWeightBecomesLinear) {
  auto graph = Parse(Doc(Meta("x", "[2, 3]"), Meta("addmm", "[2, 4]"),
                         R"({"name": "t", "op_type": "aten.t.default",
                             "inputs": [)" + Meta("p_w", "[4, 3]") + R"(],
                             "outputs": [)" + Meta("t", "[3, 4]") + R"(]},
                            {"name": "addmm", "op_type": "aten.addmm.default",
                             "inputs": [)" + Meta("p_b", "[4]") + ", " +
                             Meta("x", "[2, 3]", "x") + ", " + Meta("t", "[3, 4]", "t") + R"(],
                             "outputs": [)" + Meta("addmm", "[2, 4]") + R"(]})",
                         "[" + Meta("fc.weight", "[4, 3]") + ", " + Meta("fc.bias", "[4]") + "]",
                         R"({"p_w": "fc.weight", "p_b": "fc.bias"})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_TRUE(edge.ok()) << edge.status();
  // The permute stays until dead-code elimination; the product reads the weight itself.
  EXPECT_EQ(Ops(**edge), (std::vector<std::string>{"edge.permute", "edge.linear"}));
  const ir::Node* linear = (*edge)->last_node();
  EXPECT_EQ(linear->input(1)->name(), "p_w");
  EXPECT_EQ(linear->input(2)->name(), "p_b");
}

TEST(LoweringTest, ConvolutionAttributesAreFilledFromSchemaDefaults) {
  auto graph = Parse(Doc(Meta("x", "[1, 3, 8, 8]"), Meta("conv2d", "[1, 4, 6, 6]"),
                         R"({"name": "conv2d", "op_type": "aten.conv2d.default",
                             "inputs": [)" + Meta("x", "[1, 3, 8, 8]", "x") + ", " +
                             Meta("p_w", "[4, 3, 3, 3]") + R"(],
                             "outputs": [)" + Meta("conv2d", "[1, 4, 6, 6]") + R"(]})",
                         "[" + Meta("w", "[4, 3, 3, 3]") + "]", R"({"p_w": "w"})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_TRUE(edge.ok()) << edge.status();
  const ir::Node* conv = (*edge)->first_node();
  EXPECT_EQ(conv->op(), "edge.convolution");
  EXPECT_EQ(conv->num_inputs(), 2u);  // no bias
  EXPECT_EQ(conv->FindAttr("stride")->as_int_list(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->FindAttr("padding")->as_int_list(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(conv->FindAttr("groups")->as_int(), 1);
  EXPECT_TRUE(std::isinf(conv->FindAttr("output_max")->as_double()));
}

TEST(LoweringTest, RecordedShapesThatDisagreeAreReported) {
  // The IR claims a 5x5 output for a 3x3 valid convolution of 8x8.
  auto graph = Parse(Doc(Meta("x", "[1, 3, 8, 8]"), Meta("conv2d", "[1, 4, 5, 5]"),
                         R"({"name": "conv2d", "op_type": "aten.conv2d.default",
                             "inputs": [)" + Meta("x", "[1, 3, 8, 8]", "x") + ", " +
                             Meta("p_w", "[4, 3, 3, 3]") + R"(],
                             "outputs": [)" + Meta("conv2d", "[1, 4, 5, 5]") + R"(]})",
                         "[" + Meta("w", "[4, 3, 3, 3]") + "]", R"({"p_w": "w"})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_FALSE(edge.ok());
  EXPECT_NE(edge.status().message().find(
                "node 'conv2d' (aten.conv2d.default): lowering produced float32[1, 4, 6, 6] for "
                "output 'conv2d', which the IR records as float32[1, 4, 5, 5]"),
            std::string::npos)
      << edge.status().message();
}

TEST(LoweringTest, TransposedConvolutionIsADirectConvolutionOfThePaddedInput) {
  auto graph = Parse(Doc(Meta("x", "[1, 3, 4, 4]"), Meta("convolution", "[1, 2, 6, 6]"),
                         R"({"name": "convolution", "op_type": "aten.convolution.default",
                             "inputs": [)" + Meta("x", "[1, 3, 4, 4]", "x") + ", " +
                             Meta("p_w", "[3, 2, 3, 3]") + R"(],
                             "outputs": [)" + Meta("convolution", "[1, 2, 6, 6]") + R"(],
                             "attrs": {"stride": [1, 1], "padding": [0, 0], "dilation": [1, 1],
                                       "transposed": true, "output_padding": [0, 0],
                                       "groups": 1}})",
                         "[" + Meta("w", "[3, 2, 3, 3]") + "]", R"({"p_w": "w"})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_TRUE(edge.ok()) << edge.status().message();
  const ir::Node* conv = nullptr;
  const ir::Node* pad = nullptr;
  for (const ir::Node* node : (*edge)->nodes()) {
    if (node->op() == "edge.convolution") conv = node;
    if (node->op() == "edge.constant_pad") pad = node;
  }
  ASSERT_NE(conv, nullptr);
  ASSERT_NE(pad, nullptr);
  // Padded by k - 1 = 2 on every side, then a 3x3 convolution with the regrouped weight.
  EXPECT_EQ(pad->FindAttr("pad")->as_int_list(), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(conv->input(0), pad->output());
  EXPECT_EQ(conv->input(1)->type().sizes, (std::vector<int64_t>{2, 3, 3, 3}));
  EXPECT_EQ(conv->FindAttr("stride")->as_int_list(), (std::vector<int64_t>{1, 1}));
}

TEST(LoweringTest, SamePaddingWithAnEvenKernelPadsTheExtraElementAtTheEnd) {
  // Kernel 2x4, dilation (1, 1): totals 1 and 3, so 0 and 1 on both sides plus 1 after the end
  // of each dim, as PyTorch's F.pad of the input does.
  auto graph = Parse(Doc(Meta("x", "[1, 3, 5, 6]"), Meta("conv2d", "[1, 2, 5, 6]"),
                         R"({"name": "conv2d", "op_type": "aten.conv2d.padding",
                             "inputs": [)" + Meta("x", "[1, 3, 5, 6]", "x") + ", " +
                             Meta("p_w", "[2, 3, 2, 4]") + R"(],
                             "outputs": [)" + Meta("conv2d", "[1, 2, 5, 6]") + R"(],
                             "attrs": {"padding": "same"}})",
                         "[" + Meta("w", "[2, 3, 2, 4]") + "]", R"({"p_w": "w"})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_TRUE(edge.ok()) << edge.status().message();
  ASSERT_EQ(Ops(**edge), (std::vector<std::string>{"edge.constant_pad", "edge.convolution"}));
  std::vector<const ir::Node*> nodes;
  for (const ir::Node* node : (*edge)->nodes()) nodes.push_back(node);
  const ir::Node* pad = nodes[0];
  const ir::Node* conv = nodes[1];
  EXPECT_EQ(pad->FindAttr("pad")->as_int_list(), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(conv->FindAttr("padding")->as_int_list(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(conv->input(0), pad->output());
}

TEST(LoweringTest, Conv3dAndTransposedConv3dLower) {
  auto graph = Parse(Doc(Meta("x", "[1, 2, 4, 4, 4]"), Meta("conv3d", "[1, 3, 2, 2, 2]"),
                         R"({"name": "conv3d", "op_type": "aten.conv3d.default",
                             "inputs": [)" + Meta("x", "[1, 2, 4, 4, 4]", "x") + ", " +
                             Meta("p_w", "[3, 2, 3, 3, 3]") + R"(],
                             "outputs": [)" + Meta("conv3d", "[1, 3, 2, 2, 2]") + R"(],
                             "attrs": {"stride": [2], "padding": [1]}})",
                         "[" + Meta("w", "[3, 2, 3, 3, 3]") + "]", R"({"p_w": "w"})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_TRUE(edge.ok()) << edge.status().message();
  ASSERT_EQ(Ops(**edge), (std::vector<std::string>{"edge.convolution"}));
  const ir::Node* conv = *(*edge)->nodes().begin();
  // Single-element lists broadcast to the three spatial dims.
  EXPECT_EQ(conv->FindAttr("stride")->as_int_list(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(conv->FindAttr("padding")->as_int_list(), (std::vector<int64_t>{1, 1, 1}));
}

TEST(LoweringTest, MatmulOfVectorsAddsAndRemovesUnitDims) {
  auto graph = Parse(Doc(Meta("a", "[3]") + ", " + Meta("b", "[3, 2]"), Meta("matmul", "[2]"),
                         R"({"name": "matmul", "op_type": "aten.matmul.default",
                             "inputs": [)" + Meta("a", "[3]", "a") + ", " +
                             Meta("b", "[3, 2]", "b") + R"(],
                             "outputs": [)" + Meta("matmul", "[2]") + R"(]})"));
  ASSERT_NE(graph, nullptr);
  auto edge = LowerToEdge(*graph);
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_EQ(Ops(**edge),
            (std::vector<std::string>{"edge.reshape", "edge.matmul", "edge.reshape"}));
}

TEST(LoweringTest, SupportedOpsIncludeBothVocabularies) {
  std::vector<std::string> ops = SupportedAtenOps();
  for (const char* op : {"aten.conv2d.default", "aten.convolution.default", "aten.linear.default",
                         "aten.addmm.default", "aten.t.default"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  }
}

// docs/edge-dialect.md lists every accepted ATen op; this keeps it complete.
TEST(LoweringDocsTest, EveryAcceptedOpIsDocumented) {
  std::ifstream file(std::string(TORCHIR_SOURCE_DIR_DEFAULT) + "/docs/edge-dialect.md");
  std::stringstream docs;
  docs << file.rdbuf();
  for (const std::string& op : SupportedAtenOps()) {
    EXPECT_NE(docs.str().find("`" + op + "`"), std::string::npos)
        << op << " is accepted but not listed in docs/edge-dialect.md";
  }
}

}  // namespace
}  // namespace torchir::lowering

namespace torchir::lowering {
namespace {

TEST(AtenVerifierTest, ReportsEveryNodeThatDoesNotBindToItsSchema) {
  auto graph = frontend::ParsePytorchIr(
      R"({"graph_inputs": [{"name": "x", "shape": [4], "dtype": "float32"}],
          "graph_outputs": [{"name": "b", "shape": [4], "dtype": "float32"}],
          "nodes": [
            {"name": "a", "op_type": "aten.relu.default",
             "inputs": [{"name": "x", "shape": [4], "dtype": "float32", "producer_node": "x"}],
             "outputs": [{"name": "a", "shape": [4], "dtype": "float32"}],
             "attrs": {"inplace": true}},
            {"name": "b", "op_type": "aten.softmax.int",
             "inputs": [{"name": "a", "shape": [4], "dtype": "float32", "producer_node": "a"}],
             "outputs": [{"name": "b", "shape": [4], "dtype": "float32"}]}]})",
      "bad.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::Status status = VerifyAtenGraph(**graph);
  ASSERT_FALSE(status.ok());
  std::string message(status.message());
  // relu has no 'inplace' argument; softmax.int needs 'dim'.
  EXPECT_NE(message.find("node 'a' (aten.relu.default)"), std::string::npos) << message;
  EXPECT_NE(message.find("node 'b' (aten.softmax.int)"), std::string::npos) << message;
  EXPECT_NE(message.find('\n'), std::string::npos) << message;
  // Lowering refuses the graph with the same list.
  EXPECT_FALSE(LowerToEdge(**graph).ok());
}

TEST(AtenVerifierTest, AcceptsWellFormedGraphs) {
  auto graph = frontend::ParsePytorchIr(
      R"({"graph_inputs": [{"name": "x", "shape": [2, 4], "dtype": "float32"}],
          "graph_outputs": [{"name": "b", "shape": [2, 4], "dtype": "float32"}],
          "nodes": [
            {"name": "b", "op_type": "aten.softmax.int",
             "inputs": [{"name": "x", "shape": [2, 4], "dtype": "float32", "producer_node": "x"}],
             "outputs": [{"name": "b", "shape": [2, 4], "dtype": "float32"}],
             "attrs": {"dim": -1}}]})",
      "good.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::Status status = VerifyAtenGraph(**graph);
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace torchir::lowering
