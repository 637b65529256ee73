// Runs the torchir-verify binary on a tiny model written by the test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compiler/frontend/safetensors.h"
#include "tests/support/tiny_linear_model.h"

namespace torchir {
namespace {

using testing::Floats;
using ::testing::HasSubstr;

// relu(linear(x)) with x: float32[1, 2].

struct Result {
  int exit_code;
  std::string out;
  std::string err;
};

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class TorchirVerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "torchir_verify_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("mkdir -p '" + dir_ + "'").c_str()), 0);
    std::ofstream(Path("model.json")) << testing::kTinyLinearModel;
    // W = [[1, -1], [2, 0.5]], b = [0.5, -10]; x = [3, 1]
    // linear = [3 - 1 + 0.5, 6 + 0.5 - 10] = [2.5, -3.5]; relu = [2.5, 0].
    Write("weights.safetensors",
          {Floats("fc.weight", {2, 2}, {1, -1, 2, 0.5f}), Floats("fc.bias", {2}, {0.5f, -10})});
    Write("inputs.safetensors", {Floats("x", {1, 2}, {3, 1})});
    Write("expected.safetensors", {Floats("relu", {1, 2}, {2.5f, 0})});
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  void Write(const std::string& name, const std::vector<frontend::StoredTensor>& tensors) {
    absl::Status written = frontend::WriteSafetensors(Path(name), tensors);
    ASSERT_TRUE(written.ok()) << written;
  }

  Result Verify(const std::string& arguments) {
    const std::string binary = TORCHIR_VERIFY_BINARY;
    std::string command = "'" + binary + "' " + arguments + " > '" + Path("out.txt") + "' 2> '" +
                          Path("err.txt") + "'";
    int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(Path("out.txt")),
            ReadFile(Path("err.txt"))};
  }

  std::string Standard() const {
    return "'" + Path("model.json") + "' --weights '" + Path("weights.safetensors") +
           "' --inputs '" + Path("inputs.safetensors") + "' --expected '" +
           Path("expected.safetensors") + "'";
  }

  std::string dir_;
};

TEST_F(TorchirVerifyTest, MatchingOutputsPass) {
  Result result = Verify(Standard());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("stage aten"));
  EXPECT_THAT(result.out, HasSubstr("PASS relu float32[1, 2]: max abs error 0"));
  EXPECT_THAT(result.out, HasSubstr("1 passed, 0 failed"));
}

TEST_F(TorchirVerifyTest, MismatchFailsAndToleranceDecides) {
  Write("expected.safetensors", {Floats("relu", {1, 2}, {2.501f, 0})});
  Result strict = Verify(Standard());
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_THAT(strict.out, HasSubstr("FAIL relu"));
  EXPECT_THAT(strict.out, HasSubstr("first at [0, 0]: got 2.5, expected 2.501"));
  EXPECT_THAT(strict.out, HasSubstr("0 passed, 1 failed"));
  Result loose = Verify(Standard() + " --atol 1e-2 --rtol 0");
  EXPECT_EQ(loose.exit_code, 0) << loose.out;
  EXPECT_THAT(loose.out, HasSubstr("atol 0.01, rtol 0"));
}

TEST_F(TorchirVerifyTest, MissingExtraAndMismatchedTensorsAreAllReported) {
  Write("inputs.safetensors", {Floats("y", {1, 2}, {3, 1})});
  Write("expected.safetensors", {Floats("relu", {2}, {2.5f, 0})});
  Result result = Verify(Standard());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("inputs.safetensors: no tensor 'x' for graph input 'x'"));
  EXPECT_THAT(result.err,
              HasSubstr("inputs.safetensors: tensor 'y' is not a graph input (graph inputs: x)"));
  EXPECT_THAT(result.err, HasSubstr("expected.safetensors: tensor 'relu' is float32[2] but "
                                    "graph output 'relu' is float32[1, 2]"));
  EXPECT_EQ(result.out, "");
}

TEST_F(TorchirVerifyTest, MissingWeightsAreAnInputError) {
  Result result = Verify("'" + Path("model.json") + "' --inputs '" + Path("inputs.safetensors") +
                         "' --expected '" + Path("expected.safetensors") + "'");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("error: "));
  EXPECT_THAT(result.err, HasSubstr("'fc.weight', 'fc.bias'"));
  // --verbose names each with its placeholder.
  Result verbose = Verify("'" + Path("model.json") + "' --inputs '" + Path("inputs.safetensors") +
                          "' --expected '" + Path("expected.safetensors") + "' --verbose");
  EXPECT_EQ(verbose.exit_code, 1);
  EXPECT_THAT(verbose.err,
              HasSubstr("weight 'fc.weight' (placeholder 'p_fc_weight') has no value"));
}

TEST_F(TorchirVerifyTest, EdgeStageLowersAndRunsTheEdgeGraph) {
  Result result = Verify(Standard() + " --stage edge");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("stage edge"));
  EXPECT_THAT(result.out, HasSubstr("PASS relu float32[1, 2]: max abs error 0"));
  EXPECT_THAT(result.out, HasSubstr("1 passed, 0 failed"));

  Write("expected.safetensors", {Floats("relu", {1, 2}, {2.501f, 0})});
  Result mismatch = Verify(Standard() + " --stage edge");
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_THAT(mismatch.out, HasSubstr("FAIL relu"));
}

TEST_F(TorchirVerifyTest, EdgeStageListsEveryUnsupportedOpAsAnError) {
  // The tiny model with both nodes renamed to ops no lowering rule covers.
  std::string model = testing::kTinyLinearModel;
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"aten.linear.default", "aten.no_such_op_a.default"},
        {"aten.relu.default", "aten.no_such_op_b.default"}}) {
    model.replace(model.find(from), from.size(), to);
  }
  std::ofstream(Path("model.json")) << model;
  Result result = Verify(Standard() + " --stage edge");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("error: unsupported op aten.no_such_op_a.default"));
  EXPECT_THAT(result.err, HasSubstr("error: unsupported op aten.no_such_op_b.default"));
  EXPECT_EQ(result.out, "");
}

TEST_F(TorchirVerifyTest, UsageErrorsExitWithTwo) {
  EXPECT_EQ(Verify(Standard() + " --stage tflite").exit_code, 2);
  EXPECT_THAT(Verify(Standard() + " --stage tflite").err, HasSubstr("available: aten, edge, pte"));
  EXPECT_EQ(Verify("'" + Path("model.json") + "' --inputs '" + Path("inputs.safetensors") + "'")
                .exit_code,
            2);
  EXPECT_EQ(Verify(Standard() + " --atol -1").exit_code, 2);
  EXPECT_EQ(Verify(Standard() + " --rtol abc").exit_code, 2);
}

}  // namespace
}  // namespace torchir
