#include "compiler/dialect/aten_call.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/frontend/ir_reader.h"

namespace torchir::dialect {
namespace {

using ir::AttrValue;

struct Input {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype = "float32";
};

std::string TensorJson(const Input& input, bool with_producer) {
  std::string json =
      absl::StrCat(R"({"name": ")", input.name, R"(", "shape": [)",
                   absl::StrJoin(input.shape, ", "), R"(], "dtype": ")", input.dtype, R"(")");
  if (with_producer) {
    absl::StrAppend(&json, R"(, "producer_node": ")", input.name, R"(", "producer_output_idx": 0)");
  }
  return json + "}";
}

// A pytorch-ir document with one node named `name` of op `op`, reading graph inputs `inputs`
// in order, with the attributes `attrs` (a JSON object) and `num_outputs` outputs.
std::string OneNodeDocument(std::string_view name, std::string_view op,
                            const std::vector<Input>& inputs, std::string_view attrs,
                            int num_outputs = 1) {
  std::vector<std::string> graph_inputs, node_inputs, outputs;
  for (const Input& input : inputs) {
    graph_inputs.push_back(TensorJson(input, false));
    node_inputs.push_back(TensorJson(input, true));
  }
  std::string first_output;
  for (int i = 0; i < num_outputs; ++i) {
    std::string output_name =
        num_outputs == 1 ? std::string(name) : absl::StrCat(std::string(name), "_", i);
    if (i == 0) first_output = TensorJson({output_name, {1}}, false);
    outputs.push_back(TensorJson({output_name, {1}}, false));
  }
  return absl::StrCat(R"({"model_name": "t", "pytorch_version": "2.8.0", "graph_inputs": [)",
                      absl::StrJoin(graph_inputs, ", "), R"(], "graph_outputs": [)", first_output,
                      R"(], "weights": [], "weight_name_mapping": {}, "nodes": [{"name": ")",
                      std::string(name), R"(", "op_type": ")", std::string(op), R"(", "inputs": [)",
                      absl::StrJoin(node_inputs, ", "), R"(], "outputs": [)",
                      absl::StrJoin(outputs, ", "), R"(], "attrs": )", std::string(attrs), "}]}");
}

// Parses a one-node document and binds its node.
class Bound {
 public:
  Bound(std::string_view name, std::string_view op, const std::vector<Input>& inputs,
        std::string_view attrs, int num_outputs = 1) {
    absl::StatusOr<std::unique_ptr<ir::Graph>> graph = frontend::ParsePytorchIr(
        OneNodeDocument(name, op, inputs, attrs, num_outputs), "test.json");
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return;
    graph_ = std::move(*graph);
    call_ = BindAtenCall(*graph_->first_node());
  }
  const absl::StatusOr<AtenCall>& call() const { return call_; }
  ir::Value* input(std::string_view name) const { return graph_->FindValue(name); }

