#include "tools/pipeline/memory_limit.h"

#include <gtest/gtest.h>

#include <vector>

#include "compiler/ir/tensor_limits.h"

namespace torchir::pipeline {
namespace {

ir::TensorType F32(std::vector<int64_t> sizes) {
  return ir::TensorType{ir::DType::kFloat32, std::move(sizes)};
}

TEST(ParseByteSizeTest, BytesAndBinarySuffixes) {
  EXPECT_EQ(ParseByteSize("4096"), 4096u);
  EXPECT_EQ(ParseByteSize("4K"), 4096u);
  EXPECT_EQ(ParseByteSize("512MiB"), uint64_t{512} << 20);
  EXPECT_EQ(ParseByteSize("16G"), ir::kDefaultMaxProgramBytes);
  EXPECT_EQ(ParseByteSize("1.5g"), uint64_t{3} << 29);
  EXPECT_EQ(ParseByteSize("2TB"), uint64_t{2} << 40);
  for (const char* bad : {"", "G", "-1G", "0", "4X", "4GG", "lots", "1e30", "nan"}) {
    EXPECT_EQ(ParseByteSize(bad), std::nullopt) << bad;
  }
}

// x [1, 256] -> neg -> output, with a 1 KiB weight read by an add.
class ProgramMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ir::Value* x = graph.AddInput("x", F32({1, 256}));
    std::vector<float> zeros(256, 0.0f);
    ir::Value* w = graph.AddConstant(
        "w", F32({1, 256}), ir::TensorData::Copy(zeros.data(), zeros.size() * sizeof(float)));
    ir::Node* add = graph.AppendNode("add", "aten.add.Tensor", {x, w}, {"add"}, {F32({1, 256})});
    graph.AddOutput(add->output());
    absl::StatusOr<GraphMemoryPlan> planned = PlanGraphMemory(graph);
    ASSERT_TRUE(planned.ok()) << planned.status();
    plan = std::move(*planned);
  }
  ir::Graph graph;
  GraphMemoryPlan plan;
};

TEST_F(ProgramMemoryTest, CountsArenasConstantsAndBlobs) {
  const uint64_t arena = plan.result.plan.TotalSize();
  ASSERT_GE(arena, 2048u);
  EXPECT_TRUE(CheckProgramMemory(graph, plan, 100, arena + 1024 + 100).ok());
  absl::Status status = CheckProgramMemory(graph, plan, 100, arena + 1024 + 99);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("constants 1.0 KiB, delegate blobs 100 B"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("largest: "), std::string::npos) << status.message();
}

}  // namespace
}  // namespace torchir::pipeline
