// The native delegate on Winograd nodes (native_blob.fbs Convolution.winograd): a blob built by
// hand runs and matches the convolution's definition, by F(4x4, 3x3) and F(2x2, 3x3), on the
// weights' own blocking or repacked at init from another CPU family's, on one or two threads; a
// Winograd node whose geometry Winograd does not compute, whose weights are not valid packed
// Winograd weights of its channels, or whose tile is not its weights', is refused at Init.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backends/native/convolution.h"
#include "backends/native/gemm_config.h"
#include "backends/native/runtime/native_backend.h"
#include "backends/native/serialization/native_blob_generated.h"
#include "backends/native/winograd.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "runtime/backend/backend.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/platform/platform.h"
#include "tests/backends/xnnpack/runtime/xnnpack_test_util.h"

namespace torchir::runtime::native {
namespace {

namespace fb = ::torchir::native::fb;
using ::torchir::native::Convolution2dShape;
using ::torchir::native::GemmConfig;
using ::torchir::native::GetGemmConfig;
using ::torchir::native::KernelTarget;
using ::torchir::testing::xnnpack::AlignedBytes;
using ::torchir::testing::xnnpack::DelegateArgs;
using ::torchir::testing::xnnpack::MaxAbsDiff;
using ::torchir::testing::xnnpack::RandomFloats;

std::string g_last_log;

Backend* NativeDelegate() { return FindBackend(kNativeBackendId, std::strlen(kNativeBackendId)); }

Convolution2dShape Shape(size_t height, size_t width, size_t cin, size_t cout, size_t stride,
                         size_t padding) {
  return {1,      height, width, cin,     cout,    3,       3,      stride,
          stride, 1,      1,     padding, padding, padding, padding};
}

// One Winograd node with its arguments (input, weights, bias, residual, output) and the output
// by definition (residual added, then relu).
struct Case {
  Convolution2dShape shape;
  DelegateArgs args;
  int32_t input, weights, bias, residual, output;
  bool winograd = true;
  uint32_t tile = 4;    // the blob's winograd_tile
  uint64_t groups = 0;  // the blob's groups (0 as blobs before grouped convolutions: 1)
  std::vector<float> expected;

