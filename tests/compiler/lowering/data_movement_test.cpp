// The data-movement family (rules/data_movement.cpp): views, permutes, slices,
// cat, splits, gathers, padding and factory ops, on hand-made ATen graphs and
// on zoo exports that use only this family's ops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "compiler/frontend/ir_reader.h"
#include "compiler/lowering/lowering.h"
#include "tests/support/graph_builder.h"

namespace torchir::lowering {
namespace {

using ::testing::ElementsAre;
using testing::F32;
using testing::GraphBuilder;
using ::testing::HasSubstr;
using testing::I64;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::unique_ptr<ir::Graph> Lower(GraphBuilder &b) {
  std::unique_ptr<ir::Graph> aten = b.Build();
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge = LowerToEdge(*aten);
  EXPECT_TRUE(edge.ok()) << edge.status();
  return edge.ok() ? std::move(*edge) : nullptr;
}

std::vector<std::string> Ops(const ir::Graph &graph) {
  std::vector<std::string> ops;
  for (const ir::Node *node : graph.nodes()) ops.push_back(node->op());
  return ops;
}

std::vector<int64_t> Ints(const ir::Node &node, std::string_view attr) {
  return node.FindAttr(attr)->as_int_list();
}
int64_t Int(const ir::Node &node, std::string_view attr) { return node.FindAttr(attr)->as_int(); }

template <typename T>
std::vector<T> Values(const ir::Value &value) {
  std::vector<T> values(value.data().size() / sizeof(T));
  std::memcpy(values.data(), value.data().data(), values.size() * sizeof(T));
  return values;
}

const ir::Node *NodeAt(const ir::Graph &graph, size_t i) {
  auto it = graph.nodes().begin();
  while (i-- > 0) ++it;
  return *it;
}

TEST(Reshapes, ViewWithMinusOneTakesTheRecordedShape) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3, 4}));
  b.Output(b.Op("aten.view.default", {x}).Attr("size", {-1, 4}).Out(F32({6, 4})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.reshape"));
  EXPECT_THAT(Ints(*g->first_node(), "shape"), ElementsAre(6, 4));
}

// The error LowerToEdge gives for the graph `b` holds.
std::string LoweringError(GraphBuilder &b) {
  std::unique_ptr<ir::Graph> aten = b.Build();
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge = LowerToEdge(*aten);
  EXPECT_FALSE(edge.ok());
  return edge.ok() ? "" : std::string(edge.status().message());
}

TEST(Reshapes, EveryViewOpChecksItsSizeArgument) {
  for (const char *op :
       {"aten.view.default", "aten._unsafe_view.default", "aten.view_copy.default"}) {
    GraphBuilder ok;
    ir::Value *x = ok.Input("x", F32({2, 6}));
    ok.Output(ok.Op(op, {x}).Attr("size", {3, -1}).Out(F32({3, 4})));
    EXPECT_NE(Lower(ok), nullptr) << op;

    GraphBuilder wrong;
    x = wrong.Input("x", F32({2, 6}));
    wrong.Output(wrong.Op(op, {x}).Attr("size", {5, -1}).Out(F32({3, 4})));
    EXPECT_THAT(LoweringError(wrong), HasSubstr("size [5, -1] does not fit 12 elements")) << op;
  }
  GraphBuilder reshape;
  ir::Value *x = reshape.Input("x", F32({2, 6}));
  reshape.Output(reshape.Op("aten.reshape.default", {x}).Attr("shape", {-1, 6}).Out(F32({6, 2})));
  EXPECT_THAT(LoweringError(reshape),
              HasSubstr("node 'reshape' (aten.reshape.default): shape [-1, 6] gives [2, 6] but "
                        "the output is recorded as float32[6, 2]"));
}

TEST(Reshapes, FlattenSqueezeAndUnsqueezeBecomeReshapes) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3, 4}));
  ir::Value *flat = b.Op("aten.flatten.using_ints", {x}).Attr("start_dim", 1).Out(F32({2, 12}));
  ir::Value *wide = b.Op("aten.unsqueeze.default", {flat}).Attr("dim", -1).Out(F32({2, 12, 1}));
  ir::Value *narrow = b.Op("aten.squeeze.dim", {wide}).Attr("dim", 2).Out(F32({2, 12}));
  ir::Value *all = b.Op("aten.squeeze.default", {wide}).Out(F32({2, 12}));
  b.Output(narrow);
  b.Output(all);
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Ops(*g), ElementsAre("edge.reshape", "edge.reshape", "edge.reshape", "edge.reshape"));
  EXPECT_EQ(g->outputs()[0]->sizes(), (std::vector<int64_t>{2, 12}));
}

