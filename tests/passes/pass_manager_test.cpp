#include "passes/pass_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "passes/common_subexpression_elimination.h"
#include "passes/dead_code_elimination.h"
#include "tests/passes/run_pass.h"
#include "tests/support/graph_builder.h"

namespace torchir::passes {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using testing::F32;
using testing::GraphBuilder;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::NodeNames;
using ::testing::Not;

// Appends its name to `log` on every run; reports a change while `changes_left` > 0.
class LoggingPass : public Pass {
 public:
  LoggingPass(std::string name, std::vector<std::string>* log, int changes_left = 0)
      : name_(std::move(name)), log_(log), changes_left_(changes_left) {}
  std::string_view name() const override { return name_; }
  absl::Status Run(ir::Graph&, PassContext& context) override {
    log_->push_back(name_);
    context.AddToCounter("runs", 1);
    if (changes_left_ > 0) {
      --changes_left_;
      context.MarkChanged();
    }
    return absl::OkStatus();
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  int changes_left_;
};

// Erases the last node whose outputs are unused, one per run.
class EraseOneUnusedNode : public Pass {
 public:
  std::string_view name() const override { return "erase_one_unused_node"; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override {
    std::vector<ir::Node*> nodes = graph.NodeSnapshot();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      bool unused = true;
      for (const ir::Value* out : (*it)->outputs()) {
        unused = unused && !out->has_uses() && !out->is_graph_output();
      }
      if (unused) {
        graph.EraseNode(*it);
        context.MarkChanged();
        break;
      }
    }
    return absl::OkStatus();
  }
};

// Moves the last node to the front: it then reads values produced after it.
class MoveLastNodeFirst : public Pass {
 public:
  std::string_view name() const override { return "move_last_node_first"; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override {
    graph.MoveBefore(graph.last_node(), graph.first_node());
    context.MarkChanged();
    return absl::OkStatus();
  }
};

// Renames every op to "bad.op".
class RenameOpsToBad : public Pass {
 public:
  std::string_view name() const override { return "rename_ops_to_bad"; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override {
    for (ir::Node* node : graph.nodes()) node->set_op("bad.op");
    context.MarkChanged();
    return absl::OkStatus();
  }
};

// Fails without touching the graph.
class FailingPass : public Pass {
 public:
  std::string_view name() const override { return "failing_pass"; }
  absl::Status Run(ir::Graph&, PassContext&) override {
    return absl::UnimplementedError("cannot handle this graph");
  }
};

// Rejects graphs holding a "bad.op" node, like a dialect verifier would.
absl::Status RejectBadOps(const ir::Graph& graph) {
  for (const ir::Node* node : graph.nodes()) {
    if (node->op() == "bad.op") {
      return absl::InvalidArgumentError("node '" + node->name() + "' has an unknown op");
    }
  }
  return absl::OkStatus();
}

// x -> relu -> neg -> exp, returning exp; three nodes in a chain.
std::unique_ptr<ir::Graph> Chain(bool with_output = true) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* a = b.Op("aten.relu.default", {x}).Out(F32({4}));
  ir::Value* c = b.Op("aten.neg.default", {a}).Out(F32({4}));
  ir::Value* d = b.Op("aten.exp.default", {c}).Out(F32({4}));
  if (with_output) b.Output(d);
  return b.Build();
}

std::vector<std::string> RunNames(const PassManager& manager) {
  std::vector<std::string> names;
  for (const PassStatistics& row : manager.statistics()) names.push_back(row.pass_name);
  return names;
}

TEST(PassManager, RunsPassesInTheOrderAdded) {
  std::vector<std::string> log;
  PassManager manager;
  manager.Add(std::make_unique<LoggingPass>("first", &log))
      .Add(std::make_unique<LoggingPass>("second", &log))
      .Add(std::make_unique<LoggingPass>("third", &log));
  auto graph = Chain();

  ASSERT_TRUE(manager.Run(*graph).ok());

  EXPECT_THAT(log, ElementsAre("first", "second", "third"));
}

TEST(PassManager, RecordsOneStatisticsRowPerPassRun) {
  std::vector<std::string> log;
  PassManager manager;
  manager.Add(std::make_unique<LoggingPass>("changes", &log, 1))
      .Add(std::make_unique<LoggingPass>("keeps", &log));
  auto graph = Chain();

  ASSERT_TRUE(manager.Run(*graph).ok());

  ASSERT_EQ(manager.statistics().size(), 2u);
  const PassStatistics& first = manager.statistics()[0];
  EXPECT_EQ(first.pass_name, "changes");
  EXPECT_EQ(first.iteration, 0);
  EXPECT_TRUE(first.changed);
  EXPECT_GE(first.wall_time.count(), 0);
  EXPECT_THAT(first.counters, ElementsAre(std::make_pair(std::string("runs"), int64_t{1})));
  EXPECT_FALSE(manager.statistics()[1].changed);
}

TEST(PassManager, StartsFreshStatisticsOnEveryRun) {
  std::vector<std::string> log;
  PassManager manager;
  manager.Add(std::make_unique<LoggingPass>("only", &log));
  auto graph = Chain();

  ASSERT_TRUE(manager.Run(*graph).ok());
  ASSERT_TRUE(manager.Run(*graph).ok());

  EXPECT_EQ(manager.statistics().size(), 1u);
}

TEST(PassManager, RunsTheRealPassesWithTheGivenOpProperties) {
  // Two equal relus, one unused: CSE merges them and DCE then finds nothing to erase.
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({4}));
  ir::Value* a = b.Op("aten.relu.default", {x}).Out(F32({4}));
  ir::Value* c = b.Op("aten.relu.default", {x}).Out(F32({4}));
  b.Op("aten.neg.default", {x}).Name("unused").Out(F32({4}));
  b.Output(b.Op("aten.add.Tensor", {a, c}).Name("add").Out(F32({4})));
  auto graph = b.Build();
  PassManager manager;
  manager.Add(std::make_unique<CommonSubexpressionElimination>())
      .Add(std::make_unique<DeadCodeElimination>());

