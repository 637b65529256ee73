// The capability table: what XNNPACK takes, the layout it needs, and the exact
// reason for everything it refuses.
#include "backends/xnnpack/partitioner/op_capability.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"

namespace torchir::xnnpack {
namespace {

using testing::EdgeGraphBuilder;
using testing::F32;
using ::testing::HasSubstr;
using testing::I64;
using testing::kInf;

Support Check(const ir::Value* output) { return CheckXnnpackSupport(*output->producer()); }

void ExpectRefused(const ir::Value* output, const std::string& reason_part) {
  Support support = Check(output);
  EXPECT_FALSE(support.ok()) << output->producer()->op();
  EXPECT_THAT(support.reason, HasSubstr(reason_part));
}

void ExpectTaken(const ir::Value* output, LayoutNeed need) {
  Support support = Check(output);
  EXPECT_TRUE(support.ok()) << support.reason;
  EXPECT_EQ(support.need, need) << LayoutNeedName(support.need);
}

TEST(OpCapabilityTest, TheTableHasOneEntryPerEdgeOp) {
  std::vector<std::string_view> seen;
  for (const OpCapability& capability : XnnpackCapabilities()) {
    EXPECT_NE(dialect::FindEdgeOp(capability.op), nullptr) << capability.op;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), capability.op), 0) << capability.op;
    seen.push_back(capability.op);
    EXPECT_NE(capability.check, nullptr);
    EXPECT_NE(capability.serialize, nullptr);
  }
  for (const char* op : {"edge.convolution", "edge.linear",      "edge.add",         "edge.sub",
                         "edge.mul",         "edge.div",         "edge.maximum",     "edge.minimum",
                         "edge.clamp",       "edge.hardswish",   "edge.hardsigmoid", "edge.sigmoid",
                         "edge.leaky_relu",  "edge.neg",         "edge.abs",         "edge.sqrt",
                         "edge.softmax",     "edge.max_pool2d",  "edge.avg_pool2d",  "edge.mean",
                         "edge.reshape",     "edge.constant_pad"}) {
    EXPECT_NE(FindXnnpackCapability(op), nullptr) << op;
  }
  EXPECT_FALSE(FindXnnpackCapability("edge.reshape")->computes);
  EXPECT_TRUE(FindXnnpackCapability("edge.add")->computes);
}

TEST(OpCapabilityTest, OpsWithoutAnEntrySayWhatThisXnnpackLacks) {
  EdgeGraphBuilder g;
  ir::Value* a = g.Input("a", F32({2, 3, 4}));
  ir::Value* b = g.Input("b", F32({2, 4, 5}));
  ExpectRefused(g.Op("edge.matmul", {a, b}), "no batch matrix multiply");
  ExpectRefused(g.Permute(a, {0, 2, 1}), "has no transpose");
  ExpectRefused(g.Op("edge.concatenate", {a, a}, {{"dim", ir::AttrValue::Int(0)}}),
                "has no concatenate");
  ExpectRefused(g.Op("edge.tanh", {a}), "(2022-02-16) has no tanh");
  ExpectRefused(g.Op("edge.layer_norm", {a},
                     {{"normalized_shape", ir::AttrValue::IntList({4})},
                      {"eps", ir::AttrValue::Double(1e-5)}}),
                "has no layer normalisation");
  EXPECT_EQ(RefusalReason("edge.frobnicate"),
            "the XNNPACK delegate has no mapping for edge.frobnicate");
}

TEST(OpCapabilityTest, EveryTensorMustBeNonEmptyFloat32WithAtMostSixDims) {
  EdgeGraphBuilder g;
  ir::Value* ints = g.Input("ints", I64({2, 3}));
  ExpectRefused(g.Op("edge.add", {ints, ints}),
                "input 'ints' is int64: the XNNPACK delegate runs float32 only");
  ir::Value* deep = g.Input("deep", F32({1, 1, 1, 1, 1, 1, 2}));
  ExpectRefused(g.Op("edge.add", {deep, deep}), "has rank 7: XNNPACK tensors have at most 6");
  ir::Value* empty = g.Input("empty", F32({0, 3}));
  ExpectRefused(g.Op("edge.sigmoid", {empty}), "[0, 3] is empty");
}

