// The XNNPACK backend: registration and threads, a multi-node subgraph with
// internal values and blob constants, arguments bound once at init, and every
// way a hostile blob can be malformed refused with an Error (never a crash).
#include "backends/xnnpack/runtime/xnnpack_backend.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/serialization/xnnpack_blob_generated.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "runtime/backend/backend.h"
#include "tests/backends/xnnpack/runtime/xnnpack_test_util.h"

namespace torchir::testing::xnnpack {
namespace {

using runtime::Error;
using K = KernelArg;

constexpr double kInf = std::numeric_limits<double>::infinity();

runtime::Backend* XnnpackBackend() {
  return runtime::FindBackend(runtime::xnnpack::kXnnpackBackendId,
                              std::strlen(runtime::xnnpack::kXnnpackBackendId));
}

// A Backend::Init handle, destroyed with the object.
class InitializedDelegate {
 public:
  InitializedDelegate(const BlobGraph& blob, DelegateArgs& args)
      : bytes_(Serialize(blob)), args_(args) {
    runtime::Result<void*> handle = XnnpackBackend()->Init(
        runtime::Span<const uint8_t>(bytes_.data(), bytes_.size()), {}, args.args(), allocator_);
    error_ = handle.error();
    if (handle.ok()) handle_ = handle.get();
  }
  ~InitializedDelegate() {
    if (handle_ != nullptr) XnnpackBackend()->Destroy(handle_);
  }
  Error init_error() const { return error_; }
  Error Execute() { return XnnpackBackend()->Execute(handle_, args_.args()); }

 private:
  AlignedBytes bytes_;
  DelegateArgs& args_;
  runtime::MallocAllocator allocator_;
  Error error_;
  void* handle_ = nullptr;
};

// A subgraph with internal values, two outputs and a blob constant:
//   x [1,4,4,2] -> convolution_2d (3x3, pad 1, bias) -> hardswish -> global_average_pooling_2d
//   -> static_reshape [1,3] -> fully_connected (bias) -> y1 [1,2]
//                           -> multiply2 by the blob constant c [3] -> y2 [1,3]
struct Chain {
  BlobGraph blob;
  DelegateArgs args;  // x, w, b, w2, b2, y1, y2
  std::vector<float> w, b, w2, b2;
  const std::vector<float> c = {0.5f, -1.0f, 2.0f};
  static constexpr size_t kX = 0, kY1 = 5, kY2 = 6;
  // Indices of the blob's values, for tests that break them.
  static constexpr uint32_t kConvOut = 3, kHardswish = 4, kFlat = 6, kConstantW = 1, kBlobC = 10;

  Chain() {
    w = RandomFloats(3 * 2 * 3 * 3, 1);
    b = RandomFloats(3, 2);
    w2 = RandomFloats(2 * 3, 3);
    b2 = RandomFloats(2, 4);
    const uint32_t x = blob.Value({1, 4, 4, 2}, 0);
    const uint32_t vw = blob.Value({3, 3, 3, 2}, 1);
    const uint32_t vb = blob.Value({3}, 2);
    const uint32_t conv = blob.Value({1, 4, 4, 3});
    const uint32_t hs = blob.Value({1, 4, 4, 3});
    const uint32_t gap = blob.Value({1, 1, 1, 3});
    const uint32_t flat = blob.Value({1, 3});
    const uint32_t vw2 = blob.Value({2, 3}, 3);
    const uint32_t vb2 = blob.Value({2}, 4);
    const uint32_t y1 = blob.Value({1, 2}, 5, true);
    const uint32_t vc = blob.Constant({3}, c);
    const uint32_t y2 = blob.Value({1, 3}, 6, true);
    blob.Node("convolution_2d", {x, vw, vb}, conv, {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 2, 3},
              {-kInf, kInf});
    blob.Node("hardswish", {conv}, hs);
    blob.Node("global_average_pooling_2d", {hs}, gap, {}, {-kInf, kInf});
    blob.Node("static_reshape", {gap}, flat, {1, 3});
    blob.Node("fully_connected", {flat, vw2, vb2}, y1, {}, {-kInf, kInf});
    blob.Node("multiply2", {flat, vc}, y2, {}, {-kInf, kInf});

    args.Add({1, 4, 4, 2});
    args.AddConstant({3, 3, 3, 2}, OihwToOhwi(w, 3, 2, 3, 3));
    args.AddConstant({3}, b);
    args.AddConstant({2, 3}, w2);
    args.AddConstant({2}, b2);
    args.Add({1, 2});
    args.Add({1, 3});
  }