  ASSERT_TRUE(manager.Run(*graph).ok());

  EXPECT_THAT(NodeNames(*graph), ElementsAre("relu", "add"));
  EXPECT_THAT(RunNames(manager),
              ElementsAre("common_subexpression_elimination", "dead_code_elimination"));
}

TEST(PassManager, DumpsTheGraphAfterTheNamedPassesOnly) {
  std::vector<std::string> log;
  std::ostringstream dumps;
  PassManagerOptions options;
  options.dump_graph_after = {"rename_ops_to_bad"};
  options.dump_stream = &dumps;
  PassManager manager(options);
  manager.Add(std::make_unique<LoggingPass>("before", &log))
      .Add(std::make_unique<RenameOpsToBad>())
      .Add(std::make_unique<LoggingPass>("after", &log));
  auto graph = Chain();

  ASSERT_TRUE(manager.Run(*graph).ok());

  EXPECT_THAT(dumps.str(), AllOf(HasSubstr("graph after pass 'rename_ops_to_bad'"),
                                 HasSubstr("= bad.op(%x)"), Not(HasSubstr("'before'")),
                                 Not(HasSubstr("'after'")), Not(HasSubstr("aten.relu"))));
}

TEST(PassManager, RejectsAnUnknownDumpPassNameListingTheValidOnes) {
  std::vector<std::string> log;
  PassManagerOptions options;
  options.dump_graph_after = {"dead_code_elimination", "cse"};
  std::ostringstream dumps;
  options.dump_stream = &dumps;
  PassManager manager(options);
  manager.Add(std::make_unique<DeadCodeElimination>())
      .Add(std::make_unique<LoggingPass>("logging", &log));
  auto graph = Chain();

  absl::Status status = manager.Run(*graph);

  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("unknown pass 'cse'"),
                    HasSubstr("valid passes: dead_code_elimination, logging")));
  EXPECT_THAT(log, IsEmpty());
  EXPECT_THAT(dumps.str(), IsEmpty());
  EXPECT_FALSE(manager.ValidateOptions().ok());
}

TEST(PassManager, NamesThePassThatBrokeTheGraphInvariants) {
  std::vector<std::string> log;
  PassManagerOptions options;
  options.verify_after_each_pass = true;
  PassManager manager(options);
  manager.Add(std::make_unique<LoggingPass>("harmless", &log))
      .Add(std::make_unique<MoveLastNodeFirst>())
      .Add(std::make_unique<LoggingPass>("never_runs", &log));
  auto graph = Chain();

  absl::Status status = manager.Run(*graph);

  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), AllOf(HasSubstr("after pass 'move_last_node_first'"),
                                                   HasSubstr("before its producer")));
  EXPECT_THAT(log, ElementsAre("harmless"));
}

TEST(PassManager, RunsTheVerifierBeforeTheFirstPassAndAfterEveryPass) {
  std::vector<std::string> log;
  int verifications = 0;
  PassManagerOptions options;
  options.verify_after_each_pass = true;
  options.verifier = [&](const ir::Graph&) {
    ++verifications;
    return absl::OkStatus();
  };
  PassManager manager(options);
  manager.Add(std::make_unique<LoggingPass>("a", &log))
      .Add(std::make_unique<LoggingPass>("b", &log));
  auto graph = Chain();

  ASSERT_TRUE(manager.Run(*graph).ok());

  EXPECT_EQ(verifications, 3);
}