TEST(OpCapabilityTest, ConvolutionIsTwoDimensionalChannelsLastWithConstantWeights) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 4, 8, 8}));
  ir::Value* w = g.Weight("w", F32({6, 4, 3, 3}));
  ExpectTaken(g.Conv(x, w, g.Weight("b", F32({6})), {1, 1}, {1, 1}), LayoutNeed::kChannelsLast);
  // Depthwise and grouped convolutions, and 1-d ones (height 1), are taken too.
  ExpectTaken(g.Conv(x, g.Weight("dw", F32({8, 1, 3, 3})), nullptr, {1, 1}, {1, 1}, {1, 1}, 4),
              LayoutNeed::kChannelsLast);
  ExpectTaken(
      g.Conv(g.Input("seq", F32({1, 4, 16})), g.Weight("w1", F32({6, 4, 3})), nullptr, {1}, {1}),
      LayoutNeed::kChannelsLast);

  ExpectRefused(g.Conv(g.Input("volume", F32({1, 4, 4, 4, 4})),
                       g.Weight("w3", F32({2, 4, 1, 1, 1})), nullptr, {1, 1, 1}, {0, 0, 0}),
                "3-d convolution: XNNPACK has 2-d convolution only");
  ir::Value* computed = g.Op("edge.neg", {w});
  ExpectRefused(g.Conv(x, computed, nullptr, {1, 1}, {1, 1}),
                "weight 'neg' is computed at run time");
  ExpectRefused(g.Conv(x, w, g.Op("edge.neg", {g.Weight("b2", F32({6}))}), {1, 1}, {1, 1}),
                "bias 'neg_1' is computed at run time");
  ExpectRefused(g.Conv(x, w, nullptr, {1, 1}, {1, 1}, {1, 1}, 1, 2.0, 2.0),
                "fused clamp [2, 2] is empty");
  // Legal in PyTorch, beyond XNNPACK's 32-bit window arithmetic: left to the portable kernel.
  ExpectRefused(g.Conv(x, w, nullptr, {int64_t{1} << 24, 1}, {1, 1}),
                "stride [16777216, 1] is beyond 16777215: XNNPACK computes windows in 32 bits");
  ExpectTaken(g.Conv(x, w, nullptr, {(int64_t{1} << 24) - 1, 1}, {1, 1}),
              LayoutNeed::kChannelsLast);
}

TEST(OpCapabilityTest, LinearOverA4dTensorNeedsTheLogicalLayout) {
  EdgeGraphBuilder g;
  ir::Value* w = g.Weight("w", F32({5, 8}));
  ExpectTaken(g.Linear(g.Input("x2", F32({2, 8})), w), LayoutNeed::kAny);
  // fully_connected reduces the innermost stored dim, which channels-last makes C.
  ExpectTaken(g.Linear(g.Input("x4", F32({1, 2, 3, 8})), w), LayoutNeed::kLogical);
  ExpectRefused(g.Linear(g.Input("x", F32({2, 8})), g.Input("runtime_w", F32({5, 8}))),
                "weight 'runtime_w' is computed at run time");
}

