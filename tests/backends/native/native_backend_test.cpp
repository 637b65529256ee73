// The native delegate against hostile blobs and arguments: every malformed blob, argument or
// packed-weight header is refused at Init with an Error (never a crash), and valid blobs built
// by hand run and match a naive convolution, whatever CPU family their weights were packed
// for and on one or two threads.
#include "backends/native/runtime/native_backend.h"

#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "backends/native/convolution.h"
#include "backends/native/depthwise.h"
#include "backends/native/gemm_config.h"
#include "backends/native/packed_weights.h"
#include "backends/native/serialization/native_blob_generated.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "runtime/backend/backend.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/platform/platform.h"
#include "tests/backends/native/channels_first.h"
#include "tests/backends/xnnpack/runtime/xnnpack_test_util.h"

namespace torchir::runtime::native {
namespace {

namespace fb = ::torchir::native::fb;
using ::torchir::native::Convolution2dShape;
using ::torchir::native::ConvolutionPackedWeightsBytes;
using ::torchir::native::GemmConfig;
using ::torchir::native::GetGemmConfig;
using ::torchir::native::KernelTarget;
using ::torchir::native::KernelTargetName;
using ::torchir::native::kPackedBHeaderBytes;
using ::torchir::native::PackConvolutionWeights;
using ::torchir::native::PackedBHeader;
using ::torchir::runtime::DelegateTrace;
using ::torchir::runtime::EventTracer;
using ::torchir::testing::xnnpack::AlignedBytes;
using ::torchir::testing::xnnpack::DelegateArgs;
using ::torchir::testing::xnnpack::MaxAbsDiff;
using ::torchir::testing::xnnpack::RandomFloats;

// The last message the runtime logged (the refusal's one line).
std::string g_last_log;

Backend* NativeDelegate() { return FindBackend(kNativeBackendId, std::strlen(kNativeBackendId)); }

// One node of a hand-built blob: native_blob.fbs's Convolution.
struct Node {
  Convolution2dShape shape{};
  int32_t input = -1, weights = -1, bias = -1, residual = -1, output = -1;
  uint32_t activation = 0;  // fb::Activation, raw so tests can write unknown values
  float output_min = 0.0f, output_max = 0.0f;
  uint64_t groups = 0;  // 0 (as blobs written before grouped convolutions) or 1: ungrouped
  bool depthwise = false;
  bool feeds_next = false;  // a 1x1 expansion whose output only the next (depthwise) node reads
};

struct Blob {
  uint32_t version = 1;
  int64_t num_arguments = -1;  // -1: the argument count of the call
  bool write_nodes = true;     // false: no convolutions vector at all
  std::vector<Node> nodes;
  std::vector<std::string> source_ops;  // none when empty
};

std::vector<uint8_t> Serialize(const Blob& blob, size_t num_args) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<fb::Convolution>> nodes;
  for (const Node& n : blob.nodes) {
    const Convolution2dShape& s = n.shape;
    nodes.push_back(fb::CreateConvolution(
        builder, s.batch, s.input_height, s.input_width, s.input_channels, s.output_channels,
        s.kernel_height, s.kernel_width, s.stride_height, s.stride_width, s.dilation_height,
        s.dilation_width, s.padding_top, s.padding_left, s.padding_bottom, s.padding_right, n.input,
        n.weights, n.bias, n.residual, n.output, static_cast<fb::Activation>(n.activation),
        n.output_min, n.output_max, n.depthwise, /*winograd=*/false, n.groups,
        /*winograd_tile=*/4, n.feeds_next, s.input_channels_first));
  }
  const auto vector = blob.write_nodes ? builder.CreateVector(nodes) : 0;
  const uint32_t num_arguments = blob.num_arguments < 0 ? static_cast<uint32_t>(num_args)
                                                        : static_cast<uint32_t>(blob.num_arguments);
  const auto ops = blob.source_ops.empty() ? 0 : builder.CreateVectorOfStrings(blob.source_ops);
  fb::FinishBlobBuffer(builder, fb::CreateBlob(builder, blob.version, num_arguments, vector, ops));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

// Inits the native delegate on `bytes` (at `offset` into aligned storage), binds its scratch as
// a Method does, executes it `runs` times and destroys it; the first error.
Error RunBytes(const std::vector<uint8_t>& bytes, DelegateArgs& args, int runs = 1,
               size_t offset = 0, const DelegateTrace* trace = nullptr) {
  std::vector<uint8_t> shifted(offset, 0);
  shifted.insert(shifted.end(), bytes.begin(), bytes.end());
  AlignedBytes storage(shifted);
  MallocAllocator allocator;
  g_last_log.clear();
  Result<void*> handle = NativeDelegate()->Init(
      Span<const uint8_t>(storage.data() + offset, bytes.size()), {}, args.args(), allocator);
  if (!handle.ok()) return handle.error();
  const size_t scratch_bytes = NativeDelegate()->ScratchBytes(handle.get());
  void* scratch = scratch_bytes > 0 ? allocator.Allocate(scratch_bytes, 64) : nullptr;
  if (scratch != nullptr) NativeDelegate()->BindScratch(handle.get(), scratch);
  Error error = Error::kOk;
  for (int i = 0; i < runs && error == Error::kOk; ++i) {
    error = trace == nullptr ? NativeDelegate()->Execute(handle.get(), args.args())
                             : NativeDelegate()->ExecuteTraced(handle.get(), args.args(), *trace);
  }
  NativeDelegate()->Destroy(handle.get());
  return error;
}

Error RunBlob(const Blob& blob, DelegateArgs& args, int runs = 1) {
  return RunBytes(Serialize(blob, args.size()), args, runs);
}

Convolution2dShape Shape(size_t batch, size_t height, size_t width, size_t in_channels,
                         size_t out_channels, size_t kernel, size_t stride, size_t padding) {
  Convolution2dShape s{};
  s.batch = batch;
  s.input_height = height;
  s.input_width = width;
  s.input_channels = in_channels;
  s.output_channels = out_channels;
  s.kernel_height = s.kernel_width = kernel;
  s.stride_height = s.stride_width = stride;
  s.dilation_height = s.dilation_width = 1;
  s.padding_top = s.padding_left = s.padding_bottom = s.padding_right = padding;
  return s;
}

// The convolution by its definition: NHWC input, OIHW weights ([Cout, Cin / groups, kh, kw]),
// NHWC output.
std::vector<float> NaiveConvolution(const Convolution2dShape& s, const std::vector<float>& input,
                                    const std::vector<float>& oihw, const std::vector<float>& bias,
                                    const std::vector<float>& residual, float lo, float hi,
                                    size_t groups = 1) {
  const size_t group_cin = s.input_channels / groups, group_cout = s.output_channels / groups;
  const size_t oh = s.output_height(), ow = s.output_width();
  std::vector<float> out(s.batch * oh * ow * s.output_channels);
  for (size_t b = 0; b < s.batch; ++b) {
    for (size_t y = 0; y < oh; ++y) {
      for (size_t x = 0; x < ow; ++x) {
        for (size_t co = 0; co < s.output_channels; ++co) {
          double sum = bias.empty() ? 0.0 : bias[co];
          for (size_t ky = 0; ky < s.kernel_height; ++ky) {
            for (size_t kx = 0; kx < s.kernel_width; ++kx) {
              const long iy = static_cast<long>(y * s.stride_height + ky * s.dilation_height) -
                              static_cast<long>(s.padding_top);
              const long ix = static_cast<long>(x * s.stride_width + kx * s.dilation_width) -
                              static_cast<long>(s.padding_left);
              if (iy < 0 || ix < 0 || iy >= static_cast<long>(s.input_height) ||
                  ix >= static_cast<long>(s.input_width)) {
                continue;
              }
              for (size_t ci = 0; ci < group_cin; ++ci) {
                sum +=
                    static_cast<double>(
                        input[((b * s.input_height + iy) * s.input_width + ix) * s.input_channels +
                              co / group_cout * group_cin + ci]) *
                    oihw[((co * group_cin + ci) * s.kernel_height + ky) * s.kernel_width + kx];
              }
            }
          }
          const size_t at = ((b * oh + y) * ow + x) * s.output_channels + co;
          if (!residual.empty()) sum += residual[at];
          out[at] = std::fmin(std::fmax(static_cast<float>(sum), lo), hi);
        }
      }
    }
  }
  return out;
}

// The packed weights of `oihw` for `target`, as a constant uint8 argument.
// With `full_width_groups`, each group's filter in panels of the target's whole nr, 64-byte
// aligned, as programs had them before narrow groups' panels (GroupPacking).
size_t AddPackedWeights(DelegateArgs& args, const Convolution2dShape& shape,
                        const std::vector<float>& oihw, KernelTarget target, size_t groups = 1,
                        bool full_width_groups = false) {
  GemmConfig config;
  if (!GetGemmConfig(target, &config)) std::abort();
  Convolution2dShape group = shape;
  group.input_channels /= groups;
  group.output_channels /= groups;
  const size_t one = ConvolutionPackedWeightsBytes(config, group);
  const size_t stride = (one + 63) / 64 * 64;
  const size_t bytes =
      groups == 1 ? ConvolutionPackedWeightsBytes(config, shape)
      : full_width_groups
          ? groups * stride
          : ::torchir::native::GroupedConvolutionPackedWeightsBytes(config, shape, groups);
  const size_t index = args.AddTyped({static_cast<int64_t>(bytes)}, ScalarType::kUInt8);
  char* out = static_cast<char*>(args.tensor(index).mutable_data());
  Error error = Error::kOk;
  if (groups == 1) {
    error = PackConvolutionWeights(config, shape, oihw.data(), out, bytes);
  } else if (full_width_groups) {
    const size_t filter =
        group.output_channels * group.input_channels * group.kernel_height * group.kernel_width;
    for (size_t g = 0; g < groups && error == Error::kOk; ++g) {
      error =
          PackConvolutionWeights(config, group, oihw.data() + g * filter, out + g * stride, stride);
    }
  } else {
    error = ::torchir::native::PackGroupedConvolutionWeights(config, shape, groups, oihw.data(),
                                                             out, bytes);
  }
  if (error != Error::kOk) {
    std::abort();  // a broken test
  }
  args.tensor(index).set_constant(true);
  return index;
}

// A one-node convolution with its arguments (input, weights, bias, residual, output), values
// random, and the expected output.
struct Convolution {
  DelegateArgs args;
  Blob blob;
  std::vector<float> expected;

  Node& node() { return blob.nodes[0]; }
  std::vector<float> output() { return args.Values(static_cast<size_t>(node().output)); }
};

struct ConvolutionOptions {
  bool bias = true;
  bool residual = false;
  fb::Activation activation = fb::Activation::None;
  float min = 0.0f, max = 0.0f;
  KernelTarget target = ::torchir::native::CurrentKernelTarget();
  size_t groups = 1;
  bool full_width_groups = false;  // AddPackedWeights
};

std::unique_ptr<Convolution> MakeConvolution(const Convolution2dShape& s,
                                             const ConvolutionOptions& options = {}) {
  auto c = std::make_unique<Convolution>();
  const int64_t oh = static_cast<int64_t>(s.output_height());
  const int64_t ow = static_cast<int64_t>(s.output_width());
  const int64_t n = static_cast<int64_t>(s.batch), cout = static_cast<int64_t>(s.output_channels);
  const std::vector<float> input =
      RandomFloats(s.batch * s.input_height * s.input_width * s.input_channels, /*seed=*/1);
  const std::vector<float> oihw = RandomFloats(
      s.output_channels * s.input_channels / options.groups * s.kernel_height * s.kernel_width,
      /*seed=*/2);
  const std::vector<float> bias =
      options.bias ? RandomFloats(s.output_channels, /*seed=*/3) : std::vector<float>();
  const std::vector<float> residual =
      options.residual ? RandomFloats(static_cast<size_t>(n * oh * ow * cout), /*seed=*/4, -4, 4)
                       : std::vector<float>();
  Node node;
  node.shape = s;
  node.input = static_cast<int32_t>(
      c->args.Add({n, static_cast<int64_t>(s.input_height), static_cast<int64_t>(s.input_width),
                   static_cast<int64_t>(s.input_channels)},
                  input));
  node.weights = static_cast<int32_t>(AddPackedWeights(c->args, s, oihw, options.target,
                                                       options.groups, options.full_width_groups));
  if (options.groups > 1) node.groups = options.groups;
  if (options.bias) node.bias = static_cast<int32_t>(c->args.AddConstant({cout}, bias));
  if (options.residual)
    node.residual = static_cast<int32_t>(c->args.Add({n, oh, ow, cout}, residual));
  node.output = static_cast<int32_t>(c->args.Add({n, oh, ow, cout}));
  node.activation = static_cast<uint32_t>(options.activation);
  node.output_min = options.min;
  node.output_max = options.max;
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (options.activation == fb::Activation::Relu) lo = 0.0f;
  if (options.activation == fb::Activation::Clamp) {
    lo = options.min;
    hi = options.max;
  }
  c->expected = NaiveConvolution(s, input, oihw, bias, residual, lo, hi, options.groups);
  c->blob.nodes.push_back(node);
  return c;
}

// A small 3x3 convolution every refusal test starts from: it runs as built.
std::unique_ptr<Convolution> SmallConvolution() {
  return MakeConvolution(Shape(1, 5, 5, 3, 4, 3, 1, 1), {});
}

class NativeBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SetLogHook([](LogLevel, const char* message) {
      g_last_log = message;
      if (std::getenv("TORCHIR_TEST_LOG") != nullptr) std::fprintf(stderr, "%s\n", message);
    });
    ASSERT_EQ(RegisterNativeBackend({1}), Error::kOk);
  }
  void TearDown() override {
    ASSERT_EQ(RegisterNativeBackend({1}), Error::kOk);
    hwy::SetSupportedTargetsForTest(0);
  }