  std::vector<uint8_t> Blob() const {
    flatbuffers::FlatBufferBuilder builder;
    const Convolution2dShape& s = shape;
    const auto node = fb::CreateConvolution(
        builder, s.batch, s.input_height, s.input_width, s.input_channels, s.output_channels,
        s.kernel_height, s.kernel_width, s.stride_height, s.stride_width, s.dilation_height,
        s.dilation_width, s.padding_top, s.padding_left, s.padding_bottom, s.padding_right, input,
        weights, bias, residual, output, fb::Activation::Relu, 0.0f, 0.0f,
        /*depthwise=*/false, winograd, groups, tile);
    fb::FinishBlobBuffer(builder, fb::CreateBlob(builder, 1, static_cast<uint32_t>(args.size()),
                                                 builder.CreateVector(&node, 1)));
    return std::vector<uint8_t>(builder.GetBufferPointer(),
                                builder.GetBufferPointer() + builder.GetSize());
  }
};

// `packed_shape` is what the weights are packed for (the node's own shape unless a test
// wants a mismatch); `target` the family, `tile` the output tile of the weights and the blob,
// `groups` the node's groups and `packed_groups` the weights' (the filter [Cout, Cin / groups,
// 3, 3]).
void Build(Case& c, const Convolution2dShape& s, KernelTarget target,
           const Convolution2dShape& packed_shape, size_t tile = 4, size_t groups = 1,
           size_t packed_groups = 0) {
  if (packed_groups == 0) packed_groups = groups;
  c.shape = s;
  c.tile = static_cast<uint32_t>(tile);
  c.groups = groups == 1 ? 0 : groups;
  const size_t cg = s.input_channels / groups, kg = s.output_channels / groups;
  const int64_t oh = static_cast<int64_t>(s.output_height());
  const int64_t ow = static_cast<int64_t>(s.output_width());
  const int64_t cout = static_cast<int64_t>(s.output_channels);
  const std::vector<float> input =
      RandomFloats(s.input_height * s.input_width * s.input_channels, 1);
  const std::vector<float> oihw = RandomFloats(s.output_channels * cg * 9, 2);
  const std::vector<float> bias = RandomFloats(s.output_channels, 3);
  const std::vector<float> residual = RandomFloats(static_cast<size_t>(oh * ow * cout), 4);
  c.input = static_cast<int32_t>(
      c.args.Add({1, static_cast<int64_t>(s.input_height), static_cast<int64_t>(s.input_width),
                  static_cast<int64_t>(s.input_channels)},
                 input));
  GemmConfig config;
  if (!GetGemmConfig(target, &config)) std::abort();
  const std::vector<float> packed_oihw = RandomFloats(
      packed_shape.output_channels * packed_shape.input_channels / packed_groups * 9, 2);
  const size_t bytes =
      ::torchir::native::WinogradPackedWeightsBytes(config, packed_shape, tile, packed_groups);
  if (bytes == 0) std::abort();
  c.weights =
      static_cast<int32_t>(c.args.AddTyped({static_cast<int64_t>(bytes)}, ScalarType::kUInt8));
  if (::torchir::native::PackWinogradWeights(
          config, packed_shape, tile,
          packed_shape.input_channels == s.input_channels &&
                  packed_shape.output_channels == s.output_channels && packed_groups == groups
              ? oihw.data()
              : packed_oihw.data(),
          c.args.tensor(static_cast<size_t>(c.weights)).mutable_data(), bytes,
          packed_groups) != Error::kOk) {
    std::abort();
  }
  c.args.tensor(static_cast<size_t>(c.weights)).set_constant(true);
  c.bias = static_cast<int32_t>(c.args.AddConstant({cout}, bias));
  c.residual = static_cast<int32_t>(c.args.Add({1, oh, ow, cout}, residual));
  c.output = static_cast<int32_t>(c.args.Add({1, oh, ow, cout}));
  c.expected.assign(static_cast<size_t>(oh * ow * cout), 0.0f);
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      for (int64_t co = 0; co < cout; ++co) {
        double sum = bias[static_cast<size_t>(co)];
        for (int64_t ky = 0; ky < 3; ++ky) {
          for (int64_t kx = 0; kx < 3; ++kx) {
            const int64_t iy = y + ky - static_cast<int64_t>(s.padding_top);
            const int64_t ix = x + kx - static_cast<int64_t>(s.padding_left);
            if (iy < 0 || ix < 0 || iy >= static_cast<int64_t>(s.input_height) ||
                ix >= static_cast<int64_t>(s.input_width)) {
              continue;
            }
            const size_t first = static_cast<size_t>(co) / kg * cg;  // co's group's
            for (size_t ci = 0; ci < cg; ++ci) {
              sum +=
                  static_cast<double>(
                      input[(static_cast<size_t>(iy * static_cast<int64_t>(s.input_width) + ix)) *
                                s.input_channels +
                            first + ci]) *
                  oihw[((static_cast<size_t>(co) * cg + ci) * 3 + static_cast<size_t>(ky)) * 3 +
                       static_cast<size_t>(kx)];
            }
          }
        }
        const size_t at = static_cast<size_t>((y * ow + x) * cout + co);
        sum += residual[at];
        c.expected[at] = static_cast<float>(std::fmax(sum, 0.0));
      }
    }
  }
}

// Init, bind scratch as a Method does, Execute twice, Destroy; the first error.
Error RunDelegate(Case& c, const std::vector<uint8_t>& blob) {
  AlignedBytes storage(blob);
  MallocAllocator allocator;
  g_last_log.clear();
  Result<void*> handle = NativeDelegate()->Init(Span<const uint8_t>(storage.data(), blob.size()),
                                                {}, c.args.args(), allocator);
  if (!handle.ok()) return handle.error();
  const size_t scratch_bytes = NativeDelegate()->ScratchBytes(handle.get());
  void* scratch = scratch_bytes > 0 ? allocator.Allocate(scratch_bytes, 64) : nullptr;
  if (scratch != nullptr) NativeDelegate()->BindScratch(handle.get(), scratch);
  Error error = Error::kOk;
  for (int i = 0; i < 2 && error == Error::kOk; ++i) {
    error = NativeDelegate()->Execute(handle.get(), c.args.args());
  }
  NativeDelegate()->Destroy(handle.get());
  return error;
}

class WinogradBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SetLogHook([](LogLevel, const char* message) { g_last_log = message; });
    ASSERT_EQ(RegisterNativeBackend({1}), Error::kOk);
  }
  void TearDown() override { ASSERT_EQ(RegisterNativeBackend({1}), Error::kOk); }
};