TEST(OpCapabilityTest, ElementwiseOps) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 4, 5}));
  for (const char* op :
       {"edge.hardswish", "edge.hardsigmoid", "edge.sigmoid", "edge.silu", "edge.neg", "edge.abs",
        "edge.sqrt", "edge.rsqrt", "edge.reciprocal", "edge.floor", "edge.ceil", "edge.round"}) {
    ExpectTaken(g.Op(op, {x}), LayoutNeed::kAny);
  }
  auto elu = [&](double alpha, double scale, double input_scale) {
    return g.Op("edge.elu", {x},
                {{"alpha", ir::AttrValue::Double(alpha)},
                 {"scale", ir::AttrValue::Double(scale)},
                 {"input_scale", ir::AttrValue::Double(input_scale)}});
  };
  ExpectTaken(elu(1.0, 1.0, 1.0), LayoutNeed::kAny);              // elu
  ExpectTaken(elu(1.6732632, 1.0507010, 1.0), LayoutNeed::kAny);  // selu
  ExpectRefused(elu(2.0, 1.0, 0.5), "elu with input_scale 0.5");  // celu(alpha = 2)
  ExpectRefused(g.Op("edge.sin", {x}), "(2022-02-16) has no trigonometric functions");
  // prelu: constant slopes; per channel needs the channels (dim 1) innermost.
  ExpectTaken(g.Op("edge.prelu", {x, g.Weight("slopes", F32({3}))}), LayoutNeed::kChannelsLast);
  ExpectTaken(g.Op("edge.prelu", {x, g.Scalar("slope", 0.25)}), LayoutNeed::kAny);
  ir::Value* m = g.Input("m", F32({4, 3}));
  ExpectTaken(g.Op("edge.prelu", {m, g.Weight("slopes_2d", F32({3}))}), LayoutNeed::kAny);
  ExpectRefused(g.Op("edge.prelu", {x, g.Op("edge.neg", {g.Weight("w3", F32({3}))})}),
                "is computed at run time");
  ExpectTaken(g.Clamp(x, 0, 6), LayoutNeed::kAny);
  ExpectRefused(g.Clamp(x, 1, 1), "clamp to [1, 1]: XNNPACK needs min < max");
  ExpectTaken(g.Op("edge.pow", {x, g.Scalar("two", 2)}), LayoutNeed::kAny);
  ExpectRefused(g.Op("edge.pow", {x, g.Scalar("three", 3)}),
                "exponent 3: XNNPACK has square (2) and square root (0.5) only");
  ExpectRefused(g.Op("edge.pow", {x, x}), "exponent 'x' is not a one-element constant");
}

TEST(OpCapabilityTest, UnaryOpsRefuseA0dInput) {
  // XNNPACK's unary nodes read the last dim as channels; the delegate refuses rank 0 at init
  // (the sqrt of a full-reduction vector norm).
  EdgeGraphBuilder g;
  ir::Value* x0 = g.Input("x0", F32({}));
  for (const char* op : {"edge.hardswish", "edge.hardsigmoid", "edge.sigmoid", "edge.silu",
                         "edge.neg", "edge.abs", "edge.sqrt", "edge.rsqrt"}) {
    ExpectRefused(g.Op(op, {x0}), "a 0-d input");
  }
}

TEST(OpCapabilityTest, BroadcastingStaysCorrectUnderTheLayoutChange) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 4, 5}));
  ExpectTaken(g.Op("edge.add", {x, x}), LayoutNeed::kAny);
  // Constants are repacked into the region's layout, whatever their rank.
  ExpectTaken(g.Op("edge.mul", {x, g.Weight("chw", F32({3, 4, 5}))}), LayoutNeed::kAny);
  // A [W] activation keeps its element order as [1, 1, W, 1]: a free reshape.
  ExpectTaken(g.Op("edge.sub", {x, g.Input("w_only", F32({5}))}), LayoutNeed::kAny);
  // A [C, H, W] activation would need a transpose to broadcast against [N, H, W, C].
  ExpectTaken(g.Op("edge.div", {x, g.Input("chw_act", F32({3, 4, 5}))}), LayoutNeed::kLogical);
}

TEST(OpCapabilityTest, SoftmaxNormalisesTheInnermostStoredDim) {
  EdgeGraphBuilder g;
  ir::Value* x4 = g.Input("x4", F32({1, 3, 4, 5}));
  ExpectTaken(g.Softmax(x4, 3), LayoutNeed::kLogical);
  ExpectTaken(g.Softmax(x4, -1), LayoutNeed::kLogical);
  ExpectTaken(g.Softmax(x4, 1), LayoutNeed::kChannelsLast);  // C is innermost when stored NHWC
  ExpectRefused(g.Softmax(x4, 2), "softmax over dim 2 of a rank-4 tensor");
  ExpectTaken(g.Softmax(g.Input("x2", F32({2, 7})), 1), LayoutNeed::kAny);
  ExpectRefused(g.Softmax(g.Input("x0", F32({})), 0), "softmax of a 0-d tensor");
}

