// The native backend's compile side on hand-made Edge graphs: which nodes join a matrix
// product's delegate (attention's scale, mask and softmax) and what its blob records.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/native/partitioner/native_compile_backend.h"
#include "backends/native/serialization/native_blob_generated.h"
#include "compiler/dialect/delegate_call.h"
#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"

namespace torchir::native {
namespace {

using testing::Bool;
using testing::EdgeGraphBuilder;
using testing::F32;

// Attention's scores as a model writes them: softmax(where(mask, -inf, (q @ k^T) * scale)) over
// the last dim, each step optional but the softmax; `edit` changes one thing.
struct Scores {
  bool scale = true;
  bool divide = false;  // / 4 instead of * 0.25
  bool mask = true;
  bool batch_mask = false;  // [1, 2, 8, 8] instead of [1, 1, 8, 8]
  int64_t softmax_dim = -1;
  bool scale_by_tensor = false;
  bool product_read_twice = false;
  // The mask a constant: causal above diagonal `causal_offset` (j > i + offset), or with one
  // more element masked (not causal); the fill; the softmax times V after it.
  enum { kInputMask, kCausalMask, kAlmostCausalMask } mask_kind = kInputMask;
  int64_t causal_offset = 0;
  float fill = -std::numeric_limits<float>::infinity();
  bool times_v = false;
};

std::unique_ptr<ir::Graph> ScoresGraph(const Scores& s) {
  EdgeGraphBuilder g;
  ir::Value* q = g.Input("q", F32({1, 2, 8, 4}));
  ir::Value* k = g.Input("k", F32({1, 2, 4, 8}));
  ir::Value* mask = nullptr;
  if (s.mask_kind == Scores::kInputMask) {
    mask = g.Input("mask", Bool({1, s.batch_mask ? 2 : 1, 8, 8}));
  } else {
    std::vector<uint8_t> bytes(64);
    for (int64_t i = 0; i < 8; ++i) {
      for (int64_t j = 0; j < 8; ++j) bytes[i * 8 + j] = j > i + s.causal_offset;
    }
    if (s.mask_kind == Scores::kAlmostCausalMask) bytes[5 * 8 + 2] = 1;
    mask = g.graph().AddConstant("mask", Bool({1, 1, 8, 8}),
                                 ir::TensorData::Copy(bytes.data(), bytes.size()));
  }
  ir::Value* x = g.Op("edge.matmul", {q, k});
  if (s.product_read_twice) g.Output(x);
  if (s.scale) {
    ir::Value* factor = s.scale_by_tensor ? g.Weight("factor", F32({8}))
                                          : g.Scalar("factor", s.divide ? 4.0f : 0.25f);
    x = g.Op(s.divide ? "edge.div" : "edge.mul", {x, factor});
  }
  if (s.mask) {
    x = g.Op("edge.where", {mask, g.Scalar("fill", s.fill), x});
  }
  x = g.Softmax(x, s.softmax_dim);
  if (s.times_v) x = g.Op("edge.matmul", {x, g.Input("v", F32({1, 2, 8, 4}))});
  g.Output(x);
  return g.Build();
}

// The ops of each native delegate, in order.
std::vector<std::vector<std::string>> DelegateOps(ir::Graph& graph,
                                                  std::vector<std::vector<uint8_t>>* blobs) {
  std::unique_ptr<backend::Backend> native = MakeNativeCompileBackend(KernelTarget::kX86Avx2);
  absl::StatusOr<backend::PartitionResult> result = native->Partition(graph, 0);
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<std::vector<std::string>> ops;
  if (!result.ok()) return ops;
  for (const backend::DelegateSummary& delegate : result->delegates) ops.push_back(delegate.ops);
  for (const emit::DelegatePayload& payload : result->payloads) blobs->push_back(payload.blob);
  return ops;
}

const fb::MatrixMultiply& OnlyMatmul(const std::vector<uint8_t>& blob) {
  const fb::Blob* parsed = fb::GetBlob(blob.data());
  EXPECT_EQ(parsed->matrix_multiplies()->size(), 1u);
  return *parsed->matrix_multiplies()->Get(0);
}

TEST(NativePartitionTest, FusesScaleMaskAndSoftmaxAfterAMatrixProduct) {
  std::unique_ptr<ir::Graph> graph = ScoresGraph({});
  std::vector<std::vector<uint8_t>> blobs;
  ASSERT_EQ(DelegateOps(*graph, &blobs),
            (std::vector<std::vector<std::string>>{
                {"edge.matmul", "edge.mul", "edge.where", "edge.softmax"}}));
  const fb::MatrixMultiply& node = OnlyMatmul(blobs[0]);
  EXPECT_TRUE(node.softmax());
  EXPECT_EQ(node.softmax_scale(), 0.25f);
  EXPECT_EQ(node.softmax_mask(), 2);  // after a and b
  EXPECT_EQ(node.output(), 3);
  EXPECT_EQ(node.softmax_mask_fill(), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(node.batch(), 2u);
}

TEST(NativePartitionTest, FusesEachOptionalStepAlone) {
  struct Case {
    Scores scores;
    std::vector<std::string> ops;
    float scale;
    int32_t mask;
  };
  Scores no_mask, no_scale, divide, batch_mask;
  no_mask.mask = false;
  no_scale.scale = false;
  divide.divide = true;
  batch_mask.batch_mask = true;
  const Case cases[] = {
      {no_mask, {"edge.matmul", "edge.mul", "edge.softmax"}, 0.25f, -1},
      {no_scale, {"edge.matmul", "edge.where", "edge.softmax"}, 1.0f, 2},
      {divide, {"edge.matmul", "edge.div", "edge.where", "edge.softmax"}, 0.25f, 2},
      {batch_mask, {"edge.matmul", "edge.mul", "edge.where", "edge.softmax"}, 0.25f, 2},
  };
  for (const Case& c : cases) {
    std::unique_ptr<ir::Graph> graph = ScoresGraph(c.scores);
    std::vector<std::vector<uint8_t>> blobs;
    ASSERT_EQ(DelegateOps(*graph, &blobs), (std::vector<std::vector<std::string>>{c.ops}));
    const fb::MatrixMultiply& node = OnlyMatmul(blobs[0]);
    EXPECT_TRUE(node.softmax());
    EXPECT_EQ(node.softmax_scale(), c.scale);
    EXPECT_EQ(node.softmax_mask(), c.mask);
  }
}

// A constant mask of -inf above a diagonal (GPT's causal mask, after fold_constants) becomes the
// blob's causal flag: the scores' delegate takes no mask argument, and the product of their
// softmax with V skips A's zeros. Any other constant mask, or a finite fill, stays a mask.
TEST(NativePartitionTest, RecordsACausalMaskInsteadOfItsBytes) {
  struct Case {
    Scores scores;
    bool causal;
    uint64_t offset;
  };
  Scores causal, shifted, almost, finite;
  causal.mask_kind = shifted.mask_kind = Scores::kCausalMask;
  shifted.causal_offset = 2;
  almost.mask_kind = Scores::kAlmostCausalMask;
  finite.mask_kind = Scores::kCausalMask;
  finite.fill = -1e9f;
  for (const Case& c : {Case{causal, true, 0}, Case{shifted, true, 2}, Case{almost, false, 0},
                        Case{finite, false, 0}}) {
    Scores scores = c.scores;
    scores.times_v = true;
    std::unique_ptr<ir::Graph> graph = ScoresGraph(scores);
    std::vector<std::vector<uint8_t>> blobs;
    ASSERT_EQ(DelegateOps(*graph, &blobs),
              (std::vector<std::vector<std::string>>{
                  {"edge.matmul", "edge.mul", "edge.where", "edge.softmax"}, {"edge.matmul"}}));
    const fb::MatrixMultiply& scores_node = OnlyMatmul(blobs[0]);
    EXPECT_EQ(scores_node.causal(), c.causal);
    EXPECT_EQ(scores_node.causal_offset(), c.offset);
    EXPECT_EQ(scores_node.softmax_mask(), c.causal ? -1 : 2);
    EXPECT_EQ(scores_node.output(), c.causal ? 2 : 3);
    const fb::MatrixMultiply& context = OnlyMatmul(blobs[1]);
    EXPECT_FALSE(context.softmax());
    EXPECT_EQ(context.causal(), c.causal);
    EXPECT_EQ(context.causal_offset(), c.offset);
  }
}

// Nothing after the product joins it when the chain does not end in a softmax over the last
// dim, a step is not a scalar scale, or a step's input has another reader.
TEST(NativePartitionTest, LeavesTheSoftmaxWhenTheChainDoesNotFit) {
  Scores other_dim, tensor_scale, read_twice;
  other_dim.softmax_dim = 2;
  tensor_scale.scale_by_tensor = true;
  read_twice.product_read_twice = true;
  for (const Scores& scores : {other_dim, tensor_scale, read_twice}) {
    std::unique_ptr<ir::Graph> graph = ScoresGraph(scores);
    std::vector<std::vector<uint8_t>> blobs;
    ASSERT_EQ(DelegateOps(*graph, &blobs),
              (std::vector<std::vector<std::string>>{{"edge.matmul"}}));
    EXPECT_FALSE(OnlyMatmul(blobs[0]).softmax());
    EXPECT_EQ(OnlyMatmul(blobs[0]).softmax_mask(), -1);
  }
}

// A convolution, a 3x3 / 2 max pooling with ceil_mode (9 -> 5: its last window runs past the
// input) and a global average pooling: each its own channels-last delegate, the poolings' blobs
// holding their geometry; a mean over the channels is not global average pooling and stays.
TEST(NativePartitionTest, TakesMaxPoolingAndGlobalAveragePooling) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 3, 9, 9}));
  x = g.Conv(x, g.Weight("w", F32({8, 3, 3, 3})), nullptr, {1, 1}, {1, 1});
  x = g.MaxPool(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, /*ceil_mode=*/true);
  g.Output(g.Mean(x, {1}, /*keepdim=*/true));
  g.Output(g.Mean(x, {-1, -2}, /*keepdim=*/false));
  std::unique_ptr<ir::Graph> graph = g.Build();
  std::vector<std::vector<uint8_t>> blobs;
  ASSERT_EQ(DelegateOps(*graph, &blobs),
            (std::vector<std::vector<std::string>>{
                {"edge.convolution"}, {"edge.max_pool2d"}, {"edge.mean"}}));
  const fb::Blob* max_blob = fb::GetBlob(blobs[1].data());
  ASSERT_NE(max_blob->poolings(), nullptr);
  ASSERT_EQ(max_blob->poolings()->size(), 1u);
  const fb::Pooling& max = *max_blob->poolings()->Get(0);
  EXPECT_EQ(max.kind(), fb::PoolingKind::Max);
  EXPECT_EQ(max.channels(), 8u);
  EXPECT_EQ(max.input_height(), 9u);
  EXPECT_EQ(max.output_height(), 5u);
  EXPECT_EQ(max.output_width(), 5u);
  EXPECT_EQ(max.kernel_width(), 3u);
  EXPECT_EQ(max.stride_height(), 2u);
  EXPECT_EQ(max.padding_left(), 1u);
  EXPECT_EQ(max.input(), 0);
  EXPECT_EQ(max.output(), 1);
  const fb::Pooling& mean = *fb::GetBlob(blobs[2].data())->poolings()->Get(0);
  EXPECT_EQ(mean.kind(), fb::PoolingKind::GlobalAverage);
  EXPECT_EQ(mean.input_height(), 5u);
  EXPECT_EQ(mean.input_width(), 5u);
  EXPECT_EQ(mean.channels(), 8u);
}