  // The same computation with the portable kernels on NCHW.
  void Reference(const std::vector<float>& x_nchw, std::vector<float>* y1,
                 std::vector<float>* y2) const {
    DelegateArgs ref;
    const size_t x = ref.Add({1, 2, 4, 4}, x_nchw), rw = ref.Add({3, 2, 3, 3}, w),
                 rb = ref.Add({3}, b), conv = ref.Add({1, 3, 4, 4}), hs = ref.Add({1, 3, 4, 4}),
                 gap = ref.Add({1, 3, 1, 1});
    ASSERT_EQ(RunPortable(
                  "convolution",
                  {K::Tensor(x), K::Tensor(rw), K::Tensor(rb), K::Ints({1, 1}), K::Ints({1, 1}),
                   K::Ints({1, 1}), K::Int(1), K::Double(-kInf), K::Double(kInf), K::Tensor(conv)},
                  ref),
              Error::kOk);
    ASSERT_EQ(RunPortable("hardswish", {K::Tensor(conv), K::Tensor(hs)}, ref), Error::kOk);
    ASSERT_EQ(
        RunPortable("mean", {K::Tensor(hs), K::Ints({2, 3}), K::Bool(true), K::Tensor(gap)}, ref),
        Error::kOk);
    const size_t flat = ref.Add({1, 3}, ref.Values(gap)), rw2 = ref.Add({2, 3}, w2),
                 rb2 = ref.Add({2}, b2), out1 = ref.Add({1, 2}), rc = ref.Add({3}, c),
                 out2 = ref.Add({1, 3});
    ASSERT_EQ(RunPortable("linear",
                          {K::Tensor(flat), K::Tensor(rw2), K::Tensor(rb2), K::Double(-kInf),
                           K::Double(kInf), K::Tensor(out1)},
                          ref),
              Error::kOk);
    ASSERT_EQ(RunPortable("mul", {K::Tensor(flat), K::Tensor(rc), K::Tensor(out2)}, ref),
              Error::kOk);
    *y1 = ref.Values(out1);
    *y2 = ref.Values(out2);
  }
};

class XnnpackBackendTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override { SetUpBackends(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Threads, XnnpackBackendTest, ::testing::Values(1u, 2u),
                         [](const ::testing::TestParamInfo<uint32_t>& info) {
                           return std::to_string(info.param) + "thread";
                         });

// Tests of the process-wide registration (they leave it at 1 thread).
class XnnpackRegistrationTest : public ::testing::Test {
 protected:
  void SetUp() override { SetUpBackends(1); }
  void TearDown() override { SetUpBackends(1); }
};

TEST_F(XnnpackRegistrationTest, RegistersOnceUnderItsId) {
  ASSERT_NE(XnnpackBackend(), nullptr);
  runtime::Backend* first = XnnpackBackend();
  EXPECT_EQ(runtime::xnnpack::RegisterXnnpackBackend(), Error::kOk);
  EXPECT_EQ(runtime::xnnpack::RegisterXnnpackBackend({2}), Error::kOk);
  EXPECT_EQ(XnnpackBackend(), first);
  EXPECT_EQ(runtime::xnnpack::RegisterXnnpackBackend({0}), Error::kInvalidArgument);
  // The id is taken: another backend cannot claim it.
  EXPECT_EQ(runtime::RegisterBackend(runtime::xnnpack::kXnnpackBackendId, first),
            Error::kInvalidArgument);
}

TEST_F(XnnpackRegistrationTest, ChangingThreadsKeepsLiveDelegatesRunning) {
  std::vector<float> x = RandomFloats(32, 5);
  std::vector<float> y1, y2;
  Chain expected;
  expected.Reference(NhwcToNchw(x, 1, 4, 4, 2), &y1, &y2);

  // Three delegates initialised under 2, 1 and 3 threads, all alive at once.
  ASSERT_EQ(runtime::xnnpack::RegisterXnnpackBackend({2}), Error::kOk);
  Chain a;
  auto da = std::make_unique<InitializedDelegate>(a.blob, a.args);
  ASSERT_EQ(runtime::xnnpack::RegisterXnnpackBackend({1}), Error::kOk);
  Chain b;
  auto db = std::make_unique<InitializedDelegate>(b.blob, b.args);
  ASSERT_EQ(runtime::xnnpack::RegisterXnnpackBackend({3}), Error::kOk);
  Chain c;
  auto dc = std::make_unique<InitializedDelegate>(c.blob, c.args);
  ASSERT_EQ(da->init_error(), Error::kOk);
  ASSERT_EQ(db->init_error(), Error::kOk);
  ASSERT_EQ(dc->init_error(), Error::kOk);
  for (Chain* chain : {&a, &b, &c}) chain->args.Set(Chain::kX, x);
  da.reset();  // the 2-thread pool goes with its last delegate
  ASSERT_EQ(db->Execute(), Error::kOk);
  ASSERT_EQ(dc->Execute(), Error::kOk);
  EXPECT_LE(MaxAbsDiff(b.args.Values(Chain::kY1), y1), 1e-5f);
  EXPECT_LE(MaxAbsDiff(c.args.Values(Chain::kY1), y1), 1e-5f);
  EXPECT_LE(MaxAbsDiff(c.args.Values(Chain::kY2), y2), 1e-5f);
}

TEST_P(XnnpackBackendTest, RunsASubgraphWithInternalValuesAndBlobConstants) {
  Chain chain;
  InitializedDelegate delegate(chain.blob, chain.args);
  ASSERT_EQ(delegate.init_error(), Error::kOk);
  // Inputs are rewritten in place between runs, as Method::SetInput does: the
  // binding made at init holds.
  for (uint32_t seed : {11u, 12u}) {
    const std::vector<float> x = RandomFloats(32, seed);
    chain.args.Set(Chain::kX, x);
    ASSERT_EQ(delegate.Execute(), Error::kOk);
    std::vector<float> y1, y2;
    chain.Reference(NhwcToNchw(x, 1, 4, 4, 2), &y1, &y2);
    EXPECT_LE(MaxAbsDiff(chain.args.Values(Chain::kY1), y1), 1e-5f) << seed;
    EXPECT_LE(MaxAbsDiff(chain.args.Values(Chain::kY2), y2), 1e-5f) << seed;
  }
}

TEST_P(XnnpackBackendTest, ReadsConstantArgumentsInPlace) {
  // An elementwise operand XNNPACK does not pack: its bytes are read where
  // the program keeps them, so changing them after init shows in the output.
  BlobGraph blob;
  const uint32_t a = blob.Value({4}, 0), c = blob.Value({4}, 1), y = blob.Value({4}, 2, true);
  blob.Node("add2", {a, c}, y, {}, {-kInf, kInf});
  DelegateArgs args;
  args.Add({4}, {1, 2, 3, 4});
  args.AddConstant({4}, {10, 20, 30, 40});
  args.Add({4});
  InitializedDelegate delegate(blob, args);
  ASSERT_EQ(delegate.init_error(), Error::kOk);
  ASSERT_EQ(delegate.Execute(), Error::kOk);
  EXPECT_EQ(args.Values(2), (std::vector<float>{11, 22, 33, 44}));
  args.Set(1, {100, 200, 300, 400});
  ASSERT_EQ(delegate.Execute(), Error::kOk);
  EXPECT_EQ(args.Values(2), (std::vector<float>{101, 202, 303, 404}));
}

TEST_P(XnnpackBackendTest, RunsAnEmptyBlob) {
  // No values and no nodes is legal and does nothing; values that no node uses are refused
  // (xnnpack_subgraph_rules_test.cpp).
  BlobGraph blob;
  DelegateArgs args;
  EXPECT_EQ(RunDelegate(blob, args, 2), Error::kOk);
  blob.Value({2}, 0);
  args.Add({2}, {1, 2});
  EXPECT_EQ(RunDelegate(blob, args, 2), Error::kInvalidProgram);
}

// Fails every allocation: Init must report it and leak nothing of XNNPACK's.
class FailingAllocator : public runtime::MemoryAllocator {
 public:
  void* Allocate(size_t, size_t) override { return nullptr; }
};

TEST_P(XnnpackBackendTest, ReportsAllocatorFailure) {
  Chain chain;
  FailingAllocator allocator;
  EXPECT_EQ(RunDelegateBytes(Serialize(chain.blob), chain.args, allocator, 1), Error::kOutOfMemory);
}

// ---------------------------------------------------------------------------
// Hostile blobs.

Error InitChainWith(const std::function<void(Chain&)>& change) {
  Chain chain;
  change(chain);
  return RunDelegate(chain.blob, chain.args);
}

TEST_P(XnnpackBackendTest, RefusesBlobsThatAreNotSubgraphs) {
  Chain chain;
  std::vector<uint8_t> bytes = Serialize(chain.blob);
  EXPECT_EQ(RunDelegateBytes({}, chain.args), Error::kInvalidProgram);
  std::vector<uint8_t> wrong_id = bytes;
  std::memcpy(&wrong_id[4], "TIR1", 4);
  EXPECT_EQ(RunDelegateBytes(wrong_id, chain.args), Error::kInvalidProgram);
  std::vector<uint8_t> bad_root = bytes;
  bad_root[0] = 0xF0;
  bad_root[1] = 0xFF;
  EXPECT_EQ(RunDelegateBytes(bad_root, chain.args), Error::kInvalidProgram);
  // Misaligned (a segment is always 64-aligned).
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  AlignedBytes storage(shifted);
  runtime::MallocAllocator allocator;
  runtime::Result<void*> handle =
      XnnpackBackend()->Init(runtime::Span<const uint8_t>(storage.data() + 1, bytes.size()), {},
                             chain.args.args(), allocator);
  EXPECT_EQ(handle.error(), Error::kInvalidProgram);
}

TEST_P(XnnpackBackendTest, RefusesEveryTruncation) {
  Chain chain;
  const std::vector<uint8_t> bytes = Serialize(chain.blob);
  for (size_t size = 0; size < bytes.size(); ++size) {
    const std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + size);
    ASSERT_NE(RunDelegateBytes(truncated, chain.args), Error::kOk) << "size " << size;
  }
}

// Flipped bytes may still make a well-formed blob (a float constant, a
// parameter XNNPACK accepts); what matters is that none crashes, and that a
// blob that passes init also runs.
void FlipBytes(size_t stride) {
  Chain chain;
  const std::vector<uint8_t> bytes = Serialize(chain.blob);
  size_t refused = 0, tried = 0;
  for (size_t i = 0; i < bytes.size(); i += stride) {
    for (uint8_t mask : {0xFF, 0x01, 0x80}) {
      std::vector<uint8_t> flipped = bytes;
      flipped[i] ^= mask;
      chain.args.Set(Chain::kX, RandomFloats(32, static_cast<uint32_t>(i)));
      const Error error = RunDelegateBytes(flipped, chain.args, 1);
      ++tried;
      if (error != Error::kOk) ++refused;
    }
  }
  EXPECT_GT(refused, tried / 4) << "most corruptions must be caught";
}

// Validation does not depend on the thread count: the exhaustive run uses one.
class XnnpackOneThreadTest : public ::testing::Test {
 protected:
  void SetUp() override { SetUpBackends(1); }
};

TEST_F(XnnpackOneThreadTest, SurvivesEveryByteFlip) { FlipBytes(1); }
TEST_P(XnnpackBackendTest, SurvivesSampledByteFlips) { FlipBytes(7); }

TEST_P(XnnpackBackendTest, RefusesBadHeaderFields) {
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.version = 2; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.num_arguments = 8; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.num_arguments = 6; }), Error::kInvalidProgram);
}

