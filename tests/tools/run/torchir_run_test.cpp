// torchir-run and torchir-inspect, driven as a user would: compile the tiny
// linear model with torchir-compile, run the program, read what was printed and
// written, and feed both tools broken programs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler/frontend/safetensors.h"
#include "tests/support/run_command.h"
#include "tests/support/tiny_linear_model.h"

namespace torchir {
namespace {

using testing::CommandResult;
using testing::Floats;
using ::testing::HasSubstr;
using ::testing::Not;

class TorchirRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "torchir_run_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str()), 0);
    std::ofstream(Path("model.json")) << testing::kTinyLinearModel;
    // relu(W x + b) with W = [[1, -1], [2, 0.5]], b = [0.5, -10].
    ASSERT_TRUE(frontend::WriteSafetensors(Path("weights.safetensors"),
                                           {Floats("fc.weight", {2, 2}, {1, -1, 2, 0.5f}),
                                            Floats("fc.bias", {2}, {0.5f, -10})})
                    .ok());
    ASSERT_TRUE(
        frontend::WriteSafetensors(Path("inputs.safetensors"), {Floats("x", {1, 2}, {3, 1})})
            .ok());
    CommandResult compile = Tool(TORCHIR_COMPILE_BINARY, "'" + Path("model.json") + "' --weights '" +
                                                             Path("weights.safetensors") + "' -o '" +
                                                             Path("model.pte") +
                                                             "' --backend portable --quiet");
    ASSERT_EQ(compile.exit_code, 0) << compile.err;
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  CommandResult Tool(const char* binary, const std::string& arguments) {
    return testing::RunCommand(std::string("'") + binary + "' " + arguments, dir_);
  }
  CommandResult Run(const std::string& arguments) { return Tool(TORCHIR_RUN_BINARY, arguments); }
  CommandResult Inspect(const std::string& arguments) {
    return Tool(TORCHIR_INSPECT_BINARY, arguments);
  }

  std::string dir_;
};

TEST_F(TorchirRunTest, RunsOnGivenInputsAndWritesOutputsByName) {
  // Several runs: each gets its inputs again (the plan may reuse their bytes).
  CommandResult run = Run("'" + Path("model.pte") + "' --inputs '" + Path("inputs.safetensors") +
                          "' --outputs '" + Path("out.safetensors") +
                          "' --warmup 2 --iterations 3");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("latency over 3 run(s)"));
  EXPECT_THAT(run.out, HasSubstr("output relu float32[1, 2]"));
  auto outputs = frontend::ReadSafetensors(Path("out.safetensors"));
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->tensors.size(), 1u);
  EXPECT_EQ(outputs->tensors[0].name, "relu");
  ASSERT_EQ(outputs->tensors[0].data.size(), 8u);
  float y[2];
  std::memcpy(y, outputs->tensors[0].data.data(), 8);
  EXPECT_FLOAT_EQ(y[0], 2.5f);  // 3 - 1 + 0.5
  EXPECT_FLOAT_EQ(y[1], 0.0f);  // relu(6 + 0.5 - 10)
}

TEST_F(TorchirRunTest, ComparesWithExpectedOutputs) {
  ASSERT_TRUE(frontend::WriteSafetensors(Path("good.safetensors"),
                                         {Floats("relu", {1, 2}, {2.5f, 0})})
                  .ok());
  ASSERT_TRUE(frontend::WriteSafetensors(Path("bad.safetensors"),
                                         {Floats("relu", {1, 2}, {2.6f, 0})})
                  .ok());
  const std::string base = "'" + Path("model.pte") + "' --inputs '" + Path("inputs.safetensors") + "'";
  CommandResult good = Run(base + " --expected '" + Path("good.safetensors") + "'");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_THAT(good.out, HasSubstr("PASS relu vs expected: max abs error 0"));
  CommandResult bad = Run(base + " --expected '" + Path("bad.safetensors") + "' --quiet");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.out, HasSubstr("FAIL relu"));
  // Without --quiet too: the timings are printed, the exit status still says FAIL.
  CommandResult loud = Run(base + " --expected '" + Path("bad.safetensors") + "'");
  EXPECT_EQ(loud.exit_code, 1);
  EXPECT_THAT(loud.out, HasSubstr("latency over 1 run(s)"));
}

