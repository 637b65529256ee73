#include "compiler/dialect/aten_schema.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace torchir::dialect {
namespace {

using ir::AttrValue;

const AtenSchema& Get(std::string_view op_type) {
  const AtenSchema* schema = FindAtenSchema(op_type);
  EXPECT_NE(schema, nullptr) << op_type;
  static const AtenSchema empty;
  return schema != nullptr ? *schema : empty;
}

const AtenArgument& Arg(const AtenSchema& schema, std::string_view name) {
  const AtenArgument* argument = schema.FindArgument(name);
  EXPECT_NE(argument, nullptr) << schema.text << " has no " << name;
  static const AtenArgument empty;
  return argument != nullptr ? *argument : empty;
}

TEST(AtenSchemaTable, EverySchemaParses) {
  for (const std::string& error : AtenSchemaTableErrors()) ADD_FAILURE() << error;
  EXPECT_EQ(AllAtenSchemas().size(), AtenSchemaStrings().size());
  EXPECT_GT(AllAtenSchemas().size(), 1500u);
}

TEST(AtenSchemaTable, EverySchemaIsFoundByItsOpType) {
  for (const AtenSchema& schema : AllAtenSchemas()) {
    EXPECT_EQ(FindAtenSchema(schema.OpType()), &schema) << schema.text;
  }
}

TEST(AtenSchemaTable, ExcludesOutVariantsAndBackwardOps) {
  EXPECT_EQ(FindAtenSchema("aten.add.out"), nullptr);
  EXPECT_EQ(FindAtenSchema("aten.convolution_backward.default"), nullptr);
  for (const AtenSchema& schema : AllAtenSchemas()) {
    for (const AtenArgument& argument : schema.arguments) {
      EXPECT_FALSE(argument.kwarg_only && argument.alias.is_write) << schema.text;
    }
  }
}

TEST(AtenSchemaTable, FindsOpTypesAsPytorchIrSpellsThem) {
  EXPECT_EQ(Get("aten.conv2d.default").name, "conv2d");
  EXPECT_EQ(Get("aten.conv2d.default").overload, "");
  EXPECT_EQ(Get("aten.conv2d.padding").overload, "padding");
  EXPECT_EQ(Get("aten.add.Tensor").OpType(), "aten.add.Tensor");
  EXPECT_EQ(FindAtenSchema("getitem"), nullptr);
  EXPECT_EQ(FindAtenSchema("aten.conv2d"), nullptr);
  EXPECT_EQ(FindAtenSchema("aten.no_such_op.default"), nullptr);
  EXPECT_EQ(FindAtenSchema("prims.conv2d.default"), nullptr);
}

TEST(AtenSchemaTable, HoldsTheSupplementOfCurrentPyTorch) {
  for (std::string_view op :
       {"aten.scaled_dot_product_attention.default",
        "aten._native_batch_norm_legit_no_training.default",
        "aten._native_batch_norm_legit.default", "aten._native_batch_norm_legit.no_stats",
        "aten.rms_norm.default", "aten.squeeze.dims", "aten._unsafe_index.Tensor",
        "aten._safe_softmax.default"}) {
    EXPECT_NE(FindAtenSchema(op), nullptr) << op;
  }
  // Current PyTorch's spelling wins over 1.13's: correction is an optional Scalar.
  const AtenSchema& var = Get("aten.var.correction");
  EXPECT_EQ(Arg(var, "correction").type.ToString(), "Scalar?");
  EXPECT_EQ(Arg(var, "dim").default_value, AttrValue::None());
}

TEST(AtenSchema, Conv2d) {
  const AtenSchema& conv = Get("aten.conv2d.default");
  ASSERT_EQ(conv.arguments.size(), 7u);
  EXPECT_EQ(conv.arguments[0].name, "input");
  EXPECT_TRUE(conv.arguments[0].type.is_tensor());
  EXPECT_FALSE(conv.arguments[0].default_value.has_value());
  const AtenArgument& bias = Arg(conv, "bias");
  EXPECT_EQ(bias.type.ToString(), "Tensor?");
  EXPECT_EQ(bias.default_value, AttrValue::None());
  const AtenArgument& stride = Arg(conv, "stride");
  EXPECT_EQ(stride.type.ToString(), "int[2]");
  EXPECT_EQ(stride.type.fixed_size, 2);
  // `int[2] stride=1` broadcasts the single default.
  EXPECT_EQ(stride.default_value, AttrValue::IntList({1, 1}));
  EXPECT_EQ(Arg(conv, "padding").default_value, AttrValue::IntList({0, 0}));
  EXPECT_EQ(Arg(conv, "groups").default_value, AttrValue::Int(1));
  ASSERT_EQ(conv.returns.size(), 1u);
  EXPECT_TRUE(conv.returns[0].type.is_tensor());
  EXPECT_FALSE(conv.IsMutating());
  EXPECT_EQ(Arg(Get("aten.conv2d.padding"), "padding").default_value, AttrValue::String("valid"));
}

TEST(AtenSchema, BatchNorm) {
  const AtenSchema& bn = Get("aten.batch_norm.default");
  std::vector<std::string> names;
  for (const AtenArgument& argument : bn.arguments) names.push_back(argument.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"input", "weight", "bias", "running_mean", "running_var",
                                      "training", "momentum", "eps", "cudnn_enabled"}));
  EXPECT_EQ(Arg(bn, "running_mean").type.ToString(), "Tensor?");
  EXPECT_EQ(Arg(bn, "training").type.kind, AtenTypeKind::kBool);
  EXPECT_EQ(Arg(bn, "eps").type.kind, AtenTypeKind::kFloat);
  const AtenSchema& legit = Get("aten._native_batch_norm_legit.default");
  EXPECT_TRUE(Arg(legit, "running_mean").alias.is_write);
  EXPECT_TRUE(legit.IsMutating());
  EXPECT_EQ(legit.returns.size(), 3u);
  EXPECT_EQ(Get("aten._native_batch_norm_legit_no_training.default").returns.size(), 3u);
}