TEST(Reshapes, AReshapeToTheSameShapeEmitsNoNode) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3}));
  b.Output(b.Op("aten.reshape.default", {x}).Attr("shape", {2, 3}).Out(F32({2, 3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->num_nodes(), 0u);
  EXPECT_EQ(g->outputs()[0], g->inputs()[0]);
}

TEST(Permutes, TransposeWithNegativeDims) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3, 4}));
  b.Output(b.Op("aten.transpose.int", {x}).Attr("dim0", -1).Attr("dim1", -3).Out(F32({4, 3, 2})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.permute"));
  EXPECT_THAT(Ints(*g->first_node(), "dims"), ElementsAre(2, 1, 0));
}

TEST(Permutes, TheIdentityPermutationEmitsNoNode) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3}));
  b.Output(b.Op("aten.permute.default", {x}).Attr("dims", {-2, -1}).Out(F32({2, 3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->num_nodes(), 0u);
}

TEST(Permutes, MovedimMovesOneDim) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3, 4}));
  b.Output(
      b.Op("aten.movedim.int", {x}).Attr("source", 0).Attr("destination", -1).Out(F32({3, 4, 2})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Ints(*g->first_node(), "dims"), ElementsAre(1, 2, 0));
}

TEST(Expand, MinusOneKeepsTheSize) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({3, 1}));
  b.Output(b.Op("aten.expand.default", {x}).Attr("size", {2, -1, 5}).Out(F32({2, 3, 5})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.expand"));
  EXPECT_THAT(Ints(*g->first_node(), "sizes"), ElementsAre(2, 3, 5));
}

TEST(Slices, BoundsAreClampedAsInPyTorch) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({4, 10}));
  // x[:, -3:] with end INT64_MAX, x[:, 2:-1:3], x[:, -100:100], x[:, 7:2]
  // (empty).
  b.Output(b.Op("aten.slice.Tensor", {x})
               .Attr("dim", 1)
               .Attr("start", -3)
               .Attr("end", kInt64Max)
               .Out(F32({4, 3})));
  b.Output(b.Op("aten.slice.Tensor", {x})
               .Attr("dim", -1)
               .Attr("start", 2)
               .Attr("end", -1)
               .Attr("step", 3)
               .Out(F32({4, 3})));
  b.Output(b.Op("aten.slice.Tensor", {x})
               .Attr("dim", 1)
               .Attr("start", -100)
               .Attr("end", 100)
               .Out(F32({4, 10})));
  b.Output(b.Op("aten.slice.Tensor", {x})
               .Attr("dim", 1)
               .Attr("start", 7)
               .Attr("end", 2)
               .Out(F32({4, 0})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  // The third slice covers the whole dim: no node.
  ASSERT_THAT(Ops(*g), ElementsAre("edge.slice", "edge.slice", "edge.slice"));
  std::vector<std::vector<int64_t>> bounds;
  for (const ir::Node *node : g->nodes()) {
    bounds.push_back(
        {Int(*node, "dim"), Int(*node, "start"), Int(*node, "end"), Int(*node, "step")});
  }
  EXPECT_THAT(bounds, ElementsAre(ElementsAre(1, 7, 10, 1), ElementsAre(1, 2, 9, 3),
                                  ElementsAre(1, 7, 7, 1)));
  EXPECT_EQ(g->outputs()[2], g->inputs()[0]);
}

TEST(Slices, AFullSliceWithNoneBoundsEmitsNoNode) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({4, 10}));
  b.Output(b.Op("aten.slice.Tensor", {x})
               .Attr("dim", 0)
               .Attr("start", 0)
               .Attr("end", kInt64Max)
               .Out(F32({4, 10})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->num_nodes(), 0u);
}