// Packed for this CPU, for another family (repacked at init, saying so once) and on 2 threads:
// the output matches the definition within Winograd's error (docs/native-kernels.md: the worst
// seen is under 100 u sum |w x|; sum |w x| is at most 9 * 40 here, so 1e-3 is generous).
TEST_F(WinogradBackendTest, RunsAndMatchesTheDefinition) {
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    for (KernelTarget target : {::torchir::native::CurrentKernelTarget(), KernelTarget::kX86Avx2,
                                KernelTarget::kPortable, KernelTarget::kX86Avx512}) {
      for (size_t tile : {4, 2}) {
        SCOPED_TRACE(std::string(::torchir::native::KernelTargetName(target)) + " F(" +
                     std::to_string(tile) + ")");
        const Convolution2dShape s = Shape(23, 18, 40, 37, 1, 1);
        Case c;
        Build(c, s, target, s, tile);
        ASSERT_EQ(RunDelegate(c, c.Blob()), Error::kOk) << g_last_log;
        EXPECT_LT(MaxAbsDiff(c.args.Values(static_cast<size_t>(c.output)), c.expected), 1e-3f);
      }
    }
  }
}

// Grouped layers (version 2 weights, the same layout on every family): 2 and 4 groups, groups
// wider and narrower than a vector, on one and two threads, packed for this CPU and another.
TEST_F(WinogradBackendTest, RunsGroupedLayersAndMatchesTheDefinition) {
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    for (KernelTarget target :
         {::torchir::native::CurrentKernelTarget(), KernelTarget::kPortable}) {
      for (size_t groups : {2, 4}) {
        SCOPED_TRACE(std::string(::torchir::native::KernelTargetName(target)) + ", " +
                     std::to_string(groups) + " groups, " + std::to_string(threads) + " thread(s)");
        const Convolution2dShape s = Shape(15, 17, 48, 32, 1, 1);
        Case c;
        Build(c, s, target, s, 4, groups);
        ASSERT_EQ(RunDelegate(c, c.Blob()), Error::kOk) << g_last_log;
        EXPECT_LT(MaxAbsDiff(c.args.Values(static_cast<size_t>(c.output)), c.expected), 1e-3f);
      }
    }
  }
}

// Weights of another group count than the node's, either way, are refused at Init.
TEST_F(WinogradBackendTest, RefusesWeightsOfOtherGroups) {
  const Convolution2dShape s = Shape(9, 9, 16, 16, 1, 1);
  for (const auto& [groups, packed_groups] : {std::pair<size_t, size_t>{4, 2}, {2, 1}, {1, 2}}) {
    Case c;
    Build(c, s, ::torchir::native::CurrentKernelTarget(), s, 4, groups, packed_groups);
    EXPECT_EQ(RunDelegate(c, c.Blob()), Error::kInvalidProgram) << groups << " " << packed_groups;
    EXPECT_NE(g_last_log.find("group(s)"), std::string::npos) << g_last_log;
  }
}

TEST_F(WinogradBackendTest, RefusesWinogradOnOtherGeometries) {
  // Stride 2: Winograd does not compute it, whatever the weights.
  const Convolution2dShape good = Shape(9, 9, 8, 8, 1, 1);
  Case c;
  Build(c, good, ::torchir::native::CurrentKernelTarget(), good);
  Case strided;
  Build(strided, Shape(9, 9, 8, 8, 2, 1), ::torchir::native::CurrentKernelTarget(), good);
  EXPECT_EQ(RunDelegate(strided, strided.Blob()), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("Winograd"), std::string::npos) << g_last_log;
  // Winograd weights of other channels.
  Case other;
  Build(other, good, ::torchir::native::CurrentKernelTarget(), Shape(9, 9, 8, 9, 1, 1));
  EXPECT_EQ(RunDelegate(other, other.Blob()), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("channels"), std::string::npos) << g_last_log;
  // The same weights without the flag: packed B is expected, and TRWG is not that.
  c.winograd = false;
  EXPECT_EQ(RunDelegate(c, c.Blob()), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("packed weights are invalid"), std::string::npos) << g_last_log;
  c.winograd = true;
  EXPECT_EQ(RunDelegate(c, c.Blob()), Error::kOk) << g_last_log;
  // A tile the kernels do not have, and F(2x2) said of F(4x4) weights (its scratch was planned
  // for the blob's tile).
  for (uint32_t tile : {3u, 2u}) {
    c.tile = tile;
    EXPECT_EQ(RunDelegate(c, c.Blob()), Error::kInvalidProgram) << tile;
    EXPECT_NE(g_last_log.find("output tile"), std::string::npos) << g_last_log;
  }
  c.tile = 4;
  // A corrupt header.
  uint8_t* header =
      static_cast<uint8_t*>(c.args.tensor(static_cast<size_t>(c.weights)).mutable_data());
  header[0] ^= 1;
  EXPECT_EQ(RunDelegate(c, c.Blob()), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("Winograd weights are invalid"), std::string::npos) << g_last_log;
}

}  // namespace
}  // namespace torchir::runtime::native
