// The rules XNNPACK's subgraph (Debian's 2022-02-16 snapshot) asserts or assumes without
// checking, each refused by the delegate at init with kInvalidProgram and its own message
// (docs/trust-boundary.md lists them). Each test also runs the nearest legal blob, so a rule
// that refused everything would fail here.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "backends/xnnpack/serialization/node_params.h"
#include "gtest/gtest.h"
#include "runtime/platform/platform.h"
#include "tests/backends/xnnpack/runtime/xnnpack_test_util.h"

namespace torchir::testing::xnnpack {
namespace {

using runtime::Error;
namespace P = ::torchir::xnnpack::node_params;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The runtime's error messages of the current test.
std::string* g_log = nullptr;

class SubgraphRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetUpBackends(1);
    log_.clear();
    g_log = &log_;
    runtime::SetLogHook(
        [](runtime::LogLevel, const char* message) { g_log->append(message).append("\n"); });
  }
  void TearDown() override {
    runtime::SetLogHook([](runtime::LogLevel, const char*) {});
    g_log = nullptr;
  }

  // Inits and runs `blob`; expects kInvalidProgram with `reason` in the log.
  void ExpectRefused(const BlobGraph& blob, DelegateArgs& args, const std::string& reason) {
    log_.clear();
    EXPECT_EQ(RunDelegate(blob, args), Error::kInvalidProgram);
    EXPECT_NE(log_.find(reason), std::string::npos) << "log: " << log_;
  }

  std::string log_;
};

// x -> abs -> t -> negate -> y: the legal base the tests below break.
struct AbsNegate {
  BlobGraph blob;
  DelegateArgs args;
  uint32_t x, t, y;
  AbsNegate() {
    x = blob.Value({1, 4}, 0);
    t = blob.Value({1, 4});
    y = blob.Value({1, 4}, 1, true);
    blob.Node(P::Abs::kOp, {x}, t);
    blob.Node(P::Negate::kOp, {t}, y);
    args.Add({1, 4}, {1, -2, 3, -4});
    args.Add({1, 4});
  }
};

TEST_F(SubgraphRulesTest, RunsTheBase) {
  AbsNegate base;
  ASSERT_EQ(RunDelegate(base.blob, base.args), Error::kOk);
  EXPECT_EQ(base.args.Values(1), (std::vector<float>{-1, -2, -3, -4}));
}

// The blob: one changed input index leaves an internal value written and never read.
// XNNPACK deletes it and its writer's setup asserted (output_data != NULL).
TEST_F(SubgraphRulesTest, RefusesAnInternalValueWrittenButNeverRead) {
  AbsNegate c;
  c.blob.nodes[1].inputs = {c.x};
  ExpectRefused(c.blob, c.args, "read by no node");
}

TEST_F(SubgraphRulesTest, RefusesValuesNoNodeUses) {
  {
    AbsNegate c;  // an activation argument nobody reads
    c.blob.Value({1, 4}, 2);
    c.args.Add({1, 4});
    ExpectRefused(c.blob, c.args, "used by no node");
  }
  {
    AbsNegate c;  // a weights argument nobody reads
    c.blob.Value({4}, 2);
    c.args.AddConstant({4}, {1, 2, 3, 4});
    ExpectRefused(c.blob, c.args, "used by no node");
  }
  {
    AbsNegate c;  // a blob constant nobody reads
    c.blob.Constant({2}, {1, 2});
    ExpectRefused(c.blob, c.args, "used by no node");
  }
}

TEST_F(SubgraphRulesTest, RefusesANodeReadingItsOwnOutput) {
  AbsNegate c;
  c.blob.nodes[0].inputs = {c.t};
  ExpectRefused(c.blob, c.args, "before any node writes it");
}

TEST_F(SubgraphRulesTest, RefusesAnOutputWrittenTwice) {
  BlobGraph blob;
  const uint32_t x = blob.Value({1, 4}, 0), y = blob.Value({1, 4}, 1, true);
  blob.Node(P::Abs::kOp, {x}, y);
  DelegateArgs args;
  args.Add({1, 4}, {1, -2, 3, -4});
  args.Add({1, 4});
  ASSERT_EQ(RunDelegate(blob, args), Error::kOk);
  blob.Node(P::Negate::kOp, {x}, y);
  ExpectRefused(blob, args, "already written");
}

TEST_F(SubgraphRulesTest, AcceptsAnOutputThatIsAlsoRead) {
  BlobGraph blob;
  const uint32_t x = blob.Value({1, 4}, 0), y1 = blob.Value({1, 4}, 1, true),
                 y2 = blob.Value({1, 4}, 2, true);
  blob.Node(P::Abs::kOp, {x}, y1);
  blob.Node(P::Negate::kOp, {y1}, y2);
  DelegateArgs args;
  args.Add({1, 4}, {1, -2, 3, -4});
  args.Add({1, 4});
  args.Add({1, 4});
  ASSERT_EQ(RunDelegate(blob, args), Error::kOk);
  EXPECT_EQ(args.Values(2), (std::vector<float>{-1, -2, -3, -4}));
}

