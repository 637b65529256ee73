#include "compiler/dialect/edge_ops.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <set>

namespace torchir::dialect {
namespace {

using ir::AttrValue;
using ir::DType;
using ir::TensorType;

constexpr double kInf = std::numeric_limits<double>::infinity();

TensorType F32(std::vector<int64_t> sizes) { return {DType::kFloat32, std::move(sizes)}; }

TEST(EdgeOpTableTest, RowsAreWellFormed) {
  std::set<std::string> names, kernels;
  for (const EdgeOpDef& def : EdgeOps()) {
    SCOPED_TRACE(def.name);
    EXPECT_TRUE(IsEdgeOpName(def.name));
    EXPECT_TRUE(names.insert(def.name).second) << "duplicate op";
    EXPECT_TRUE(kernels.insert(def.kernel).second) << "duplicate kernel name";
    EXPECT_FALSE(def.summary.empty());
    EXPECT_NE(def.shape_rule, nullptr);
    EXPECT_FALSE(def.outputs.empty());
    bool seen_optional = false;
    for (size_t i = 0; i < def.inputs.size(); ++i) {
      const TensorOperand& operand = def.inputs[i];
      EXPECT_FALSE(seen_optional && !operand.optional) << "required after optional";
      seen_optional = seen_optional || operand.optional;
      EXPECT_TRUE(!operand.variadic || i + 1 == def.inputs.size()) << "variadic not last";
    }
    std::vector<TensorOperand> operands = def.inputs;
    operands.insert(operands.end(), def.outputs.begin(), def.outputs.end());
    for (const TensorOperand& operand : operands) {
      if (operand.type_var.empty()) {
        EXPECT_FALSE(operand.fixed.empty()) << operand.name;
        continue;
      }
      bool declared = false;
      for (const TypeVariable& var : def.type_vars) declared = declared || var.name == operand.type_var;
      EXPECT_TRUE(declared) << operand.name << " uses undeclared " << operand.type_var;
    }
    EXPECT_EQ(FindEdgeOp(def.name), &def);
  }
  EXPECT_GE(EdgeOps().size(), 40u);
  EXPECT_EQ(FindEdgeOp("edge.nonexistent"), nullptr);
  EXPECT_EQ(FindEdgeOp("aten.add.Tensor"), nullptr);
}

// x[1,3,8,8] -> convolution(w[4,3,3,3], b[4]) -> reshape[1,144] -> linear(w2[10,144]) -> out
class EdgeVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x = graph.AddInput("x", F32({1, 3, 8, 8}));
    w = graph.AddWeight("w", "conv.weight", F32({4, 3, 3, 3}));
    b = graph.AddWeight("b", "conv.bias", F32({4}));
    w2 = graph.AddWeight("w2", "fc.weight", F32({10, 144}));
    conv = graph.AppendNode("conv", "edge.convolution", {x, w, b}, {"conv"}, {F32({1, 4, 6, 6})});
    conv->SetAttr("stride", AttrValue::IntList({1, 1}));
    conv->SetAttr("padding", AttrValue::IntList({0, 0}));
    conv->SetAttr("dilation", AttrValue::IntList({1, 1}));
    conv->SetAttr("groups", AttrValue::Int(1));
    conv->SetAttr("output_min", AttrValue::Double(0.0));
    conv->SetAttr("output_max", AttrValue::Double(kInf));
    reshape = graph.AppendNode("flat", "edge.reshape", {conv->output()}, {"flat"}, {F32({1, 144})});
    reshape->SetAttr("shape", AttrValue::IntList({1, 144}));
    linear = graph.AppendNode("fc", "edge.linear", {reshape->output(), w2}, {"fc"}, {F32({1, 10})});
    linear->SetAttr("output_min", AttrValue::Double(-kInf));
    linear->SetAttr("output_max", AttrValue::Double(kInf));
    graph.AddOutput(linear->output());
  }

  std::string Error() {
    absl::Status status = VerifyEdgeGraph(graph);
    EXPECT_FALSE(status.ok());
    return std::string(status.message());
  }

  ir::Graph graph;
  ir::Value *x, *w, *b, *w2;
  ir::Node *conv, *reshape, *linear;
};