TEST(AtenSchema, IndexTakesAListOfOptionalTensors) {
  const AtenArgument& indices = Arg(Get("aten.index.Tensor"), "indices");
  EXPECT_TRUE(indices.type.is_tensor_list());
  EXPECT_TRUE(indices.type.element_optional);
  EXPECT_FALSE(indices.type.optional);
  EXPECT_EQ(indices.type.ToString(), "Tensor?[]");
}

TEST(AtenSchema, SplitReturnsAListOfViews) {
  const AtenSchema& split = Get("aten.split.Tensor");
  ASSERT_EQ(split.returns.size(), 1u);
  EXPECT_TRUE(split.returns[0].type.is_tensor_list());
  EXPECT_EQ(split.returns[0].alias.sets, std::vector<std::string>{"a"});
  // `Tensor(a -> *) self`
  const AtenAlias& self = Arg(split, "self").alias;
  EXPECT_EQ(self.sets, std::vector<std::string>{"a"});
  EXPECT_EQ(self.after_sets, std::vector<std::string>{"*"});
  EXPECT_FALSE(self.is_write);
  EXPECT_EQ(Arg(split, "split_size").type.kind, AtenTypeKind::kInt);
}

TEST(AtenSchema, InPlaceAddWritesSelf) {
  const AtenSchema& add = Get("aten.add_.Tensor");
  EXPECT_TRUE(Arg(add, "self").alias.is_write);
  EXPECT_EQ(Arg(add, "self").alias.sets, std::vector<std::string>{"a"});
  EXPECT_TRUE(add.IsMutating());
  ASSERT_EQ(add.returns.size(), 1u);
  EXPECT_TRUE(add.returns[0].alias.is_write);
  const AtenArgument& alpha = Arg(add, "alpha");
  EXPECT_TRUE(alpha.kwarg_only);
  EXPECT_EQ(alpha.type.kind, AtenTypeKind::kScalar);
  EXPECT_EQ(alpha.default_value, AttrValue::Int(1));
  EXPECT_FALSE(Get("aten.add.Tensor").IsMutating());
}

TEST(AtenSchema, ViewAliasesItsInput) {
  const AtenSchema& view = Get("aten.view.default");
  EXPECT_EQ(Arg(view, "self").alias.sets, std::vector<std::string>{"a"});
  EXPECT_FALSE(Arg(view, "self").alias.is_write);
  EXPECT_FALSE(view.IsMutating());
  EXPECT_EQ(view.returns[0].alias.sets, std::vector<std::string>{"a"});
  EXPECT_EQ(Arg(view, "size").type.ToString(), "int[]");  // SymInt[] reads as int[]
}

TEST(AtenSchema, MaxPoolStrideDefaultsToAnEmptyList) {
  const AtenSchema& pool = Get("aten.max_pool2d.default");
  EXPECT_FALSE(Arg(pool, "kernel_size").default_value.has_value());
  EXPECT_EQ(Arg(pool, "stride").default_value, AttrValue::IntList({}));
  EXPECT_EQ(Arg(pool, "padding").default_value, AttrValue::IntList({0, 0}));
  EXPECT_EQ(Arg(pool, "ceil_mode").default_value, AttrValue::Bool(false));
}

TEST(AtenSchema, EnumTypesAndDefaults) {
  const AtenSchema& to = Get("aten.to.dtype");
  EXPECT_EQ(Arg(to, "dtype").type.ToString(), "ScalarType");
  EXPECT_FALSE(Arg(to, "dtype").default_value.has_value());
  EXPECT_EQ(Arg(to, "memory_format").type.ToString(), "MemoryFormat?");
  EXPECT_EQ(Arg(Get("aten.contiguous.default"), "memory_format").default_value,
            AttrValue::OfMemoryFormat(ir::MemoryFormat::kContiguous));
  EXPECT_EQ(Arg(Get("aten.randint.default"), "dtype").default_value,
            AttrValue::OfDType(ir::DType::kInt64));
  EXPECT_EQ(Arg(Get("aten._to_copy.default"), "device").type.ToString(), "Device?");
}