// x -> add2(x, x) [range] -> t -> clamp [min, max] -> y: XNNPACK fuses the clamp into add2
// (t has one reader) and intersects the ranges.
struct AddClamp {
  BlobGraph blob;
  DelegateArgs args;
  uint32_t x, t, y;
  AddClamp(double add_min, double add_max, double clamp_min, double clamp_max) {
    x = blob.Value({1, 4}, 0);
    t = blob.Value({1, 4});
    y = blob.Value({1, 4}, 1, true);
    blob.Node(P::Add2::kOp, {x, x}, t, {}, {add_min, add_max});
    blob.Node(P::Clamp::kOp, {t}, y, {}, {clamp_min, clamp_max});
    args.Add({1, 4}, {1, -2, 3, -4});
    args.Add({1, 4});
  }
};

TEST_F(SubgraphRulesTest, RefusesAFusedClampWithAnEmptyRange) {
  AddClamp overlapping(0, 6, 1, 10);
  ASSERT_EQ(RunDelegate(overlapping.blob, overlapping.args), Error::kOk);
  EXPECT_EQ(overlapping.args.Values(1), (std::vector<float>{2, 1, 6, 1}));
  AddClamp disjoint(0, 6, 10, 20);
  ExpectRefused(disjoint.blob, disjoint.args, "empty output range");
  // A chain of clamps intersects all of them.
  AddClamp chain(-kInf, kInf, 0, 5);
  const uint32_t u = chain.blob.Value({1, 4});
  chain.blob.nodes[1].outputs = {u};
  chain.blob.Node(P::Clamp::kOp, {u}, chain.y, {}, {6, 7});
  ExpectRefused(chain.blob, chain.args, "empty output range");
}

TEST_F(SubgraphRulesTest, AcceptsDisjointRangesWhenTheClampIsNotFused) {
  // t has a second reader: XNNPACK keeps the clamp as its own node.
  BlobGraph blob;
  const uint32_t x = blob.Value({1, 4}, 0), t = blob.Value({1, 4}), y = blob.Value({1, 4}, 1, true),
                 z = blob.Value({1, 4}, 2, true);
  blob.Node(P::Add2::kOp, {x, x}, t, {}, {0, 6});
  blob.Node(P::Clamp::kOp, {t}, y, {}, {10, 20});
  blob.Node(P::Negate::kOp, {t}, z);
  DelegateArgs args;
  args.Add({1, 4}, {1, -2, 3, -4});
  args.Add({1, 4});
  args.Add({1, 4});
  ASSERT_EQ(RunDelegate(blob, args), Error::kOk);
  EXPECT_EQ(args.Values(1), (std::vector<float>{10, 10, 10, 10}));
}

// x [1, 8, 8, 1] -> max_pooling_2d with `ints` -> y.
Error MaxPool(std::vector<int64_t> ints, std::vector<uint64_t> out_dims) {
  BlobGraph blob;
  const uint32_t x = blob.Value({1, 8, 8, 1}, 0), y = blob.Value(out_dims, 1, true);
  blob.Node(P::MaxPooling2d::kOp, {x}, y, std::move(ints), {-kInf, kInf});
  DelegateArgs args;
  args.Add({1, 8, 8, 1});
  std::vector<int64_t> sizes(out_dims.begin(), out_dims.end());
  args.Add(sizes);
  return RunDelegate(blob, args);
}

TEST_F(SubgraphRulesTest, RefusesWindowsBeyondXnnpacks32BitArithmetic) {
  using Op = P::MaxPooling2d;
  std::vector<int64_t> ints(Op::kNumInts, 1);
  ints[Op::kPadTop] = ints[Op::kPadRight] = ints[Op::kPadBottom] = ints[Op::kPadLeft] = 0;
  ints[Op::kPoolH] = ints[Op::kPoolW] = 2;
  ints[Op::kStrideH] = ints[Op::kStrideW] = 2;
  EXPECT_EQ(MaxPool(ints, {1, 4, 4, 1}), Error::kOk);
  // A parameter above 2^24 - 1.
  std::vector<int64_t> big_stride = ints;
  big_stride[Op::kStrideH] = P::kMaxWindowParam + 1;
  log_.clear();
  EXPECT_EQ(MaxPool(big_stride, {1, 1, 4, 1}), Error::kInvalidProgram);
  EXPECT_NE(log_.find("stride_h = 16777216 is out of range"), std::string::npos) << log_;
  // Each extent fits, their product does not.
  std::vector<int64_t> big_area = ints;
  big_area[Op::kPoolH] = big_area[Op::kPoolW] = 1 << 13;
  log_.clear();
  EXPECT_EQ(MaxPool(big_area, {1, 1, 1, 1}), Error::kInvalidProgram);
  EXPECT_NE(log_.find("32-bit window arithmetic"), std::string::npos) << log_;
  // The dilated window does not fit either.
  std::vector<int64_t> dilated = ints;
  dilated[Op::kDilationH] = 1 << 23;  // (3 - 1) * 2^23 + 1 > 2^24 - 1
  dilated[Op::kPoolH] = 3;
  log_.clear();
  EXPECT_EQ(MaxPool(dilated, {1, 1, 4, 1}), Error::kInvalidProgram);
  EXPECT_NE(log_.find("32-bit window arithmetic"), std::string::npos) << log_;
}