TEST(Slices, SelectIsASliceAndAReshape) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({4, 10}));
  b.Output(b.Op("aten.select.int", {x}).Attr("dim", 1).Attr("index", -1).Out(F32({4})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.slice", "edge.reshape"));
  EXPECT_EQ(Int(*g->first_node(), "start"), 9);
  EXPECT_EQ(Int(*g->first_node(), "end"), 10);
}

TEST(Concatenation, ANegativeDimIsNormalisedAndEmptyVectorsSkipped) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3}));
  ir::Value *y = b.Input("y", F32({2, 5}));
  ir::Value *empty = b.Input("empty", F32({0}));
  b.Output(b.Op("aten.cat.default", {x, empty, y})
               .Attr("dim", -1)
               .TensorListSizes({3})
               .Out(F32({2, 8})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.concatenate"));
  EXPECT_EQ(Int(*g->first_node(), "dim"), 1);
  EXPECT_EQ(g->first_node()->num_inputs(), 2u);
}

TEST(Splits, SplitAndChunkOutputsAreReadThroughGetitem) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({7, 2}));
  std::vector<ir::Value *> parts = b.Op("aten.split.Tensor", {x})
                                       .Attr("split_size", 3)
                                       .Outs({F32({3, 2}), F32({3, 2}), F32({1, 2})});
  std::vector<ir::Value *> chunks = b.Op("aten.chunk.default", {x})
                                        .Attr("chunks", 2)
                                        .Attr("dim", -2)
                                        .Outs({F32({4, 2}), F32({3, 2})});
  b.Output(b.Op("getitem", {parts[0], parts[1], parts[2]}).Attr("index", 2).Out(F32({1, 2})));
  b.Output(b.Op("getitem", {chunks[0], chunks[1]}).Attr("index", 1).Out(F32({3, 2})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->outputs().size(), 2u);
  const ir::Node *last_part = g->outputs()[0]->producer();
  ASSERT_NE(last_part, nullptr);
  EXPECT_EQ(last_part->op(), "edge.slice");
  EXPECT_EQ(Int(*last_part, "start"), 6);
  EXPECT_EQ(Int(*last_part, "end"), 7);
  const ir::Node *second_chunk = g->outputs()[1]->producer();
  ASSERT_NE(second_chunk, nullptr);
  EXPECT_EQ(Int(*second_chunk, "dim"), 0);
  EXPECT_EQ(Int(*second_chunk, "start"), 4);
  EXPECT_EQ(Int(*second_chunk, "end"), 7);
}