TEST_F(EdgeVerifierTest, AcceptsAWellFormedGraph) {
  absl::Status status = VerifyEdgeGraph(graph);
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(EdgeVerifierTest, RejectsNonEdgeOps) {
  graph.AppendNode("relu", "aten.relu.default", {linear->output()}, {"relu"}, {F32({1, 10})});
  EXPECT_NE(Error().find("node 'relu' (aten.relu.default): not an Edge op"), std::string::npos);
}

TEST_F(EdgeVerifierTest, RejectsWrongOperandCount) {
  ir::Node* add = graph.AppendNode("add", "edge.add", {linear->output()}, {"add"}, {F32({1, 10})});
  (void)add;
  EXPECT_NE(Error().find("node 'add' (edge.add): takes 2 tensor input(s), got 1"),
            std::string::npos);
}

TEST_F(EdgeVerifierTest, RejectsMissingExtraAndMistypedAttributes) {
  conv->RemoveAttr("groups");
  EXPECT_NE(Error().find("missing attribute 'groups' (int)"), std::string::npos);
  conv->SetAttr("groups", AttrValue::Double(1.0));
  EXPECT_NE(Error().find("attribute 'groups' must be int, got 1.0"), std::string::npos);
  conv->SetAttr("groups", AttrValue::Int(1));
  conv->SetAttr("bias_first", AttrValue::Bool(true));
  EXPECT_NE(Error().find("unexpected attribute 'bias_first'"), std::string::npos);
}

TEST_F(EdgeVerifierTest, RejectsImplicitPromotion) {
  ir::Value* ids = graph.AddInput("ids", TensorType{DType::kInt64, {1, 10}});
  graph.AppendNode("add", "edge.add", {linear->output(), ids}, {"add"}, {F32({1, 10})});
  std::string error = Error();
  EXPECT_NE(error.find("input 'other' ('ids') is int64 but T is float32 (no implicit promotion"),
            std::string::npos)
      << error;
}

TEST_F(EdgeVerifierTest, RejectsDtypesOutsideTheTable) {
  ir::Value* a = graph.AddInput("a", TensorType{DType::kFloat16, {2, 2}});
  graph.AppendNode("sig", "edge.sigmoid", {a}, {"sig"}, {TensorType{DType::kFloat16, {2, 2}}});
  EXPECT_NE(Error().find("input 'input' ('a') is float16, must be one of {float32, float64}"),
            std::string::npos);
}

TEST_F(EdgeVerifierTest, RejectsRecordedShapesTheOpDoesNotCompute) {
  conv->output()->set_type(F32({1, 4, 8, 8}));
  std::string error = Error();
  EXPECT_NE(error.find("output 'conv' is recorded as float32[1, 4, 8, 8] but the op computes "
                       "float32[1, 4, 6, 6]"),
            std::string::npos)
      << error;
}

TEST_F(EdgeVerifierTest, ReportsShapeRuleErrorsWithTheNode) {
  reshape->SetAttr("shape", AttrValue::IntList({1, 145}));
  EXPECT_NE(Error().find("node 'flat' (edge.reshape): cannot reshape [1, 4, 6, 6] (144 elements) "
                         "to [1, 145]"),
            std::string::npos);
}

// A shape rule may compute a shape too large to exist (an expand of a few
// elements to 2^64): the verifier refuses it, naming the tensor.
TEST_F(EdgeVerifierTest, RejectsTensorsBeyondTheSizeLimit) {
  ir::Value* small = graph.AddInput("small", F32({1, 1}));
  const std::vector<int64_t> huge = {int64_t{1} << 32, int64_t{1} << 32};
  ir::Node* expand = graph.AppendNode("big", "edge.expand", {small}, {"big"}, {F32(huge)});
  expand->SetAttr("sizes", AttrValue::IntList(huge));
  std::string error = Error();
  EXPECT_NE(error.find("node 'big' (edge.expand): output 'big' float32[4294967296, 4294967296]: "
                       "its element count overflows 64 bits"),
            std::string::npos)
      << error;
}

TEST_F(EdgeVerifierTest, CastChangesDtypeAndComparisonsGiveBool) {
  ir::Node* cast = graph.AppendNode("half", "edge.cast", {linear->output()}, {"half"},
                                    {TensorType{DType::kInt32, {1, 10}}});
  cast->SetAttr("dtype", AttrValue::OfDType(DType::kInt32));
  ir::Node* gt = graph.AppendNode("gt", "edge.gt", {cast->output(), cast->output()}, {"gt"},
                                  {TensorType{DType::kBool, {1, 10}}});
  graph.AppendNode("where", "edge.where", {gt->output(), linear->output(), linear->output()},
                   {"where"}, {F32({1, 10})});
  absl::Status status = VerifyEdgeGraph(graph);
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(EdgeVerifierTest, ConcatenateTakesAnyNumberOfInputs) {
  ir::Node* cat = graph.AppendNode("cat", "edge.concatenate",
                                   {linear->output(), linear->output(), linear->output()},
                                   {"cat"}, {F32({1, 30})});
  cat->SetAttr("dim", AttrValue::Int(1));
  absl::Status status = VerifyEdgeGraph(graph);
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(EdgeVerifierTest, MaxDimHasInt64Indices) {
  ir::Node* max = graph.AppendNode("max", "edge.max_dim", {linear->output()}, {"max_0", "max_1"},
                                   {F32({1}), TensorType{DType::kInt64, {1}}});
  max->SetAttr("dim", AttrValue::Int(1));
  max->SetAttr("keepdim", AttrValue::Bool(false));
  absl::Status status = VerifyEdgeGraph(graph);
  EXPECT_TRUE(status.ok()) << status;
  max->output(1)->set_type(TensorType{DType::kInt32, {1}});
  EXPECT_NE(Error().find("output 'indices' ('max_1') is int32, must be one of {int64}"),
            std::string::npos);
}

TEST_F(EdgeVerifierTest, ReportsEveryBadNode) {
  conv->RemoveAttr("groups");
  reshape->SetAttr("shape", AttrValue::IntList({7}));
  std::string error = Error();
  EXPECT_NE(error.find("node 'conv'"), std::string::npos);
  EXPECT_NE(error.find("node 'flat'"), std::string::npos);
}

}  // namespace
}  // namespace torchir::dialect

namespace torchir::dialect {
namespace {

// docs/edge-dialect.md embeds the rendered table; this keeps the two in step.
TEST(EdgeOpTableDocsTest, DocsListTheTableAsItIs) {
  std::ifstream file(std::string(TORCHIR_SOURCE_DIR_DEFAULT) + "/docs/edge-dialect.md");
  std::stringstream docs;
  docs << file.rdbuf();
  EXPECT_NE(docs.str().find(RenderEdgeOpTableMarkdown()), std::string::npos)
      << "docs/edge-dialect.md is out of date; regenerate its table with "
         "`build/bin/torchir-compile --list-edge-ops`";
}

}  // namespace
}  // namespace torchir::dialect