TEST(PassManager, NamesThePassAfterWhichTheVerifierFailed) {
  PassManagerOptions options;
  options.verify_after_each_pass = true;
  options.verifier = RejectBadOps;
  PassManager manager(options);
  manager.Add(std::make_unique<DeadCodeElimination>()).Add(std::make_unique<RenameOpsToBad>());
  auto graph = Chain();

  absl::Status status = manager.Run(*graph);

  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("after pass 'rename_ops_to_bad'"), HasSubstr("unknown op")));
}

TEST(PassManager, BlamesABrokenInputOnNoPass) {
  std::vector<std::string> log;
  PassManagerOptions options;
  options.verify_after_each_pass = true;
  options.verifier = RejectBadOps;
  PassManager manager(options);
  manager.Add(std::make_unique<LoggingPass>("a", &log));
  auto graph = Chain();
  graph->first_node()->set_op("bad.op");

  absl::Status status = manager.Run(*graph);

  EXPECT_THAT(std::string(status.message()), HasSubstr("before the first pass"));
  EXPECT_THAT(log, IsEmpty());
}

TEST(PassManager, SkipsVerificationWhenTurnedOff) {
  PassManagerOptions options;
  options.verify_after_each_pass = false;
  options.verifier = RejectBadOps;
  PassManager manager(options);
  manager.Add(std::make_unique<RenameOpsToBad>());
  auto graph = Chain();

  EXPECT_TRUE(manager.Run(*graph).ok());
}

TEST(PassManager, VerifiesByDefaultExactlyInDebugBuilds) {
  EXPECT_EQ(PassManagerOptions().verify_after_each_pass, kVerifyPassesByDefault);
#ifdef NDEBUG
  EXPECT_FALSE(kVerifyPassesByDefault);
#else
  EXPECT_TRUE(kVerifyPassesByDefault);
#endif
}

TEST(PassManager, StopsAtAFailingPassAndPrefixesItsName) {
  std::vector<std::string> log;
  PassManager manager;
  manager.Add(std::make_unique<FailingPass>()).Add(std::make_unique<LoggingPass>("later", &log));
  auto graph = Chain();

  absl::Status status = manager.Run(*graph);

  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(), "pass 'failing_pass': cannot handle this graph");
  EXPECT_THAT(log, IsEmpty());
  EXPECT_THAT(RunNames(manager), ElementsAre("failing_pass"));
}

TEST(PassManager, RepeatsAFixedPointGroupUntilNothingChanges) {
  std::vector<std::string> log;
  PassManager manager;
  manager.AddFixedPointGroup(MakePassList(std::make_unique<EraseOneUnusedNode>(),
                                          std::make_unique<LoggingPass>("logging", &log)));
  auto graph = Chain(/*with_output=*/false);

  ASSERT_TRUE(manager.Run(*graph).ok());

  EXPECT_EQ(graph->num_nodes(), 0u);
  // Three iterations erase one node each; the fourth changes nothing and ends the loop.
  ASSERT_EQ(manager.statistics().size(), 8u);
  EXPECT_EQ(manager.statistics()[6].iteration, 4);
  EXPECT_FALSE(manager.statistics()[6].changed);
  EXPECT_TRUE(manager.statistics()[4].changed);
  EXPECT_EQ(log.size(), 4u);
}

TEST(PassManager, StopsAFixedPointGroupAtItsIterationCap) {
  std::vector<std::string> log;
  PassManager manager;
  manager.AddFixedPointGroup(MakePassList(std::make_unique<LoggingPass>("forever", &log, 1000)),
                             FixedPointOptions{/*max_iterations=*/5});
  manager.Add(std::make_unique<LoggingPass>("next", &log));
  auto graph = Chain();

  ASSERT_TRUE(manager.Run(*graph).ok());

  EXPECT_EQ(log.size(), 6u);
  EXPECT_EQ(log.back(), "next");
}

TEST(PassManager, CanRequireAFixedPointGroupToConverge) {
  std::vector<std::string> log;
  PassManager manager;
  manager.AddFixedPointGroup(MakePassList(std::make_unique<LoggingPass>("forever", &log, 1000)),
                             FixedPointOptions{/*max_iterations=*/3,
                                               /*fail_if_not_converged=*/true});
  auto graph = Chain();

  absl::Status status = manager.Run(*graph);

  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("[forever] still changed the graph"));
}

TEST(PassManager, NamesEachPassOnceInPipelineOrder) {
  std::vector<std::string> log;
  PassManager manager;
  manager.Add(std::make_unique<LoggingPass>("b", &log))
      .AddFixedPointGroup(MakePassList(std::make_unique<LoggingPass>("a", &log),
                                       std::make_unique<LoggingPass>("b", &log)));

  EXPECT_THAT(manager.PassNames(), ElementsAre("b", "a"));
}

TEST(PassManager, RejectsAnEmptyFixedPointGroup) {
  PassManager manager;
  manager.AddFixedPointGroup({});
  auto graph = Chain();

  EXPECT_EQ(manager.Run(*graph).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace torchir::passes