  // The small convolution, changed by `edit`, must be refused at Init with `error` and a
  // message holding `culprit`.
  static void ExpectRefused(const std::function<void(Convolution&)>& edit,
                            const std::string& culprit, Error error = Error::kInvalidProgram) {
    std::unique_ptr<Convolution> c = SmallConvolution();
    edit(*c);
    EXPECT_EQ(RunBlob(c->blob, c->args), error);
    EXPECT_NE(g_last_log.find(culprit), std::string::npos)
        << "message: '" << g_last_log << "' does not name '" << culprit << "'";
    EXPECT_EQ(g_last_log.find('\n'), std::string::npos) << g_last_log;
  }
};

TEST_F(NativeBackendTest, TheStartingPointOfEveryRefusalRuns) {
  std::unique_ptr<Convolution> c = SmallConvolution();
  ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);
}

TEST_F(NativeBackendTest, RefusesBuffersThatAreNotVerifiedBlobsOfVersionOne) {
  std::unique_ptr<Convolution> c = SmallConvolution();
  const std::vector<uint8_t> good = Serialize(c->blob, c->args.size());
  std::vector<uint8_t> bytes = good;
  bytes[4] ^= 0xFF;  // the identifier 'TNV1'
  EXPECT_EQ(RunBytes(bytes, c->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("identifier"), std::string::npos) << g_last_log;
  for (size_t size : {size_t{0}, size_t{4}, size_t{7}, good.size() / 2, good.size() - 1}) {
    bytes.assign(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_EQ(RunBytes(bytes, c->args), Error::kInvalidProgram) << size << " bytes";
  }
  EXPECT_EQ(RunBytes(good, c->args, 1, /*offset=*/4), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("aligned"), std::string::npos) << g_last_log;
  EXPECT_EQ(RunBytes(good, c->args), Error::kOk);

  Blob blob = c->blob;
  blob.version = 2;
  EXPECT_EQ(RunBlob(blob, c->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("version 2"), std::string::npos) << g_last_log;
  blob = c->blob;
  blob.num_arguments = static_cast<int64_t>(c->args.size()) + 1;
  EXPECT_EQ(RunBlob(blob, c->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("arguments"), std::string::npos) << g_last_log;
  blob = c->blob;
  blob.nodes.clear();
  EXPECT_EQ(RunBlob(blob, c->args), Error::kInvalidProgram);
  blob.write_nodes = false;
  EXPECT_EQ(RunBlob(blob, c->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("no nodes"), std::string::npos) << g_last_log;
}

TEST_F(NativeBackendTest, RefusesArgumentIndicesOutOfRange) {
  for (int32_t bad :
       {-1, -2, 5, 6, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}) {
    ExpectRefused([bad](Convolution& c) { c.node().input = bad; }, "input argument");
    ExpectRefused([bad](Convolution& c) { c.node().output = bad; }, "output argument");
    ExpectRefused([bad](Convolution& c) { c.node().weights = bad; }, "weights argument");
    if (bad != -1) {  // -1: no bias, no residual
      ExpectRefused([bad](Convolution& c) { c.node().bias = bad; }, "bias argument");
      ExpectRefused([bad](Convolution& c) { c.node().residual = bad; }, "residual argument");
    }
  }
}

TEST_F(NativeBackendTest, RefusesArgumentsOfTheWrongKindTypeOrLayout) {
  // Not a tensor.
  ExpectRefused(
      [](Convolution& c) {
        c.node().input = static_cast<int32_t>(c.args.AddInt(3));
        c.blob.num_arguments = -1;
      },
      "input argument 4 is not a tensor");
  // uint8 where float32 belongs, and float32 weights.
  ExpectRefused(
      [](Convolution& c) {
        c.node().input = static_cast<int32_t>(c.args.AddTyped({1, 5, 5, 3}, ScalarType::kUInt8));
      },
      "input argument 4 is uint8");
  ExpectRefused(
      [](Convolution& c) {
        c.node().weights = static_cast<int32_t>(c.args.AddConstant({1024}, {}));
      },
      "weights argument 4 is float32");
  // Same sizes, channels-first dim order.
  ExpectRefused(
      [](Convolution& c) {
        c.node().input =
            static_cast<int32_t>(c.args.AddTyped({1, 5, 5, 3}, ScalarType::kFloat32, {0, 3, 1, 2}));
      },
      "not contiguous");
  // One element short; the right count with channels in the wrong place; a 0-d tensor.
  ExpectRefused(
      [](Convolution& c) {
        c.node().input = static_cast<int32_t>(c.args.Add({1, 5, 5, 2}));
      },
      "input argument 4");
  ExpectRefused(
      [](Convolution& c) {
        c.node().input = static_cast<int32_t>(c.args.Add({1, 3, 5, 5}));
      },
      "channels last");
  ExpectRefused(
      [](Convolution& c) {
        c.node().output = static_cast<int32_t>(c.args.Add({1, 5, 4, 5}));
      },
      "output argument 4");
  ExpectRefused([](Convolution& c) { c.node().bias = static_cast<int32_t>(c.args.Add({})); },
                "bias argument 4");
  // Writing into a constant (read-only mapped memory).
  ExpectRefused(
      [](Convolution& c) {
        c.args.tensor(static_cast<size_t>(c.node().output)).set_constant(true);
      },
      "is a constant");
}

TEST_F(NativeBackendTest, RefusesBiasAndResidualOfTheWrongSize) {
  ExpectRefused([](Convolution& c) { c.node().bias = static_cast<int32_t>(c.args.Add({5})); },
                "bias argument 4");
  ExpectRefused(
      [](Convolution& c) {
        c.node().residual = static_cast<int32_t>(c.args.Add({1, 5, 5, 3}));
      },
      "residual argument 4");
  ExpectRefused(
      [](Convolution& c) {
        c.node().residual = static_cast<int32_t>(c.args.Add({1, 5, 4, 4}));
      },
      "residual argument 4");
}

TEST_F(NativeBackendTest, RefusesOutputsThatOverlapWhatTheNodeReads) {
  // The kernels require an output apart from the input and bias (the residual may be the
  // output itself: an in-place add).
  ExpectRefused(
      [](Convolution& c) {
        c.blob.nodes[0].shape = Shape(1, 5, 5, 4, 4, 1, 1, 0);
        c.node().input = c.node().output;
      },
      "overlaps");
  ExpectRefused(
      [](Convolution& c) {
        c.blob.nodes[0].shape = Shape(1, 1, 1, 3, 4, 1, 1, 0);
        c.node().input = static_cast<int32_t>(c.args.Add({1, 1, 1, 3}));
        c.node().weights = static_cast<int32_t>(AddPackedWeights(
            c.args, c.node().shape, RandomFloats(12, 5), ::torchir::native::CurrentKernelTarget()));
        c.node().output = static_cast<int32_t>(c.args.Add({1, 1, 1, 4}));
        c.node().bias = c.node().output;
      },
      "overlaps");
}

TEST_F(NativeBackendTest, RefusesGeometryWithZeroSizesOverflowOrNoOutput) {
  using Field = size_t Convolution2dShape::*;
  const Field positive[] = {
      &Convolution2dShape::batch,           &Convolution2dShape::input_height,
      &Convolution2dShape::input_width,     &Convolution2dShape::input_channels,
      &Convolution2dShape::output_channels, &Convolution2dShape::kernel_height,
      &Convolution2dShape::kernel_width,    &Convolution2dShape::stride_height,
      &Convolution2dShape::stride_width,    &Convolution2dShape::dilation_height,
      &Convolution2dShape::dilation_width};
  for (Field field : positive) {
    ExpectRefused([field](Convolution& c) { c.node().shape.*field = 0; }, "geometry");
  }
  const size_t huge = size_t{1} << 40, max = std::numeric_limits<size_t>::max();
  ExpectRefused(
      [huge](Convolution& c) {
        c.node().shape.batch = huge;
        c.node().shape.input_height = huge;
      },
      "node 0");
  ExpectRefused(
      [huge](Convolution& c) {
        c.node().shape.input_channels = huge;
        c.node().shape.output_channels = huge;
      },
      "node 0");
  for (Field field : {&Convolution2dShape::padding_top, &Convolution2dShape::padding_left,
                      &Convolution2dShape::padding_bottom, &Convolution2dShape::padding_right,
                      &Convolution2dShape::dilation_height, &Convolution2dShape::stride_width,
                      &Convolution2dShape::kernel_height}) {
    ExpectRefused([field, max](Convolution& c) { c.node().shape.*field = max; }, "node 0");
    ExpectRefused([field, huge](Convolution& c) { c.node().shape.*field = huge; }, "node 0");
  }
  // A 7x7 kernel on a 5x5 input with padding 0 has no output; 3x3 on 1x1 padded by 1 has one.
  ExpectRefused(
      [](Convolution& c) {
        c.node().shape.kernel_height = c.node().shape.kernel_width = 7;
        c.node().shape.padding_top = c.node().shape.padding_bottom = 0;
      },
      "geometry");
}

// The packed weights' header, edited in place.
void EditHeader(Convolution& c, const std::function<void(PackedBHeader&)>& edit) {
  Tensor& weights = c.args.tensor(static_cast<size_t>(c.node().weights));
  PackedBHeader header;
  std::memcpy(&header, weights.mutable_data(), sizeof(header));
  edit(header);
  std::memcpy(weights.mutable_data(), &header, sizeof(header));
}

TEST_F(NativeBackendTest, RefusesCorruptPackedWeights) {
  const std::function<void(PackedBHeader&)> edits[] = {
      [](PackedBHeader& h) { h.magic ^= 1; },
      [](PackedBHeader& h) { h.version = 2; },
      [](PackedBHeader& h) { h.target = 0; },
      [](PackedBHeader& h) { h.target = 99; },
      [](PackedBHeader& h) { h.nr += 1; },
      [](PackedBHeader& h) { h.kc = 0; },
      [](PackedBHeader& h) { h.k = 0; },
      [](PackedBHeader& h) { h.k += 1; },  // more data than the tensor holds
      [](PackedBHeader& h) { h.n = 0; },
      [](PackedBHeader& h) { h.n = uint64_t{1} << 62; },
      [](PackedBHeader& h) { h.k = h.n = uint64_t{1} << 40; },
      [](PackedBHeader& h) { h.data_floats -= 1; },
      [](PackedBHeader& h) { h.data_floats += 1; },
  };
  for (const auto& edit : edits) {
    ExpectRefused([&edit](Convolution& c) { EditHeader(c, edit); }, "packed weights");
  }
  // Valid weights of another matrix than the node's: K (input channels) and N.
  ExpectRefused(
      [](Convolution& c) {
        Convolution2dShape other = c.node().shape;
        other.input_channels = 2;
        c.node().weights = static_cast<int32_t>(AddPackedWeights(
            c.args, other, RandomFloats(4 * 2 * 9, 6), ::torchir::native::CurrentKernelTarget()));
      },
      "weights are 18 x 4, the node needs 27 x 4");
  ExpectRefused(
      [](Convolution& c) {
        Convolution2dShape other = c.node().shape;
        other.output_channels = 5;
        c.node().weights = static_cast<int32_t>(AddPackedWeights(
            c.args, other, RandomFloats(5 * 3 * 9, 6), ::torchir::native::CurrentKernelTarget()));
      },
      "weights are 27 x 5");
  // Truncated: the header alone, part of it, the data one float short.
  for (int64_t cut : {int64_t{0}, int64_t{1}, int64_t{63}, int64_t{64}, int64_t{-4}}) {
    ExpectRefused(
        [cut](Convolution& c) {
          const Tensor& full = c.args.tensor(static_cast<size_t>(c.node().weights));
          const int64_t bytes = cut >= 0 ? cut : full.numel() + cut;
          const size_t index = c.args.AddTyped({bytes}, ScalarType::kUInt8);
          std::memcpy(c.args.tensor(index).mutable_data(), full.mutable_data(),
                      static_cast<size_t>(bytes));
          c.args.tensor(index).set_constant(true);
          c.node().weights = static_cast<int32_t>(index);
        },
        "packed weights");
  }
}

TEST_F(NativeBackendTest, RefusesPackedWeightsOutsideTheConstants) {
  // Valid packed weights in an arena: checked at init, rewritten by anything before a run.
  ExpectRefused(
      [](Convolution& c) {
        c.args.tensor(static_cast<size_t>(c.node().weights)).set_constant(false);
      },
      "weights argument 1 is not a constant");
}

TEST_F(NativeBackendTest, RefusesMisalignedPackedWeights) {
  // A uint8 constant may start at any byte of a segment; the kernels read floats from it.
  ExpectRefused(
      [](Convolution& c) {
        const Tensor& full = c.args.tensor(static_cast<size_t>(c.node().weights));
        const size_t index = c.args.AddTyped({full.numel() + 1}, ScalarType::kUInt8);
        Tensor& shifted = c.args.tensor(index);
        uint8_t* odd = static_cast<uint8_t*>(shifted.mutable_data()) + 1;
        std::memcpy(odd, full.mutable_data(), full.nbytes());
        shifted = Tensor(ScalarType::kUInt8, full.sizes(), {}, odd);  // the full one's sizes
        shifted.set_constant(true);
        c.node().weights = static_cast<int32_t>(index);
      },
      "aligned");
}

TEST_F(NativeBackendTest, RefusesUnknownActivationsAndEmptyClampRanges) {
  // One past the last value (Hardsigmoid = 8).
  ExpectRefused([](Convolution& c) { c.node().activation = 9; }, "unknown activation 9");
  ExpectRefused([](Convolution& c) { c.node().activation = 0xFFFFFFFF; }, "unknown activation");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float pairs[][2] = {{6.0f, 0.0f}, {nan, 1.0f}, {0.0f, nan}, {1.0f, -1.0f}};
  for (const auto& pair : pairs) {
    ExpectRefused(
        [&pair](Convolution& c) {
          c.node().activation = static_cast<uint32_t>(fb::Activation::Clamp);
          c.node().output_min = pair[0];
          c.node().output_max = pair[1];
        },
        "clamp range");
  }
}

TEST_F(NativeBackendTest, RefusesGroupsThatDoNotFitTheNodeOrItsWeights) {
  // The small convolution has 3 input and 4 output channels.
  ExpectRefused([](Convolution& c) { c.node().groups = 2; }, "2 groups do not divide");
  ExpectRefused([](Convolution& c) { c.node().groups = 4; }, "4 groups do not divide");
  ExpectRefused([](Convolution& c) { c.node().groups = uint64_t{1} << 62; }, "groups do not");
  // Weights packed as one group where the node says 3 (input 15, output 21 channels).
  ConvolutionOptions options;
  options.groups = 3;
  std::unique_ptr<Convolution> grouped = MakeConvolution(Shape(1, 5, 5, 15, 21, 3, 1, 1), options);
  ASSERT_EQ(RunBlob(grouped->blob, grouped->args), Error::kOk);
  grouped->node().groups = 1;
  EXPECT_EQ(RunBlob(grouped->blob, grouped->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("weights are"), std::string::npos) << g_last_log;
  options.groups = 1;
  std::unique_ptr<Convolution> ungrouped =
      MakeConvolution(Shape(1, 5, 5, 15, 21, 3, 1, 1), options);
  ungrouped->node().groups = 3;
  EXPECT_EQ(RunBlob(ungrouped->blob, ungrouped->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("packed weights of 3 groups"), std::string::npos) << g_last_log;
}

TEST_F(NativeBackendTest, RefusalsNameTheNode) {
  std::unique_ptr<Convolution> c = SmallConvolution();
  Node second = c->node();
  second.input = second.output;  // [1,5,5,4] into a node that wants 3 channels
  c->blob.nodes.push_back(second);
  EXPECT_EQ(RunBlob(c->blob, c->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("node 1"), std::string::npos) << g_last_log;
}

// --- Valid blobs -----------------------------------------------------------------------------

TEST_F(NativeBackendTest, StrideTwoPaddedConvolutionWithResidualAndRelu6MatchesTheDefinition) {
  ConvolutionOptions options;
  options.residual = true;
  options.activation = fb::Activation::Clamp;
  options.min = 0.0f;
  options.max = 6.0f;
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(2, 9, 11, 5, 19, 3, 2, 1), options);
  ASSERT_EQ(RunBlob(c->blob, c->args, /*runs=*/2), Error::kOk);
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);
}

// The convolution's input replaced by the same values NCHW ([N, C, H, W]), which its node now
// says it reads (input_channels_first); the expected output stays.
void ReadInputChannelsFirst(Convolution& c) {
  Node& node = c.node();
  const Convolution2dShape& s = node.shape;
  const size_t channels = s.input_channels;
  const std::vector<float> planes =
      ::torchir::native::ChannelsFirst(c.args.Values(static_cast<size_t>(node.input)), s.batch,
                                       s.input_height * s.input_width, channels);
  node.input = static_cast<int32_t>(
      c.args.Add({static_cast<int64_t>(s.batch), static_cast<int64_t>(channels),
                  static_cast<int64_t>(s.input_height), static_cast<int64_t>(s.input_width)},
                 planes));
  node.shape.input_channels_first = true;
}

// A stem reads the network's image NCHW, as the blob says, and matches the definition on the
// same values NHWC, on one and two threads. Refused: an input tensor that is not [N, C, H, W]
// (the NHWC one), and an NCHW input on a depthwise node.
TEST_F(NativeBackendTest, AStemReadsItsImageChannelsFirst) {
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    ConvolutionOptions options;
    options.activation = fb::Activation::Relu;
    std::unique_ptr<Convolution> c = MakeConvolution(Shape(2, 19, 17, 3, 40, 7, 2, 3), options);
    ReadInputChannelsFirst(*c);
    ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
    EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f) << threads << " threads";
  }
  ASSERT_EQ(RegisterNativeBackend({1}), Error::kOk);
  ExpectRefused([](Convolution& c) { c.node().shape.input_channels_first = true; },
                "is not [1, 3, 5, 5] (NCHW)");
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 5, 5, 4, 4, 3, 1, 1));
  ReadInputChannelsFirst(*c);
  c->node().depthwise = true;
  EXPECT_EQ(RunBlob(c->blob, c->args), Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find("an NCHW input on a depthwise"), std::string::npos) << g_last_log;
}

// Packed weights 16 bytes past a cache line (a program loaded from a buffer that is 16-byte but
// not 64-byte aligned) are read in place all the same: the kernels' loads are unaligned ones
// (the backend notes the slower reads once per process).
TEST_F(NativeBackendTest, WeightsOffACacheLineBoundaryRunAndMatch) {
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 9, 9, 40, 70, 3, 1, 1), {});
  const Tensor& full = c->args.tensor(static_cast<size_t>(c->node().weights));
  const size_t index = c->args.AddTyped({full.numel() + 128}, ScalarType::kUInt8);
  Tensor& shifted = c->args.tensor(index);
  const uintptr_t start = reinterpret_cast<uintptr_t>(shifted.mutable_data());
  uint8_t* off = static_cast<uint8_t*>(shifted.mutable_data()) + (64 - start % 64) % 64 + 16;
  std::memcpy(off, full.mutable_data(), full.nbytes());
  shifted = Tensor(ScalarType::kUInt8, full.sizes(), {}, off);
  shifted.set_constant(true);
  c->node().weights = static_cast<int32_t>(index);
  ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk) << g_last_log;
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);
}

