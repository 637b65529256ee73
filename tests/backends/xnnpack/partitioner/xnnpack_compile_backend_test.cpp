// The XNNPACK partitioner behind the backend interface: the same decisions as
// PartitionForXnnpack, restated per node, with delegates numbered from the index
// the pipeline gives.
#include "backends/xnnpack/partitioner/xnnpack_compile_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "backends/xnnpack/partitioner/xnnpack_partitioner.h"
#include "compiler/dialect/delegate_call.h"
#include "tests/backends/xnnpack/partitioner/edge_graph_builder.h"

namespace torchir::xnnpack {
namespace {

using testing::EdgeGraphBuilder;
using testing::F32;
using ::testing::HasSubstr;

// conv -> reshape -> matmul (refused) -> linear: two regions around the matmul.
std::unique_ptr<ir::Graph> ConvMatmulLinear() {
  EdgeGraphBuilder g;
  ir::Value* x = g.Input("x", F32({1, 2, 4, 4}));
  ir::Value* conv = g.Conv(x, g.Weight("w", F32({4, 2, 3, 3})), nullptr, {1, 1}, {1, 1}, {}, 1,
                           -testing::kInf, testing::kInf, "conv");
  ir::Value* rows = g.Reshape(conv, {1, 4, 16}, "rows");
  ir::Value* gram = g.Op("edge.matmul", {rows, g.Input("y", F32({1, 16, 5}))}, {}, "gram");
  g.Output(g.Linear(gram, g.Weight("fc", F32({3, 5})), g.Weight("fc_b", F32({3}))));
  return g.Build();
}

TEST(XnnpackCompileBackendTest, ChecksNodesWithTheCapabilityTable) {
  std::unique_ptr<backend::Backend> xnnpack = MakeXnnpackCompileBackend();
  EXPECT_EQ(xnnpack->name(), "xnnpack");
  auto graph = ConvMatmulLinear();
  EXPECT_TRUE(xnnpack->CheckNode(*graph->FindNode("conv")).supported);
  backend::Capability matmul = xnnpack->CheckNode(*graph->FindNode("gram"));
  EXPECT_FALSE(matmul.supported);
  EXPECT_THAT(matmul.reason, HasSubstr("no batch matrix multiply"));
}

TEST(XnnpackCompileBackendTest, NumbersDelegatesFromTheGivenIndexAndDecidesEveryNode) {
  auto graph = ConvMatmulLinear();
  absl::StatusOr<backend::PartitionResult> result =
      MakeXnnpackCompileBackend()->Partition(*graph, /*first_delegate_index=*/3);
  ASSERT_TRUE(result.ok()) << result.status();

  ASSERT_EQ(result->delegates.size(), 2u);
  ASSERT_EQ(result->payloads.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const backend::DelegateSummary& delegate = result->delegates[i];
    EXPECT_EQ(delegate.delegate_index, 3 + static_cast<int64_t>(i));
    EXPECT_EQ(delegate.blob_bytes, result->payloads[i].blob.size());
    EXPECT_EQ(result->payloads[i].backend_id, kXnnpackBackendId);
    EXPECT_EQ(result->payloads[i].read_overrun_bytes, kXnnpackExtraBytes);
    const ir::Node* call = graph->FindNode(delegate.call_node);
    ASSERT_NE(call, nullptr) << delegate.call_node;
    EXPECT_EQ(call->op(), dialect::kDelegateCallOp);
    EXPECT_EQ(call->FindAttr(dialect::kDelegateIndexAttr)->as_int(), delegate.delegate_index);
  }
  EXPECT_EQ(result->delegates[0].call_node, "xnnpack_delegate_3");
  EXPECT_EQ(result->delegates[0].detail, "channels-last");
  EXPECT_EQ(result->delegates[1].detail, "logical");

  ASSERT_EQ(result->decisions.size(), 4u);
  EXPECT_EQ(result->decisions[0].node, "conv");
  EXPECT_TRUE(result->decisions[0].taken);
  EXPECT_EQ(result->decisions[0].delegate_index, 3);
  EXPECT_EQ(result->decisions[0].macs, 4u * 16 * 2 * 9);
  EXPECT_EQ(result->decisions[1].node, "rows");
  EXPECT_EQ(result->decisions[1].delegate_index, 3);
  EXPECT_EQ(result->decisions[2].node, "gram");
  EXPECT_FALSE(result->decisions[2].taken);
  EXPECT_THAT(result->decisions[2].reason, HasSubstr("no batch matrix multiply"));
  EXPECT_EQ(result->decisions[3].op, "edge.linear");
  EXPECT_EQ(result->decisions[3].delegate_index, 4);
  EXPECT_EQ(result->DelegatedMacs(), 4u * 16 * 2 * 9 + 4 * 3 * 5);

  ASSERT_EQ(result->notes.size(), 1u);
  // Into the channels-last region and back out; the filter stored as OHWI.
  EXPECT_EQ(result->notes[0],
            "layout: 2 permutes inserted at region borders, 0 avoided; 1 constant repacked");
}

}  // namespace
}  // namespace torchir::xnnpack