TEST(Splits, UnbindSelectsEveryEntry) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3}));
  std::vector<ir::Value *> rows = b.Op("aten.unbind.int", {x}).Outs({F32({3}), F32({3})});
  b.Output(b.Op("getitem", {rows[0], rows[1]}).Attr("index", 1).Out(F32({3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->outputs()[0]->producer()->op(), "edge.reshape");
  EXPECT_EQ(g->outputs()[0]->type(), F32({3}));
}

TEST(Gathers, IndexAfterALeadingNoneIsAnIndexSelect) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({4, 10}));
  ir::Value *idx = b.Input("idx", I64({2, 3}));
  // x[:, idx] -> [4, 2, 3]
  b.Output(b.Op("aten.index.Tensor", {x, idx})
               .TensorListSizes({1})
               .TensorListNoneMasks({{true, false}})
               .Out(F32({4, 2, 3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  // A negative index counts from the end: where(idx < 0, idx + 10, idx) first.
  ASSERT_THAT(Ops(*g), ElementsAre("edge.lt", "edge.add", "edge.where", "edge.reshape",
                                   "edge.index_select", "edge.reshape"));
  EXPECT_THAT(Ints(*NodeAt(*g, 3), "shape"), ElementsAre(6));
  EXPECT_EQ(Int(*NodeAt(*g, 4), "dim"), 1);
  EXPECT_EQ(g->outputs()[0]->type(), F32({4, 2, 3}));
}

TEST(Gathers, ABoolMaskIndexIsRejected) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({4}));
  ir::Value *mask = b.Input("mask", testing::Bool({4}));
  b.Output(b.Op("aten.index.Tensor", {x, mask}).TensorListSizes({1}).Out(F32({2})));
  std::unique_ptr<ir::Graph> aten = b.Build();
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge = LowerToEdge(*aten);
  ASSERT_FALSE(edge.ok());
  EXPECT_EQ(edge.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(edge.status().message()), HasSubstr("boolean mask"));
}

TEST(Gathers, SeveralIndexTensorsAreRejected) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({4, 5}));
  ir::Value *i = b.Input("i", I64({2}));
  ir::Value *j = b.Input("j", I64({2}));
  b.Output(b.Op("aten.index.Tensor", {x, i, j}).TensorListSizes({2}).Out(F32({2})));
  std::unique_ptr<ir::Graph> aten = b.Build();
  absl::StatusOr<std::unique_ptr<ir::Graph>> edge = LowerToEdge(*aten);
  ASSERT_FALSE(edge.ok());
  EXPECT_THAT(std::string(edge.status().message()), HasSubstr("more than one index tensor"));
}