// The GEMM's scratch comes from the Method (Backend::BindScratch): a delegate run without it
// refuses instead of writing through a null pointer.
TEST_F(NativeBackendTest, ExecuteBeforeTheScratchIsBoundIsRefused) {
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 5, 5, 3, 4, 3, 1, 1), {});
  const std::vector<uint8_t> bytes = Serialize(c->blob, c->args.size());
  AlignedBytes storage(bytes);
  MallocAllocator allocator;
  Result<void*> handle = NativeDelegate()->Init(Span<const uint8_t>(storage.data(), bytes.size()),
                                                {}, c->args.args(), allocator);
  ASSERT_TRUE(handle.ok());
  EXPECT_GT(NativeDelegate()->ScratchBytes(handle.get()), 0u);
  EXPECT_EQ(NativeDelegate()->Execute(handle.get(), c->args.args()), Error::kNotInitialized);
  NativeDelegate()->Destroy(handle.get());
}

// The activations applied after the store, fused after the GEMM (a transformer's fc1, a
// MobileNetV3 or EfficientNet pointwise layer) and after a 3x3 convolution with a residual,
// against their definitions.
TEST_F(NativeBackendTest, FusedActivationsMatchTheDefinition) {
  for (fb::Activation form :
       {fb::Activation::Gelu, fb::Activation::GeluTanh, fb::Activation::Hardswish,
        fb::Activation::Silu, fb::Activation::Sigmoid, fb::Activation::Hardsigmoid}) {
    for (bool residual : {false, true}) {
      ConvolutionOptions options;
      options.residual = residual;
      std::unique_ptr<Convolution> c = MakeConvolution(
          residual ? Shape(1, 6, 7, 5, 19, 3, 1, 1) : Shape(3, 1, 1, 67, 45, 1, 1, 0), options);
      c->node().activation = static_cast<uint32_t>(form);
      for (float& value : c->expected) {
        const double x = value;
        double y = x;
        switch (form) {
          case fb::Activation::Gelu:
            y = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
            break;
          case fb::Activation::GeluTanh:
            y = 0.5 * x * (1.0 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
            break;
          case fb::Activation::Hardswish:
            y = x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
            break;
          case fb::Activation::Silu:
            y = x / (1.0 + std::exp(-x));
            break;
          case fb::Activation::Sigmoid:
            y = 1.0 / (1.0 + std::exp(-x));
            break;
          default:
            y = std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
            break;
        }
        value = static_cast<float>(y);
      }
      ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
      EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f)
          << fb::EnumNameActivation(form) << (residual ? " with a residual" : "");
    }
  }
}

