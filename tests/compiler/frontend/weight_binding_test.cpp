#include "compiler/frontend/weight_binding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/frontend/ir_reader.h"
#include "compiler/frontend/safetensors.h"
#include "compiler/ir/error_details.h"

namespace torchir::frontend {
namespace {

// linear(x, p_fc_weight, p_fc_bias) + c_offset (a lifted constant with inline data).
constexpr char kModel[] = R"json({
  "graph_inputs": [{"name": "x", "shape": [1, 2], "dtype": "float32"}],
  "graph_outputs": [{"name": "add", "shape": [1, 2], "dtype": "float32"}],
  "weights": [{"name": "fc.weight", "shape": [2, 2], "dtype": "float32"},
              {"name": "fc.bias", "shape": [2], "dtype": "float32"},
              {"name": "offset", "shape": [2], "dtype": "float32"}],
  "weight_name_mapping": {"p_fc_weight": "fc.weight", "p_fc_bias": "fc.bias",
                          "c_offset": "offset"},
  "constants": {"offset": {"data": [0.5, 1.5], "dtype": "float32"}},
  "nodes": [
    {"name": "linear", "op_type": "aten.linear.default",
     "inputs": [{"name": "x", "shape": [1, 2], "dtype": "float32", "producer_node": "x"},
                {"name": "p_fc_weight", "shape": [2, 2], "dtype": "float32"},
                {"name": "p_fc_bias", "shape": [2], "dtype": "float32"}],
     "outputs": [{"name": "linear", "shape": [1, 2], "dtype": "float32"}]},
    {"name": "add", "op_type": "aten.add.Tensor",
     "inputs": [{"name": "linear", "shape": [1, 2], "dtype": "float32", "producer_node": "linear"},
                {"name": "c_offset", "shape": [2], "dtype": "float32"}],
     "outputs": [{"name": "add", "shape": [1, 2], "dtype": "float32"}]}]})json";

StoredTensor Tensor(const std::string& name, ir::DType dtype, std::vector<int64_t> shape,
                    const std::vector<float>& values) {
  StoredTensor tensor;
  tensor.name = name;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.data = ir::TensorData::Copy(values.data(), values.size() * sizeof(float));
  return tensor;
}

class WeightBindingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto graph = ParsePytorchIr(kModel, "model.json");
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = std::move(*graph);
  }
  WeightFile File(std::vector<StoredTensor> tensors) {
    return WeightFile("w.safetensors", "safetensors", std::move(tensors));
  }
  std::unique_ptr<ir::Graph> graph_;
};

TEST_F(WeightBindingTest, BindsWeightsByStateDictKeyAndKeepsInlineConstants) {
  WeightFile file = File({Tensor("fc.weight", ir::DType::kFloat32, {2, 2}, {1, 2, 3, 4}),
                          Tensor("fc.bias", ir::DType::kFloat32, {2}, {5, 6})});
  ReadReport report;
  ASSERT_TRUE(BindWeights(file, graph_.get(), &report).ok());
  EXPECT_TRUE(report.warnings.empty());
  const ir::Value* weight = graph_->FindValue("p_fc_weight");
  ASSERT_EQ(weight->data().size(), 16u);
  float values[4];
  std::memcpy(values, weight->data().data(), sizeof(values));
  EXPECT_EQ(values[3], 4.0f);
  // The constant came from the IR's "constants" section.
  const ir::Value* offset = graph_->FindValue("c_offset");
  std::memcpy(values, offset->data().data(), 2 * sizeof(float));
  EXPECT_EQ(values[1], 1.5f);
  EXPECT_TRUE(CheckAllConstantsBound(*graph_, "model.json").ok());
}

