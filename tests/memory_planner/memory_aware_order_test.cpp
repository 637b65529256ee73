#include "memory_planner/memory_aware_order.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace torchir::memory_planner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ScheduleResult OrderOrDie(const Program& program, const std::vector<uint64_t>& sizes) {
  Expected<ScheduleResult> result = MemoryAwareOrder(program, sizes);
  EXPECT_TRUE(result.ok()) << result.error().message;
  return result.ok() ? result.value() : ScheduleResult{};
}

// x feeds two branches, each expanding to a big tensor and shrinking back, then a concat:
//   0: a1 = expand(x)   1: b1 = expand(x)   2: a2 = shrink(a1)   3: b2 = shrink(b1)
//   4: out = concat(a2, b2)
// Buffers: x=0, a1=1, b1=2, a2=3, b2=4, out=5.
Program TwoBranches() {
  Program program;
  program.buffer_count = 6;
  program.instructions = {{{0}, {1}}, {{0}, {2}}, {{1}, {3}}, {{2}, {4}}, {{3, 4}, {5}}};
  program.graph_inputs = {0};
  program.graph_outputs = {5};
  return program;
}
const std::vector<uint64_t> kTwoBranchSizes = {10, 100, 100, 10, 10, 10};

TEST(MemoryAwareOrderTest, FinishesOneBranchBeforeStartingTheNext) {
  const ScheduleResult result = OrderOrDie(TwoBranches(), kTwoBranchSizes);
  EXPECT_TRUE(result.reordered);
  EXPECT_THAT(result.order, ElementsAre(0, 2, 1, 3, 4));
  EXPECT_EQ(result.original_peak, 210u);  // x + a1 + b1 at instruction 1
  EXPECT_EQ(result.peak, 120u);
  Expected<uint64_t> peak = PeakLiveBytesInOrder(TwoBranches(), kTwoBranchSizes, result.order);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak.value(), 120u);
}

TEST(MemoryAwareOrderTest, KeepsTheProgramOrderWhenItIsNoWorse) {
  Program chain;
  chain.buffer_count = 4;
  chain.instructions = {{{0}, {1}}, {{1}, {2}}, {{2}, {3}}};
  chain.graph_inputs = {0};
  chain.graph_outputs = {3};
  const ScheduleResult result = OrderOrDie(chain, {8, 8, 8, 8});
  EXPECT_FALSE(result.reordered);
  EXPECT_THAT(result.order, ElementsAre(0, 1, 2));
  EXPECT_EQ(result.peak, result.original_peak);
}

TEST(MemoryAwareOrderTest, AnInPlaceWriteWaitsForEarlierReadersOfItsStorage) {
  // 0: y = conv(x)   1: z = relu_(x), in place (z is a view of x).
  // Running 1 first would allocate nothing, but would clobber x before conv reads it.
  Program program;
  program.buffer_count = 3;
  program.instructions = {{{0}, {1}}, {{0}, {2}}};
  program.view_of = {kNoBuffer, kNoBuffer, 0};
  program.graph_inputs = {0};
  program.graph_outputs = {1, 2};
  const ScheduleResult result = OrderOrDie(program, {10, 100, 10});
  EXPECT_THAT(result.order, ElementsAre(0, 1));
}

TEST(MemoryAwareOrderTest, EmptyProgramHasAnEmptyOrder) {
  Program program;
  const ScheduleResult result = OrderOrDie(program, {});
  EXPECT_TRUE(result.order.empty());
  EXPECT_EQ(result.peak, 0u);
}

// Random single-assignment DAG programs: every instruction writes one new buffer and reads a few
// earlier ones (inputs or outputs of earlier instructions).
Program RandomProgram(std::mt19937& rng, std::vector<uint64_t>* sizes) {
  Program program;
  const int inputs = 1 + static_cast<int>(rng() % 3);
  const int instructions = 1 + static_cast<int>(rng() % 30);
  program.buffer_count = inputs + instructions;
  for (int i = 0; i < inputs; ++i) program.graph_inputs.push_back(i);
  for (int i = 0; i < instructions; ++i) {
    Instruction instruction;
    const int available = inputs + i;
    const int reads = 1 + static_cast<int>(rng() % 3);
    for (int r = 0; r < reads; ++r) instruction.reads.push_back(rng() % available);
    instruction.writes.push_back(inputs + i);
    program.instructions.push_back(instruction);
  }
  program.graph_outputs.push_back(program.buffer_count - 1);
  sizes->clear();
  for (int i = 0; i < program.buffer_count; ++i) sizes->push_back(1 + rng() % 1000);
  return program;
}

TEST(MemoryAwareOrderTest, RandomProgramsGetValidOrdersThatNeverRaiseThePeak) {
  std::mt19937 rng(5);
  int improved = 0;
  for (int round = 0; round < 500; ++round) {
    std::vector<uint64_t> sizes;
    const Program program = RandomProgram(rng, &sizes);
    const ScheduleResult result = OrderOrDie(program, sizes);
    ASSERT_EQ(result.order.size(), program.instructions.size());
    std::vector<int32_t> sorted = result.order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<int32_t>(i));
    // Every buffer is written before it is read.
    std::vector<bool> written(program.buffer_count, false);
    for (BufferId input : program.graph_inputs) written[input] = true;
    for (int32_t index : result.order) {
      for (BufferId read : program.instructions[index].reads) ASSERT_TRUE(written[read]);
      for (BufferId write : program.instructions[index].writes) written[write] = true;
    }
    EXPECT_LE(result.peak, result.original_peak);
    Expected<uint64_t> peak = PeakLiveBytesInOrder(program, sizes, result.order);
    ASSERT_TRUE(peak.ok());
    EXPECT_EQ(peak.value(), result.peak);
    improved += result.reordered ? 1 : 0;
  }
  EXPECT_GT(improved, 0);
}

TEST(MemoryAwareOrderTest, RejectsBadInput) {
  Expected<ScheduleResult> sizes = MemoryAwareOrder(TwoBranches(), {1, 2});
  ASSERT_FALSE(sizes.ok());
  EXPECT_THAT(sizes.error().message, HasSubstr("buffer_sizes has 2 entries for 6 buffers"));
  Expected<uint64_t> order = PeakLiveBytesInOrder(TwoBranches(), kTwoBranchSizes, {0, 0, 1, 2, 3});
  ASSERT_FALSE(order.ok());
  EXPECT_THAT(order.error().message, HasSubstr("not a permutation"));
  Program program = TwoBranches();
  program.instructions[0].writes = {42};
  EXPECT_FALSE(MemoryAwareOrder(program, kTwoBranchSizes).ok());
}

}  // namespace
}  // namespace torchir::memory_planner