// A grouped convolution (ResNeXt's, RegNet's): one GEMM per group, with a residual and relu6,
// with weights packed for every target (repacked group by group when not this CPU's layout),
// on one and two threads.
TEST_F(NativeBackendTest, GroupedConvolutionMatchesTheDefinition) {
  ConvolutionOptions options;
  options.groups = 3;
  options.residual = true;
  options.activation = fb::Activation::Clamp;
  options.min = 0.0f;
  options.max = 6.0f;
  for (KernelTarget target :
       {KernelTarget::kPortable, KernelTarget::kX86Sse4, KernelTarget::kX86Avx2,
        KernelTarget::kX86Avx512, KernelTarget::kArmNeon}) {
    options.target = target;
    // Groups of 7 channels: on AVX2 and AVX-512 in panels of half their nr; also in whole ones.
    for (bool full_width : {false, true}) {
      options.full_width_groups = full_width;
      std::unique_ptr<Convolution> c = MakeConvolution(Shape(2, 9, 8, 15, 21, 3, 2, 1), options);
      ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk) << KernelTargetName(target);
      EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f)
          << KernelTargetName(target) << (full_width ? " in whole panels" : "");
    }
  }
  options.full_width_groups = false;
  ASSERT_EQ(RegisterNativeBackend({2}), Error::kOk);
  options.target = ::torchir::native::CurrentKernelTarget();
  options.groups = 4;  // 24 -> 32 channels, 8 output channels per group
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 30, 30, 24, 32, 3, 1, 1), options);
  ASSERT_EQ(RunBlob(c->blob, c->args, /*runs=*/2), Error::kOk);
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);
}

TEST_F(NativeBackendTest, LinearLayerMatchesTheDefinition) {
  // y [5, 19] = relu(x [5, 37] W^T + b): the 1x1 convolution over 5 "images" of one pixel.
  ConvolutionOptions options;
  options.activation = fb::Activation::Relu;
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(5, 1, 1, 37, 19, 1, 1, 0), options);
  // The same numbers with the arguments as a linear layer has them: [rows, features].
  std::unique_ptr<Convolution> linear = std::make_unique<Convolution>();
  const std::vector<float> x = c->args.Values(static_cast<size_t>(c->node().input));
  Node node = c->node();
  node.input = static_cast<int32_t>(linear->args.Add({5, 37}, x));
  const Tensor& packed = c->args.tensor(static_cast<size_t>(c->node().weights));
  node.weights = static_cast<int32_t>(linear->args.AddTyped({packed.numel()}, ScalarType::kUInt8));
  std::memcpy(linear->args.tensor(static_cast<size_t>(node.weights)).mutable_data(),
              packed.mutable_data(), packed.nbytes());
  linear->args.tensor(static_cast<size_t>(node.weights)).set_constant(true);
  node.bias = static_cast<int32_t>(
      linear->args.AddConstant({19}, c->args.Values(static_cast<size_t>(c->node().bias))));
  node.output = static_cast<int32_t>(linear->args.Add({5, 19}));
  linear->blob.nodes.push_back(node);
  ASSERT_EQ(RunBlob(linear->blob, linear->args), Error::kOk);
  EXPECT_LT(MaxAbsDiff(linear->args.Values(static_cast<size_t>(node.output)), c->expected), 1e-4f);
}

TEST_F(NativeBackendTest, WeightsPackedForAnyTargetAreRepackedForThisCpu) {
  ConvolutionOptions options;
  options.residual = true;
  options.activation = fb::Activation::Relu;
  for (KernelTarget target :
       {KernelTarget::kPortable, KernelTarget::kX86Sse4, KernelTarget::kX86Avx2,
        KernelTarget::kX86Avx512, KernelTarget::kArmNeon}) {
    options.target = target;
    // K = 3*3*40 = 360 spans two K blocks of 256; M = 2*8*8 = 128 rows, more than any mc.
    std::unique_ptr<Convolution> c = MakeConvolution(Shape(2, 15, 15, 40, 21, 3, 2, 1), options);
    ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk) << KernelTargetName(target);
    EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-3f) << KernelTargetName(target);
  }
}

TEST_F(NativeBackendTest, WeightsWithThisCpusPanelsButAnotherBlockingRun) {
  // Portable and SSE4 weights share nr and kc (8, 256) but not mr and mc: on an SSE4 CPU the
  // portable weights run without a repack, on SSE4's blocking (its scratch, not portable's).
  int64_t sse4 = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (target == HWY_SSE4) sse4 = target;
  }
  if (sse4 == 0) GTEST_SKIP() << "this CPU or build has no SSE4 target";
  hwy::SetSupportedTargetsForTest(sse4);
  ASSERT_EQ(::torchir::native::CurrentKernelTarget(), KernelTarget::kX86Sse4);
  ConvolutionOptions options;
  options.target = KernelTarget::kPortable;
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 12, 12, 8, 16, 3, 1, 1), options);
  ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);
}

TEST_F(NativeBackendTest, TwoThreadsMatchTheDefinition) {
  ASSERT_EQ(RegisterNativeBackend({2}), Error::kOk);
  ConvolutionOptions options;
  options.residual = true;
  options.activation = fb::Activation::Clamp;
  options.min = -1.0f;
  options.max = 1.0f;
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 20, 20, 16, 24, 3, 1, 1), options);
  ASSERT_EQ(RunBlob(c->blob, c->args, /*runs=*/3), Error::kOk);
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);
  options.target = KernelTarget::kPortable;  // repacked, on two threads
  c = MakeConvolution(Shape(1, 20, 20, 16, 24, 3, 1, 1), options);
  ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);
}

TEST_F(NativeBackendTest, ResidualMayBeTheOutputItself) {
  // An in-place add: the output tensor holds the residual before the node runs.
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 6, 6, 3, 8, 3, 1, 1), {});
  const std::vector<float> residual = RandomFloats(6 * 6 * 8, 7);
  c->args.Set(static_cast<size_t>(c->node().output), residual);
  c->node().residual = c->node().output;
  ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
  std::vector<float> expected = c->expected;
  for (size_t i = 0; i < expected.size(); ++i) expected[i] += residual[i];
  EXPECT_LT(MaxAbsDiff(c->output(), expected), 1e-4f);
}

TEST_F(NativeBackendTest, TwoNodesChainInOneBlob) {
  std::unique_ptr<Convolution> c = MakeConvolution(Shape(1, 7, 7, 3, 6, 3, 1, 1), {});
  ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
  const std::vector<float> hidden = c->output();
  // Node 1: 1x1, 6 -> 2 channels, on node 0's output.
  const Convolution2dShape s = Shape(1, 7, 7, 6, 2, 1, 1, 0);
  const std::vector<float> oihw = RandomFloats(12, 8);
  Node second;
  second.shape = s;
  second.input = c->node().output;
  second.weights = static_cast<int32_t>(
      AddPackedWeights(c->args, s, oihw, ::torchir::native::CurrentKernelTarget()));
  second.output = static_cast<int32_t>(c->args.Add({1, 7, 7, 2}));
  c->blob.nodes.push_back(second);
  c->args.Set(static_cast<size_t>(c->node().output), std::vector<float>(hidden.size(), 0.0f));
  ASSERT_EQ(RunBlob(c->blob, c->args), Error::kOk);
  EXPECT_LT(MaxAbsDiff(c->args.Values(static_cast<size_t>(second.output)),
                       NaiveConvolution(s, hidden, oihw, {}, {}, -INFINITY, INFINITY)),
            1e-4f);
}

// A 1x1 expansion (relu6) fused with the 3x3 depthwise layer over it (clamp to [-1, 1]), or with
// a grouped one of `groups` groups of 16 channels: `stride` 1 or 2, rows of 64 KiB expanded (64
// pixels x 256 channels), so the kernel's bands are 2-3 output rows and the 9-row image takes
// several.
struct Fused {
  std::unique_ptr<Convolution> c;  // node 0 the expansion, node 1 the depthwise layer
  std::vector<float> expected;
};

Fused MakeFusedExpansion(size_t stride, size_t groups = 0) {
  Fused f;
  const Convolution2dShape e = Shape(1, 9, 64, 8, 256, 1, 1, 0);
  ConvolutionOptions relu6;
  relu6.activation = fb::Activation::Clamp;
  relu6.min = 0.0f;
  relu6.max = 6.0f;
  f.c = MakeConvolution(e, relu6);
  const std::vector<float> expanded = f.c->expected;
  Node& expand = f.c->node();
  expand.feeds_next = true;
  expand.output = -1;  // the expanded tensor is no argument
  const Convolution2dShape d = Shape(1, 9, 64, 256, 256, 3, stride, 1);
  const size_t per_filter = groups == 0 ? 1 : 256 / groups;  // input channels per output one
  const std::vector<float> filter = RandomFloats(256 * per_filter * 9, /*seed=*/11);
  const std::vector<float> bias = RandomFloats(256, /*seed=*/12);
  size_t weights;
  if (groups != 0) {
    weights =
        AddPackedWeights(f.c->args, d, filter, ::torchir::native::CurrentKernelTarget(), groups);
  } else {
    const size_t bytes = ::torchir::native::DepthwisePackedWeightsBytes(d);
    weights = f.c->args.AddTyped({static_cast<int64_t>(bytes)}, ScalarType::kUInt8);
    if (::torchir::native::PackDepthwiseWeights(
            d, filter.data(), f.c->args.tensor(weights).mutable_data(), bytes) != Error::kOk) {
      std::abort();  // a broken test
    }
    f.c->args.tensor(weights).set_constant(true);
  }
  Node depthwise;
  depthwise.shape = d;
  depthwise.depthwise = groups == 0;
  depthwise.groups = groups;
  depthwise.weights = static_cast<int32_t>(weights);
  depthwise.bias = static_cast<int32_t>(f.c->args.AddConstant({256}, bias));
  const int64_t oh = static_cast<int64_t>(d.output_height());
  const int64_t ow = static_cast<int64_t>(d.output_width());
  depthwise.output = static_cast<int32_t>(f.c->args.Add({1, oh, ow, 256}));
  depthwise.activation = static_cast<uint32_t>(fb::Activation::Clamp);
  depthwise.output_min = -1.0f;
  depthwise.output_max = 1.0f;
  f.c->blob.nodes.push_back(depthwise);
  f.expected =
      NaiveConvolution(d, expanded, filter, bias, {}, -1.0f, 1.0f, groups == 0 ? 256 : groups);
  return f;
}

// The pair runs as one kernel, on one and two threads, and matches the two layers' definition;
// so does a 1x1 with a grouped layer of 16 groups over it.
TEST_F(NativeBackendTest, AnExpansionFeedsItsDepthwiseLayerInBands) {
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    for (size_t stride : {1, 2}) {
      for (size_t groups : {0, 16}) {
        SCOPED_TRACE("threads " + std::to_string(threads) + ", stride " + std::to_string(stride) +
                     ", groups " + std::to_string(groups));
        Fused f = MakeFusedExpansion(stride, groups);
        ASSERT_EQ(RunBlob(f.c->blob, f.c->args, /*runs=*/2), Error::kOk);
        EXPECT_LT(MaxAbsDiff(f.c->args.Values(static_cast<size_t>(f.c->blob.nodes[1].output)),
                             f.expected),
                  1e-4f);
      }
    }
  }
}

TEST_F(NativeBackendTest, RefusesMalformedFusedExpansions) {
  auto expect_refused = [](const std::function<void(Fused&)>& edit, const std::string& culprit) {
    Fused f = MakeFusedExpansion(2);
    edit(f);
    EXPECT_EQ(RunBlob(f.c->blob, f.c->args), Error::kInvalidProgram);
    EXPECT_NE(g_last_log.find(culprit), std::string::npos)
        << "message: '" << g_last_log << "' does not name '" << culprit << "'";
  };
  // The starting point runs.
  Fused f = MakeFusedExpansion(2);
  ASSERT_EQ(RunBlob(f.c->blob, f.c->args), Error::kOk);
  expect_refused([](Fused& g) { g.c->blob.nodes.pop_back(); }, "feeds a next node");
  expect_refused([](Fused& g) { g.c->blob.nodes[0].output = g.c->blob.nodes[1].output; },
                 "without an output or residual");
  expect_refused([](Fused& g) { g.c->blob.nodes[1].input = g.c->blob.nodes[0].input; },
                 "fed by node 0");
  expect_refused([](Fused& g) { g.c->blob.nodes[1].depthwise = false; }, "fed by node 0");
  // A grouped layer whose groups do not divide the expanded channels (256 / 3).
  expect_refused(
      [](Fused& g) {
        g.c->blob.nodes[1].depthwise = false;
        g.c->blob.nodes[1].groups = 3;
      },
      "groups");
  // The depthwise layer over another height than the expansion's output (its own output the
  // same: 10 rows without bottom padding give 5 at stride 2, as 9 with it do).
  expect_refused(
      [](Fused& g) {
        g.c->blob.nodes[1].shape.input_height = 10;
        g.c->blob.nodes[1].shape.padding_bottom = 0;
      },
      "not a depthwise");
}