TEST_P(XnnpackBackendTest, RefusesBadArgumentBindings) {
  // Out of range.
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.values[Chain::kConvOut].argument = 7;
              c.blob.num_arguments = 7;
            }),
            Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.values[0].argument = -2; }),
            Error::kInvalidProgram);
  // One argument bound to two values.
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.values[Chain::kConvOut].argument = 0; }),
            Error::kInvalidProgram);
  // Dims other than the tensor's sizes (same element count, and other rank).
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.values[0].dims = {1, 2, 4, 4};
            }),
            Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.values[0].dims = {4, 4, 2};
            }),
            Error::kInvalidProgram);
  // The argument is no float32 contiguous tensor.
  {
    BlobGraph blob;
    const uint32_t x = blob.Value({2, 2}, 0), y = blob.Value({2, 2}, 1, true);
    blob.Node("abs", {x}, y);
    DelegateArgs not_float;
    not_float.AddTyped({2, 2}, runtime::ScalarType::kInt32);
    not_float.Add({2, 2});
    EXPECT_EQ(RunDelegate(blob, not_float), Error::kInvalidProgram);
    DelegateArgs not_tensor;
    not_tensor.AddInt(4);
    not_tensor.Add({2, 2});
    EXPECT_EQ(RunDelegate(blob, not_tensor), Error::kInvalidProgram);
    DelegateArgs permuted;
    permuted.AddTyped({2, 2}, runtime::ScalarType::kFloat32, {1, 0});
    permuted.Add({2, 2});
    EXPECT_EQ(RunDelegate(blob, permuted), Error::kInvalidProgram);
    DelegateArgs fine;
    fine.AddTyped({2, 2}, runtime::ScalarType::kFloat32, {0, 1});
    fine.Add({2, 2});
    EXPECT_EQ(RunDelegate(blob, fine), Error::kOk);
  }
}