TEST(OpCapabilityTest, MaxPooling) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 9, 9}));
  ExpectTaken(g.MaxPool(x, {3, 3}, {2, 2}, {1, 1}), LayoutNeed::kChannelsLast);
  // ceil_mode becomes extra bottom/right padding.
  ExpectTaken(g.MaxPool(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true), LayoutNeed::kChannelsLast);
  // 3x3/2, padding 1, ceil_mode over 6 rows: 4 windows need 2 rows of padding at the bottom,
  // more than half the window, which the delegate's runtime refuses.
  ExpectRefused(g.MaxPool(g.Input("six", F32({1, 2, 6, 6})), {3, 3}, {2, 2}, {1, 1}, {1, 1}, true),
                "exceeds half the 3x3 window");
  ExpectRefused(g.MaxPool(g.Input("chw", F32({2, 9, 9})), {2, 2}, {2, 2}, {0, 0}),
                "is not 4-d: XNNPACK pools [N, H, W, C] tensors only");
  ExpectRefused(g.MaxPool(x, {1, 1}, {2, 2}, {0, 0}), "1x1 pooling window");
  ExpectRefused(g.MaxPool(x, {3, 3}, {1, 1}, {1, 1}, {2, 2}),
                "dilation [2, 2] with padding: XNNPACK replaces padded taps by the edge pixel");
  ExpectTaken(g.MaxPool(x, {3, 3}, {1, 1}, {0, 0}, {2, 2}), LayoutNeed::kChannelsLast);
  ExpectRefused(g.MaxPool(x, {3, 3}, {int64_t{1} << 24, 2}, {0, 0}),
                "stride [16777216, 2] is beyond 16777215");
}

TEST(OpCapabilityTest, AveragePoolingNeverCountsPadding) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 8, 8}));
  ExpectTaken(g.AvgPool(x, {3, 3}, {2, 2}, {1, 1}, false, false), LayoutNeed::kChannelsLast);
  ExpectTaken(g.AvgPool(x, {2, 2}, {2, 2}, {0, 0}, false, true), LayoutNeed::kChannelsLast);
  ExpectTaken(g.AvgPool(g.Input("odd", F32({1, 2, 9, 9})), {2, 2}, {2, 2}, {0, 0}, true, true),
              LayoutNeed::kChannelsLast);
  ExpectRefused(g.AvgPool(x, {3, 3}, {2, 2}, {1, 1}, false, true),
                "count_include_pad=True with padding [1, 1]");
}

TEST(OpCapabilityTest, ReductionsOverSpatialDimsOnly) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 8, 7, 7}));
  ExpectTaken(g.Mean(x, {2, 3}, true), LayoutNeed::kChannelsLast);
  ExpectTaken(g.Mean(x, {-1, -2}, false), LayoutNeed::kChannelsLast);
  ExpectTaken(g.Mean(x, {3}, false), LayoutNeed::kChannelsLast);
  ExpectRefused(g.Mean(x, {1}, true), "reduces dims [1] of a rank-4 tensor");
  ExpectRefused(g.Mean(g.Input("x2", F32({4, 8})), {1}, false), "of a rank-2 tensor");
  ExpectRefused(
      g.Op("edge.amax", {g.Input("one", F32({1, 8, 1, 1}))},
           {{"dims", ir::AttrValue::IntList({2, 3})}, {"keepdim", ir::AttrValue::Bool(true)}}),
      "the reduced dims have size 1");
  ir::Node* max_dim =
      g.Node("edge.max_dim", {g.Input("seq", F32({1, 8, 16}))},
             {{"dim", ir::AttrValue::Int(2)}, {"keepdim", ir::AttrValue::Bool(false)}});
  ExpectTaken(max_dim->output(0), LayoutNeed::kChannelsLast);
  g.Output(max_dim->output(1));
  ExpectRefused(max_dim->output(0), "its indices are a graph output");
}

TEST(OpCapabilityTest, DataMovement) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 8, 1, 1}));
  ExpectTaken(g.Reshape(x, {2, 8}), LayoutNeed::kAny);  // only size-1 dims move
  ir::Value* image = g.Input("image", F32({2, 8, 4, 4}));
  ExpectTaken(g.Reshape(image, {2, 8, 16}), LayoutNeed::kAny);  // [N, H*W, C] is [N, H, W, C]
  ExpectTaken(g.Reshape(image, {2, 128}), LayoutNeed::kLogical);
  ExpectTaken(g.Pad(image, {1, 1, 2, 0}, 0.5), LayoutNeed::kAny);
  ExpectRefused(g.Pad(image, {-1, 0}, 0.0), "pad [-1, 0] crops");
}

}  // namespace
}  // namespace torchir::xnnpack