// A blob of one layer norm over `rows` x `cols` with the given argument indices.
std::vector<uint8_t> LayerNormBlob(uint64_t rows, uint64_t cols, int32_t input, int32_t weight,
                                   int32_t bias, int32_t output, float epsilon, size_t num_args) {
  flatbuffers::FlatBufferBuilder builder;
  const auto node = fb::CreateLayerNorm(builder, rows, cols, input, weight, bias, output, epsilon);
  fb::FinishBlobBuffer(builder, fb::CreateBlob(builder, 1, static_cast<uint32_t>(num_args), 0, 0, 0,
                                               0, builder.CreateVector(&node, 1)));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

// Layer norm by its definition, in double.
std::vector<float> NaiveLayerNorm(const std::vector<float>& x, size_t cols,
                                  const std::vector<float>& weight, const std::vector<float>& bias,
                                  double epsilon) {
  std::vector<float> y(x.size());
  for (size_t r = 0; r < x.size() / cols; ++r) {
    double mean = 0.0, squares = 0.0;
    for (size_t c = 0; c < cols; ++c) mean += x[r * cols + c];
    mean /= static_cast<double>(cols);
    for (size_t c = 0; c < cols; ++c)
      squares += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
    const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(cols) + epsilon);
    for (size_t c = 0; c < cols; ++c) {
      double v = (x[r * cols + c] - mean) * rstd;
      if (!weight.empty()) v *= weight[c];
      if (!bias.empty()) v += bias[c];
      y[r * cols + c] = static_cast<float>(v);
    }
  }
  return y;
}

// A layer norm node runs on one and two threads (rows shared: 2048 x 256 floats is at the
// parallel threshold, 4 operations per element against kMinParallelMacs), with constant or run-time
// weight and bias, or none, and in place; its error against the definition in double stays at float
// rounding (values of order 1).
TEST_F(NativeBackendTest, LayerNormMatchesTheDefinition) {
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " variant " + std::to_string(variant));
      const size_t rows = 2048, cols = 256;
      const std::vector<float> x = RandomFloats(rows * cols, 11, -3, 5);
      const std::vector<float> weight =
          variant == 2 ? std::vector<float>() : RandomFloats(cols, 12);
      const std::vector<float> bias = variant == 2 ? std::vector<float>() : RandomFloats(cols, 13);
      DelegateArgs args;
      const int32_t input = static_cast<int32_t>(args.Add({4, 512, 256}, x));
      int32_t w = -1, b = -1;
      if (variant == 0) {
        w = static_cast<int32_t>(args.AddConstant({256}, weight));
        b = static_cast<int32_t>(args.AddConstant({256}, bias));
      } else if (variant == 1) {
        w = static_cast<int32_t>(args.Add({256}, weight));
        b = static_cast<int32_t>(args.Add({256}, bias));
      }
      const int32_t output = static_cast<int32_t>(args.Add({4, 512, 256}));
      ASSERT_EQ(RunBytes(LayerNormBlob(rows, cols, input, w, b, output, 1e-5f, args.size()), args),
                Error::kOk);
      const std::vector<float> expected = NaiveLayerNorm(x, cols, weight, bias, 1e-5);
      EXPECT_LT(MaxAbsDiff(args.Values(static_cast<size_t>(output)), expected), 2e-6f);
      // In place: the output is the input.
      ASSERT_EQ(RunBytes(LayerNormBlob(rows, cols, input, w, b, input, 1e-5f, args.size()), args),
                Error::kOk);
      EXPECT_LT(MaxAbsDiff(args.Values(static_cast<size_t>(input)), expected), 2e-6f);
    }
  }
}

// The softmax fused after a product (attention's scores), as the blob records it.
struct FusedSoftmax {
  bool softmax = false;
  float scale = 1.0f;
  int32_t mask = -1;
  float fill = 0.0f;
  // Causal attention: with the softmax, the mask j > i + causal_offset instead of `mask`;
  // without it, A zero there (the product skips those terms).
  bool causal = false;
  uint64_t causal_offset = 0;
};

// A product's strides (`strided` in the blob): none when `strided` is false.
struct MatmulStrides {
  bool strided = false;
  uint64_t a_batch = 0, a_row = 0, b_batch = 0, b_row = 0;
  bool b_transposed = false;
  uint64_t output_batch = 0, output_row = 0;
};