TEST_F(TorchirRunTest, WritesAJsonSummary) {
  ASSERT_TRUE(
      frontend::WriteSafetensors(Path("good.safetensors"), {Floats("relu", {1, 2}, {2.5f, 0})})
          .ok());
  CommandResult run = Run("'" + Path("model.pte") + "' --inputs '" + Path("inputs.safetensors") +
                          "' --expected '" + Path("good.safetensors") +
                          "' --warmup 1 --iterations 4 --quiet --json '" + Path("run.json") + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ifstream file(Path("run.json"));
  const std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_THAT(json, HasSubstr("\"load_ms\": "));
  EXPECT_THAT(json, HasSubstr("\"init_ms\": "));
  EXPECT_THAT(json, HasSubstr("\"threads\": 1"));
  EXPECT_THAT(json, HasSubstr("\"warmup\": 1"));
  EXPECT_THAT(json, HasSubstr("\"peak_rss_kib\": "));
  EXPECT_THAT(json, HasSubstr("\"expected\": \"pass\"}"));
  // Four latencies: four numbers between the brackets.
  const size_t open = json.find("\"latencies_ms\": [");
  ASSERT_NE(open, std::string::npos);
  const std::string list = json.substr(open, json.find(']', open) - open);
  EXPECT_EQ(std::count(list.begin(), list.end(), ','), 3);
}

TEST_F(TorchirRunTest, RandomInputsWithoutAnInputFile) {
  CommandResult run = Run("'" + Path("model.pte") + "' --seed 7 --profile");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("linear"));  // the profile names the instruction
}

TEST_F(TorchirRunTest, ReportsBadInputFiles) {
  ASSERT_TRUE(frontend::WriteSafetensors(Path("wrong.safetensors"),
                                         {Floats("y", {1, 3}, {1, 2, 3})})
                  .ok());
  CommandResult run = Run("'" + Path("model.pte") + "' --inputs '" + Path("wrong.safetensors") +
                          "' --outputs '" + Path("out.safetensors") + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("no tensor 'x' for program input 'x'"));
  EXPECT_THAT(run.err, HasSubstr("tensor 'y' is not a program input"));
  EXPECT_FALSE(std::ifstream(Path("out.safetensors")).good());
}

