// Runs the torchir-compile binary as a user would and checks what it prints.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/frontend/safetensors.h"
#include "tests/support/tiny_linear_model.h"

namespace torchir {
namespace {

using testing::Floats;


struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class TorchirCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "torchir_compile_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str()), 0);
    std::ofstream(Path("model.json")) << testing::kTinyLinearModel;
    std::vector<frontend::StoredTensor> weights = {Floats("fc.weight", {2, 2}, {1, -1, 2, 0.5f}),
                                                   Floats("fc.bias", {2}, {0.5f, -10})};
    ASSERT_TRUE(frontend::WriteSafetensors(Path("weights.safetensors"), weights).ok());
  }


  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  RunResult Compile(const std::string& arguments) {
    std::string command = std::string("'") + TORCHIR_COMPILE_BINARY + "' " + arguments + " >'" +
                          Path("out.txt") + "' 2>'" + Path("err.txt") + "'";
    int status = std::system(command.c_str());
    RunResult run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = ReadFile(Path("out.txt"));
    run.err = ReadFile(Path("err.txt"));
    return run;
  }

  std::string dir_;
};

TEST_F(TorchirCompileTest, SummarisesAValidModel) {
  RunResult run = Compile("'" + Path("model.json") + "' --weights '" + Path("weights.safetensors") +
                    "' --summary");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("model: TinyLinear"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("2 tensors + 0 constants, 6 elements, 24 B (2/2 with values)"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("aten.linear.default  1"), std::string::npos) << run.out;
}

TEST_F(TorchirCompileTest, DumpsTheAtenGraph) {
  RunResult run = Compile("'" + Path("model.json") + "' --weights '" + Path("weights.safetensors") +
                    "' --dump-graph aten");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("%linear : float32[1, 2] = aten.linear.default(%x, $p_fc_weight, "
                         "$p_fc_bias)"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("return %relu"), std::string::npos) << run.out;
}

TEST_F(TorchirCompileTest, ReadsAPtStateDictWrittenByTorchSave) {
  std::string script = Path("save.py");
  std::ofstream(script) << "import collections, sys, torch\n"
                           "sd = collections.OrderedDict()\n"
                           "sd['fc.weight'] = torch.tensor([[1., -1.], [2., .5]])\n"
                           "sd['fc.bias'] = torch.tensor([.5, -10.])\n"
                           "sd._metadata = collections.OrderedDict({'': {'version': 1}})\n"
                           "torch.save(sd, sys.argv[1])\n";
  ASSERT_EQ(std::system((std::string("'") + TORCHIR_PYTHON_DEFAULT + "' '" + script + "' '" +
                         Path("model.pt") + "'")
                            .c_str()),
            0);
  RunResult run = Compile("'" + Path("model.json") + "' --weights '" + Path("model.pt") + "' --summary");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("(2/2 with values)"), std::string::npos) << run.out;
}

TEST_F(TorchirCompileTest, UsageErrorsExitTwo) {
  RunResult none = Compile("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("error: missing MODEL.json"), std::string::npos) << none.err;
  RunResult unknown = Compile("'" + Path("model.json") + "' --frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown option '--frobnicate'"), std::string::npos) << unknown.err;
  RunResult stage = Compile("'" + Path("model.json") + "' --dump-graph nonsense");
  EXPECT_EQ(stage.exit_code, 2);
  EXPECT_NE(stage.err.find("unknown stage 'nonsense'"), std::string::npos) << stage.err;
  RunResult value = Compile("'" + Path("model.json") + "' --weights");
  EXPECT_EQ(value.exit_code, 2);
  EXPECT_NE(value.err.find("needs a value"), std::string::npos) << value.err;
  RunResult threads = Compile("'" + Path("model.json") + "' --threads 0");
  EXPECT_EQ(threads.exit_code, 2);
  EXPECT_NE(threads.err.find("--threads must be an integer in [1, 1024], got '0'"),
            std::string::npos)
      << threads.err;
}

TEST_F(TorchirCompileTest, HelpTeachesTheOptions) {
  RunResult run = Compile("--help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("usage: torchir-compile MODEL.json"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--weights FILE"), std::string::npos) << run.out;
  // --threads says what it plans and what happens beyond it.
  EXPECT_NE(run.out.find("--threads N"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("allocates those delegates' memory at load instead"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("examples:"), std::string::npos) << run.out;
}

TEST_F(TorchirCompileTest, MalformedJsonIsOneErrorLineAndExitOne) {
  std::ofstream(Path("bad.json")) << "{\"graph_inputs\": [}";
  RunResult run = Compile("'" + Path("bad.json") + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("error: " + Path("bad.json") + ":1:", 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_TRUE(run.out.empty());
}

TEST_F(TorchirCompileTest, BadWeightsFilesNameTheFile) {
  RunResult missing = Compile("'" + Path("model.json") + "' --weights '" + Path("nope.safetensors") + "'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("error: " + Path("nope.safetensors")), std::string::npos)
      << missing.err;
  std::string garbage(4096, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 7919) % 251);
  std::ofstream(Path("garbage.bin"), std::ios::binary) << garbage;
  RunResult corrupt = Compile("'" + Path("model.json") + "' --weights '" + Path("garbage.bin") + "'");
  EXPECT_EQ(corrupt.exit_code, 1);
  EXPECT_NE(corrupt.err.find("error: " + Path("garbage.bin")), std::string::npos) << corrupt.err;
}

// The weights of another model: one summary line, not one line per weight; --verbose lists each.
TEST_F(TorchirCompileTest, WeightsOfAnotherModelAreOneSummaryLine) {
  std::vector<frontend::StoredTensor> weights = {Floats("conv1.weight", {2}, {1, 2}),
                                                 Floats("bn1.weight", {2}, {1, 2})};
  ASSERT_TRUE(frontend::WriteSafetensors(Path("other.safetensors"), weights).ok());
  const std::string arguments =
      "'" + Path("model.json") + "' --weights '" + Path("other.safetensors") + "'";
  RunResult run = Compile(arguments);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "error: 2 weights missing from " + Path("other.safetensors") +
                         " (first: 'fc.weight', 'fc.bias'): the weights file belongs to another "
                         "model?; --verbose lists all 2\n");
  RunResult verbose = Compile(arguments + " --verbose");
  EXPECT_EQ(verbose.exit_code, 1);
  EXPECT_NE(verbose.err.find("\n  " + Path("other.safetensors") +
                             ": missing weight 'fc.bias' (placeholder 'p_fc_bias'), float32[2]\n"),
            std::string::npos)
      << verbose.err;
}

TEST_F(TorchirCompileTest, WeightsOfTheWrongShapeAreRejected) {
  std::vector<frontend::StoredTensor> weights = {Floats("fc.weight", {4}, {1, -1, 2, 0.5f}),
                                                 Floats("fc.bias", {2}, {0.5f, -10})};
  ASSERT_TRUE(frontend::WriteSafetensors(Path("wrong.safetensors"), weights).ok());
  RunResult run = Compile("'" + Path("model.json") + "' --weights '" + Path("wrong.safetensors") + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("weight 'fc.weight' (placeholder 'p_fc_weight') is float32[4] but the "
                         "graph expects float32[2, 2]"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace torchir