std::vector<uint8_t> MatmulBlob(uint64_t batch, uint64_t m, uint64_t k, uint64_t n, int32_t a,
                                int32_t b, int32_t output, bool b_shared, size_t num_args,
                                const FusedSoftmax& softmax = {}, const MatmulStrides& strides = {},
                                const std::vector<std::string>& source_ops = {}) {
  flatbuffers::FlatBufferBuilder builder;
  const auto ops = source_ops.empty() ? 0 : builder.CreateVectorOfStrings(source_ops);
  const auto node = fb::CreateMatrixMultiply(
      builder, batch, m, k, n, a, b, output, b_shared, softmax.softmax, softmax.scale, softmax.mask,
      softmax.fill, strides.strided, strides.a_batch, strides.a_row, strides.b_batch, strides.b_row,
      strides.b_transposed, strides.output_batch, strides.output_row, softmax.causal,
      softmax.causal_offset);
  fb::FinishBlobBuffer(builder, fb::CreateBlob(builder, 1, static_cast<uint32_t>(num_args), 0, ops,
                                               0, builder.CreateVector(&node, 1)));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

// What a traced delegate call reported: DelegateNodeEvent's arguments, in order.
class NodeEvents final : public EventTracer {
 public:
  struct Event {
    size_t instruction, node;
    uint64_t begin_ns, end_ns;
  };
  void BeginInstruction(size_t, const char*, bool) override {}
  void EndInstruction(size_t, Error) override {}
  void DelegateNodeEvent(size_t index, size_t node, uint64_t begin_ns, uint64_t end_ns) override {
    events.push_back({index, node, begin_ns, end_ns});
  }
  // The nodes of the events, in order.
  std::vector<size_t> Nodes() const {
    std::vector<size_t> nodes;
    for (const Event& e : events) nodes.push_back(e.node);
    return nodes;
  }
  std::vector<Event> events;
};

// A blob of one pooling node (fb::Pooling's fields in order) with the given argument indices.
struct PoolingNode {
  fb::PoolingKind kind;
  uint64_t batch, height, width, channels, output_height, output_width, kernel_height, kernel_width,
      stride_height, stride_width, dilation_height, dilation_width, padding_top, padding_left;
  int32_t input, output;
};
std::vector<uint8_t> PoolingBlob(const PoolingNode& p, size_t num_args,
                                 const char* source_op = nullptr) {
  flatbuffers::FlatBufferBuilder builder;
  const auto node = fb::CreatePooling(
      builder, p.kind, p.batch, p.height, p.width, p.channels, p.output_height, p.output_width,
      p.kernel_height, p.kernel_width, p.stride_height, p.stride_width, p.dilation_height,
      p.dilation_width, p.padding_top, p.padding_left, p.input, p.output);
  std::vector<flatbuffers::Offset<flatbuffers::String>> ops;
  if (source_op != nullptr) ops.push_back(builder.CreateString(source_op));
  fb::FinishBlobBuffer(
      builder, fb::CreateBlob(builder, 1, static_cast<uint32_t>(num_args), 0,
                              builder.CreateVector(ops), 0, 0, 0, builder.CreateVector(&node, 1)));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

struct ChannelScaleNode {
  uint64_t batch, pixels, channels;
  bool shared_scale;
  int32_t input, scale, output;
};
std::vector<uint8_t> ChannelScaleBlob(const ChannelScaleNode& c, size_t num_args) {
  flatbuffers::FlatBufferBuilder builder;
  const auto node = fb::CreateChannelScale(builder, c.batch, c.pixels, c.channels, c.shared_scale,
                                           c.input, c.scale, c.output);
  std::vector<flatbuffers::Offset<flatbuffers::String>> ops = {builder.CreateString("edge.mul")};
  fb::FinishBlobBuffer(builder, fb::CreateBlob(builder, 1, static_cast<uint32_t>(num_args), 0,
                                               builder.CreateVector(ops), 0, 0, 0, 0,
                                               builder.CreateVector(&node, 1)));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

// A traced call reports each kernel node under its position in the call's debug handle, which
// the compiler writes in the order of the blob's source_ops: a product once per batch with its
// softmax after it, the batches' work whole when they go to the threads; a convolution, a
// pooling and a channel scaling once. Untraced calls and blobs without source_ops report nothing;
// the outputs are the same.
TEST_F(NativeBackendTest, TracedCallsReportEachNodeAtItsDebugHandlePosition) {
  const size_t m = 96, k = 65, n = 129, batch = 3;
  DelegateArgs args;
  const int32_t a = static_cast<int32_t>(args.Add({3, 96, 65}, RandomFloats(batch * m * k, 41)));
  const int32_t b = static_cast<int32_t>(args.Add({3, 65, 129}, RandomFloats(batch * k * n, 42)));
  const int32_t output = static_cast<int32_t>(args.Add({3, 96, 129}));
  const std::vector<std::string> ops = {"edge.permute", "edge.matmul", "edge.mul", "edge.softmax"};
  const FusedSoftmax softmax{true, 0.125f, -1, 0.0f};
  const std::vector<uint8_t> blob =
      MatmulBlob(batch, m, k, n, a, b, output, false, args.size(), softmax, {}, ops);
  ASSERT_EQ(RunBytes(blob, args), Error::kOk);
  const std::vector<float> untraced = args.Values(static_cast<size_t>(output));

  NodeEvents events;
  const DelegateTrace trace{&events, 7};
  args.Set(static_cast<size_t>(output), std::vector<float>(batch * m * n, 0.0f));
  ASSERT_EQ(RunBytes(blob, args, /*runs=*/1, /*offset=*/0, &trace), Error::kOk);
  EXPECT_EQ(args.Values(static_cast<size_t>(output)), untraced);
  EXPECT_EQ(events.Nodes(), (std::vector<size_t>{1, 3, 1, 3, 1, 3}));
  for (size_t i = 0; i < events.events.size(); ++i) {
    const NodeEvents::Event& e = events.events[i];
    EXPECT_EQ(e.instruction, 7u);
    EXPECT_LE(e.begin_ns, e.end_ns);
    if (i > 0) {
      EXPECT_GE(e.begin_ns, events.events[i - 1].end_ns) << "one after another";
    }
  }

  // Without source_ops: runs, reports nothing.
  events.events.clear();
  ASSERT_EQ(RunBytes(MatmulBlob(batch, m, k, n, a, b, output, false, args.size(), softmax), args, 1,
                     0, &trace),
            Error::kOk);
  EXPECT_TRUE(events.events.empty());

  // Batches shared among 2 threads: the product once, from the calling thread.
  ASSERT_EQ(RegisterNativeBackend({2}), Error::kOk);
  DelegateArgs four;
  const int32_t a4 = static_cast<int32_t>(four.Add({4, 96, 65}, RandomFloats(4 * m * k, 43)));
  const int32_t b4 = static_cast<int32_t>(four.Add({4, 65, 129}, RandomFloats(4 * k * n, 44)));
  const int32_t out4 = static_cast<int32_t>(four.Add({4, 96, 129}));
  ASSERT_EQ(RunBytes(MatmulBlob(4, m, k, n, a4, b4, out4, false, four.size(), softmax, {}, ops),
                     four, 1, 0, &trace),
            Error::kOk);
  EXPECT_EQ(events.Nodes(), (std::vector<size_t>{1}));
  ASSERT_EQ(RegisterNativeBackend({1}), Error::kOk);

  // A convolution with a fused add and clamp: once, at the convolution's position.
  events.events.clear();
  std::unique_ptr<Convolution> c = SmallConvolution();
  c->blob.source_ops = {"edge.permute", "edge.convolution", "edge.clamp"};
  ASSERT_EQ(RunBytes(Serialize(c->blob, c->args.size()), c->args, 2, 0, &trace), Error::kOk);
  EXPECT_EQ(events.Nodes(), (std::vector<size_t>{1, 1}));
  EXPECT_LT(MaxAbsDiff(c->output(), c->expected), 1e-4f);

  // A max pooling and a global average pooling: once each, at their positions.
  for (const bool average : {false, true}) {
    events.events.clear();
    DelegateArgs pool_args;
    const int32_t in = static_cast<int32_t>(pool_args.Add({1, 6, 6, 4}, RandomFloats(144, 45)));
    const int32_t out =
        static_cast<int32_t>(average ? pool_args.Add({1, 4}) : pool_args.Add({1, 3, 3, 4}));
    PoolingNode node{fb::PoolingKind::Max, 1, 6, 6, 4, 3, 3, 2, 2, 2, 2, 1, 1, 0, 0, in, out};
    if (average)
      node = {fb::PoolingKind::GlobalAverage, 1, 6, 6, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, in, out};
    ASSERT_EQ(
        RunBytes(PoolingBlob(node, pool_args.size(), average ? "edge.mean" : "edge.max_pool2d"),
                 pool_args, 1, 0, &trace),
        Error::kOk);
    EXPECT_EQ(events.Nodes(), (std::vector<size_t>{0})) << (average ? "mean" : "max");
  }

  // A squeeze-and-excitation multiply: once, at its position.
  events.events.clear();
  DelegateArgs scale_args;
  const int32_t features =
      static_cast<int32_t>(scale_args.Add({1, 6, 6, 4}, RandomFloats(144, 46)));
  const int32_t factors = static_cast<int32_t>(scale_args.Add({1, 1, 1, 4}, RandomFloats(4, 47)));
  const int32_t scaled = static_cast<int32_t>(scale_args.Add({1, 6, 6, 4}));
  ASSERT_EQ(
      RunBytes(ChannelScaleBlob({1, 36, 4, false, features, factors, scaled}, scale_args.size()),
               scale_args, 1, 0, &trace),
      Error::kOk);
  EXPECT_EQ(events.Nodes(), (std::vector<size_t>{0}));
}

// A matrix product of run-time operands (attention's scores and context, batched over heads)
// matches the definition on one and two threads: each batch with its own B or one B for all;
// batches shared among the threads whole (2 and 8 batches on 2 threads), or one after another
// with each GEMM shared (3: an uneven split), or one GEMM over every batch's rows (one B). The
// sizes are odd (tails in M, N and K) and above the parallel threshold (2^21 multiply-adds).
TEST_F(NativeBackendTest, MatrixMultiplyMatchesTheDefinition) {
  const size_t m = 127, k = 65, n = 129;
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    for (const auto& [batch, b_shared] :
         {std::pair<size_t, bool>{2, false}, {3, false}, {8, false}, {4, true}, {1, false}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " batch " + std::to_string(batch) +
                   (b_shared ? " shared B" : ""));
      const size_t b_batches = b_shared ? 1 : batch;
      const std::vector<float> a = RandomFloats(batch * m * k, 21);
      const std::vector<float> b = RandomFloats(b_batches * k * n, 22);
      DelegateArgs args;
      const int32_t a_arg = static_cast<int32_t>(args.Add(
          {static_cast<int64_t>(batch), static_cast<int64_t>(m), static_cast<int64_t>(k)}, a));
      const int32_t b_arg = static_cast<int32_t>(args.Add(
          {static_cast<int64_t>(b_batches), static_cast<int64_t>(k), static_cast<int64_t>(n)}, b));
      const int32_t output = static_cast<int32_t>(args.Add(
          {static_cast<int64_t>(batch), static_cast<int64_t>(m), static_cast<int64_t>(n)}));
      ASSERT_EQ(RunBytes(MatmulBlob(batch, m, k, n, a_arg, b_arg, output, b_shared, args.size()),
                         args, /*runs=*/2),
                Error::kOk);
      std::vector<float> expected(batch * m * n);
      for (size_t p = 0; p < batch; ++p) {
        const float* bp = b.data() + (b_shared ? 0 : p * k * n);
        for (size_t i = 0; i < m; ++i) {
          for (size_t j = 0; j < n; ++j) {
            double sum = 0.0;
            for (size_t q = 0; q < k; ++q) sum += double{a[(p * m + i) * k + q]} * bp[q * n + j];
            expected[(p * m + i) * n + j] = static_cast<float>(sum);
          }
        }
      }
      // 65 products of values in [-1, 1]: float rounding of the sum stays under 1e-5.
      EXPECT_LT(MaxAbsDiff(args.Values(static_cast<size_t>(output)), expected), 1e-5f);
    }
  }
}

// A product with the softmax fused after it (attention's scores: scale, causal mask, softmax
// over each row) matches the definition in double on one and two threads: batches shared among
// the threads whole (4), one after another with the GEMM and the softmax shared (3), one GEMM
// over every batch's rows (one B); the mask shared by every batch (m x n) or one per batch,
// or none.
TEST_F(NativeBackendTest, MatrixMultiplyWithSoftmaxMatchesTheDefinition) {
  const size_t m = 96, k = 65, n = 129;
  const float scale = 0.125f, fill = -std::numeric_limits<float>::infinity();
  struct Case {
    size_t batch;
    bool b_shared;
    int mask;  // 0: none, 1: m x n, 2: batch x m x n
  };
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    for (const Case& c : {Case{4, false, 1}, Case{3, false, 2}, Case{4, true, 1}, Case{2, false, 0},
                          Case{3, true, 2}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " batch " + std::to_string(c.batch) +
                   (c.b_shared ? " shared B" : "") + " mask " + std::to_string(c.mask));
      const size_t b_batches = c.b_shared ? 1 : c.batch;
      const std::vector<float> a = RandomFloats(c.batch * m * k, 31);
      const std::vector<float> b = RandomFloats(b_batches * k * n, 32);
      DelegateArgs args;
      const int64_t batch = static_cast<int64_t>(c.batch);
      const int32_t a_arg = static_cast<int32_t>(
          args.Add({batch, static_cast<int64_t>(m), static_cast<int64_t>(k)}, a));
      const int32_t b_arg = static_cast<int32_t>(args.Add(
          {static_cast<int64_t>(b_batches), static_cast<int64_t>(k), static_cast<int64_t>(n)}, b));
      // Causal (column above the row masked) shifted by the batch for a per-batch mask.
      const size_t mask_batches = c.mask == 2 ? c.batch : 1;
      int32_t mask_arg = -1;
      const uint8_t* mask = nullptr;
      if (c.mask != 0) {
        mask_arg = static_cast<int32_t>(args.AddTyped(
            {static_cast<int64_t>(mask_batches), static_cast<int64_t>(m), static_cast<int64_t>(n)},
            ScalarType::kBool));
        uint8_t* bytes = args.tensor(static_cast<size_t>(mask_arg)).mutable_data_ptr<uint8_t>();
        for (size_t p = 0; p < mask_batches; ++p) {
          for (size_t i = 0; i < m; ++i) {
            for (size_t j = 0; j < n; ++j) bytes[(p * m + i) * n + j] = j > i + p;
          }
        }
        mask = bytes;
      }
      const int32_t output =
          static_cast<int32_t>(args.Add({batch, static_cast<int64_t>(m), static_cast<int64_t>(n)}));
      ASSERT_EQ(RunBytes(MatmulBlob(c.batch, m, k, n, a_arg, b_arg, output, c.b_shared, args.size(),
                                    {true, scale, mask_arg, fill}),
                         args, /*runs=*/2),
                Error::kOk);
      std::vector<float> expected(c.batch * m * n);
      std::vector<double> row(n);
      for (size_t p = 0; p < c.batch; ++p) {
        const float* bp = b.data() + (c.b_shared ? 0 : p * k * n);
        const uint8_t* mp = mask != nullptr ? mask + (c.mask == 2 ? p : 0) * m * n : nullptr;
        for (size_t i = 0; i < m; ++i) {
          double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
          for (size_t j = 0; j < n; ++j) {
            double dot = 0.0;
            for (size_t q = 0; q < k; ++q) dot += double{a[(p * m + i) * k + q]} * bp[q * n + j];
            row[j] = mp != nullptr && mp[i * n + j] != 0 ? -std::numeric_limits<double>::infinity()
                                                         : scale * dot;
            max = std::max(max, row[j]);
          }
          for (size_t j = 0; j < n; ++j) sum += std::exp(row[j] - max);
          for (size_t j = 0; j < n; ++j) {
            expected[(p * m + i) * n + j] = static_cast<float>(std::exp(row[j] - max) / sum);
          }
        }
      }
      // Scores of 65 products of values in [-1, 1], scaled by 1/8: within 1e-6 before the
      // softmax, whose outputs (at most 1) then err by about that much relative.
      EXPECT_LT(MaxAbsDiff(args.Values(static_cast<size_t>(output)), expected), 2e-6f);
    }
  }
}

// A blob table's refusal case: an empty culprit must run, any other must be refused at Init
// with one line naming it.
void ExpectRunsOrRefused(Error error, const char* culprit) {
  if (culprit[0] == '\0') {
    EXPECT_EQ(error, Error::kOk);
    return;
  }
  EXPECT_EQ(error, Error::kInvalidProgram);
  EXPECT_NE(g_last_log.find(culprit), std::string::npos) << g_last_log;
  EXPECT_EQ(g_last_log.find('\n'), std::string::npos) << g_last_log;
}

// Attention's heads read and written in place through strides: q, k and v as [tokens, heads x
// head_dim] (the linear layers' outputs), the scores q k^T with B transposed from k's rows,
// the context p v written back into [tokens, heads x head_dim]; on one and two threads (heads
// shared whole), with one B (heads x tokens rows as one GEMM when strides allow, else one GEMM
// per head with B packed once).
TEST_F(NativeBackendTest, StridedMatrixMultiplyReadsHeadsInPlace) {
  const size_t heads = 4, tokens = 67, dim = 33, width = heads * dim;
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    const std::vector<float> q = RandomFloats(tokens * width, 41);
    const std::vector<float> kv = RandomFloats(tokens * width, 42);
    const std::vector<float> shared_b = RandomFloats(dim * tokens, 43);
    struct Case {
      const char* name;
      bool transposed;  // B = k^T (tokens x tokens output) or v (dim-wide output)
      bool shared;      // one B [dim, tokens] for every head (not strided)
      bool strided_output;
    };
    for (const Case& c : {Case{"scores", true, false, false}, Case{"context", false, false, true},
                          Case{"shared B", false, true, true}}) {
      SCOPED_TRACE(std::string(c.name) + ", threads " + std::to_string(threads));
      const size_t n = c.transposed || c.shared ? tokens : dim;
      const size_t inner = c.transposed || c.shared ? dim : tokens;  // the product's K
      DelegateArgs args;
      const int64_t t = static_cast<int64_t>(tokens), w = static_cast<int64_t>(width);
      const int32_t a_arg = static_cast<int32_t>(
          c.transposed || c.shared ? args.Add({1, t, w}, q)
                                   : args.Add({static_cast<int64_t>(heads), t, t},
                                              RandomFloats(heads * tokens * tokens, 44)));
      const int32_t b_arg = static_cast<int32_t>(
          c.shared ? args.Add({static_cast<int64_t>(dim), t}, shared_b) : args.Add({1, t, w}, kv));
      const int32_t output = static_cast<int32_t>(
          c.strided_output ? args.Add({1, t, static_cast<int64_t>(heads * n)})
                           : args.Add({static_cast<int64_t>(heads), t, static_cast<int64_t>(n)}));
      MatmulStrides strides;
      strides.strided = true;
      if (c.transposed || c.shared) {
        strides.a_batch = dim;  // head h's q: columns [h dim, (h + 1) dim) of each token row
        strides.a_row = width;
      } else {
        strides.a_batch = tokens * tokens;  // the scores: contiguous per head
        strides.a_row = tokens;
      }
      if (c.shared) {
        strides.b_batch = 0;
        strides.b_row = tokens;
      } else {
        strides.b_batch = dim;
        strides.b_row = width;  // k^T transposed: column j is k's token row j
        strides.b_transposed = c.transposed;
      }
      strides.output_batch = c.strided_output ? n : tokens * n;
      strides.output_row = c.strided_output ? heads * n : n;
      ASSERT_EQ(RunBytes(MatmulBlob(heads, tokens, inner, n, a_arg, b_arg, output, c.shared,
                                    args.size(), {}, strides),
                         args, /*runs=*/2),
                Error::kOk);
      const std::vector<float> a_values = args.Values(static_cast<size_t>(a_arg));
      const std::vector<float> got = args.Values(static_cast<size_t>(output));
      float worst = 0.0f;
      for (size_t h = 0; h < heads; ++h) {
        for (size_t i = 0; i < tokens; ++i) {
          for (size_t j = 0; j < n; ++j) {
            double sum = 0.0;
            for (size_t p = 0; p < inner; ++p) {
              const double a = a_values[h * strides.a_batch + i * strides.a_row + p];
              const double b = c.shared       ? shared_b[p * tokens + j]
                               : c.transposed ? kv[j * width + h * dim + p]
                                              : kv[p * width + h * dim + j];
              sum += a * b;
            }
            const float value = got[h * strides.output_batch + i * strides.output_row + j];
            worst = std::max(worst, std::fabs(value - static_cast<float>(sum)));
          }
        }
      }
      // Sums of at most 67 products of values in [-1, 1].
      EXPECT_LT(worst, 2e-5f);
    }
  }
}