TEST(Gathers, EmbeddingWithTwoDimIds) {
  GraphBuilder b;
  ir::Value *weight = b.Weight("emb.weight", F32({10, 4}));
  ir::Value *ids = b.Input("ids", I64({2, 3}));
  b.Output(
      b.Op("aten.embedding.default", {weight, ids}).Attr("padding_idx", 0).Out(F32({2, 3, 4})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.reshape", "edge.index_select", "edge.reshape"));
  EXPECT_EQ(Int(*g->first_node()->next(), "dim"), 0);
  EXPECT_EQ(g->first_node()->next()->input(0)->name(), "emb.weight");
}

TEST(Padding, ConstantPadNdCarriesItsValue) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3}));
  b.Output(b.Op("aten.constant_pad_nd.default", {x})
               .Attr("pad", {1, 2})
               .Attr("value", 0.5)
               .Out(F32({2, 6})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.constant_pad"));
  EXPECT_THAT(Ints(*g->first_node(), "pad"), ElementsAre(1, 2));
  EXPECT_EQ(g->first_node()->FindAttr("value")->as_double(), 0.5);
}

TEST(Factories, ArangeIsAConstantOfTheRecordedType) {
  GraphBuilder b;
  b.Output(b.Op("aten.arange.start", {}).Attr("start", 2).Attr("end", 7).Out(I64({5})));
  b.Output(b.Op("aten.arange.start_step", {})
               .Attr("start", 0.5)
               .Attr("end", 2.0)
               .Attr("step", 0.5)
               .Out(F32({3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->num_nodes(), 0u);
  ASSERT_EQ(g->outputs()[0]->kind(), ir::ValueKind::kConstant);
  EXPECT_THAT(Values<int64_t>(*g->outputs()[0]), ElementsAre(2, 3, 4, 5, 6));
  EXPECT_THAT(Values<float>(*g->outputs()[1]), ElementsAre(0.5f, 1.0f, 1.5f));
}

// A factory whose recorded type is huge is refused before anything is allocated.
TEST(Factories, HugeConstantsAndOverflowingAranges) {
  GraphBuilder zeros;
  zeros.Output(zeros.Op("aten.zeros.default", {})
                   .Attr("size", {int64_t{1} << 20, int64_t{1} << 20})
                   .Out(F32({int64_t{1} << 20, int64_t{1} << 20})));
  EXPECT_THAT(LoweringError(zeros), HasSubstr("would take 4.0 TiB, more than the 16.0 GiB"));

  GraphBuilder arange;
  arange.Output(arange.Op("aten.arange.start_step", {})
                    .Attr("start", kInt64Max - 2)
                    .Attr("end", kInt64Max)
                    .Attr("step", kInt64Max)
                    .Out(I64({3})));
  EXPECT_THAT(LoweringError(arange), HasSubstr("overflows int64"));

  // A fill value beyond int64 for an integer tensor is refused, not cast (undefined behaviour).
  GraphBuilder full;
  full.Output(
      full.Op("aten.full.default", {}).Attr("size", {2}).Attr("fill_value", 1e300).Out(I64({2})));
  EXPECT_THAT(LoweringError(full), HasSubstr("cannot be stored as int64"));
}

TEST(Factories, FullZerosAndOnes) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2}));
  b.Output(
      b.Op("aten.full.default", {}).Attr("size", {2, 2}).Attr("fill_value", 3).Out(F32({2, 2})));
  b.Output(b.Op("aten.zeros_like.default", {x}).Out(F32({2})));
  b.Output(b.Op("aten.ones.default", {}).Attr("size", {3}).Out(I64({3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Values<float>(*g->outputs()[0]), ElementsAre(3, 3, 3, 3));
  EXPECT_THAT(Values<float>(*g->outputs()[1]), ElementsAre(0, 0));
  EXPECT_THAT(Values<int64_t>(*g->outputs()[2]), ElementsAre(1, 1, 1));
}

// Zoo models made only of this family's ops lower completely, in both flavours.
TEST(DataMovementZoo, ModelsOfThisFamilyLower) {
  namespace fs = std::filesystem;
  const char *env = std::getenv("TORCHIR_ZOO_DIR");
  fs::path zoo = env != nullptr ? fs::path(env) : fs::path(TORCHIR_BINARY_DIR_DEFAULT) / "zoo";
  std::error_code error;
  if (!fs::is_directory(zoo, error)) GTEST_SKIP() << "no zoo at " << zoo;
  for (const char *model :
       {"cat", "slice_select", "index_constant", "embedding", "embedding_padding_idx"}) {
    for (const char *flavour : {"export", "core"}) {
      fs::path path = zoo / model / flavour / "model.json";
      if (!fs::is_regular_file(path, error)) continue;
      auto aten = frontend::ReadPytorchIrFile(path.string());
      ASSERT_TRUE(aten.ok()) << aten.status();
      auto edge = LowerToEdge(**aten);
      EXPECT_TRUE(edge.ok()) << path << ": " << edge.status();
    }
  }
}

// ---- Structural ops written with other Edge ops ------------------------------------------------

// Node `i` of `graph`, in order.

TEST(Structural, RepeatInterleavesExpandsAndMerges) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({3, 4}));
  b.Output(b.Op("aten.repeat.default", {x}).Attr("repeats", {2, 1, 3}).Out(F32({2, 3, 12})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Ops(*g), ElementsAre("edge.reshape", "edge.expand", "edge.reshape"));
  const ir::Node *expand = NodeAt(*g, 1);
  EXPECT_EQ(expand->input(0)->type().sizes, (std::vector<int64_t>{1, 1, 1, 3, 1, 4}));
  EXPECT_THAT(Ints(*expand, "sizes"), ElementsAre(2, 1, 1, 3, 3, 4));
}

TEST(Structural, RollMovesTheTailToTheFront) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 5}));
  b.Output(b.Op("aten.roll.default", {x}).Attr("shifts", {-2}).Attr("dims", {1}).Out(F32({2, 5})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Ops(*g), ElementsAre("edge.slice", "edge.slice", "edge.concatenate"));
  // A shift of -2 is a shift of 3: the last 3 entries come first.
  const ir::Node *tail = *g->nodes().begin();
  EXPECT_EQ(Int(*tail, "start"), 2);
  EXPECT_EQ(Int(*tail, "end"), 5);
}