TEST_F(TorchirRunTest, RejectsCorruptProgramsWithOneLine) {
  std::string bytes = testing::ReadWholeFile(Path("model.pte"));
  // Truncated, then a flipped byte in the FlatBuffer, then garbage.
  std::ofstream(Path("truncated.pte"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::string flipped = bytes;
  flipped[100] = static_cast<char>(flipped[100] ^ 0xff);
  std::ofstream(Path("flipped.pte"), std::ios::binary) << flipped;
  std::ofstream(Path("garbage.pte"), std::ios::binary) << "not a program at all";
  for (const char* name : {"truncated.pte", "garbage.pte", "missing.pte"}) {
    for (bool inspect : {false, true}) {
      CommandResult result = inspect ? Inspect("'" + Path(name) + "'") : Run("'" + Path(name) + "'");
      EXPECT_EQ(result.exit_code, 1) << name << (inspect ? " (inspect)" : " (run)");
      EXPECT_THAT(result.err, HasSubstr(std::string("error: ") + Path(name))) << name;
      EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    }
  }
  // A flip may land where it changes nothing checkable; it must never crash.
  CommandResult flipped_run = Run("'" + Path("flipped.pte") + "'");
  EXPECT_TRUE(flipped_run.exit_code == 0 || flipped_run.exit_code == 1) << flipped_run.err;
}

TEST_F(TorchirRunTest, InspectPrintsTextAndJson) {
  CommandResult text = Inspect("'" + Path("model.pte") + "'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("method forward"));
  EXPECT_THAT(text.out, HasSubstr("input  x float32[1, 2]"));
  EXPECT_THAT(text.out, HasSubstr("output relu float32[1, 2]"));
  EXPECT_THAT(text.out, HasSubstr("operators (1): linear x1"));  // relu fused into linear
  CommandResult json = Inspect("'" + Path("model.pte") + "' --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"operators\": [{\"name\": \"linear\", \"calls\": 1}]"));
  EXPECT_THAT(json.out, HasSubstr("\"inputs\": [{\"name\": \"x\", \"type\": \"float32[1, 2]\"}]"));
}

TEST_F(TorchirRunTest, XnnpackProgramsRunAndInspectShowTheDelegate) {
  CommandResult compile = Tool(TORCHIR_COMPILE_BINARY, "'" + Path("model.json") + "' --weights '" +
                                                           Path("weights.safetensors") + "' -o '" +
                                                           Path("xnnpack.pte") +
                                                           "' --backend xnnpack --quiet");
  ASSERT_EQ(compile.exit_code, 0) << compile.err;
  ASSERT_TRUE(frontend::WriteSafetensors(Path("good.safetensors"),
                                         {Floats("relu", {1, 2}, {2.5f, 0})})
                  .ok());
  for (const char* threads : {"1", "2"}) {
    CommandResult run = Run("'" + Path("xnnpack.pte") + "' --inputs '" +
                            Path("inputs.safetensors") + "' --expected '" +
                            Path("good.safetensors") + "' --threads " + threads);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_THAT(run.out, HasSubstr("PASS relu vs expected"));
    EXPECT_THAT(run.out, HasSubstr(std::string("threads ") + threads));
  }
  CommandResult text = Inspect("'" + Path("xnnpack.pte") + "'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("delegate 0: XnnpackBackend"));
  EXPECT_THAT(text.out, HasSubstr("took: edge.linear x1"));
  EXPECT_THAT(text.out, HasSubstr("MACs: 4 (4 delegated, 100.00%)"));
}

// --native-isa caps the native kernels before the program loads: a narrower set computes the same
// outputs; an unknown name or another CPU family's is a usage error naming the flag.
TEST_F(TorchirRunTest, NativeIsaCapsTheKernelsOrIsAUsageError) {
  CommandResult compile =
      Tool(TORCHIR_COMPILE_BINARY, "'" + Path("model.json") + "' --weights '" +
                                       Path("weights.safetensors") + "' -o '" + Path("native.pte") +
                                       "' --backend native,xnnpack --quiet");
  ASSERT_EQ(compile.exit_code, 0) << compile.err;
  ASSERT_TRUE(
      frontend::WriteSafetensors(Path("good.safetensors"), {Floats("relu", {1, 2}, {2.5f, 0})})
          .ok());
  CommandResult run = Run("'" + Path("native.pte") + "' --inputs '" + Path("inputs.safetensors") +
                          "' --expected '" + Path("good.safetensors") + "' --native-isa portable");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("PASS relu vs expected"));
  CommandResult unknown = Run("'" + Path("native.pte") + "' --native-isa avx9");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("--native-isa avx9: not one of avx512, avx2"));
  EXPECT_THAT(unknown.err, Not(HasSubstr("runtime error")));  // one error line, the flag's
#if defined(__x86_64__)
  const std::string other = "neon";
#else
  const std::string other = "avx2";
#endif
  CommandResult foreign = Run("'" + Path("native.pte") + "' --native-isa " + other);
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_THAT(foreign.err,
              HasSubstr("--native-isa " + other + ": not an instruction set of this CPU's family"));
}

// More threads than cores is allowed but said: the threads would only take turns.
TEST_F(TorchirRunTest, WarnsWhenThreadsExceedTheCores) {
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores == 0) GTEST_SKIP() << "the machine does not say how many cores it has";
  const std::string too_many = std::to_string(cores + 1);
  CommandResult run = Run("'" + Path("model.pte") + "' --inputs '" + Path("inputs.safetensors") +
                          "' --threads " + too_many);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("warning: --threads " + too_many + " exceeds the " +
                                 std::to_string(cores) + " core"));
  EXPECT_THAT(run.out, HasSubstr("threads " + too_many));
  CommandResult fits = Run("'" + Path("model.pte") + "' --inputs '" + Path("inputs.safetensors") +
                           "' --threads " + std::to_string(cores));
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_THAT(fits.err, Not(HasSubstr("warning")));
  // The default (1) never exceeds the cores.
  CommandResult plain =
      Run("'" + Path("model.pte") + "' --inputs '" + Path("inputs.safetensors") + "'");
  EXPECT_THAT(plain.err, Not(HasSubstr("warning")));
}