TEST(AtenSchema, GeluApproximateIsAKeywordString) {
  const AtenArgument& approximate = Arg(Get("aten.gelu.default"), "approximate");
  EXPECT_TRUE(approximate.kwarg_only);
  EXPECT_EQ(approximate.type.kind, AtenTypeKind::kString);
  EXPECT_EQ(approximate.default_value, AttrValue::String("none"));
}

TEST(AtenSchema, ScaledDotProductAttentionHasKeywordOnlyScale) {
  const AtenSchema& sdpa = Get("aten.scaled_dot_product_attention.default");
  EXPECT_FALSE(Arg(sdpa, "is_causal").kwarg_only);
  EXPECT_EQ(Arg(sdpa, "dropout_p").default_value, AttrValue::Double(0.0));
  const AtenArgument& scale = Arg(sdpa, "scale");
  EXPECT_TRUE(scale.kwarg_only);
  EXPECT_EQ(scale.type.ToString(), "float?");
  EXPECT_EQ(scale.default_value, AttrValue::None());
  EXPECT_EQ(Arg(sdpa, "enable_gqa").default_value, AttrValue::Bool(false));
  EXPECT_EQ(Arg(Get("aten.layer_norm.default"), "eps").default_value, AttrValue::Double(1e-5));
}

TEST(AtenSchemaParser, ParsesTheWholeGrammar) {
  absl::StatusOr<AtenSchema> schema = ParseAtenSchema(
      "aten::f.over(Tensor(a!) self, Tensor?[]? xs, t[](b) items, int[1]? dim=None, "
      "float lo=-inf, float hi=inf, float[] ws=[], int[] p=[0, 1], bool[3] m=[True, False, True], "
      "str s='nearest', *, ScalarType dtype=float, Layout? layout=strided, Device d=\"cpu\") "
      "-> (Tensor(a!) out, Tensor[] rest)");
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(schema->name, "f");
  EXPECT_EQ(schema->overload, "over");
  EXPECT_EQ(schema->arguments.size(), 13u);
  EXPECT_EQ(Arg(*schema, "xs").type.ToString(), "Tensor?[]?");
  EXPECT_EQ(Arg(*schema, "items").type.kind, AtenTypeKind::kAny);
  EXPECT_EQ(Arg(*schema, "dim").type.ToString(), "int[1]?");
  EXPECT_TRUE(std::isinf(Arg(*schema, "lo").default_value->as_double()));
  EXPECT_LT(Arg(*schema, "lo").default_value->as_double(), 0);
  EXPECT_EQ(Arg(*schema, "ws").default_value, AttrValue::DoubleList({}));
  EXPECT_EQ(Arg(*schema, "p").default_value, AttrValue::IntList({0, 1}));
  EXPECT_EQ(Arg(*schema, "m").default_value, AttrValue::BoolList({true, false, true}));
  EXPECT_TRUE(Arg(*schema, "dtype").kwarg_only);
  EXPECT_EQ(Arg(*schema, "dtype").default_value, AttrValue::OfDType(ir::DType::kFloat32));
  EXPECT_EQ(Arg(*schema, "layout").default_value, AttrValue::OfLayout(ir::Layout::kStrided));
  EXPECT_EQ(Arg(*schema, "d").default_value->as_device().type, "cpu");
  ASSERT_EQ(schema->returns.size(), 2u);
  EXPECT_EQ(schema->returns[0].name, "out");
  EXPECT_TRUE(schema->returns[0].alias.is_write);
  EXPECT_TRUE(schema->returns[1].type.is_tensor_list());

  absl::StatusOr<AtenSchema> none = ParseAtenSchema("aten::g(Tensor self, ...) -> ()");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->is_vararg);
  EXPECT_TRUE(none->returns.empty());
  absl::StatusOr<AtenSchema> alias_or = ParseAtenSchema("aten::h(Tensor(a) self) -> Tensor(b|a)");
  ASSERT_TRUE(alias_or.ok()) << alias_or.status();
  EXPECT_EQ(alias_or->returns[0].alias.sets, (std::vector<std::string>{"b", "a"}));
}

TEST(AtenSchemaParser, RejectsMalformedSchemas) {
  for (std::string_view text : {
           "aten::f(Tensor self)",                   // no returns
           "aten::f(Tensr self) -> Tensor",          // unknown type
           "aten::f(Tensor self -> Tensor",          // unclosed
           "aten::f(int x=1.5) -> Tensor",           // a float default for an int
           "aten::f(int x=None) -> Tensor",          // None for a non-optional
           "aten::f(Tensor x, Tensor x) -> Tensor",  // repeated name
           "aten::f(Tensor(a self) -> Tensor",       // unclosed alias
           "aten::f(Tensor self) -> Tensor trailing junk",
       }) {
    absl::StatusOr<AtenSchema> schema = ParseAtenSchema(text);
    EXPECT_FALSE(schema.ok()) << text;
    if (!schema.ok()) {
      EXPECT_NE(std::string(schema.status().message()).find("cannot parse schema"),
                std::string::npos);
    }
  }
}

}  // namespace
}  // namespace torchir::dialect