TEST(Structural, FlipPicksAConstantDescendingIndex) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 1, 4}));
  b.Output(b.Op("aten.flip.default", {x}).Attr("dims", {-1, 1}).Out(F32({2, 1, 4})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  // The size-1 dim needs no node.
  EXPECT_THAT(Ops(*g), ElementsAre("edge.index_select"));
  EXPECT_THAT(Values<int64_t>(*(*g->nodes().begin())->input(1)), ElementsAre(3, 2, 1, 0));
}

TEST(Structural, DiagonalIsAStridedSliceOfTheMergedDims) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({3, 4}));
  b.Output(b.Op("aten.diagonal.default", {x}).Attr("offset", 1).Out(F32({3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Ops(*g), ElementsAre("edge.reshape", "edge.slice"));
  const ir::Node *slice = NodeAt(*g, 1);
  // Elements 1, 6, 11 of the 12: (0, 1), (1, 2), (2, 3).
  EXPECT_EQ(Int(*slice, "start"), 1);
  EXPECT_EQ(Int(*slice, "end"), 12);
  EXPECT_EQ(Int(*slice, "step"), 5);
}

TEST(Structural, UpsampleNearestPicksAtenSourceRows) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({1, 2, 4, 6}));
  b.Output(b.Op("aten.upsample_nearest2d.vec", {x})
               .Attr("output_size", {7, 6})
               .Out(F32({1, 2, 7, 6})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  // Width unchanged: one index_select, over H: floor(o * 4 / 7).
  EXPECT_THAT(Ops(*g), ElementsAre("edge.index_select"));
  EXPECT_THAT(Values<int64_t>(*(*g->nodes().begin())->input(1)),
              ElementsAre(0, 0, 1, 1, 2, 2, 3));
}

TEST(Structural, CopyIntoATensorBroadcastsAndCasts) {
  GraphBuilder b;
  ir::Value *self = b.Input("self", F32({2, 3}));
  ir::Value *src = b.Input("src", I64({3}));
  b.Output(b.Op("aten.copy_.default", {self, src}).Out(F32({2, 3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Ops(*g), ElementsAre("edge.cast", "edge.expand"));
}

TEST(Structural, AnInPlaceWriteIntoASliceReachesTheBase) {
  // mask = x.new_zeros(4, 6); mask[:, 2:4].fill_(1.5); return mask (swin_t's mask pattern).
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3}));
  ir::Value *mask = b.Op("aten.new_zeros.default", {x}).Attr("size", {4, 6}).Out(F32({4, 6}));
  ir::Value *view = b.Op("aten.slice.Tensor", {mask})
                        .Attr("dim", 1)
                        .Attr("start", 2)
                        .Attr("end", 4)
                        .Out(F32({4, 2}));
  b.Op("aten.fill_.Scalar", {view}).Attr("value", ir::AttrValue::Double(1.5)).Out(F32({4, 2}));
  b.Output(mask);
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  // The view's own slice (read by nothing now), then head, tail and the joined base.
  EXPECT_THAT(Ops(*g), ElementsAre("edge.slice", "edge.slice", "edge.slice", "edge.concatenate"));
  const ir::Node *joined = NodeAt(*g, 3);
  EXPECT_EQ(g->outputs()[0], joined->output());
  ASSERT_EQ(joined->num_inputs(), 3u);
  EXPECT_THAT(Values<float>(*joined->input(1)), ::testing::Each(1.5f));
  EXPECT_EQ(joined->input(1)->type(), F32({4, 2}));
}

TEST(Structural, AnInPlaceWriteIntoAFactoryResultReplacesIt) {
  // e = torch.empty(2, 3); e.copy_(x); return e: the factory node has no input to write
  // through to (this once read input 0 of the empty node and threw).
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3}));
  ir::Value *empty = b.Op("aten.empty.memory_format", {}).Attr("size", {2, 3}).Out(F32({2, 3}));
  b.Op("aten.copy_.default", {empty, x}).Out(F32({2, 3}));
  b.Output(b.Op("aten.mul.Scalar", {empty}).Attr("other", ir::AttrValue::Double(2.0)).Out(
      F32({2, 3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(Ops(*g), ElementsAre("edge.mul"));
  EXPECT_EQ(NodeAt(*g, 0)->input(0), g->inputs()[0]);
}

TEST(Structural, SliceScatterWithAStepScattersAtTheStridedPositions) {
  // slice_scatter(x [2, 7], src [2, 3], dim 1, start 1, end 7, step 2): columns 1, 3, 5.
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 7}));
  ir::Value *src = b.Input("src", F32({2, 3}));
  b.Output(b.Op("aten.slice_scatter.default", {x, src})
               .Attr("dim", 1)
               .Attr("start", 1)
               .Attr("end", 7)
               .Attr("step", 2)
               .Out(F32({2, 7})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  const ir::Node *scatter = nullptr;
  for (const ir::Node *node : g->nodes()) {
    if (node->op() == "edge.scatter") scatter = node;
  }
  ASSERT_NE(scatter, nullptr);
  EXPECT_EQ(Int(*scatter, "dim"), 1);
  EXPECT_EQ(scatter->input(1)->type(), I64({2, 3}));
  EXPECT_EQ(g->outputs()[0], scatter->output());
}

// --- empty_strided, as_strided ------------------------------------------------------------

TEST(EmptyStrided, ContiguousStridesGiveZerosOthersAreRefused) {
  GraphBuilder ok;
  ok.Input("x", F32({1}));
  ok.Output(ok.Op("aten.empty_strided.default", {})
                .Attr("size", {2, 1, 3})
                .Attr("stride", {3, 7, 1})  // a dim of size 1 may have any stride
                .Out(F32({2, 1, 3})));
  auto g = Lower(ok);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->outputs()[0]->kind(), ir::ValueKind::kConstant);
  EXPECT_THAT(Values<float>(*g->outputs()[0]), ElementsAre(0, 0, 0, 0, 0, 0));

  GraphBuilder transposed;
  transposed.Input("x", F32({1}));
  transposed.Output(transposed.Op("aten.empty_strided.default", {})
                        .Attr("size", {2, 3})
                        .Attr("stride", {1, 2})
                        .Out(F32({2, 3})));
  EXPECT_THAT(LoweringError(transposed), HasSubstr("which are not contiguous"));
}

TEST(AsStrided, ReadsPositionsOfTheFlatInput) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({2, 3, 4}));
  b.Output(b.Op("aten.as_strided.default", {x})
               .Attr("size", {2, 3})
               .Attr("stride", {5, 2})
               .Attr("storage_offset", 1)
               .Out(F32({2, 3})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  ASSERT_THAT(Ops(*g), ElementsAre("edge.reshape", "edge.index_select", "edge.reshape"));
  const ir::Node *select = g->first_node()->output()->uses()[0].user;
  EXPECT_THAT(Values<int64_t>(*select->input(1)), ElementsAre(1, 3, 5, 6, 8, 10));
}

TEST(AsStrided, RefusesReadsPastTheStorageAndStridedViews) {
  GraphBuilder past;
  ir::Value *x = past.Input("x", F32({2, 3, 4}));
  past.Output(past.Op("aten.as_strided.default", {x})
                  .Attr("size", {3, 5})
                  .Attr("stride", {8, 1})
                  .Attr("storage_offset", 4)
                  .Out(F32({3, 5})));
  EXPECT_THAT(LoweringError(past), HasSubstr("reach element 24 of a storage of 24 elements"));

  // Eager elementwise ops keep a transposed input's strides: refused through them too, and
  // accepted after .contiguous().
  for (bool contiguous : {false, true}) {
    GraphBuilder view;
    ir::Value *y = view.Input("y", F32({4, 6}));
    ir::Value *t =
        view.Op("aten.transpose.int", {y}).Attr("dim0", 0).Attr("dim1", 1).Out(F32({6, 4}));
    if (contiguous) t = view.Op("aten.contiguous.default", {t}).Out(F32({6, 4}));
    t = view.Op("aten.mul.Tensor", {t}).Attr("other", 2.0).Out(F32({6, 4}));
    view.Output(view.Op("aten.as_strided.default", {t})
                    .Attr("size", {2})
                    .Attr("stride", {1})
                    .Out(F32({2})));
    if (contiguous) {
      EXPECT_NE(Lower(view), nullptr);
    } else {
      EXPECT_THAT(LoweringError(view),
                  HasSubstr("as_strided of a tensor computed from aten.transpose.int"));
    }
  }
}

TEST(GridSampling, GridSamplerKeepsAtenModeIntegers) {
  for (const char *op : {"aten.grid_sampler_2d.default", "aten.grid_sampler.default"}) {
    GraphBuilder b;
    ir::Value *x = b.Input("x", F32({1, 3, 5, 6}));
    ir::Value *grid = b.Input("grid", F32({1, 4, 7, 2}));
    b.Output(b.Op(op, {x, grid})
                 .Attr("interpolation_mode", 2)
                 .Attr("padding_mode", 1)
                 .Attr("align_corners", true)
                 .Out(F32({1, 3, 4, 7})));
    auto g = Lower(b);
    ASSERT_NE(g, nullptr);
    ASSERT_THAT(Ops(*g), ElementsAre("edge.grid_sampler_2d"));
    EXPECT_EQ(Int(*g->first_node(), "interpolation_mode"), 2);
    EXPECT_EQ(Int(*g->first_node(), "padding_mode"), 1);
    EXPECT_TRUE(g->first_node()->FindAttr("align_corners")->as_bool());
  }
}

TEST(GridSampling, VolumetricGridSamplerIsRefused) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({1, 3, 2, 5, 6}));
  ir::Value *grid = b.Input("grid", F32({1, 2, 4, 7, 3}));
  b.Output(b.Op("aten.grid_sampler.default", {x, grid})
               .Attr("interpolation_mode", 0)
               .Attr("padding_mode", 0)
               .Attr("align_corners", false)
               .Out(F32({1, 3, 2, 4, 7})));
  EXPECT_THAT(LoweringError(b), HasSubstr("rank-5"));
}

