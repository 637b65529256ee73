// Multiply-accumulate counts of Edge nodes (compiler/dialect/node_macs.h).
#include "compiler/dialect/node_macs.h"

#include <gtest/gtest.h>

#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"

namespace torchir::dialect {
namespace {

using testing::EdgeGraphBuilder;
using testing::F32;

uint64_t Macs(const ir::Value* output) { return NodeMacs(*output->producer()); }

TEST(NodeMacsTest, ConvolutionsCountOutputsTimesTheFilterVolumePerOutput) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({2, 4, 8, 8}));
  // 2 x 6 x 8 x 8 outputs, each C_in / groups x 3 x 3 = 36 MACs.
  EXPECT_EQ(Macs(g.Conv(x, g.Weight("w", F32({6, 4, 3, 3})), nullptr, {1, 1}, {1, 1})),
            2u * 6 * 8 * 8 * 4 * 9);
  // Grouped: C_in / groups = 2.
  EXPECT_EQ(Macs(g.Conv(x, g.Weight("wg", F32({6, 2, 3, 3})), nullptr, {1, 1}, {1, 1}, {1, 1}, 2)),
            2u * 6 * 8 * 8 * 2 * 9);
  // Depthwise: one input channel per output.
  EXPECT_EQ(Macs(g.Conv(x, g.Weight("dw", F32({4, 1, 3, 3})), nullptr, {2, 2}, {1, 1}, {1, 1}, 4)),
            2u * 4 * 4 * 4 * 9);
  EXPECT_EQ(Macs(g.Conv(g.Input("seq", F32({1, 4, 10})), g.Weight("w1", F32({5, 4, 3})), nullptr,
                        {1}, {0})),
            1u * 5 * 8 * 4 * 3);
}

TEST(NodeMacsTest, MatrixProductsCountOutputsTimesTheReducedDim) {
  EdgeGraphBuilder g;
  EXPECT_EQ(Macs(g.Linear(g.Input("x", F32({3, 7, 16})), g.Weight("w", F32({5, 16})))),
            3u * 7 * 5 * 16);
  EXPECT_EQ(Macs(g.Op("edge.matmul", {g.Input("a", F32({2, 3, 4})), g.Input("b", F32({2, 4, 5}))})),
            2u * 3 * 5 * 4);
}

TEST(NodeMacsTest, EverythingElseCountsNothing) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 4, 8, 8}));
  EXPECT_EQ(Macs(g.Op("edge.add", {x, x})), 0u);
  EXPECT_EQ(Macs(g.MaxPool(x, {2, 2}, {2, 2}, {0, 0})), 0u);
  EXPECT_EQ(Macs(g.Mean(x, {2, 3}, true)), 0u);
  g.Output(x);
  std::unique_ptr<ir::Graph> graph = g.Build();
  EXPECT_EQ(GraphMacs(*graph), 0u);
}

TEST(NodeMacsTest, AGraphSumsItsNodes) {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 4, 4}));
  ir::Value* conv = g.Conv(x, g.Weight("w", F32({3, 2, 1, 1})), nullptr, {1, 1}, {0, 0});
  g.Output(g.Linear(conv, g.Weight("fc", F32({2, 4}))));
  std::unique_ptr<ir::Graph> graph = g.Build();
  EXPECT_EQ(GraphMacs(*graph), 1u * 3 * 4 * 4 * 2 + 1u * 3 * 4 * 2 * 4);
}

}  // namespace
}  // namespace torchir::dialect