TEST_F(TorchirRunTest, AnIndexOutOfItsOwnDimIsRefusedEvenInsideTheTensor) {
  // gather(x [2, 3], 1, idx [2, 1]) and x[idx, cols] = gathered (index_put over both dims),
  // both through a flat index into the flattened tensor: an index of 3 along a dim of 3 lands
  // inside the 6 elements, so the lowering has to make it out of range itself.
  const char* model = R"json({
  "model_name": "Indexing", "pytorch_version": "2.8.0",
  "graph_inputs": [{"name": "x", "shape": [2, 3], "dtype": "float32"},
                   {"name": "idx", "shape": [2, 1], "dtype": "int64"},
                   {"name": "cols", "shape": [2, 1], "dtype": "int64"}],
  "graph_outputs": [{"name": "gather", "shape": [2, 1], "dtype": "float32"},
                    {"name": "index_put", "shape": [2, 3], "dtype": "float32"}],
  "weights": [], "weight_name_mapping": {},
  "nodes": [
    {"name": "gather", "op_type": "aten.gather.default",
     "inputs": [{"name": "x", "shape": [2, 3], "dtype": "float32", "producer_node": "x",
                 "producer_output_idx": 0},
                {"name": "idx", "shape": [2, 1], "dtype": "int64", "producer_node": "idx",
                 "producer_output_idx": 0}],
     "outputs": [{"name": "gather", "shape": [2, 1], "dtype": "float32"}],
     "attrs": {"dim": 1}},
    {"name": "index_put", "op_type": "aten.index_put.default",
     "inputs": [{"name": "x", "shape": [2, 3], "dtype": "float32", "producer_node": "x",
                 "producer_output_idx": 0},
                {"name": "idx", "shape": [2, 1], "dtype": "int64", "producer_node": "idx",
                 "producer_output_idx": 0},
                {"name": "cols", "shape": [2, 1], "dtype": "int64", "producer_node": "cols",
                 "producer_output_idx": 0},
                {"name": "gather", "shape": [2, 1], "dtype": "float32",
                 "producer_node": "gather", "producer_output_idx": 0}],
     "outputs": [{"name": "index_put", "shape": [2, 3], "dtype": "float32"}],
     "attrs": {"_tensor_list_sizes": [2]}}
  ]
})json";
  std::ofstream(Path("indexing.json")) << model;
  CommandResult compile = Tool(TORCHIR_COMPILE_BINARY, "'" + Path("indexing.json") + "' -o '" +
                                                           Path("indexing.pte") +
                                                           "' --backend portable --quiet");
  ASSERT_EQ(compile.exit_code, 0) << compile.err;
  auto run = [&](std::vector<int64_t> idx, std::vector<int64_t> cols) {
    std::vector<frontend::StoredTensor> tensors = {Floats("x", {2, 3}, {0, 1, 2, 3, 4, 5})};
    for (auto& [name, values] : {std::pair{"idx", idx}, std::pair{"cols", cols}}) {
      frontend::StoredTensor index;
      index.name = name;
      index.dtype = ir::DType::kInt64;
      index.shape = {2, 1};
      index.data = ir::TensorData::Copy(values.data(), values.size() * sizeof(int64_t));
      tensors.push_back(std::move(index));
    }
    EXPECT_TRUE(frontend::WriteSafetensors(Path("in.safetensors"), tensors).ok());
    return Run("'" + Path("indexing.pte") + "' --inputs '" + Path("in.safetensors") +
               "' --outputs '" + Path("out.safetensors") + "'");
  };
  CommandResult good = run({1, 0}, {2, 1});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  auto outputs = frontend::ReadSafetensors(Path("out.safetensors"));
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->tensors.size(), 2u);
  float picked[2];
  std::memcpy(picked, outputs->tensors[0].data.data(), sizeof(picked));
  EXPECT_THAT(picked, ::testing::ElementsAre(1.0f, 3.0f));  // x[0, 1], x[1, 0]
  float written[6];
  std::memcpy(written, outputs->tensors[1].data.data(), sizeof(written));
  // x[1, 2] = 1, x[0, 1] = 3.
  EXPECT_THAT(written, ::testing::ElementsAre(0.0f, 3.0f, 2.0f, 3.0f, 4.0f, 1.0f));
  CommandResult bad_gather = run({3, 0}, {0, 0});  // x[0, 3]: flat 3
  EXPECT_NE(bad_gather.exit_code, 0);
  EXPECT_THAT(bad_gather.err, HasSubstr("IndexOutOfRange"));
  CommandResult bad_put = run({0, 0}, {3, 0});  // x[0, 3] = ...: flat 3
  EXPECT_NE(bad_put.exit_code, 0);
  EXPECT_THAT(bad_put.err, HasSubstr("IndexOutOfRange"));
}

TEST_F(TorchirRunTest, UsageErrorsExitWithTwo) {
  EXPECT_EQ(Run("").exit_code, 2);
  EXPECT_EQ(Run("'" + Path("model.pte") + "' --iterations 0").exit_code, 2);
  EXPECT_EQ(Inspect("").exit_code, 2);
  CommandResult help = Run("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--expected"));
}

}  // namespace
}  // namespace torchir