// An inverted-residual block's 1x1 expansion and the depthwise layer over it (mobilenet_v2's
// first: 16 -> 96 channels at 56 x 56, a 1.2 MB expanded tensor) join one delegate of two
// blob nodes, the expanded tensor no argument; the relu6 of each is fused (the expansion's a
// clamp node, the depthwise layer's its own attributes). The same block at 28 x 28 (0.3 MB,
// under kExpandDepthwiseMinBytes) stays two delegates, and so does an expansion whose output is
// also read elsewhere.
TEST(NativePartitionTest, FusesALargeExpansionWithItsDepthwiseLayer) {
  for (int64_t size : {56, 28}) {
    SCOPED_TRACE("size " + std::to_string(size));
    EdgeGraphBuilder g;
    ir::Value* x = g.Input("x", F32({1, 16, size, size}));
    x = g.Conv(x, g.Weight("expand", F32({96, 16, 1, 1})), g.Weight("b1", F32({96})), {1, 1},
               {0, 0});
    x = g.Clamp(x, 0.0, 6.0);
    x = g.Conv(x, g.Weight("depthwise", F32({96, 1, 3, 3})), g.Weight("b2", F32({96})), {2, 2},
               {1, 1}, {}, /*groups=*/96, 0.0, 6.0);
    g.Output(g.Conv(x, g.Weight("project", F32({24, 96, 1, 1})), nullptr, {1, 1}, {0, 0}));
    std::unique_ptr<ir::Graph> graph = g.Build();
    std::vector<std::vector<uint8_t>> blobs;
    const std::vector<std::vector<std::string>> ops = DelegateOps(*graph, &blobs);
    if (size == 28) {
      EXPECT_EQ(ops, (std::vector<std::vector<std::string>>{{"edge.convolution", "edge.clamp"},
                                                            {"edge.convolution"},
                                                            {"edge.convolution"}}));
      continue;
    }
    ASSERT_EQ(ops,
              (std::vector<std::vector<std::string>>{
                  {"edge.convolution", "edge.clamp", "edge.convolution"}, {"edge.convolution"}}));
    const fb::Blob* blob = fb::GetBlob(blobs[0].data());
    ASSERT_NE(blob->convolutions(), nullptr);
    ASSERT_EQ(blob->convolutions()->size(), 2u);
    const fb::Convolution& expand = *blob->convolutions()->Get(0);
    const fb::Convolution& depthwise = *blob->convolutions()->Get(1);
    EXPECT_TRUE(expand.feeds_next());
    EXPECT_EQ(expand.output(), -1);
    EXPECT_EQ(expand.activation(), fb::Activation::Clamp);
    EXPECT_EQ(expand.output_max(), 6.0f);
    EXPECT_TRUE(depthwise.depthwise());
    EXPECT_FALSE(depthwise.feeds_next());
    EXPECT_EQ(depthwise.input(), -1);
    EXPECT_EQ(depthwise.stride_height(), 2u);
    EXPECT_EQ(depthwise.activation(), fb::Activation::Clamp);
    // input, the two layers' weights and biases, output.
    EXPECT_EQ(blob->num_arguments(), 6u);
    EXPECT_EQ(depthwise.output(), 5);
  }
  // The expanded tensor read elsewhere too: no fusion.
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 16, 56, 56}));
  x = g.Conv(x, g.Weight("expand", F32({96, 16, 1, 1})), nullptr, {1, 1}, {0, 0});
  g.Output(x);
  g.Output(g.Conv(x, g.Weight("depthwise", F32({96, 1, 3, 3})), nullptr, {1, 1}, {1, 1}, {},
                  /*groups=*/96));
  std::unique_ptr<ir::Graph> graph = g.Build();
  std::vector<std::vector<uint8_t>> blobs;
  EXPECT_EQ(DelegateOps(*graph, &blobs),
            (std::vector<std::vector<std::string>>{{"edge.convolution"}, {"edge.convolution"}}));
}