 private:
  std::unique_ptr<ir::Graph> graph_;
  absl::StatusOr<AtenCall> call_ = absl::UnknownError("not parsed");
};

const std::vector<Input> kConvInputs = {{"x", {1, 3, 8, 8}}, {"w", {4, 3, 3, 3}}};

TEST(BindAtenCall, Conv2dWithBiasAndPartialAttributes) {
  Bound bound("conv2d", "aten.conv2d.default", {kConvInputs[0], kConvInputs[1], {"b", {4}}},
              R"({"stride": [2, 2], "padding": 1})");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  const AtenCall& call = *bound.call();
  EXPECT_EQ(*call.Tensor("input"), bound.input("x"));
  EXPECT_EQ(*call.Tensor("weight"), bound.input("w"));
  EXPECT_EQ(*call.OptionalTensor("bias"), bound.input("b"));
  EXPECT_EQ(*call.IntList("stride"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(*call.IntList("padding"), (std::vector<int64_t>{1, 1}));      // a single int broadcasts
  EXPECT_EQ(*call.IntList("dilation", 2), (std::vector<int64_t>{1, 1}));  // the default
  EXPECT_EQ(*call.Int("groups"), 1);
  EXPECT_TRUE(call.arguments()[6].from_default);
  EXPECT_FALSE(call.arguments()[3].from_default);
}

TEST(BindAtenCall, Conv2dWithoutBiasAndWithoutAttributes) {
  Bound bound("conv2d", "aten.conv2d.default", kConvInputs, "{}");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  const AtenCall& call = *bound.call();
  EXPECT_EQ(*call.OptionalTensor("bias"), nullptr);
  EXPECT_TRUE(call.IsNone("bias"));
  EXPECT_FALSE(call.Tensor("bias").ok());
  EXPECT_EQ(*call.IntList("stride"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(*call.IntList("padding"), (std::vector<int64_t>{0, 0}));
}

TEST(BindAtenCall, ScalarGivenForATensorArgument) {
  Bound bound("mul", "aten.mul.Tensor", {{"x", {2, 2}}}, R"({"other": 0.5})");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  const AtenCall& call = *bound.call();
  EXPECT_EQ(*call.Tensor("self"), bound.input("x"));
  EXPECT_FALSE(call.IsScalarForTensor("self"));
  EXPECT_TRUE(call.IsScalarForTensor("other"));
  EXPECT_EQ(*call.Scalar("other"), AttrValue::Double(0.5));
  absl::StatusOr<ir::Value*> other = call.Tensor("other");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(),
            "node 'mul' (aten.mul.Tensor): argument 'other': is the number 0.5, not a tensor "
            "input (see IsScalarForTensor)");
}

TEST(BindAtenCall, CatRegroupsItsInputsIntoTheList) {
  Bound bound("cat", "aten.cat.default", {{"a", {1, 2}}, {"b", {1, 3}}, {"c", {1, 1}}},
              R"({"dim": 1, "_tensor_list_sizes": [3]})");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  EXPECT_EQ(*bound.call()->TensorList("tensors"),
            (std::vector<ir::Value*>{bound.input("a"), bound.input("b"), bound.input("c")}));
  EXPECT_EQ(*bound.call()->Int("dim"), 1);
}

TEST(BindAtenCall, IndexPutsTheNonesBackIntoItsIndices) {
  Bound bound("index", "aten.index.Tensor", {{"x", {4, 5}}, {"i", {2}, "int64"}},
              R"({"_tensor_list_sizes": [1], "_tensor_list_none_masks": [[true, false]]})");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  EXPECT_EQ(*bound.call()->Tensor("self"), bound.input("x"));
  EXPECT_EQ(*bound.call()->TensorList("indices"),
            (std::vector<ir::Value*>{nullptr, bound.input("i")}));
}

TEST(BindAtenCall, BatchNormWithoutAffineHasRunningStatsOnly) {
  Bound bound("bn", "aten.batch_norm.default", {{"x", {1, 3, 4, 4}}, {"m", {3}}, {"v", {3}}},
              R"({"training": false, "momentum": 0.1, "eps": 1e-05, "cudnn_enabled": true})");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  const AtenCall& call = *bound.call();
  EXPECT_EQ(*call.OptionalTensor("weight"), nullptr);
  EXPECT_EQ(*call.OptionalTensor("bias"), nullptr);
  EXPECT_EQ(*call.OptionalTensor("running_mean"), bound.input("m"));
  EXPECT_EQ(*call.OptionalTensor("running_var"), bound.input("v"));
  EXPECT_FALSE(*call.Bool("training"));
  EXPECT_DOUBLE_EQ(*call.Double("eps"), 1e-5);
}

TEST(BindAtenCall, BatchNormWithBatchStatisticsHasAffineOnly) {
  Bound bound("bn", "aten.batch_norm.default", {{"x", {1, 3, 4, 4}}, {"w", {3}}, {"b", {3}}},
              R"({"training": true, "momentum": 0.1, "eps": 1e-05, "cudnn_enabled": true})");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  EXPECT_EQ(*bound.call()->OptionalTensor("weight"), bound.input("w"));
  EXPECT_EQ(*bound.call()->OptionalTensor("bias"), bound.input("b"));
  EXPECT_EQ(*bound.call()->OptionalTensor("running_mean"), nullptr);
}

TEST(BindAtenCall, AnOddNumberOfBatchNormTensorsIsAmbiguous) {
  Bound bound("bn", "aten.batch_norm.default", {{"x", {1, 3, 4, 4}}, {"w", {3}}},
              R"({"training": false, "momentum": 0.1, "eps": 1e-05, "cudnn_enabled": true})");
  ASSERT_FALSE(bound.call().ok());
  EXPECT_EQ(bound.call().status().message(),
            "node 'bn' (aten.batch_norm.default): 1 of the optional tensor arguments 'weight', "
            "'bias', 'running_mean', 'running_var' were given, and the file does not say which "
            "(a None tensor leaves no input); no choice fits the op's rules");
}

TEST(BindAtenCall, OptionalTensorsOfAnOpWithoutRuleAreAmbiguous) {
  Bound bound("bce", "aten.binary_cross_entropy_with_logits.default",
              {{"x", {4}}, {"t", {4}}, {"w", {4}}}, R"({"reduction": 1})");
  ASSERT_FALSE(bound.call().ok());
  EXPECT_NE(bound.call().status().message().find("no rule for this op decides it"),
            std::string::npos)
      << bound.call().status();
}

TEST(BindAtenCall, LayerNormWithoutAffineAndWithWeightOnly) {
  Bound plain("ln", "aten.layer_norm.default", {{"x", {2, 4}}},
              R"({"normalized_shape": [4], "eps": 1e-05})");
  ASSERT_TRUE(plain.call().ok()) << plain.call().status();
  EXPECT_EQ(*plain.call()->OptionalTensor("weight"), nullptr);
  EXPECT_EQ(*plain.call()->OptionalTensor("bias"), nullptr);
  EXPECT_EQ(*plain.call()->IntList("normalized_shape"), std::vector<int64_t>{4});

  // One of weight and bias: a bias never comes without its weight.
  Bound weight_only("ln", "aten.layer_norm.default", {{"x", {2, 4}}, {"w", {4}}},
                    R"({"normalized_shape": [4]})");
  ASSERT_TRUE(weight_only.call().ok()) << weight_only.call().status();
  EXPECT_EQ(*weight_only.call()->OptionalTensor("weight"), weight_only.input("w"));
  EXPECT_EQ(*weight_only.call()->OptionalTensor("bias"), nullptr);
  EXPECT_DOUBLE_EQ(*weight_only.call()->Double("eps"), 1e-5);
}

TEST(BindAtenCall, MaxPoolWithStrideAbsentKeepsTheEmptyDefault) {
  Bound bound("pool", "aten.max_pool2d.default", {{"x", {1, 1, 4, 4}}},
              R"({"kernel_size": [2, 2]})");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  const AtenCall& call = *bound.call();
  EXPECT_EQ(*call.IntList("kernel_size", 2), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(call.IntList("stride")->empty());  // `stride=[]`: the caller uses kernel_size
  EXPECT_FALSE(call.IntList("stride", 2).ok());
  EXPECT_EQ(*call.IntList("padding"), (std::vector<int64_t>{0, 0}));
  EXPECT_FALSE(*call.Bool("ceil_mode"));
}

TEST(BindAtenCall, KeywordOnlyArguments) {
  Bound gelu("gelu", "aten.gelu.default", {{"x", {3}}}, R"({"approximate": "tanh"})");
  ASSERT_TRUE(gelu.call().ok()) << gelu.call().status();
  EXPECT_EQ(*gelu.call()->String("approximate"), "tanh");

  Bound add("add", "aten.add.Tensor", {{"x", {3}}, {"y", {3}}}, R"({"alpha": 2})");
  ASSERT_TRUE(add.call().ok()) << add.call().status();
  EXPECT_EQ(*add.call()->Scalar("alpha"), AttrValue::Int(2));

  Bound sdpa("sdpa", "aten.scaled_dot_product_attention.default",
             {{"q", {1, 2, 4, 8}}, {"k", {1, 2, 4, 8}}, {"v", {1, 2, 4, 8}}},
             R"({"is_causal": true, "scale": 0.125})");
  ASSERT_TRUE(sdpa.call().ok()) << sdpa.call().status();
  EXPECT_EQ(*sdpa.call()->OptionalTensor("attn_mask"), nullptr);
  EXPECT_TRUE(*sdpa.call()->Bool("is_causal"));
  EXPECT_EQ(*sdpa.call()->OptionalDouble("scale"), 0.125);
  EXPECT_FALSE(*sdpa.call()->Bool("enable_gqa"));
  EXPECT_DOUBLE_EQ(*sdpa.call()->Double("dropout_p"), 0.0);
}

TEST(BindAtenCall, DTypeArguments) {
  Bound to("to", "aten.to.dtype", {{"x", {3}}}, R"({"dtype": "torch.float16"})");
  ASSERT_TRUE(to.call().ok()) << to.call().status();
  EXPECT_EQ(*to.call()->OptionalDType("dtype"), ir::DType::kFloat16);
  Bound softmax("softmax", "aten.softmax.int", {{"x", {3}}}, R"({"dim": -1})");
  ASSERT_TRUE(softmax.call().ok()) << softmax.call().status();
  EXPECT_EQ(*softmax.call()->OptionalDType("dtype"), std::nullopt);
}

TEST(BindAtenCall, RejectsUnknownOpsAndGetitem) {
  Bound unknown("n", "aten.no_such_op.default", {{"x", {3}}}, "{}");
  ASSERT_FALSE(unknown.call().ok());
  EXPECT_EQ(unknown.call().status().message(),
            "node 'n' (aten.no_such_op.default): unknown op: no ATen schema of that name");

  Bound getitem("g", "<built-in function getitem>", {{"x", {3}}}, R"({"index": 0})");
  ASSERT_FALSE(getitem.call().ok());
  EXPECT_NE(getitem.call().status().message().find("getitem is not an ATen op"), std::string::npos);
}

TEST(BindAtenCall, RejectsAnAttributeThatNamesNoArgument) {
  Bound bound("relu", "aten.relu.default", {{"x", {3}}}, R"({"inplace": false})");
  ASSERT_FALSE(bound.call().ok());
  EXPECT_NE(bound.call().status().message().find(
                "node 'relu' (aten.relu.default): attribute 'inplace' = False names no argument"),
            std::string::npos)
      << bound.call().status();
}

TEST(BindAtenCall, RejectsAMissingRequiredAttribute) {
  Bound bound("t", "aten.transpose.int", {{"x", {2, 3}}}, R"({"dim0": 0})");
  ASSERT_FALSE(bound.call().ok());
  EXPECT_EQ(bound.call().status().message(),
            "node 't' (aten.transpose.int): argument 'dim1': missing: the node has no attribute "
            "'dim1' and the schema gives no default (int)");
}

TEST(BindAtenCall, RejectsAListOfTheWrongLength) {
  Bound bound("conv2d", "aten.conv2d.default", kConvInputs, R"({"stride": [1, 1, 1]})");
  ASSERT_FALSE(bound.call().ok());
  EXPECT_EQ(bound.call().status().message(),
            "node 'conv2d' (aten.conv2d.default): argument 'stride': expected int[2], got "
            "[1, 1, 1]");

  Bound ln("ln", "aten.layer_norm.default", {{"x", {2, 4}}}, R"({"normalized_shape": [4]})");
  ASSERT_TRUE(ln.call().ok()) << ln.call().status();
  absl::StatusOr<std::vector<int64_t>> shape = ln.call()->IntList("normalized_shape", 2);
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().message(),
            "node 'ln' (aten.layer_norm.default): argument 'normalized_shape': expected int[2], "
            "got [4]");
}

TEST(BindAtenCall, RejectsAValueOfTheWrongType) {
  Bound bound("t", "aten.transpose.int", {{"x", {2, 3}}}, R"({"dim0": 0, "dim1": "one"})");
  ASSERT_FALSE(bound.call().ok());
  EXPECT_EQ(bound.call().status().message(),
            "node 't' (aten.transpose.int): argument 'dim1': expected int, got 'one'");
}

TEST(BindAtenCall, RejectsTooManyAndTooFewTensors) {
  Bound many("relu", "aten.relu.default", {{"x", {3}}, {"y", {3}}}, "{}");
  ASSERT_FALSE(many.call().ok());
  EXPECT_NE(many.call().status().message().find(
                "node 'relu' (aten.relu.default): has 2 tensor input(s), more than the 1 the "
                "schema takes"),
            std::string::npos)
      << many.call().status();

  Bound few("add", "aten.add.Tensor", {{"x", {3}}}, "{}");
  ASSERT_FALSE(few.call().ok());
  EXPECT_NE(few.call().status().message().find("but the schema needs at least 2"),
            std::string::npos)
      << few.call().status();
}

TEST(BindAtenCall, AccessorsNameTheNodeOpAndArgument) {
  Bound bound("conv2d", "aten.conv2d.default", kConvInputs, "{}");
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  const AtenCall& call = *bound.call();
  EXPECT_EQ(call.Int("strides").status().message(),
            "node 'conv2d' (aten.conv2d.default): argument 'strides': no such argument in "
            "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
            "int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor");
  EXPECT_EQ(call.Int("stride").status().message(),
            "node 'conv2d' (aten.conv2d.default): argument 'stride': expected int, got [1, 1]");
  EXPECT_FALSE(call.Int("input").ok());
  EXPECT_FALSE(call.TensorList("input").ok());
}

TEST(BindAtenCall, AHandMadeNodeWithoutListSizesGivesTheListTheRest) {
  ir::Graph graph;
  ir::Value* a = graph.AddInput("a", {ir::DType::kFloat32, {1, 2}});
  ir::Value* b = graph.AddInput("b", {ir::DType::kFloat32, {1, 2}});
  ir::Node* cat = graph.AppendNode("cat", "aten.stack.default", {a, b}, {"cat"},
                                   {{ir::DType::kFloat32, {2, 1, 2}}});
  absl::StatusOr<AtenCall> call = BindAtenCall(*cat);
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(*call->TensorList("tensors"), (std::vector<ir::Value*>{a, b}));
  EXPECT_EQ(*call->Int("dim"), 0);
}

TEST(BindAtenCall, MultiOutputOpsBind) {
  Bound bound("bn", "aten._native_batch_norm_legit_no_training.default",
              {{"x", {1, 3, 4, 4}}, {"m", {3}}, {"v", {3}}}, R"({"momentum": 0.1, "eps": 1e-05})",
              3);
  ASSERT_TRUE(bound.call().ok()) << bound.call().status();
  EXPECT_EQ(*bound.call()->OptionalTensor("weight"), nullptr);
  EXPECT_EQ(*bound.call()->Tensor("running_mean"), bound.input("m"));
}

}  // namespace
}  // namespace torchir::dialect
