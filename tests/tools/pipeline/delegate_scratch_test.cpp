// Delegate scratch planned by the compiler, end to end: the native backend declares what its
// runtime delegate will ask for the thread count a program is compiled for, the planner puts it
// in the arena, and the runtime binds it without allocating; a runtime running more threads
// than planned allocates the rest at init and computes the same outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/pipeline/compile_program.h"
#include "tools/pipeline/load_model.h"
#include "tools/pipeline/run_program.h"
#include "tools/pipeline/tensor_file.h"

namespace torchir::pipeline {
namespace {

std::filesystem::path ZooDir() {
  if (const char* dir = std::getenv("TORCHIR_ZOO_DIR")) return dir;
  return TORCHIR_ZOO_DIR_DEFAULT;
}

struct RunResult {
  size_t init_bytes = 0;
  std::vector<float> output;
};

class DelegateScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ZooDir() / "conv_bn_relu" / "core";
    std::error_code error;
    if (!std::filesystem::is_regular_file(dir_ / "model.json", error)) {
      GTEST_SKIP() << "no zoo at " << ZooDir();
    }
    LoadOptions load;
    load.model_path = (dir_ / "model.json").string();
    load.weights_path = (dir_ / "weights.safetensors").string();
    load.require_all_weights = true;
    absl::StatusOr<LoadedModel> model = LoadModel(load);
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = std::move(*model);
  }

  CompiledProgram Compile(uint32_t threads) {
    CompileOptions options;
    options.backend = "native";
    options.threads = threads;
    absl::StatusOr<CompiledProgram> program = CompileProgram(model_, options);
    EXPECT_TRUE(program.ok()) << program.status();
    return program.ok() ? std::move(*program) : CompiledProgram();
  }

  // Loads `program` for `threads` threads, runs it on the zoo's inputs, returns what init
  // allocated and the first output.
  RunResult RunOn(const CompiledProgram& program, uint32_t threads) {
    RunResult run;
    HostOptions options;
    options.num_threads = threads;
    absl::StatusOr<std::unique_ptr<HostProgram>> host =
        HostProgram::FromBytes(program.bytes, "conv_bn_relu", "forward", options);
    EXPECT_TRUE(host.ok()) << host.status();
    if (!host.ok()) return run;
    run.init_bytes = (*host)->init_bytes();
    absl::StatusOr<std::vector<reference::HostTensor>> inputs =
        ReadNamedTensors((dir_ / "inputs.safetensors").string(), (*host)->InputNames(),
                         (*host)->InputTypes(), "graph input");
    EXPECT_TRUE(inputs.ok()) << inputs.status();
    if (!inputs.ok()) return run;
    EXPECT_TRUE((*host)->SetInputs(*inputs).ok());
    EXPECT_TRUE((*host)->Execute().ok());
    const std::vector<reference::HostTensor> outputs = (*host)->Outputs();
    EXPECT_FALSE(outputs.empty());
    if (outputs.empty()) return run;
    run.output.resize(outputs[0].data.size() / sizeof(float));
    std::memcpy(run.output.data(), outputs[0].data.data(), run.output.size() * sizeof(float));
    return run;
  }

  std::filesystem::path dir_;
  LoadedModel model_;
};

uint64_t ArenaBytes(const CompiledProgram& program) { return program.plan.result.plan.TotalSize(); }

// The scratch planned per delegate call, by call name.
std::map<std::string, uint64_t> PlannedScratch(const CompiledProgram& program) {
  std::map<std::string, uint64_t> scratch;
  for (const GraphMemoryPlan::Scratch& s : program.plan.scratch) scratch[s.node->name()] = s.bytes;
  return scratch;
}

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = a.size() == b.size() ? 0.0f : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    worst = std::max(worst, std::fabs(a[i] - b[i]));
  }
  return worst;
}

TEST_F(DelegateScratchTest, PlannedScratchIsBoundAndMoreThreadsFallBack) {
  const CompiledProgram one = Compile(1);
  const CompiledProgram two = Compile(2);
  ASSERT_FALSE(one.bytes.empty());
  ASSERT_FALSE(two.bytes.empty());
  const std::map<std::string, uint64_t> scratch_one = PlannedScratch(one);
  const std::map<std::string, uint64_t> scratch_two = PlannedScratch(two);
  ASSERT_FALSE(scratch_one.empty()) << "the native delegates declared no scratch";
  // What the delegates that need more on two threads need: the fallback buffer's size.
  uint64_t fallback = 0;
  for (const auto& [call, bytes] : scratch_two) {
    ASSERT_EQ(scratch_one.count(call), 1u) << call;
    if (bytes > scratch_one.at(call)) fallback = std::max(fallback, bytes);
  }
  ASSERT_GT(fallback, 0u) << "no delegate's scratch grows with the thread count";

  // What init allocates besides the arena is the same whenever the planned scratch suffices:
  // no fallback buffer. Only the program compiled for one thread and run on two allocates one,
  // of the size its delegates ask (the allocator rounds each block up to 64 and adds a header).
  const RunResult one_on_one = RunOn(one, 1);
  const RunResult two_on_two = RunOn(two, 2);
  const RunResult two_on_one = RunOn(two, 1);
  const RunResult one_on_two = RunOn(one, 2);
  const size_t overhead = one_on_one.init_bytes - ArenaBytes(one);
  EXPECT_EQ(two_on_two.init_bytes - ArenaBytes(two), overhead);
  EXPECT_EQ(two_on_one.init_bytes - ArenaBytes(two), overhead);
  EXPECT_GE(one_on_two.init_bytes - ArenaBytes(one), overhead + fallback);
  EXPECT_LE(one_on_two.init_bytes - ArenaBytes(one), overhead + fallback + 128);

  // The same outputs either way (threads split output rows, never a sum).
  ASSERT_FALSE(one_on_one.output.empty());
  EXPECT_EQ(MaxAbsDiff(one_on_one.output, one_on_two.output), 0.0f);
  EXPECT_EQ(MaxAbsDiff(one_on_one.output, two_on_two.output), 0.0f);
  EXPECT_EQ(MaxAbsDiff(one_on_one.output, two_on_one.output), 0.0f);
}

}  // namespace
}  // namespace torchir::pipeline