// A RegNet block's 1x1 and the grouped 3x3 over it (regnet_x_400mf's first: 32 -> 32 channels
// at 112 x 112, a 1.6 MB tensor between them; 2 groups of 16, stride 2, relu after each) join
// one delegate of two blob nodes, the second grouped (not depthwise). At 56 x 56 (0.4 MB, under
// kExpandDepthwiseMinBytes) they stay two delegates.
TEST(NativePartitionTest, FusesALarge1x1WithItsGroupedLayer) {
  for (int64_t size : {112, 56}) {
    SCOPED_TRACE("size " + std::to_string(size));
    EdgeGraphBuilder g;
    ir::Value* x = g.Input("x", F32({1, 32, size, size}));
    x = g.Conv(x, g.Weight("a", F32({32, 32, 1, 1})), g.Weight("b1", F32({32})), {1, 1}, {0, 0}, {},
               /*groups=*/1, 0.0);
    x = g.Conv(x, g.Weight("b", F32({32, 16, 3, 3})), g.Weight("b2", F32({32})), {2, 2}, {1, 1}, {},
               /*groups=*/2, 0.0);
    g.Output(x);
    std::unique_ptr<ir::Graph> graph = g.Build();
    std::vector<std::vector<uint8_t>> blobs;
    const std::vector<std::vector<std::string>> ops = DelegateOps(*graph, &blobs);
    if (size == 56) {
      EXPECT_EQ(
          ops, (std::vector<std::vector<std::string>>{{"edge.convolution"}, {"edge.convolution"}}));
      continue;
    }
    ASSERT_EQ(ops,
              (std::vector<std::vector<std::string>>{{"edge.convolution", "edge.convolution"}}));
    const fb::Blob* blob = fb::GetBlob(blobs[0].data());
    ASSERT_NE(blob->convolutions(), nullptr);
    ASSERT_EQ(blob->convolutions()->size(), 2u);
    const fb::Convolution& first = *blob->convolutions()->Get(0);
    const fb::Convolution& grouped = *blob->convolutions()->Get(1);
    EXPECT_TRUE(first.feeds_next());
    EXPECT_EQ(first.output(), -1);
    EXPECT_EQ(first.activation(), fb::Activation::Relu);
    EXPECT_FALSE(grouped.depthwise());
    EXPECT_EQ(grouped.groups(), 2u);
    EXPECT_EQ(grouped.input(), -1);
    EXPECT_EQ(grouped.stride_height(), 2u);
    EXPECT_EQ(grouped.activation(), fb::Activation::Relu);
    EXPECT_EQ(blob->num_arguments(), 6u);
    EXPECT_EQ(grouped.output(), 5);
  }
}