TEST_F(WeightBindingTest, FileValueOverridesAnInlineConstant) {
  WeightFile file = File({Tensor("fc.weight", ir::DType::kFloat32, {2, 2}, {1, 2, 3, 4}),
                          Tensor("fc.bias", ir::DType::kFloat32, {2}, {5, 6}),
                          Tensor("offset", ir::DType::kFloat32, {2}, {7, 8})});
  ASSERT_TRUE(BindWeights(file, graph_.get(), nullptr).ok());
  float values[2];
  std::memcpy(values, graph_->FindValue("c_offset")->data().data(), sizeof(values));
  EXPECT_EQ(values[0], 7.0f);
}

// The full list behind a summary line, one problem per line.
std::string Details(const absl::Status& status) {
  auto payload = status.GetPayload(ir::kErrorDetailsPayload);
  return payload ? std::string(*payload) : "";
}

TEST_F(WeightBindingTest, MissingWeightsAreOneSummaryLine) {
  WeightFile file = File({});
  absl::Status status = BindWeights(file, graph_.get(), nullptr);
  ASSERT_FALSE(status.ok());
  // Nothing of the graph is in the file: it probably belongs to another model.
  EXPECT_EQ(status.message(),
            "2 weights missing from w.safetensors (first: 'fc.weight', 'fc.bias'): the weights "
            "file belongs to another model?");
  // The inline constant is not missing; each missing weight is in the details.
  EXPECT_EQ(Details(status),
            "w.safetensors: missing weight 'fc.weight' (placeholder 'p_fc_weight'), "
            "float32[2, 2]\n"
            "w.safetensors: missing weight 'fc.bias' (placeholder 'p_fc_bias'), float32[2]");
}

TEST_F(WeightBindingTest, OneMissingWeightIsItsOwnLine) {
  WeightFile file = File({Tensor("fc.weight", ir::DType::kFloat32, {2, 2}, {1, 2, 3, 4})});
  absl::Status status = BindWeights(file, graph_.get(), nullptr);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "w.safetensors: missing weight 'fc.bias' (placeholder 'p_fc_bias'), float32[2]");
  EXPECT_EQ(Details(status), "");
}

TEST_F(WeightBindingTest, ShapeAndDtypeMismatchesAreOneSummaryLine) {
  WeightFile file = File({Tensor("fc.weight", ir::DType::kFloat32, {4}, {1, 2, 3, 4}),
                          Tensor("fc.bias", ir::DType::kInt32, {2}, {5, 6})});
  absl::Status status = BindWeights(file, graph_.get(), nullptr);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "2 weights of w.safetensors differ from the graph in shape or dtype (first: weight "
            "'fc.weight' (placeholder 'p_fc_weight') is float32[4] but the graph expects "
            "float32[2, 2]; then 'fc.bias')");
  EXPECT_NE(Details(status).find("'fc.bias' (placeholder 'p_fc_bias') is int32[2]"),
            std::string::npos)
      << Details(status);
}

TEST_F(WeightBindingTest, ExtraTensorsAreOneWarning) {
  WeightFile file = File({Tensor("fc.weight", ir::DType::kFloat32, {2, 2}, {1, 2, 3, 4}),
                          Tensor("fc.bias", ir::DType::kFloat32, {2}, {5, 6}),
                          Tensor("bn.num_batches_tracked", ir::DType::kFloat32, {}, {0}),
                          Tensor("spare", ir::DType::kFloat32, {1}, {0})});
  ReadReport report;
  ASSERT_TRUE(BindWeights(file, graph_.get(), &report).ok());
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("2 tensor(s) not used by the graph: "
                                    "'bn.num_batches_tracked', 'spare'"),
            std::string::npos)
      << report.warnings[0];
}

TEST_F(WeightBindingTest, UnboundWeightsAreReportedWhenRequired) {
  absl::Status status = CheckAllConstantsBound(*graph_, "model.json");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "model.json: 2 weights and constants have no value (give --weights); first: "
            "'fc.weight', 'fc.bias'");
  EXPECT_NE(Details(status).find("weight 'fc.weight' (placeholder 'p_fc_weight') has no value"),
            std::string::npos)
      << Details(status);
}

}  // namespace
}  // namespace torchir::frontend
