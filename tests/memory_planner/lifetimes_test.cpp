#include "memory_planner/lifetimes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace torchir::memory_planner {
namespace {

using ::testing::HasSubstr;

std::vector<std::pair<int64_t, int64_t>> Spans(const Program& program) {
  Expected<std::vector<Lifetime>> lifetimes = ComputeLifetimes(program);
  EXPECT_TRUE(lifetimes.ok()) << lifetimes.error().message;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const Lifetime& lifetime : lifetimes.value()) {
    spans.emplace_back(lifetime.first_use, lifetime.last_use);
  }
  return spans;
}

// x(0) -> conv -> 1 -> relu -> 2 -> add(2, x) -> 3 (output)
Program ResidualBlock() {
  Program program;
  program.buffer_count = 4;
  program.instructions = {{{0}, {1}}, {{1}, {2}}, {{2, 0}, {3}}};
  program.graph_inputs = {0};
  program.graph_outputs = {3};
  return program;
}

TEST(LifetimesTest, SpanFromFirstToLastInstructionTouchingTheBuffer) {
  EXPECT_EQ(Spans(ResidualBlock()),
            (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {0, 1}, {1, 2}, {2, 2}}));
}

TEST(LifetimesTest, GraphInputsStartAtZeroAndOutputsLastToTheEnd) {
  Program program;
  program.buffer_count = 3;
  // Input 0 is first read at instruction 2; output 1 is written at 0 and never read again.
  program.instructions = {{{}, {1}}, {{}, {2}}, {{0, 2}, {}}};
  program.graph_inputs = {0};
  program.graph_outputs = {1};
  EXPECT_EQ(Spans(program), (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {0, 2}, {1, 2}}));
}

TEST(LifetimesTest, UntouchedBuffersStayUnused) {
  Program program;
  program.buffer_count = 2;
  program.instructions = {{{}, {0}}};
  Expected<std::vector<Lifetime>> lifetimes = ComputeLifetimes(program);
  ASSERT_TRUE(lifetimes.ok());
  EXPECT_TRUE(lifetimes.value()[0].used());
  EXPECT_FALSE(lifetimes.value()[1].used());
}

TEST(LifetimesTest, AnInputThatIsAlsoAnOutputOfAnEmptyProgramLivesAtZero) {
  Program program;
  program.buffer_count = 1;
  program.graph_inputs = {0};
  program.graph_outputs = {0};
  EXPECT_EQ(Spans(program), (std::vector<std::pair<int64_t, int64_t>>{{0, 0}}));
}

TEST(LifetimesTest, BasesCoverTheirViewsUpTheChain) {
  // 0 is written at 0; 1 = view(0) read at 2; 2 = view(1) read at 4.
  Program program;
  program.buffer_count = 4;
  program.instructions = {{{}, {0}}, {{}, {3}}, {{1}, {}}, {{3}, {}}, {{2}, {}}};
  program.view_of = {kNoBuffer, 0, 1, kNoBuffer};
  EXPECT_EQ(Spans(program),
            (std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {2, 4}, {4, 4}, {1, 3}}));
}

TEST(LifetimesTest, RejectsInvalidPrograms) {
  Program program = ResidualBlock();
  program.instructions[1].reads = {9};
  Expected<std::vector<Lifetime>> out_of_range = ComputeLifetimes(program);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_THAT(out_of_range.error().message,
              HasSubstr("instruction 1: buffer 9 out of range [0, 4)"));

  program = ResidualBlock();
  program.view_of = {1, 2, 0, kNoBuffer};
  Expected<std::vector<Lifetime>> cycle = ComputeLifetimes(program);
  ASSERT_FALSE(cycle.ok());
  EXPECT_THAT(cycle.error().message, HasSubstr("view cycle"));

  program = ResidualBlock();
  program.view_of = {kNoBuffer};
  EXPECT_FALSE(ComputeLifetimes(program).ok());
  program.view_of = {kNoBuffer, 5, kNoBuffer, kNoBuffer};
  EXPECT_FALSE(ComputeLifetimes(program).ok());
  program = ResidualBlock();
  program.graph_outputs = {-1};
  EXPECT_FALSE(ComputeLifetimes(program).ok());
}

}  // namespace
}  // namespace torchir::memory_planner