TEST_F(SubgraphRulesTest, RefusesPaddingsXnnpackCouldOverflowWhenFusing) {
  // A zero pad feeding a convolution is fused into it; the paddings add up in 32 bits.
  auto pad = [](int64_t amount) {
    BlobGraph blob;
    const uint32_t x = blob.Value({1, 2, 2, 1}, 0);
    const uint64_t side = 2 + static_cast<uint64_t>(amount);
    const uint32_t y = blob.Value({1, side, 2, 1}, 1, true);
    blob.Node(P::StaticConstantPad::kOp, {x}, y, {0, amount, 0, 0, 0, 0, 0, 0}, {0.0});
    DelegateArgs args;
    args.Add({1, 2, 2, 1}, {1, 2, 3, 4});
    args.Add({1, static_cast<int64_t>(side), 2, 1});
    return RunDelegate(blob, args);
  };
  EXPECT_EQ(pad(1), Error::kOk);
  log_.clear();
  EXPECT_EQ(pad(P::kMaxWindowParam + 1), Error::kInvalidProgram);
  EXPECT_NE(log_.find("larger than 16777215"), std::string::npos) << log_;
}

TEST_F(SubgraphRulesTest, RefusesInternalValuesBeyondTheWorkspaceBound) {
  // A pad to [1, 2^25 - 1, 2^25 - 1, 1] floats (4 PiB) read by a global pooling.
  BlobGraph blob;
  const uint32_t x = blob.Value({1, 1, 1, 1}, 0);
  const uint64_t side = 1 + 2 * static_cast<uint64_t>(P::kMaxWindowParam);
  const uint32_t t = blob.Value({1, side, side, 1});
  const uint32_t y = blob.Value({1, 1, 1, 1}, 1, true);
  const int64_t m = P::kMaxWindowParam;
  blob.Node(P::StaticConstantPad::kOp, {x}, t, {0, m, m, 0, 0, m, m, 0}, {0.0});
  blob.Node(P::GlobalAveragePooling2d::kOp, {t}, y, {}, {-kInf, kInf});
  DelegateArgs args;
  args.Add({1, 1, 1, 1}, {1});
  args.Add({1, 1, 1, 1});
  log_.clear();
  EXPECT_EQ(RunDelegate(blob, args), Error::kOutOfMemory);
  EXPECT_NE(log_.find("memory budget"), std::string::npos) << log_;
}

// A 32x32 max pooling over a 32x32 input padded by 16: 32 * 32 output pixels, each with
// 1024 window pointers = 8 MiB of indirection buffer from a 4 KiB input.
TEST_F(SubgraphRulesTest, RefusesIndirectionBuffersBeyondTheMemoryBudget) {
  using Op = P::MaxPooling2d;
  std::vector<int64_t> ints(Op::kNumInts, 1);
  ints[Op::kPadTop] = ints[Op::kPadLeft] = 16;
  ints[Op::kPadBottom] = ints[Op::kPadRight] = 15;
  ints[Op::kPoolH] = ints[Op::kPoolW] = 32;
  BlobGraph blob;
  const uint32_t x = blob.Value({1, 32, 32, 1}, 0), y = blob.Value({1, 32, 32, 1}, 1, true);
  blob.Node(Op::kOp, {x}, y, ints, {-kInf, kInf});
  DelegateArgs args;
  args.Add({1, 32, 32, 1});
  args.Add({1, 32, 32, 1});
  EXPECT_EQ(RunDelegate(blob, args), Error::kOk);  // the default budget: 1 TiB
  ASSERT_EQ(runtime::xnnpack::RegisterXnnpackBackend({1, 4 << 20}), Error::kOk);
  log_.clear();
  EXPECT_EQ(RunDelegate(blob, args), Error::kOutOfMemory);
  EXPECT_NE(log_.find("indirection buffer, beyond the delegate's XNNPACK memory budget"),
            std::string::npos)
      << log_;
  ASSERT_EQ(runtime::xnnpack::RegisterXnnpackBackend({1, 16 << 20}), Error::kOk);
  EXPECT_EQ(RunDelegate(blob, args), Error::kOk);
  ASSERT_EQ(runtime::xnnpack::RegisterXnnpackBackend({}), Error::kOk);
  EXPECT_EQ(runtime::xnnpack::RegisterXnnpackBackend({1, 0}), Error::kInvalidArgument);
}

}  // namespace
}  // namespace torchir::testing::xnnpack