// Strides that would reach outside a tensor, outputs whose batches overlap, rows closer than
// their length and a softmax over strided rows are refused at Init, naming the culprit.
TEST_F(NativeBackendTest, RefusesMalformedStrides) {
  const int64_t heads = 2, tokens = 5, dim = 3, width = heads * dim;
  DelegateArgs args;
  const int32_t q = static_cast<int32_t>(args.Add({tokens, width}, RandomFloats(30, 1)));
  const int32_t k = static_cast<int32_t>(args.Add({tokens, width}, RandomFloats(30, 2)));
  const int32_t output = static_cast<int32_t>(args.Add({heads, tokens, tokens}));
  MatmulStrides good;
  good.strided = true;
  good.a_batch = dim;
  good.a_row = width;
  good.b_batch = dim;
  good.b_row = width;
  good.b_transposed = true;
  good.output_batch = tokens * tokens;
  good.output_row = tokens;
  struct Refusal {
    const char* culprit;
    std::function<void(MatmulStrides&)> edit;
    bool softmax;
  };
  const Refusal refusals[] = {
      {"", [](MatmulStrides&) {}, false},  // runs: the starting point
      {"", [](MatmulStrides&) {}, true},
      {"a argument", [](MatmulStrides& s) { s.a_batch = 4; }, false},
      {"a argument", [](MatmulStrides& s) { s.a_row = 2; }, false},
      {"b argument", [](MatmulStrides& s) { s.b_row = 7; }, false},
      {"b argument",
       [](MatmulStrides& s) {
         s.b_transposed = false;  // rows of n = 5 floats, 4 apart
         s.b_row = 4;
       },
       false},
      {"output argument", [](MatmulStrides& s) { s.output_row = 6; }, false},
      {"overlap", [](MatmulStrides& s) { s.output_batch = 1; }, false},
      {"strided output rows",
       [](MatmulStrides& s) {
         s.output_batch = 5;
         s.output_row = 10;
       },
       true},
      {"a argument", [](MatmulStrides& s) { s.a_row = uint64_t{1} << 62; }, false},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.culprit);
    MatmulStrides strides = good;
    r.edit(strides);
    const Error error = RunBytes(MatmulBlob(heads, tokens, dim, tokens, q, k, output, false,
                                            args.size(), {r.softmax, 1.0f, -1, 0.0f}, strides),
                                 args);
    ExpectRunsOrRefused(error, r.culprit);
  }
}

// A fused softmax's mask must be a bool tensor of m x n or batch x m x n elements, and only
// with the softmax; Init refuses anything else naming the mask.
TEST_F(NativeBackendTest, RefusesMalformedSoftmaxMasks) {
  const int64_t m = 4, k = 3, n = 5;
  DelegateArgs args;
  const int32_t a = static_cast<int32_t>(args.Add({2, m, k}, RandomFloats(2 * m * k, 1)));
  const int32_t b = static_cast<int32_t>(args.Add({2, k, n}, RandomFloats(2 * k * n, 2)));
  const int32_t mask = static_cast<int32_t>(args.AddTyped({1, m, n}, ScalarType::kBool));
  const int32_t batch_mask = static_cast<int32_t>(args.AddTyped({2, m, n}, ScalarType::kBool));
  const int32_t short_mask = static_cast<int32_t>(args.AddTyped({1, m, n - 1}, ScalarType::kBool));
  const int32_t float_mask = static_cast<int32_t>(args.Add({1, m, n}));
  const int32_t output = static_cast<int32_t>(args.Add({2, m, n}));
  struct Refusal {
    bool softmax;
    int32_t mask;
    const char* culprit;
  };
  const Refusal refusals[] = {
      {true, mask, ""},  // runs: the starting point
      {true, batch_mask, ""},
      {true, -1, ""},
      {false, mask, "mask without a softmax"},
      {true, short_mask, "mask argument"},
      {true, float_mask, "mask argument"},
      {true, 99, "out of range"},
      {true, output, "mask argument"},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.culprit);
    const Error error =
        RunBytes(MatmulBlob(2, m, k, n, a, b, output, false, args.size(),
                            {r.softmax, 0.5f, r.mask, -std::numeric_limits<float>::infinity()}),
                 args);
    ExpectRunsOrRefused(error, r.culprit);
  }
  // A causal softmax knows its mask: one given as well is refused; alone it runs, with any
  // offset (past the last column: nothing masked).
  const float inf = std::numeric_limits<float>::infinity();
  ExpectRunsOrRefused(RunBytes(MatmulBlob(2, m, k, n, a, b, output, false, args.size(),
                                          {true, 0.5f, mask, -inf, true, 0}),
                               args),
                      "causal softmax with a mask argument");
  for (uint64_t offset : {uint64_t{0}, uint64_t{3}, ~uint64_t{0}}) {
    ExpectRunsOrRefused(RunBytes(MatmulBlob(2, m, k, n, a, b, output, false, args.size(),
                                            {true, 0.5f, -1, -inf, true, offset}),
                                 args),
                        "");
  }
}

// Causal attention as the compiler writes it for a GPT (native_blob.fbs, MatrixMultiply.causal):
// the scores' product with a causal softmax against the same product with the explicit mask
// (-inf where j > i + d), then the softmax times V with the causal skip against the plain
// product, on one and two threads: batches whole to the threads (4), one after another with
// each GEMM shared (3), one GEMM over every batch's rows (shared B: no skip, the mask still).
TEST_F(NativeBackendTest, CausalAttentionMatchesTheExplicitMask) {
  const size_t m = 96, k = 64, n = 96, v_cols = 33;
  const float scale = 0.125f, fill = -std::numeric_limits<float>::infinity();
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    for (const auto& [batch, b_shared, offset] :
         {std::tuple<size_t, bool, uint64_t>{4, false, 0}, {3, false, 2}, {2, true, 0}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " batch " + std::to_string(batch) +
                   (b_shared ? " shared B" : "") + " offset " + std::to_string(offset));
      const int64_t p = static_cast<int64_t>(batch), b_batches = b_shared ? 1 : p;
      DelegateArgs args;
      const int32_t q = static_cast<int32_t>(args.Add(
          {p, static_cast<int64_t>(m), static_cast<int64_t>(k)}, RandomFloats(batch * m * k, 51)));
      const int32_t kt = static_cast<int32_t>(
          args.Add({b_batches, static_cast<int64_t>(k), static_cast<int64_t>(n)},
                   RandomFloats(static_cast<size_t>(b_batches) * k * n, 52)));
      const int32_t mask = static_cast<int32_t>(
          args.AddTyped({1, static_cast<int64_t>(m), static_cast<int64_t>(n)}, ScalarType::kBool));
      uint8_t* bytes = args.tensor(static_cast<size_t>(mask)).mutable_data_ptr<uint8_t>();
      for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < n; ++j) bytes[i * n + j] = j > i + offset;
      }
      const int32_t v =
          static_cast<int32_t>(args.Add({p, static_cast<int64_t>(n), static_cast<int64_t>(v_cols)},
                                        RandomFloats(batch * n * v_cols, 53)));
      const std::vector<int64_t> scores_sizes = {p, static_cast<int64_t>(m),
                                                 static_cast<int64_t>(n)};
      const int32_t masked = static_cast<int32_t>(args.Add(scores_sizes));
      const int32_t causal = static_cast<int32_t>(args.Add(scores_sizes));
      const std::vector<int64_t> context_sizes = {p, static_cast<int64_t>(m),
                                                  static_cast<int64_t>(v_cols)};
      const int32_t plain_context = static_cast<int32_t>(args.Add(context_sizes));
      const int32_t causal_context = static_cast<int32_t>(args.Add(context_sizes));
      ASSERT_EQ(RunBytes(MatmulBlob(batch, m, k, n, q, kt, masked, b_shared, args.size(),
                                    {true, scale, mask, fill}),
                         args),
                Error::kOk);
      ASSERT_EQ(RunBytes(MatmulBlob(batch, m, k, n, q, kt, causal, b_shared, args.size(),
                                    {true, scale, -1, fill, true, offset}),
                         args, /*runs=*/2),
                Error::kOk);
      const std::vector<float> expected = args.Values(static_cast<size_t>(masked));
      const std::vector<float> got = args.Values(static_cast<size_t>(causal));
      // The same scores; the softmax sums the same terms over fewer lanes (a few ulp of <= 1).
      EXPECT_LT(MaxAbsDiff(got, expected), 1e-6f);
      for (size_t e = 0; e < got.size(); ++e) {
        if (bytes[e % (m * n)] != 0) {
          ASSERT_EQ(got[e], 0.0f) << "masked element " << e;
        }
      }
      ASSERT_EQ(
          RunBytes(MatmulBlob(batch, m, n, v_cols, causal, v, plain_context, false, args.size()),
                   args),
          Error::kOk);
      ASSERT_EQ(RunBytes(MatmulBlob(batch, m, n, v_cols, causal, v, causal_context, false,
                                    args.size(), {false, 1.0f, -1, 0.0f, true, offset}),
                         args, /*runs=*/2),
                Error::kOk);
      // The skipped terms are exact zeros: the same sums.
      EXPECT_EQ(MaxAbsDiff(args.Values(static_cast<size_t>(causal_context)),
                           args.Values(static_cast<size_t>(plain_context))),
                0.0f);
    }
  }
}

// Every malformed layer norm is refused at Init with a one-line message naming what is wrong.
TEST_F(NativeBackendTest, RefusesMalformedLayerNorms) {
  DelegateArgs args;
  const int32_t input = static_cast<int32_t>(args.Add({4, 8}, RandomFloats(32, 1)));
  const int32_t weight = static_cast<int32_t>(args.AddConstant({8}, RandomFloats(8, 2)));
  const int32_t short_bias = static_cast<int32_t>(args.AddConstant({7}, RandomFloats(7, 3)));
  const int32_t output = static_cast<int32_t>(args.Add({4, 8}));
  const int32_t constant = static_cast<int32_t>(args.AddConstant({4, 8}, RandomFloats(32, 4)));
  const int32_t ints = static_cast<int32_t>(args.AddTyped({4, 8}, ScalarType::kInt32));
  struct Refusal {
    uint64_t rows, cols;
    int32_t input, weight, bias, output;
    float epsilon;
    const char* culprit;
  };
  const Refusal refusals[] = {
      {4, 8, input, weight, -1, output, 1e-5f, ""},  // runs: the starting point
      {0, 8, input, weight, -1, output, 1e-5f, "size is zero"},
      {4, 0, input, weight, -1, output, 1e-5f, "size is zero"},
      {4, 8, input, weight, -1, output, -1.0f, "epsilon"},
      {4, 8, input, weight, -1, output, std::nanf(""), "epsilon"},
      {2, 16, input, weight, -1, output, 1e-5f, "input argument"},
      {8, 4, input, weight, -1, output, 1e-5f, "input argument"},
      {uint64_t{1} << 40, uint64_t{1} << 40, input, weight, -1, output, 1e-5f, "overflow"},
      {4, 8, input, weight, short_bias, output, 1e-5f, "bias argument"},
      {4, 8, input, weight, -1, constant, 1e-5f, "constant"},
      {4, 8, input, weight, -1, ints, 1e-5f, "output argument"},
      {4, 8, input, weight, -1, 99, 1e-5f, "out of range"},
      {4, 8, input, input, -1, output, 1e-5f, "weight argument"},
      {4, 8, input, weight, -1, weight, 1e-5f, "output argument"},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.culprit);
    ExpectRunsOrRefused(RunBytes(LayerNormBlob(r.rows, r.cols, r.input, r.weight, r.bias, r.output,
                                               r.epsilon, args.size()),
                                 args),
                        r.culprit);
  }
}