TEST_P(XnnpackBackendTest, RefusesOutputsThatCannotBeWritten) {
  // An output bound to a constant (read-only program memory).
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.values[Chain::kConstantW].is_output = true; }),
            Error::kInvalidProgram);
  // An output that goes nowhere.
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.values[Chain::kFlat].is_output = true; }),
            Error::kInvalidProgram);
  // A node writing into a constant, an input or a blob constant.
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].outputs = {Chain::kConstantW}; }),
            Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].outputs = {0}; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].outputs = {Chain::kBlobC}; }),
            Error::kInvalidProgram);
  // A value written twice.
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].outputs = {Chain::kConvOut}; }),
            Error::kInvalidProgram);
  // An output no node writes.
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes.pop_back(); }), Error::kInvalidProgram);
}

TEST_P(XnnpackBackendTest, RefusesReadsOfUnwrittenValues) {
  // Nodes out of order: hardswish reads the convolution's output first.
  EXPECT_EQ(InitChainWith([](Chain& c) { std::swap(c.blob.nodes[0], c.blob.nodes[1]); }),
            Error::kInvalidProgram);
  // An internal value nothing writes (its dims would be unchecked).
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.Value({1 << 20, 1 << 20, 1 << 20});
            }),
            Error::kInvalidProgram);
}

