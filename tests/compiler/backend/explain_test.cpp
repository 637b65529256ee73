// RenderExplanation on hand-made results: per backend its delegates and notes, per
// node who took it or why each listed backend did not, and the op histogram.
#include "compiler/backend/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace torchir::backend {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

NodeDecision Taken(std::string node, std::string op, int64_t delegate, uint64_t macs = 0) {
  NodeDecision decision;
  decision.node = std::move(node);
  decision.op = std::move(op);
  decision.taken = true;
  decision.delegate_index = delegate;
  decision.macs = macs;
  return decision;
}

NodeDecision Refused(std::string node, std::string op, std::string reason) {
  NodeDecision decision;
  decision.node = std::move(node);
  decision.op = std::move(op);
  decision.reason = std::move(reason);
  return decision;
}

DelegateSummary Delegate(int64_t index, std::string call, std::vector<std::string> nodes,
                         std::vector<std::string> ops, uint64_t macs, std::string detail = "") {
  DelegateSummary summary;
  summary.delegate_index = index;
  summary.call_node = std::move(call);
  summary.nodes = std::move(nodes);
  summary.ops = std::move(ops);
  summary.macs = macs;
  summary.blob_bytes = 100;
  summary.detail = std::move(detail);
  return summary;
}

// "first" takes the add, "second" the convolution; nobody takes the matmul.
Partitioning TwoBackends() {
  Partitioning partitioning;
  partitioning.total_macs = 4000;
  BackendPartition first{"first", {}};
  first.result.decisions = {Refused("conv", "edge.convolution", "takes only edge.add"),
                            Taken("sum", "edge.add", 0),
                            Refused("gram", "edge.matmul", "takes only edge.add")};
  first.result.delegates = {Delegate(0, "first_delegate_0", {"sum"}, {"edge.add"}, 0)};
  BackendPartition second{"second", {}};
  second.result.decisions = {Taken("conv", "edge.convolution", 1, 3000),
                             Refused("gram", "edge.matmul", "no batch matmul")};
  second.result.delegates = {
      Delegate(1, "second_delegate_1", {"conv"}, {"edge.convolution"}, 3000, "channels-last")};
  second.result.notes = {"layout: 1 permute inserted"};
  partitioning.backends = {first, second};
  partitioning.payloads.resize(2);
  return partitioning;
}

TEST(ExplainTest, SaysPerBackendWhatItTook) {
  const std::string text = RenderExplanation(TwoBackends());
  EXPECT_THAT(text, HasSubstr("first: 1 of 3 Edge nodes delegated in 1 delegate; MACs 0 of "
                              "4 k delegated (0.00%)\n"
                              "  delegate 0 'first_delegate_0': 1 node, 0 MACs, blob 100 B\n"));
  EXPECT_THAT(text, HasSubstr("second: 1 of 2 Edge nodes delegated in 1 delegate; MACs 3 k of "
                              "4 k delegated (75.00%)\n"
                              "  delegate 1 'second_delegate_1' (channels-last): 1 node, 3 k "
                              "MACs, blob 100 B\n"
                              "  layout: 1 permute inserted\n"));
}

TEST(ExplainTest, NamesTheBackendThatTookEachNodeAndWhyTheOnesBeforeDidNot) {
  const std::string text = RenderExplanation(TwoBackends());
  EXPECT_THAT(text, HasSubstr("delegated (2):\n"
                              "  node 'conv' (edge.convolution): second delegate 1 (first: takes "
                              "only edge.add)\n"
                              "  node 'sum' (edge.add): first delegate 0\n"
                              "not delegated (1):\n"
                              "  node 'gram' (edge.matmul): first: takes only edge.add; second: "
                              "no batch matmul\n"));
  EXPECT_THAT(text, HasSubstr("op histogram:\n"
                              "  op               delegated not delegated\n"
                              "  edge.add                 1             0\n"
                              "  edge.convolution         1             0\n"
                              "  edge.matmul              0             1\n"));
}

TEST(ExplainTest, OneBackendGivesItsReasonsWithoutItsName) {
  Partitioning partitioning = TwoBackends();
  partitioning.backends.erase(partitioning.backends.begin());
  const std::string text = RenderExplanation(partitioning);
  EXPECT_THAT(text, HasSubstr("  node 'gram' (edge.matmul): no batch matmul\n"));
  EXPECT_THAT(text, HasSubstr("  node 'conv' (edge.convolution): second delegate 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("first")));
}

TEST(ExplainTest, NoBackendMeansEverythingIsPortable) {
  EXPECT_EQ(RenderExplanation(Partitioning{}),
            "backend 'portable' delegates nothing: every node runs on the portable kernels\n");
}

}  // namespace
}  // namespace torchir::backend