// A stem on the network's image reads it NCHW as the caller supplied it (the blob says so), so
// no permute to NHWC runs before its delegate. Not so for a convolution of another node's output
// (even with few channels), of a graph input with more than 4 channels, or with a 1x1 kernel:
// their graph inputs go through a permute.
TEST(NativePartitionTest, AStemReadsTheImageChannelsFirst) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("image", F32({1, 3, 32, 32}));
  x = g.Conv(x, g.Weight("stem", F32({8, 3, 3, 3})), g.Weight("b", F32({8})), {2, 2}, {1, 1});
  x = g.Conv(x, g.Weight("second", F32({4, 8, 3, 3})), nullptr, {1, 1}, {1, 1});
  g.Output(g.Conv(x, g.Weight("third", F32({8, 4, 3, 3})), nullptr, {1, 1}, {1, 1}));
  g.Output(g.Conv(g.Input("wide", F32({1, 8, 16, 16})), g.Weight("eight", F32({8, 8, 3, 3})),
                  nullptr, {1, 1}, {1, 1}));
  g.Output(g.Conv(g.Input("points", F32({1, 3, 16, 16})), g.Weight("one", F32({8, 3, 1, 1})),
                  nullptr, {1, 1}, {0, 0}));
  std::unique_ptr<ir::Graph> graph = g.Build();
  std::vector<std::vector<uint8_t>> blobs;
  ASSERT_EQ(DelegateOps(*graph, &blobs).size(), 5u);
  std::vector<bool> channels_first;
  for (const std::vector<uint8_t>& blob : blobs) {
    const fb::Blob* parsed = fb::GetBlob(blob.data());
    ASSERT_EQ(parsed->convolutions()->size(), 1u);
    channels_first.push_back(parsed->convolutions()->Get(0)->input_channels_first());
  }
  EXPECT_EQ(channels_first, (std::vector<bool>{true, false, false, false, false}));
  std::vector<std::string> permuted;  // the graph inputs that a permute reads
  for (const ir::Node* node : graph->NodeSnapshot()) {
    if (node->op() == "edge.permute" && node->input(0)->kind() == ir::ValueKind::kGraphInput) {
      permuted.push_back(node->input(0)->name());
    }
  }
  EXPECT_EQ(permuted, (std::vector<std::string>{"wide", "points"}));
}