TEST_P(XnnpackBackendTest, RefusesMalformedValues) {
  EXPECT_EQ(
      InitChainWith([](Chain& c) { c.blob.values[Chain::kFlat].dims = {1, 1, 1, 1, 1, 1, 3}; }),
      Error::kInvalidProgram);  // rank 7 > XNN_MAX_TENSOR_DIMS
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.values[Chain::kFlat].dims = {0, 3};
            }),
            Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.values[Chain::kFlat].dims = {uint64_t{1} << 40, uint64_t{1} << 40};
            }),
            Error::kInvalidProgram);  // element count overflows
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.values[Chain::kBlobC].data = {1, 2};
            }),
            Error::kInvalidProgram);  // data for 2 of 3 elements
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.values[Chain::kConstantW].data = {1}; }),
            Error::kInvalidProgram);  // data and an argument
}

TEST_P(XnnpackBackendTest, RefusesMalformedNodes) {
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].op = "hard_swish"; }),
            Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].op = ""; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].inputs = {99}; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].outputs = {99}; }),
            Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].outputs = {}; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) {
              c.blob.nodes[1].outputs = {Chain::kHardswish, Chain::kHardswish};
            }),
            Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].inputs = {}; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[1].ints = {1}; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[0].floats = {0}; }), Error::kInvalidProgram);
  EXPECT_EQ(InitChainWith([](Chain& c) { c.blob.nodes[0].ints[0] = -1; }),
            Error::kInvalidProgram);  // negative padding
}

TEST_P(XnnpackBackendTest, RefusesANodeWithoutOp) {
  // The builder in xnnpack_test_util always writes an op; build this one by hand.
  flatbuffers::FlatBufferBuilder builder;
  namespace fb = ::torchir::xnnpack;
  std::vector<uint64_t> dims = {2};
  std::vector<flatbuffers::Offset<fb::Value>> values = {
      fb::CreateValueDirect(builder, &dims, 0, false),
      fb::CreateValueDirect(builder, &dims, 1, true)};
  std::vector<uint32_t> in = {0}, out = {1};
  std::vector<flatbuffers::Offset<fb::Node>> nodes = {
      fb::CreateNode(builder, 0, builder.CreateVector(in), builder.CreateVector(out))};
  fb::FinishGraphBuffer(builder, fb::CreateGraphDirect(builder, 1, &values, &nodes, 2));
  DelegateArgs args;
  args.Add({2});
  args.Add({2});
  EXPECT_EQ(RunDelegateBytes(std::vector<uint8_t>(builder.GetBufferPointer(),
                                                  builder.GetBufferPointer() + builder.GetSize()),
                             args),
            Error::kInvalidProgram);
}

}  // namespace
}  // namespace torchir::testing::xnnpack
