// torchir-compile --explain on zoo models, run as a user runs it: the reason for
// every node left out, the op histogram and the delegated share of MACs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/support/run_command.h"

namespace torchir {
namespace {

namespace fs = std::filesystem;

fs::path ZooDir() {
  if (const char* dir = std::getenv("TORCHIR_ZOO_DIR")) return dir;
  return fs::path(TORCHIR_BINARY_DIR_DEFAULT) / "zoo";
}

class ExplainCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = fs::temp_directory_path() /
               ("torchir_explain_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(scratch_);
  }
  void TearDown() override { fs::remove_all(scratch_); }

  // torchir-compile on the zoo's `model` (export flavour) with `options`; skips without it.
  testing::CommandResult Compile(const std::string& model, const std::string& options) {
    const fs::path dir = ZooDir() / model / "export";
    std::error_code error;
    if (!fs::is_regular_file(dir / "model.json", error)) return {};
    return testing::RunCommand(std::string("'") + TORCHIR_COMPILE_BINARY + "' '" +
                                   (dir / "model.json").string() + "' --weights '" +
                                   (dir / "weights.safetensors").string() + "' --quiet " + options,
                               scratch_.string());
  }

  fs::path scratch_;
};

TEST_F(ExplainCliTest, NamesEveryNodeLeftOutWithItsReason) {
  testing::CommandResult run = Compile("text_cnn", "--explain");
  if (run.exit_code == -1) GTEST_SKIP() << "no zoo at " << ZooDir();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("xnnpack: 3 of 8 Edge nodes delegated in 1 delegate; MACs "),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("(100.00%)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  node 'log_softmax' (edge.log_softmax): this XNNPACK (2022-02-16) "
                         "has no log-softmax"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  node 'embedding_1' (edge.index_select): "), std::string::npos);
  // Per node, the backend and delegate that took it.
  EXPECT_NE(run.out.find("delegated (3):\n"
                         "  node 'conv1d' (edge.convolution): xnnpack delegate 0\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("op histogram:"), std::string::npos);
  EXPECT_NE(run.out.find("  edge.convolution          1             0"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  edge.index_select         0             1"), std::string::npos)
      << run.out;
}

TEST_F(ExplainCliTest, WorksWithAndWithoutAnOutputFile) {
  testing::CommandResult dry = Compile("resnet18", "--explain");
  if (dry.exit_code == -1) GTEST_SKIP() << "no zoo at " << ZooDir();
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  testing::CommandResult written =
      Compile("resnet18", "--explain -o '" + (scratch_ / "r.pte").string() + "'");
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(dry.out, written.out);
  EXPECT_NE(dry.out.find("xnnpack: 40 of 40 Edge nodes delegated in 1 delegate"), std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("not delegated (0):"), std::string::npos);
}

TEST_F(ExplainCliTest, ThePortableBackendDelegatesNothing) {
  testing::CommandResult run = Compile("resnet18", "--explain --backend portable");
  if (run.exit_code == -1) GTEST_SKIP() << "no zoo at " << ZooDir();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("backend 'portable' delegates nothing"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace torchir
