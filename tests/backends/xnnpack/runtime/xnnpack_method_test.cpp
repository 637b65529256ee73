// The XNNPACK delegate inside a whole program: Method::Load hands it a blob
// from a segment and arguments bound to planned arenas and constant segments,
// Execute runs it, the Method's destructor destroys it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <xnnpack.h>  // XNN_EXTRA_BYTES

#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "gtest/gtest.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "tests/backends/xnnpack/runtime/xnnpack_test_util.h"
#include "tests/runtime/executor/test_program.h"

namespace torchir::testing::xnnpack {
namespace {

using runtime::Error;

// y = relu(x @ w^T + b): x [1, 4] and y [1, 3] planned in arena 0, w [3, 4]
// and b [3] constants in segment 0, the delegate blob in segment 1.
TestProgram FullyConnectedProgram(const std::vector<uint8_t>& blob) {
  TestProgram p;
  p.values = {
      TestValue::Tensor(TestTensor{runtime::ScalarType::kFloat32, {1, 4}, {}, false, 0, 0}),
      TestValue::Tensor(TestTensor{runtime::ScalarType::kFloat32, {3, 4}, {}, true, 0, 0}),
      TestValue::Tensor(TestTensor{runtime::ScalarType::kFloat32, {3}, {}, true, 0, 64}),
      TestValue::Tensor(TestTensor{runtime::ScalarType::kFloat32, {1, 3}, {}, false, 0, 64})};
  p.inputs = {0};
  p.outputs = {3};
  p.input_names = {"x"};
  p.output_names = {"y"};
  p.delegates = {TestDelegate{runtime::xnnpack::kXnnpackBackendId, 1, XNN_EXTRA_BYTES}};
  p.instructions = {TestInstruction{true, 0, {0, 1, 2, 3}, "xnnpack_subgraph_0"}};
  p.arena_sizes = {128};
  const float weights[12] = {1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1};
  const float bias[3] = {0.5f, -10, 0};
  std::vector<uint8_t> constants(128);
  std::memcpy(constants.data(), weights, sizeof(weights));
  std::memcpy(constants.data() + 64, bias, sizeof(bias));
  p.segments = {constants, blob};
  return p;
}

BlobGraph FullyConnectedBlob() {
  BlobGraph blob;
  const uint32_t x = blob.Value({1, 4}, 0), w = blob.Value({3, 4}, 1), b = blob.Value({3}, 2);
  const uint32_t y = blob.Value({1, 3}, 3, true);
  blob.Node("fully_connected", {x, w, b}, y, {}, {0.0, INFINITY});
  return blob;
}

class XnnpackMethodTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override { SetUpBackends(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Threads, XnnpackMethodTest, ::testing::Values(1u, 2u),
                         [](const ::testing::TestParamInfo<uint32_t>& info) {
                           return std::to_string(info.param) + "thread";
                         });

TEST_P(XnnpackMethodTest, RunsADelegateCall) {
  testing::AlignedBytes bytes(Serialize(FullyConnectedProgram(Serialize(FullyConnectedBlob()))));
  runtime::BufferDataLoader loader(bytes.data(), bytes.size());
  runtime::Result<runtime::Program> program = runtime::Program::Load(loader);
  ASSERT_TRUE(program.ok()) << runtime::ErrorName(program.error());
  runtime::MallocAllocator allocator;
  runtime::Result<runtime::Method> method = runtime::Method::Load(*program, "forward", allocator);
  ASSERT_TRUE(method.ok()) << runtime::ErrorName(method.error());
  EXPECT_TRUE(method->instruction_is_delegate(0));
  for (float scale : {1.0f, -2.0f}) {
    const float x[4] = {1 * scale, 2 * scale, 3 * scale, 4 * scale};
    ASSERT_EQ(method->SetInput(0, x, sizeof(x)), Error::kOk);
    ASSERT_EQ(method->Execute(), Error::kOk);
    const float* y = method->output(0).data_ptr<float>();
    EXPECT_FLOAT_EQ(y[0], std::max(0.0f, x[0] + 0.5f));
    EXPECT_FLOAT_EQ(y[1], std::max(0.0f, x[1] - 10));
    EXPECT_FLOAT_EQ(y[2], std::max(0.0f, x[0] + x[1] + x[2] + x[3]));
  }
}

// XNNPACK reads up to XNN_EXTRA_BYTES past its operands: a program that does not
// declare (and so was not verified to have) that slack is refused at init.
TEST_P(XnnpackMethodTest, RefusesAProgramWithoutXnnpacksReadSlack) {
  TestProgram p = FullyConnectedProgram(Serialize(FullyConnectedBlob()));
  p.delegates[0].read_overrun_bytes = XNN_EXTRA_BYTES - 1;
  testing::AlignedBytes bytes(Serialize(p));
  runtime::BufferDataLoader loader(bytes.data(), bytes.size());
  runtime::Result<runtime::Program> program = runtime::Program::Load(loader);
  ASSERT_TRUE(program.ok());
  runtime::MallocAllocator allocator;
  EXPECT_EQ(runtime::Method::Load(*program, "forward", allocator).error(), Error::kInvalidProgram);

  // The output flush against the arena's end leaves no slack: refused at load.
  p.delegates[0].read_overrun_bytes = XNN_EXTRA_BYTES;
  p.arena_sizes = {64 + 12};
  testing::AlignedBytes flush(Serialize(p));
  runtime::BufferDataLoader flush_loader(flush.data(), flush.size());
  EXPECT_EQ(runtime::Program::Load(flush_loader).error(), Error::kProgramOutOfBounds);
}

TEST_P(XnnpackMethodTest, RefusesAHostileBlobAtLoad) {
  BlobGraph blob = FullyConnectedBlob();
  blob.values[3].dims = {1, 4};  // the output claims more than the program planned
  testing::AlignedBytes bytes(Serialize(FullyConnectedProgram(Serialize(blob))));
  runtime::BufferDataLoader loader(bytes.data(), bytes.size());
  runtime::Result<runtime::Program> program = runtime::Program::Load(loader);
  ASSERT_TRUE(program.ok());
  runtime::MallocAllocator allocator;
  EXPECT_EQ(runtime::Method::Load(*program, "forward", allocator).error(), Error::kInvalidProgram);

  // Bytes that are no blob at all.
  testing::AlignedBytes garbage(Serialize(FullyConnectedProgram(std::vector<uint8_t>(64, 0xAB))));
  runtime::BufferDataLoader garbage_loader(garbage.data(), garbage.size());
  runtime::Result<runtime::Program> garbage_program = runtime::Program::Load(garbage_loader);
  ASSERT_TRUE(garbage_program.ok());
  EXPECT_EQ(runtime::Method::Load(*garbage_program, "forward", allocator).error(),
            Error::kInvalidProgram);
}

}  // namespace
}  // namespace torchir::testing::xnnpack