// A residual add fused into a convolution's delegate lets the memory planner write the output
// over the residual (dialect::kDelegateInPlaceInputAttr = the residual's argument index), except
// when the residual is also the convolution's input, whose pixels later tiles still read.
TEST(NativePartitionTest, AResidualAddMayWriteOverItsResidual) {
  for (bool residual_is_input : {false, true}) {
    SCOPED_TRACE(residual_is_input ? "residual is the input" : "residual two layers back");
    EdgeGraphBuilder g;
    ir::Value* a = g.Conv(g.Input("x", F32({1, 8, 16, 16})), g.Weight("w1", F32({8, 8, 3, 3})),
                          nullptr, {1, 1}, {1, 1});
    ir::Value* b = residual_is_input
                       ? a
                       : g.Conv(a, g.Weight("w2", F32({8, 8, 1, 1})), nullptr, {1, 1}, {0, 0});
    ir::Value* c = g.Conv(b, g.Weight("w3", F32({8, 8, 1, 1})), nullptr, {1, 1}, {0, 0});
    g.Output(g.Op("edge.add", {c, a}));
    std::unique_ptr<ir::Graph> graph = g.Build();
    std::vector<std::vector<uint8_t>> blobs;
    const std::vector<std::vector<std::string>> ops = DelegateOps(*graph, &blobs);
    ASSERT_EQ(ops.back(), (std::vector<std::string>{"edge.convolution", "edge.add"}));
    const fb::Convolution& add = *fb::GetBlob(blobs.back().data())->convolutions()->Get(0);
    ASSERT_EQ(add.residual(), 1);
    std::vector<int64_t> in_place;  // per delegate call, the attribute or -1
    std::vector<const ir::Node*> calls;
    for (const ir::Node* node : graph->NodeSnapshot()) {
      if (node->op() != dialect::kDelegateCallOp) continue;
      calls.push_back(node);
      const ir::AttrValue* attr = node->FindAttr(dialect::kDelegateInPlaceInputAttr);
      in_place.push_back(attr != nullptr ? attr->as_int() : -1);
      // The input it names is a, as the first call wrote it (channels-last).
      if (attr != nullptr) {
        EXPECT_EQ(node->input(1)->producer(), calls.front());
      }
    }
    if (residual_is_input) {
      EXPECT_EQ(in_place, (std::vector<int64_t>{-1, -1}));
    } else {
      EXPECT_EQ(in_place, (std::vector<int64_t>{-1, -1, 1}));
    }
  }
}