// ResNet's 3x3 / 2 max pooling with padding 1 over 112 x 112 x 64 (shared among threads at 2),
// an odd-sized one with ceil_mode's extra output row and column, and global average pooling,
// against their definitions; a maximum is one of the inputs, so exactly equal.
TEST_F(NativeBackendTest, PoolingMatchesTheDefinition) {
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    struct Window {
      uint64_t size, channels, kernel, stride, padding, output;
    };
    // 112 -> 56 (floor); 8 with k 3 s 2 p 1 ceil_mode: 5 outputs, the last window past the input.
    for (const Window w : {Window{112, 64, 3, 2, 1, 56}, Window{8, 5, 3, 2, 1, 5}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " size " + std::to_string(w.size));
      const int64_t size = static_cast<int64_t>(w.size), c = static_cast<int64_t>(w.channels);
      const int64_t out = static_cast<int64_t>(w.output);
      const std::vector<float> x = RandomFloats(w.size * w.size * w.channels, 21, -3, 3);
      DelegateArgs args;
      const int32_t input = static_cast<int32_t>(args.Add({1, size, size, c}, x));
      const int32_t output = static_cast<int32_t>(args.Add({1, out, out, c}));
      const PoolingNode node{fb::PoolingKind::Max,
                             1,
                             w.size,
                             w.size,
                             w.channels,
                             w.output,
                             w.output,
                             w.kernel,
                             w.kernel,
                             w.stride,
                             w.stride,
                             1,
                             1,
                             w.padding,
                             w.padding,
                             input,
                             output};
      ASSERT_EQ(RunBytes(PoolingBlob(node, args.size()), args), Error::kOk);
      const std::vector<float> y = args.Values(static_cast<size_t>(output));
      size_t mismatches = 0;
      for (uint64_t oy = 0; oy < w.output; ++oy) {
        for (uint64_t ox = 0; ox < w.output; ++ox) {
          for (uint64_t ch = 0; ch < w.channels; ++ch) {
            float best = -INFINITY;
            for (uint64_t ky = 0; ky < w.kernel; ++ky) {
              for (uint64_t kx = 0; kx < w.kernel; ++kx) {
                const int64_t iy = static_cast<int64_t>(oy * w.stride + ky - w.padding);
                const int64_t ix = static_cast<int64_t>(ox * w.stride + kx - w.padding);
                if (iy < 0 || ix < 0 || iy >= size || ix >= size) continue;
                best = std::max(best,
                                x[(static_cast<uint64_t>(iy) * w.size + static_cast<uint64_t>(ix)) *
                                      w.channels +
                                  ch]);
              }
            }
            if (y[(oy * w.output + ox) * w.channels + ch] != best) ++mismatches;
          }
        }
      }
      EXPECT_EQ(mismatches, 0u);
    }
    // Global average pooling: EfficientNet's first squeeze (112 x 112 x 32) and a head.
    for (const uint64_t pixels_side : {uint64_t{112}, uint64_t{7}}) {
      const uint64_t channels = pixels_side == 112 ? 32 : 1280;
      const int64_t side = static_cast<int64_t>(pixels_side);
      const std::vector<float> x = RandomFloats(pixels_side * pixels_side * channels, 22, -1, 2);
      DelegateArgs args;
      const int32_t input =
          static_cast<int32_t>(args.Add({1, side, side, static_cast<int64_t>(channels)}, x));
      const int32_t output = static_cast<int32_t>(args.Add({1, static_cast<int64_t>(channels)}));
      const PoolingNode node{fb::PoolingKind::GlobalAverage,
                             1,
                             pixels_side,
                             pixels_side,
                             channels,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             input,
                             output};
      ASSERT_EQ(RunBytes(PoolingBlob(node, args.size()), args), Error::kOk);
      std::vector<float> expected(channels);
      for (uint64_t ch = 0; ch < channels; ++ch) {
        double sum = 0.0;
        for (uint64_t p = 0; p < pixels_side * pixels_side; ++p) sum += x[p * channels + ch];
        expected[ch] = static_cast<float>(sum / static_cast<double>(pixels_side * pixels_side));
      }
      // 12544 float additions of values in [-1, 2): within 12544 u 2 of the exact sum's mean.
      EXPECT_LT(MaxAbsDiff(args.Values(static_cast<size_t>(output)), expected), 2e-3f);
    }
  }
}

TEST_F(NativeBackendTest, RefusesMalformedPoolings) {
  DelegateArgs args;
  const int32_t input = static_cast<int32_t>(args.Add({1, 6, 6, 4}, RandomFloats(144, 1)));
  const int32_t output = static_cast<int32_t>(args.Add({1, 3, 3, 4}));
  const int32_t pooled = static_cast<int32_t>(args.Add({1, 4}));
  const int32_t constant =
      static_cast<int32_t>(args.AddConstant({1, 3, 3, 4}, RandomFloats(36, 2)));
  const int32_t ints = static_cast<int32_t>(args.AddTyped({1, 3, 3, 4}, ScalarType::kInt32));
  const auto max = [&](uint64_t kernel, uint64_t stride, uint64_t out, int32_t in, int32_t o) {
    return PoolingNode{fb::PoolingKind::Max,
                       1,
                       6,
                       6,
                       4,
                       out,
                       out,
                       kernel,
                       kernel,
                       stride,
                       stride,
                       1,
                       1,
                       0,
                       0,
                       in,
                       o};
  };
  struct Refusal {
    PoolingNode node;
    const char* culprit;
  };
  PoolingNode unknown = max(2, 2, 3, input, output);
  unknown.kind = static_cast<fb::PoolingKind>(7);
  PoolingNode no_dilation = max(2, 2, 3, input, output);
  no_dilation.dilation_width = 0;
  PoolingNode huge = max(2, 2, 3, input, output);
  huge.height = huge.width = uint64_t{1} << 40;
  PoolingNode average = max(0, 0, 0, input, pooled);
  average.kind = fb::PoolingKind::GlobalAverage;
  PoolingNode average_wrong_output = average;
  average_wrong_output.output = output;
  const Refusal refusals[] = {
      {max(2, 2, 3, input, output), ""},  // runs: the starting point
      {average, ""},                      // runs
      {unknown, "unknown pooling kind"},
      {max(0, 2, 3, input, output), "geometry"},
      {max(2, 0, 3, input, output), "geometry"},
      {no_dilation, "geometry"},
      {huge, "geometry"},
      {max(2, 2, 4, input, output), "output argument"},
      {max(2, 2, 3, pooled, output), "input argument"},
      {max(2, 2, 3, input, constant), "constant"},
      {max(2, 2, 3, input, ints), "output argument"},
      {max(2, 2, 3, input, 99), "out of range"},
      {max(2, 2, 3, input, input), "output argument"},
      {average_wrong_output, "output argument"},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.culprit);
    ExpectRunsOrRefused(RunBytes(PoolingBlob(r.node, args.size()), args), r.culprit);
  }
}

// A squeeze-and-excitation multiply against its definition (one float multiply per element, so
// exactly equal): EfficientNet's first (112 x 112 x 32, shared among threads at 2) with a scale
// per image over a batch of 2, a shared constant scale, and one written over its own input.
TEST_F(NativeBackendTest, ChannelScaleMatchesTheDefinition) {
  for (uint32_t threads : {1u, 2u}) {
    ASSERT_EQ(RegisterNativeBackend({threads}), Error::kOk);
    struct Case {
      uint64_t batch, side, channels;
      bool shared, in_place;
    };
    for (const Case c : {Case{2, 112, 32, false, false}, Case{3, 5, 19, true, false},
                         Case{1, 7, 1152, false, true}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " channels " +
                   std::to_string(c.channels));
      const int64_t n = static_cast<int64_t>(c.batch), side = static_cast<int64_t>(c.side),
                    ch = static_cast<int64_t>(c.channels);
      const uint64_t pixels = c.side * c.side;
      const std::vector<float> x = RandomFloats(c.batch * pixels * c.channels, 31, -3, 3);
      const std::vector<float> scale =
          RandomFloats((c.shared ? 1 : c.batch) * c.channels, 32, 0, 1);
      DelegateArgs args;
      const int32_t input = static_cast<int32_t>(args.Add({n, side, side, ch}, x));
      const int32_t factors = c.shared
                                  ? static_cast<int32_t>(args.AddConstant({1, 1, 1, ch}, scale))
                                  : static_cast<int32_t>(args.Add({n, 1, 1, ch}, scale));
      const int32_t output =
          c.in_place ? input : static_cast<int32_t>(args.Add({n, side, side, ch}));
      const ChannelScaleNode node{c.batch, pixels, c.channels, c.shared, input, factors, output};
      ASSERT_EQ(RunBytes(ChannelScaleBlob(node, args.size()), args), Error::kOk);
      const std::vector<float> y = args.Values(static_cast<size_t>(output));
      size_t mismatches = 0;
      for (uint64_t i = 0; i < x.size(); ++i) {
        const uint64_t image = i / (pixels * c.channels), channel = i % c.channels;
        if (y[i] != x[i] * scale[(c.shared ? 0 : image) * c.channels + channel]) ++mismatches;
      }
      EXPECT_EQ(mismatches, 0u);
    }
  }
}

TEST_F(NativeBackendTest, RefusesMalformedChannelScales) {
  DelegateArgs args;
  const int32_t input = static_cast<int32_t>(args.Add({2, 3, 3, 4}, RandomFloats(72, 1)));
  const int32_t scale = static_cast<int32_t>(args.Add({2, 1, 1, 4}, RandomFloats(8, 2)));
  const int32_t output = static_cast<int32_t>(args.Add({2, 3, 3, 4}));
  const int32_t constant =
      static_cast<int32_t>(args.AddConstant({2, 3, 3, 4}, RandomFloats(72, 3)));
  const int32_t ints = static_cast<int32_t>(args.AddTyped({2, 3, 3, 4}, ScalarType::kInt32));
  const int32_t short_scale = static_cast<int32_t>(args.Add({1, 1, 1, 4}, RandomFloats(4, 4)));
  const int32_t tail = static_cast<int32_t>(args.Add({2, 3, 3, 4}));
  struct Refusal {
    ChannelScaleNode node;
    const char* culprit;
  };
  const Refusal refusals[] = {
      {{2, 9, 4, false, input, scale, output}, ""},       // runs: the starting point
      {{2, 9, 4, true, input, short_scale, output}, ""},  // runs: one scale for both images
      {{2, 9, 4, false, input, scale, input}, ""},        // runs: in place
      {{0, 9, 4, false, input, scale, output}, "geometry"},
      {{2, 0, 4, false, input, scale, output}, "geometry"},
      {{2, 9, 0, false, input, scale, output}, "geometry"},
      {{uint64_t{1} << 40, uint64_t{1} << 40, 4, false, input, scale, output}, "geometry"},
      {{2, 9, 2, false, input, scale, output}, "input argument"},
      {{2, 8, 4, false, input, scale, output}, "input argument"},
      {{2, 9, 4, false, input, short_scale, output}, "scale argument"},
      {{2, 9, 4, true, input, scale, output}, "scale argument"},
      {{2, 9, 4, false, input, scale, constant}, "constant"},
      {{2, 9, 4, false, input, scale, ints}, "output argument"},
      {{2, 9, 4, false, input, scale, 99}, "out of range"},
      {{2, 9, 4, false, input, -1, output}, "scale argument"},
      {{2, 9, 4, false, input, scale, tail}, ""},  // runs
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.culprit);
    ExpectRunsOrRefused(RunBytes(ChannelScaleBlob(r.node, args.size()), args), r.culprit);
  }
}

}  // namespace
}  // namespace torchir::runtime::native