// im2col / col2im live in rules/linear_algebra.cpp but lower to this family's ops only.
TEST(Patches, Im2colSlicesOnePairPerTap) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({1, 3, 5, 6}));
  b.Output(b.Op("aten.im2col.default", {x})
               .Attr("kernel_size", {3, 2})
               .Attr("dilation", {1, 2})
               .Attr("padding", {1, 1})
               .Attr("stride", {2, 1})
               .Out(F32({1, 18, 18})));
  auto g = Lower(b);
  ASSERT_NE(g, nullptr);
  int slices = 0, concatenations = 0;
  for (const ir::Node *node : g->nodes()) {
    slices += node->op() == "edge.slice";
    concatenations += node->op() == "edge.concatenate";
  }
  EXPECT_EQ(slices, 12);  // rows and columns for each of the 6 taps
  EXPECT_EQ(concatenations, 1);
  EXPECT_EQ(g->first_node()->op(), "edge.constant_pad");
}

TEST(Patches, IntegerPatchesAreRefusedAsAtenDoes) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", I64({1, 3, 5, 6}));
  b.Output(b.Op("aten.im2col.default", {x})
               .Attr("kernel_size", {2, 2})
               .Attr("dilation", {1, 1})
               .Attr("padding", {0, 0})
               .Attr("stride", {1, 1})
               .Out(I64({1, 12, 20})));
  EXPECT_THAT(LoweringError(b), HasSubstr("im2col of a tensor of dtype int64 (float32 only)"));
}

TEST(Patches, Col2imChecksTheColumnCount) {
  GraphBuilder b;
  ir::Value *x = b.Input("x", F32({1, 12, 19}));  // 4 x 5 = 20 positions for a 5x6 output
  b.Output(b.Op("aten.col2im.default", {x})
               .Attr("output_size", {5, 6})
               .Attr("kernel_size", {2, 2})
               .Attr("dilation", {1, 1})
               .Attr("padding", {0, 0})
               .Attr("stride", {1, 1})
               .Out(F32({1, 3, 5, 6})));
  EXPECT_THAT(LoweringError(b), HasSubstr("does not hold 4 taps per channel over 4x5 positions"));
}

}  // namespace
}  // namespace torchir::lowering