// A squeeze-and-excitation block: the multiply of the features by their per-image channel
// scale ([2, 8, 1, 1] from the squeeze's convolutions, either operand order) is a channels-last
// delegate of its own, and so is one by a constant per-channel scale shared by the images that
// feeds a convolution. Products of same-shaped tensors, of a scale along another dim, of a 3-d
// tensor, and a per-channel product with no convolution next to it (a decomposed batch norm's)
// stay, the last with its reason.
TEST(NativePartitionTest, TakesSqueezeExcitationMultiplies) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 3, 6, 5}));
  x = g.Conv(x, g.Weight("w", F32({8, 3, 3, 3})), nullptr, {1, 1}, {1, 1});
  ir::Value* squeezed = g.Mean(x, {-1, -2}, /*keepdim=*/true);
  ir::Value* scale = g.Conv(squeezed, g.Weight("w2", F32({8, 8, 1, 1})), nullptr, {1, 1}, {0, 0});
  ir::Value* excited = g.Op("edge.mul", {scale, x});
  ir::Value* gamma = g.Op("edge.mul", {excited, g.Weight("gamma", F32({1, 8, 1, 1}))});
  g.Output(g.Conv(gamma, g.Weight("w3", F32({4, 8, 1, 1})), nullptr, {1, 1}, {0, 0}));
  g.Output(g.Op("edge.mul", {x, x}));
  g.Output(g.Op("edge.mul", {x, g.Weight("row", F32({1, 1, 1, 5}))}));
  ir::Value* flat = g.Input("flat", F32({2, 8, 30}));
  g.Output(g.Op("edge.mul", {flat, g.Weight("column", F32({1, 8, 1}))}));
  ir::Value* centred = g.Op(
      "edge.sub", {g.Input("y", F32({2, 8, 3, 3})), g.Weight("running_mean", F32({1, 8, 1, 1}))});
  ir::Value* normalised =
      g.Op("edge.mul", {centred, g.Weight("inv_std", F32({1, 8, 1, 1}))}, {}, "normalise");
  g.Output(g.Op("edge.add", {normalised, g.Weight("beta", F32({1, 8, 1, 1}))}));
  std::unique_ptr<ir::Graph> graph = g.Build();
  std::unique_ptr<backend::Backend> native = MakeNativeCompileBackend(KernelTarget::kX86Avx2);
  absl::StatusOr<backend::PartitionResult> result = native->Partition(*graph, 0);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<std::vector<std::string>> ops;
  for (const backend::DelegateSummary& delegate : result->delegates) ops.push_back(delegate.ops);
  ASSERT_EQ(ops, (std::vector<std::vector<std::string>>{{"edge.convolution"},
                                                        {"edge.mean"},
                                                        {"edge.convolution"},
                                                        {"edge.mul"},
                                                        {"edge.mul"},
                                                        {"edge.convolution"}}));
  const fb::Blob* per_image = fb::GetBlob(result->payloads[3].blob.data());
  ASSERT_NE(per_image->channel_scales(), nullptr);
  ASSERT_EQ(per_image->channel_scales()->size(), 1u);
  const fb::ChannelScale& excite = *per_image->channel_scales()->Get(0);
  EXPECT_EQ(excite.batch(), 2u);
  EXPECT_EQ(excite.pixels(), 30u);
  EXPECT_EQ(excite.channels(), 8u);
  EXPECT_FALSE(excite.shared_scale());
  EXPECT_EQ(excite.input(), 0);
  EXPECT_EQ(excite.scale(), 1);
  EXPECT_EQ(excite.output(), 2);
  EXPECT_EQ(per_image->num_arguments(), 3u);
  const fb::ChannelScale& constant =
      *fb::GetBlob(result->payloads[4].blob.data())->channel_scales()->Get(0);
  EXPECT_TRUE(constant.shared_scale());
  EXPECT_EQ(constant.batch(), 2u);
  EXPECT_EQ(constant.channels(), 8u);
  // Both multiplies may write over their features (input 0; the planner decides), and no other
  // delegate of this graph names an input: none has a residual.
  std::vector<int64_t> in_place;  // per delegate, in delegate order
  for (const ir::Node* node : graph->NodeSnapshot()) {
    if (node->op() != dialect::kDelegateCallOp) continue;
    const ir::AttrValue* index = node->FindAttr(dialect::kDelegateIndexAttr);
    const ir::AttrValue* attr = node->FindAttr(dialect::kDelegateInPlaceInputAttr);
    in_place.resize(std::max<size_t>(in_place.size(), index->as_int() + 1), -2);
    in_place[static_cast<size_t>(index->as_int())] = attr != nullptr ? attr->as_int() : -1;
  }
  EXPECT_EQ(in_place, (std::vector<int64_t>{-1, -1, -1, 0, 0, -1}));
  bool found = false;
  for (const backend::NodeDecision& decision : result->decisions) {
    if (decision.node != "normalise") continue;
    found = true;
    EXPECT_FALSE(decision.taken);
    EXPECT_NE(decision.reason.find("no convolution before or after it"), std::string::npos)
        << decision.reason;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace torchir::native
