// Every row of the XNNPACK node table runs and matches the portable kernels
// (or a hand computation), on 1 and 2 threads; and every row refuses the
// parameters and shapes a hostile blob could give it.
#include "backends/xnnpack/runtime/node_definitions.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/backends/xnnpack/runtime/xnnpack_test_util.h"

namespace torchir::testing::xnnpack {
namespace {

using runtime::Error;
using K = KernelArg;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kTolerance = 1e-5f;

// Parameterised by the thread count.
class NodeTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override { SetUpBackends(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Threads, NodeTest, ::testing::Values(1u, 2u),
                         [](const ::testing::TestParamInfo<uint32_t>& info) {
                           return std::to_string(info.param) + "thread";
                         });

TEST(NodeTableTest, HoldsExactlyTheOpsTheCompilerWrites) {
  const std::set<std::string> expected = {"convolution_2d",
                                          "depthwise_convolution_2d",
                                          "fully_connected",
                                          "add2",
                                          "multiply2",
                                          "subtract",
                                          "divide",
                                          "maximum2",
                                          "minimum2",
                                          "clamp",
                                          "leaky_relu",
                                          "elu",
                                          "hardswish",
                                          "sigmoid",
                                          "negate",
                                          "abs",
                                          "square_root",
                                          "square",
                                          "prelu",
                                          "floor",
                                          "ceiling",
                                          "bankers_rounding",
                                          "softmax",
                                          "max_pooling_2d",
                                          "average_pooling_2d",
                                          "static_resize_bilinear_2d",
                                          "global_average_pooling_2d",
                                          "static_reshape",
                                          "static_constant_pad"};
  std::set<std::string> ops;
  for (const runtime::xnnpack::NodeDefinition& row : runtime::xnnpack::NodeDefinitions()) {
    EXPECT_TRUE(ops.insert(row.op).second) << "duplicate row " << row.op;
    EXPECT_NE(row.define, nullptr) << row.op;
    EXPECT_LE(row.min_inputs, row.max_inputs) << row.op;
    EXPECT_LE(row.max_inputs, runtime::xnnpack::kMaxNodeInputs) << row.op;
    EXPECT_EQ(runtime::xnnpack::FindNodeDefinition(row.op, std::string(row.op).size()), &row);
  }
  EXPECT_EQ(ops, expected);
  EXPECT_EQ(runtime::xnnpack::FindNodeDefinition("add", 3), nullptr);
  EXPECT_EQ(runtime::xnnpack::FindNodeDefinition("add2x", 5), nullptr);
}

// Each row reads its node with the layout the compiler writes it with (node_params.h).
template <typename Op>
void ExpectRowFollowsLayout() {
  const runtime::xnnpack::NodeDefinition* row =
      runtime::xnnpack::FindNodeDefinition(Op::kOp, std::string(Op::kOp).size());
  ASSERT_NE(row, nullptr) << Op::kOp;
  EXPECT_EQ(row->min_inputs, Op::kMinInputs) << Op::kOp;
  EXPECT_EQ(row->max_inputs, Op::kMaxInputs) << Op::kOp;
  EXPECT_EQ(row->ints, static_cast<int>(Op::kNumInts)) << Op::kOp;
  EXPECT_EQ(row->floats, static_cast<int>(Op::kNumFloats)) << Op::kOp;
}

TEST(NodeTableTest, EveryRowFollowsItsSharedLayout) {
  namespace node_params = ::torchir::xnnpack::node_params;
#define TORCHIR_EXPECT_ROW(Op) ExpectRowFollowsLayout<node_params::Op>();
  TORCHIR_XNNPACK_NODE_OPS(TORCHIR_EXPECT_ROW)
#undef TORCHIR_EXPECT_ROW
  EXPECT_EQ(runtime::xnnpack::NodeDefinitions().size(), 29u);
}

// ---------------------------------------------------------------------------
// Convolutions, against the portable 'convolution' kernel on NCHW.

struct ConvCase {
  int64_t n = 1, c = 3, h = 7, w = 6, out_c = 4, kh = 3, kw = 3;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  int64_t dilation_h = 1, dilation_w = 1, groups = 1;
  bool bias = true;
  double min = -kInf, max = kInf;
  bool depthwise = false;  // as depthwise_convolution_2d (groups == c)
};

void ExpectConvolutionMatches(const ConvCase& k, uint32_t seed) {
  const int64_t group_in = k.c / k.groups;
  const int64_t oh =
      (k.h + k.pad_top + k.pad_bottom - ((k.kh - 1) * k.dilation_h + 1)) / k.stride_h + 1;
  const int64_t ow =
      (k.w + k.pad_left + k.pad_right - ((k.kw - 1) * k.dilation_w + 1)) / k.stride_w + 1;
  const std::vector<float> input = RandomFloats(k.n * k.c * k.h * k.w, seed);
  const std::vector<float> weight = RandomFloats(k.out_c * group_in * k.kh * k.kw, seed + 1);
  const std::vector<float> bias = RandomFloats(k.out_c, seed + 2);

  // Reference: asymmetric padding as an explicit constant_pad first.
  DelegateArgs ref;
  size_t x = ref.Add({k.n, k.c, k.h, k.w}, input);
  std::vector<int64_t> padding = {k.pad_top, k.pad_left};
  if (k.pad_top != k.pad_bottom || k.pad_left != k.pad_right) {
    const size_t padded =
        ref.Add({k.n, k.c, k.h + k.pad_top + k.pad_bottom, k.w + k.pad_left + k.pad_right});
    ASSERT_EQ(
        RunPortable("constant_pad",
                    {K::Tensor(x), K::Ints({k.pad_left, k.pad_right, k.pad_top, k.pad_bottom}),
                     K::Double(0), K::Tensor(padded)},
                    ref),
        Error::kOk);
    x = padded;
    padding = {0, 0};
  }
  const size_t wt = ref.Add({k.out_c, group_in, k.kh, k.kw}, weight);
  const KernelArg b = k.bias ? K::Tensor(ref.Add({k.out_c}, bias)) : K::None();
  const size_t out = ref.Add({k.n, k.out_c, oh, ow});
  ASSERT_EQ(RunPortable("convolution",
                        {K::Tensor(x), K::Tensor(wt), b, K::Ints({k.stride_h, k.stride_w}),
                         K::Ints(padding), K::Ints({k.dilation_h, k.dilation_w}), K::Int(k.groups),
                         K::Double(k.min), K::Double(k.max), K::Tensor(out)},
                        ref),
            Error::kOk);

  // The delegate: NHWC input and output, OHWI (or 1HWO) filter, constants as arguments.
  BlobGraph blob;
  DelegateArgs args;
  const uint64_t n = k.n, c = k.c, h = k.h, w = k.w, oc = k.out_c;
  std::vector<uint32_t> inputs = {blob.Value({n, h, w, c}, 0)};
  args.Add({k.n, k.h, k.w, k.c}, NchwToNhwc(input, k.n, k.c, k.h, k.w));
  std::vector<int64_t> ints = {k.pad_top, k.pad_right, k.pad_bottom, k.pad_left,   k.kh,
                               k.kw,      k.stride_h,  k.stride_w,   k.dilation_h, k.dilation_w};
  if (k.depthwise) {
    inputs.push_back(blob.Value({1, uint64_t(k.kh), uint64_t(k.kw), oc}, 1));
    args.AddConstant({1, k.kh, k.kw, k.out_c}, DepthwiseFilter(weight, k.out_c, k.kh, k.kw));
    ints.insert(ints.end(), {k.out_c / k.c, k.c});
  } else {
    inputs.push_back(blob.Value({oc, uint64_t(k.kh), uint64_t(k.kw), uint64_t(group_in)}, 1));
    args.AddConstant({k.out_c, k.kh, k.kw, group_in},
                     OihwToOhwi(weight, k.out_c, group_in, k.kh, k.kw));
    ints.insert(ints.end(), {k.groups, group_in, k.out_c / k.groups});
  }
  if (k.bias) {
    inputs.push_back(blob.Value({oc}, 2));
    args.AddConstant({k.out_c}, bias);
  }
  const int32_t out_arg = static_cast<int32_t>(args.size());
  const uint32_t y = blob.Value({n, uint64_t(oh), uint64_t(ow), oc}, out_arg, true);
  args.Add({k.n, oh, ow, k.out_c});
  blob.Node(k.depthwise ? "depthwise_convolution_2d" : "convolution_2d", inputs, y, ints,
            {k.min, k.max});
  ASSERT_EQ(RunDelegate(blob, args, /*runs=*/2), Error::kOk);
  EXPECT_LE(MaxAbsDiff(NhwcToNchw(args.Values(out_arg), k.n, oh, ow, k.out_c), ref.Values(out)),
            kTolerance);
}

TEST_P(NodeTest, Convolution2dWithBias) {
  ConvCase k;
  k.stride_h = 2;
  k.pad_top = k.pad_bottom = k.pad_left = k.pad_right = 1;
  ExpectConvolutionMatches(k, 10);
}

TEST_P(NodeTest, Convolution2dWithoutBias) {
  ConvCase k;
  k.bias = false;
  k.n = 2;
  ExpectConvolutionMatches(k, 20);
}

TEST_P(NodeTest, Convolution2dWithFusedClamp) {
  ConvCase k;
  k.min = 0;
  k.max = 0.5;  // relu6-like with a bound the random data reaches
  k.pad_left = k.pad_right = 1;
  ExpectConvolutionMatches(k, 30);
}

TEST_P(NodeTest, Convolution2dGroupedDilatedAsymmetricPadding) {
  ConvCase k;
  k.c = 4;
  k.out_c = 6;
  k.groups = 2;
  k.h = 9;
  k.w = 8;
  k.dilation_h = 2;
  k.stride_w = 2;
  k.pad_top = 2;
  k.pad_bottom = 0;
  k.pad_left = 0;
  k.pad_right = 1;
  ExpectConvolutionMatches(k, 40);
}

TEST_P(NodeTest, DepthwiseConvolution2dWithBias) {
  ConvCase k;
  k.c = k.out_c = k.groups = 5;
  k.depthwise = true;
  k.pad_top = k.pad_bottom = k.pad_left = k.pad_right = 1;
  k.stride_h = k.stride_w = 2;
  ExpectConvolutionMatches(k, 50);
}

TEST_P(NodeTest, DepthwiseConvolution2dMultiplierWithoutBiasClamped) {
  ConvCase k;
  k.c = k.groups = 3;
  k.out_c = 6;  // depth multiplier 2
  k.depthwise = true;
  k.bias = false;
  k.min = -0.25;
  k.max = 0.25;
  k.dilation_w = 2;
  k.pad_top = 1;
  ExpectConvolutionMatches(k, 60);
}

// ---------------------------------------------------------------------------
// Fully connected, against the portable 'linear' kernel.

void ExpectFullyConnectedMatches(const std::vector<int64_t>& input_sizes, int64_t out_features,
                                 bool with_bias, double min, double max, uint32_t seed) {
  const int64_t k = input_sizes.back();
  int64_t numel = 1;
  for (int64_t s : input_sizes) numel *= s;
  std::vector<int64_t> out_sizes = input_sizes;
  out_sizes.back() = out_features;
  const std::vector<float> input = RandomFloats(numel, seed);
  const std::vector<float> weight = RandomFloats(out_features * k, seed + 1);
  const std::vector<float> bias = RandomFloats(out_features, seed + 2);

  DelegateArgs ref;
  const size_t x = ref.Add(input_sizes, input);
  const size_t wt = ref.Add({out_features, k}, weight);
  const KernelArg b = with_bias ? K::Tensor(ref.Add({out_features}, bias)) : K::None();
  const size_t out = ref.Add(out_sizes);
  ASSERT_EQ(
      RunPortable("linear",
                  {K::Tensor(x), K::Tensor(wt), b, K::Double(min), K::Double(max), K::Tensor(out)},
                  ref),
      Error::kOk);

  BlobGraph blob;
  DelegateArgs args;
  std::vector<uint64_t> in_dims(input_sizes.begin(), input_sizes.end());
  std::vector<uint64_t> out_dims(out_sizes.begin(), out_sizes.end());
  std::vector<uint32_t> inputs = {blob.Value(in_dims, 0),
                                  blob.Value({uint64_t(out_features), uint64_t(k)}, 1)};
  args.Add(input_sizes, input);
  args.AddConstant({out_features, k}, weight);
  if (with_bias) {
    inputs.push_back(blob.Value({uint64_t(out_features)}, 2));
    args.AddConstant({out_features}, bias);
  }
  const int32_t out_arg = static_cast<int32_t>(args.size());
  const uint32_t y = blob.Value(out_dims, out_arg, true);
  args.Add(out_sizes);
  blob.Node("fully_connected", inputs, y, {}, {min, max});
  ASSERT_EQ(RunDelegate(blob, args, 2), Error::kOk);
  EXPECT_LE(MaxAbsDiff(args.Values(out_arg), ref.Values(out)), kTolerance);
}

TEST_P(NodeTest, FullyConnectedWithBias) {
  ExpectFullyConnectedMatches({3, 10}, 7, true, -kInf, kInf, 70);
}

TEST_P(NodeTest, FullyConnectedWithoutBiasRank3Clamped) {
  ExpectFullyConnectedMatches({2, 3, 8}, 5, false, -0.5, 0.5, 80);
}

TEST_P(NodeTest, FullyConnectedRank1) {
  ExpectFullyConnectedMatches({6}, 4, true, -kInf, kInf, 90);
}

// ---------------------------------------------------------------------------
// Binary elementwise ops, broadcasting, against the portable kernels (plus a
// clamp for the fused bounds).

void ExpectBinaryMatches(const char* op, const char* kernel, std::vector<int64_t> a_sizes,
                         std::vector<int64_t> b_sizes, std::vector<int64_t> out_sizes,
                         std::vector<double> floats, uint32_t seed, float low = -1,
                         float high = 1) {
  auto numel = [](const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return static_cast<size_t>(n);
  };
  const std::vector<float> a = RandomFloats(numel(a_sizes), seed);
  const std::vector<float> b = RandomFloats(numel(b_sizes), seed + 1, low, high);
  DelegateArgs ref;
  const size_t ra = ref.Add(a_sizes, a), rb = ref.Add(b_sizes, b), rout = ref.Add(out_sizes);
  ASSERT_EQ(RunPortable(kernel, {K::Tensor(ra), K::Tensor(rb), K::Tensor(rout)}, ref), Error::kOk);
  std::vector<float> expected = ref.Values(rout);
  if (!floats.empty()) {
    for (float& v : expected) {
      v = std::min(std::max(v, static_cast<float>(floats[0])), static_cast<float>(floats[1]));
    }
  }

  BlobGraph blob;
  auto dims = [](const std::vector<int64_t>& s) {
    return std::vector<uint64_t>(s.begin(), s.end());
  };
  const uint32_t va = blob.Value(dims(a_sizes), 0), vb = blob.Value(dims(b_sizes), 1);
  const uint32_t vy = blob.Value(dims(out_sizes), 2, true);
  blob.Node(op, {va, vb}, vy, {}, floats);
  DelegateArgs args;
  args.Add(a_sizes, a);
  args.Add(b_sizes, b);
  args.Add(out_sizes);
  ASSERT_EQ(RunDelegate(blob, args, 2), Error::kOk) << op;
  EXPECT_LE(MaxAbsDiff(args.Values(2), expected), kTolerance) << op;
}

TEST_P(NodeTest, Add2BroadcastsAndClamps) {
  ExpectBinaryMatches("add2", "add", {2, 3, 4}, {3, 1}, {2, 3, 4}, {-0.5, 0.5}, 100);
  ExpectBinaryMatches("add2", "add", {4}, {2, 3, 4}, {2, 3, 4}, {-kInf, kInf}, 101);
}

TEST_P(NodeTest, Multiply2) {
  ExpectBinaryMatches("multiply2", "mul", {2, 1, 4}, {1, 3, 4}, {2, 3, 4}, {-kInf, kInf}, 110);
  ExpectBinaryMatches("multiply2", "mul", {2, 3}, {2, 3}, {2, 3}, {0, 0.1}, 111);
}

TEST_P(NodeTest, Subtract) {
  ExpectBinaryMatches("subtract", "sub", {3, 5}, {5}, {3, 5}, {-kInf, kInf}, 120);
}

TEST_P(NodeTest, Divide) {
  ExpectBinaryMatches("divide", "div", {2, 6}, {2, 1}, {2, 6}, {-kInf, kInf}, 130, 0.5f, 2.0f);
  ExpectBinaryMatches("divide", "div", {2, 6}, {2, 6}, {2, 6}, {-1, 1}, 131, 0.1f, 2.0f);
}

TEST_P(NodeTest, BinaryOpsTakeARank0BlobConstant) {
  // A decomposition constant (hardsigmoid's 1/6, say) may have no dims.
  BlobGraph blob;
  const uint32_t x = blob.Value({2, 3}, 0), c = blob.Constant({}, {0.5f});
  const uint32_t y = blob.Value({2, 3}, 1, true);
  blob.Node("multiply2", {x, c}, y, {}, {-kInf, kInf});
  DelegateArgs args;
  args.Add({2, 3}, {1, 2, 3, 4, 5, 6});
  args.Add({2, 3});
  ASSERT_EQ(RunDelegate(blob, args), Error::kOk);
  EXPECT_EQ(args.Values(1), (std::vector<float>{0.5f, 1, 1.5f, 2, 2.5f, 3}));
}

TEST_P(NodeTest, Maximum2AndMinimum2) {
  ExpectBinaryMatches("maximum2", "maximum", {2, 3, 4}, {1, 4}, {2, 3, 4}, {}, 140);
  ExpectBinaryMatches("minimum2", "minimum", {3, 1}, {1, 5}, {3, 5}, {}, 141);
}

// ---------------------------------------------------------------------------
// Unary ops and softmax.

using Reference = std::function<Error(DelegateArgs& ref, size_t x, size_t out)>;

// `values` (30 of them), when given, replace the random input.
void ExpectUnaryMatches(const char* op, std::vector<double> floats, const Reference& reference,
                        uint32_t seed, float low = -2, float high = 2,
                        std::vector<float> values = {}) {
  const std::vector<int64_t> sizes = {2, 3, 5};
  const std::vector<float> input = values.empty() ? RandomFloats(30, seed, low, high) : values;
  DelegateArgs ref;
  const size_t rx = ref.Add(sizes, input), rout = ref.Add(sizes);
  ASSERT_EQ(reference(ref, rx, rout), Error::kOk) << op;

  BlobGraph blob;
  const uint32_t x = blob.Value({2, 3, 5}, 0), y = blob.Value({2, 3, 5}, 1, true);
  blob.Node(op, {x}, y, {}, floats);
  DelegateArgs args;
  args.Add(sizes, input);
  args.Add(sizes);
  ASSERT_EQ(RunDelegate(blob, args, 2), Error::kOk) << op;
  EXPECT_LE(MaxAbsDiff(args.Values(1), ref.Values(rout)), kTolerance) << op;
}

Reference Portable(const char* kernel, std::vector<KernelArg> attributes = {}) {
  return [kernel, attributes](DelegateArgs& ref, size_t x, size_t out) {
    std::vector<KernelArg> args = {K::Tensor(x)};
    args.insert(args.end(), attributes.begin(), attributes.end());
    args.push_back(K::Tensor(out));
    return RunPortable(kernel, args, ref);
  };
}

Reference Elementwise(std::function<float(float)> f) {
  return [f](DelegateArgs& ref, size_t x, size_t out) {
    std::vector<float> values = ref.Values(x);
    for (float& v : values) v = f(v);
    ref.Set(out, values);
    return Error::kOk;
  };
}

TEST_P(NodeTest, Clamp) {
  ExpectUnaryMatches("clamp", {-0.5, 1.0}, Portable("clamp", {K::Double(-0.5), K::Double(1.0)}),
                     200);
  ExpectUnaryMatches("clamp", {0, kInf}, Portable("clamp", {K::Double(0), K::Double(kInf)}), 201);
}

TEST_P(NodeTest, LeakyRelu) {
  ExpectUnaryMatches("leaky_relu", {0.1}, Portable("leaky_relu", {K::Double(0.1)}), 210);
}

TEST_P(NodeTest, Elu) {
  ExpectUnaryMatches("elu", {0.7},
                     Elementwise([](float x) { return x > 0 ? x : 0.7f * std::expm1(x); }), 220);
}

TEST_P(NodeTest, Hardswish) {
  ExpectUnaryMatches("hardswish", {}, Portable("hardswish"), 230, -4, 4);
}

TEST_P(NodeTest, Sigmoid) { ExpectUnaryMatches("sigmoid", {}, Portable("sigmoid"), 240, -6, 6); }

TEST_P(NodeTest, Negate) { ExpectUnaryMatches("negate", {}, Portable("neg"), 250); }

TEST_P(NodeTest, Abs) { ExpectUnaryMatches("abs", {}, Portable("abs"), 260); }

TEST_P(NodeTest, SquareRoot) {
  ExpectUnaryMatches("square_root", {}, Portable("sqrt"), 270, 0.0f, 4.0f);
}

TEST_P(NodeTest, Square) {
  ExpectUnaryMatches("square", {}, Elementwise([](float x) { return x * x; }), 280);
}

// Against the portable kernels, on random values and on every half from -7.5 to 7 (where
// rounding half to even differs from rounding half away from zero).
std::vector<float> Halves() {
  std::vector<float> values(30);
  for (size_t i = 0; i < values.size(); ++i) values[i] = (static_cast<float>(i) - 15.0f) * 0.5f;
  return values;
}

TEST_P(NodeTest, Floor) {
  ExpectUnaryMatches("floor", {}, Portable("floor"), 281, -4, 4);
  ExpectUnaryMatches("floor", {}, Portable("floor"), 0, 0, 0, Halves());
}
TEST_P(NodeTest, Ceiling) {
  ExpectUnaryMatches("ceiling", {}, Portable("ceil"), 282, -4, 4);
  ExpectUnaryMatches("ceiling", {}, Portable("ceil"), 0, 0, 0, Halves());
}
TEST_P(NodeTest, BankersRounding) {
  ExpectUnaryMatches("bankers_rounding", {}, Portable("round"), 283, -4, 4);
  ExpectUnaryMatches("bankers_rounding", {}, Portable("round"), 0, 0, 0, Halves());
}

// prelu over [6, 5] with one slope per channel (the last dim), against the portable kernel
// on the same [6, 5] (a 2-d input's channels are dim 1, its last); the slope must be static.
TEST_P(NodeTest, Prelu) {
  const std::vector<float> input = RandomFloats(30, 284, -3, 3);
  const std::vector<float> slopes = {0.1f, -0.5f, 2.0f, 0.0f, 1.0f};
  DelegateArgs ref;
  const size_t rx = ref.Add({6, 5}, input), rw = ref.Add({5}, slopes), rout = ref.Add({6, 5});
  ASSERT_EQ(RunPortable("prelu", {K::Tensor(rx), K::Tensor(rw), K::Tensor(rout)}, ref), Error::kOk);

  BlobGraph blob;
  const uint32_t x = blob.Value({6, 5}, 0), y = blob.Value({6, 5}, 1, true);
  blob.Node("prelu", {x, blob.Constant({5}, slopes)}, y);
  DelegateArgs args;
  args.Add({6, 5}, input);
  args.Add({6, 5});
  ASSERT_EQ(RunDelegate(blob, args, 2), Error::kOk);
  EXPECT_LE(MaxAbsDiff(args.Values(1), ref.Values(rout)), kTolerance);

  // A slope computed at run time is refused.
  BlobGraph dynamic;
  const uint32_t dx = dynamic.Value({6, 5}, 0), dw = dynamic.Value({5}, 1),
                 dy = dynamic.Value({6, 5}, 2, true);
  dynamic.Node("prelu", {dx, dw}, dy);
  DelegateArgs dynamic_args;
  dynamic_args.Add({6, 5}, input);
  dynamic_args.Add({5}, slopes);
  dynamic_args.Add({6, 5});
  EXPECT_NE(RunDelegate(dynamic, dynamic_args), Error::kOk);
}

TEST_P(NodeTest, SoftmaxOverTheLastDim) {
  ExpectUnaryMatches("softmax", {}, Portable("softmax", {K::Int(2)}), 290, -4, 4);
}

// ---------------------------------------------------------------------------
// Pooling, against the portable kernels on NCHW.

struct PoolCase {
  int64_t n = 1, c = 3, h = 7, w = 8, ph = 3, pw = 2, sh = 2, sw = 1;
  int64_t pad_top = 1, pad_right = 1, pad_bottom = 1, pad_left = 1, dh = 1, dw = 1;
  double min = -kInf, max = kInf;
};

void ExpectPoolingMatches(const char* op, const PoolCase& k, uint32_t seed) {
  const int64_t oh = (k.h + k.pad_top + k.pad_bottom - ((k.ph - 1) * k.dh + 1)) / k.sh + 1;
  const int64_t ow = (k.w + k.pad_left + k.pad_right - ((k.pw - 1) * k.dw + 1)) / k.sw + 1;
  const std::vector<float> input = RandomFloats(k.n * k.c * k.h * k.w, seed);
  const bool max_pool = std::string(op) == "max_pooling_2d";
  DelegateArgs ref;
  const size_t x = ref.Add({k.n, k.c, k.h, k.w}, input), out = ref.Add({k.n, k.c, oh, ow});
  std::vector<KernelArg> ref_args = {K::Tensor(x), K::Ints({k.ph, k.pw}), K::Ints({k.sh, k.sw}),
                                     K::Ints({k.pad_top, k.pad_left})};
  if (max_pool) {
    ref_args.insert(ref_args.end(), {K::Ints({k.dh, k.dw}), K::Bool(false), K::Tensor(out)});
  } else {
    // XNNPACK averages over the window's non-padding elements.
    ref_args.insert(ref_args.end(), {K::Bool(false), K::Bool(false), K::Tensor(out)});
  }
  ASSERT_EQ(RunPortable(max_pool ? "max_pool2d" : "avg_pool2d", ref_args, ref), Error::kOk);
  std::vector<float> expected = ref.Values(out);
  for (float& v : expected) {
    v = std::min(std::max(v, static_cast<float>(k.min)), static_cast<float>(k.max));
  }

  BlobGraph blob;
  const uint64_t n = k.n, c = k.c;
  const uint32_t vx = blob.Value({n, uint64_t(k.h), uint64_t(k.w), c}, 0);
  const uint32_t vy = blob.Value({n, uint64_t(oh), uint64_t(ow), c}, 1, true);
  std::vector<int64_t> ints = {k.pad_top, k.pad_right, k.pad_bottom, k.pad_left,
                               k.ph,      k.pw,        k.sh,         k.sw};
  if (max_pool) ints.insert(ints.end(), {k.dh, k.dw});
  blob.Node(op, {vx}, vy, ints, {k.min, k.max});
  DelegateArgs args;
  args.Add({k.n, k.h, k.w, k.c}, NchwToNhwc(input, k.n, k.c, k.h, k.w));
  args.Add({k.n, oh, ow, k.c});
  ASSERT_EQ(RunDelegate(blob, args, 2), Error::kOk);
  EXPECT_LE(MaxAbsDiff(NhwcToNchw(args.Values(1), k.n, oh, ow, k.c), expected), kTolerance);
}

TEST_P(NodeTest, MaxPooling2d) {
  PoolCase k;
  ExpectPoolingMatches("max_pooling_2d", k, 300);
  k.dh = k.dw = 2;
  k.pad_top = 0;
  k.min = -0.5;
  k.max = 0.5;
  ExpectPoolingMatches("max_pooling_2d", k, 301);
  k.pad_top = k.pad_bottom = k.pad_left = k.pad_right = 0;
  k.dw = 1;  // unequal dilations are fine without padding
  ExpectPoolingMatches("max_pooling_2d", k, 302);
}

TEST_P(NodeTest, AveragePooling2d) {
  PoolCase k;
  k.pad_top = k.pad_right = k.pad_bottom = k.pad_left = 0;
  k.n = 2;
  ExpectPoolingMatches("average_pooling_2d", k, 310);
  k.pad_top = k.pad_bottom = k.pad_left = k.pad_right = 1;
  k.min = -0.2;
  k.max = 0.2;
  ExpectPoolingMatches("average_pooling_2d", k, 311);
}

TEST_P(NodeTest, GlobalAveragePooling2d) {
  const int64_t n = 2, c = 5, h = 4, w = 3;
  const std::vector<float> input = RandomFloats(n * c * h * w, 320);
  DelegateArgs ref;
  const size_t x = ref.Add({n, c, h, w}, input), out = ref.Add({n, c, 1, 1});
  ASSERT_EQ(
      RunPortable("mean", {K::Tensor(x), K::Ints({2, 3}), K::Bool(true), K::Tensor(out)}, ref),
      Error::kOk);
  BlobGraph blob;
  const uint32_t vx = blob.Value({2, 4, 3, 5}, 0), vy = blob.Value({2, 1, 1, 5}, 1, true);
  blob.Node("global_average_pooling_2d", {vx}, vy, {}, {-kInf, kInf});
  DelegateArgs args;
  args.Add({n, h, w, c}, NchwToNhwc(input, n, c, h, w));
  args.Add({n, 1, 1, c});
  ASSERT_EQ(RunDelegate(blob, args, 2), Error::kOk);
  // [N, C, 1, 1] and [N, 1, 1, C] hold the same bytes.
  EXPECT_LE(MaxAbsDiff(args.Values(1), ref.Values(out)), kTolerance);
}

// XNNPACK's bilinear resize against the portable upsample_bilinear2d, both corner modes, up
// and down.
TEST_P(NodeTest, StaticResizeBilinear2d) {
  struct Case {
    int64_t h, w, oh, ow;
    bool align_corners;
  };
  const Case cases[] = {{5, 7, 10, 14, false}, {4, 4, 3, 9, false}, {5, 7, 12, 17, true},
                        {6, 5, 2, 2, true},    {1, 1, 4, 3, false}};
  const int64_t n = 2, c = 3;
  uint32_t seed = 330;
  for (const Case& k : cases) {
    SCOPED_TRACE(std::to_string(k.h) + "x" + std::to_string(k.w) + " to " +
                 std::to_string(k.oh) + "x" + std::to_string(k.ow));
    const std::vector<float> input = RandomFloats(n * c * k.h * k.w, seed++);
    DelegateArgs ref;
    const size_t x = ref.Add({n, c, k.h, k.w}, input), out = ref.Add({n, c, k.oh, k.ow});
    ASSERT_EQ(RunPortable("upsample_bilinear2d",
                          {K::Tensor(x), K::Ints({k.oh, k.ow}), K::Bool(k.align_corners),
                           K::Double(0), K::Double(0), K::Tensor(out)},
                          ref),
              Error::kOk);
    BlobGraph blob;
    const uint32_t vx = blob.Value({uint64_t(n), uint64_t(k.h), uint64_t(k.w), uint64_t(c)}, 0);
    const uint32_t vy =
        blob.Value({uint64_t(n), uint64_t(k.oh), uint64_t(k.ow), uint64_t(c)}, 1, true);
    blob.Node("static_resize_bilinear_2d", {vx}, vy, {k.oh, k.ow, k.align_corners ? 1 : 0}, {});
    DelegateArgs args;
    args.Add({n, k.h, k.w, c}, NchwToNhwc(input, n, c, k.h, k.w));
    args.Add({n, k.oh, k.ow, c});
    ASSERT_EQ(RunDelegate(blob, args, 2), Error::kOk);
    EXPECT_LE(MaxAbsDiff(NhwcToNchw(args.Values(1), n, k.oh, k.ow, c), ref.Values(out)),
              kTolerance);
  }
}

// ---------------------------------------------------------------------------
// Data movement.

TEST_P(NodeTest, StaticReshapeKeepsTheElements) {
  const std::vector<float> input = RandomFloats(24, 400);
  BlobGraph blob;
  const uint32_t x = blob.Value({2, 3, 4}, 0), y = blob.Value({4, 6}, 1, true);
  blob.Node("static_reshape", {x}, y, {4, 6});
  DelegateArgs args;
  args.Add({2, 3, 4}, input);
  args.Add({4, 6});
  ASSERT_EQ(RunDelegate(blob, args), Error::kOk);
  EXPECT_EQ(args.Values(1), input);
}

TEST_P(NodeTest, StaticConstantPad) {
  const std::vector<float> input = RandomFloats(12, 410);
  DelegateArgs ref;
  const size_t x = ref.Add({1, 2, 3, 2}, input), out = ref.Add({1, 4, 4, 3});
  // Portable pad pairs run innermost dim first.
  ASSERT_EQ(
      RunPortable("constant_pad",
                  {K::Tensor(x), K::Ints({0, 1, 0, 1, 1, 1, 0, 0}), K::Double(0.5), K::Tensor(out)},
                  ref),
      Error::kOk);
  BlobGraph blob;
  const uint32_t vx = blob.Value({1, 2, 3, 2}, 0), vy = blob.Value({1, 4, 4, 3}, 1, true);
  blob.Node("static_constant_pad", {vx}, vy, {0, 1, 0, 0, 0, 1, 1, 1}, {0.5});
  DelegateArgs args;
  args.Add({1, 2, 3, 2}, input);
  args.Add({1, 4, 4, 3});
  ASSERT_EQ(RunDelegate(blob, args), Error::kOk);
  EXPECT_EQ(args.Values(1), ref.Values(out));
}

// ---------------------------------------------------------------------------
// Hostile parameters and shapes: refused before XNNPACK sees them.

// A single-node blob over argument tensors of the given shapes (the last is
// the output; `constants` marks which are weights).
Error RunSingleNode(const std::string& op, const std::vector<std::vector<int64_t>>& shapes,
                    std::vector<int64_t> ints, std::vector<double> floats,
                    const std::vector<bool>& constants = {}) {
  BlobGraph blob;
  DelegateArgs args;
  std::vector<uint32_t> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const bool is_output = i + 1 == shapes.size();
    const uint32_t v = blob.Value(std::vector<uint64_t>(shapes[i].begin(), shapes[i].end()),
                                  static_cast<int32_t>(i), is_output);
    if (!is_output) inputs.push_back(v);
    int64_t numel = 1;
    for (int64_t s : shapes[i]) numel *= s;
    const bool constant = i < constants.size() && constants[i];
    args.Add(shapes[i], RandomFloats(static_cast<size_t>(numel), 7), constant);
  }
  blob.Node(op, inputs, static_cast<uint32_t>(shapes.size() - 1), std::move(ints),
            std::move(floats));
  return RunDelegate(blob, args);
}

const std::vector<int64_t> kConvInts = {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 3, 4};
const std::vector<std::vector<int64_t>> kConvShapes = {
    {1, 5, 5, 3}, {4, 3, 3, 3}, {4}, {1, 5, 5, 4}};
const std::vector<bool> kWeights = {false, true, true};

TEST_P(NodeTest, ConvolutionBaselineIsAccepted) {
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, kConvInts, {-kInf, kInf}, kWeights),
            Error::kOk);
}

TEST_P(NodeTest, ConvolutionRefusesBadParameters) {
  auto with = [](size_t index, int64_t value) {
    std::vector<int64_t> ints = kConvInts;
    ints[index] = value;
    return ints;
  };
  const std::vector<double> no_clamp = {-kInf, kInf};
  for (size_t pad = 0; pad < 4; ++pad) {
    EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, with(pad, -1), no_clamp, kWeights),
              Error::kInvalidProgram)
        << "negative padding " << pad;
  }
  for (size_t positive = 4; positive < 13; ++positive) {
    EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, with(positive, 0), no_clamp, kWeights),
              Error::kInvalidProgram)
        << "zero parameter " << positive;
  }
  EXPECT_EQ(
      RunSingleNode("convolution_2d", kConvShapes, with(6, int64_t{1} << 33), no_clamp, kWeights),
      Error::kInvalidProgram);  // beyond uint32
  // Parameter counts.
  std::vector<int64_t> short_ints(kConvInts.begin(), kConvInts.end() - 1);
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, short_ints, no_clamp, kWeights),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, kConvInts, {0.0}, kWeights),
            Error::kInvalidProgram);
  // Output range empty or NaN.
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, kConvInts, {1, 0}, kWeights),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, kConvInts, {NAN, 1}, kWeights),
            Error::kInvalidProgram);
}

TEST_P(NodeTest, ConvolutionRefusesInconsistentShapes) {
  const std::vector<double> no_clamp = {-kInf, kInf};
  auto shapes_with = [](size_t index, std::vector<int64_t> shape) {
    auto shapes = kConvShapes;
    shapes[index] = std::move(shape);
    return shapes;
  };
  // Output claims more (or fewer) pixels than the window produces: XNNPACK
  // would write past (or short of) the buffer.
  EXPECT_EQ(
      RunSingleNode("convolution_2d", shapes_with(3, {1, 6, 5, 4}), kConvInts, no_clamp, kWeights),
      Error::kInvalidProgram);
  EXPECT_EQ(
      RunSingleNode("convolution_2d", shapes_with(3, {1, 5, 5, 3}), kConvInts, no_clamp, kWeights),
      Error::kInvalidProgram);
  // Filter smaller than kernel * channels: XNNPACK would read past it.
  EXPECT_EQ(
      RunSingleNode("convolution_2d", shapes_with(1, {4, 2, 3, 3}), kConvInts, no_clamp, kWeights),
      Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("convolution_2d", shapes_with(2, {3}), kConvInts, no_clamp, kWeights),
            Error::kInvalidProgram);
  // Input channels other than groups * group_input_channels; not NHWC.
  EXPECT_EQ(
      RunSingleNode("convolution_2d", shapes_with(0, {1, 5, 5, 2}), kConvInts, no_clamp, kWeights),
      Error::kInvalidProgram);
  EXPECT_EQ(
      RunSingleNode("convolution_2d", shapes_with(0, {5, 5, 3}), kConvInts, no_clamp, kWeights),
      Error::kInvalidProgram);
  // Window larger than the padded input.
  std::vector<int64_t> big_kernel = kConvInts;
  big_kernel[4] = 9;
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, big_kernel, no_clamp, kWeights),
            Error::kInvalidProgram);
  // Filter or bias not constant (XNNPACK packs them at init).
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, kConvInts, no_clamp, {false, false, true}),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("convolution_2d", kConvShapes, kConvInts, no_clamp, {false, true, false}),
            Error::kInvalidProgram);
  // Input counts.
  EXPECT_EQ(RunSingleNode("convolution_2d", {{1, 5, 5, 3}, {1, 5, 5, 4}}, kConvInts, no_clamp),
            Error::kInvalidProgram);
}

TEST_P(NodeTest, DepthwiseRefusesBadParametersAndShapes) {
  const std::vector<int64_t> ints = {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 2, 3};
  const std::vector<std::vector<int64_t>> shapes = {{1, 5, 5, 3}, {1, 3, 3, 6}, {6}, {1, 5, 5, 6}};
  const std::vector<double> no_clamp = {-kInf, kInf};
  EXPECT_EQ(RunSingleNode("depthwise_convolution_2d", shapes, ints, no_clamp, kWeights),
            Error::kOk);
  std::vector<int64_t> negative = ints;
  negative[2] = -3;
  EXPECT_EQ(RunSingleNode("depthwise_convolution_2d", shapes, negative, no_clamp, kWeights),
            Error::kInvalidProgram);
  std::vector<int64_t> wrong_channels = ints;
  wrong_channels[11] = 4;
  EXPECT_EQ(RunSingleNode("depthwise_convolution_2d", shapes, wrong_channels, no_clamp, kWeights),
            Error::kInvalidProgram);
  auto bad_filter = shapes;
  bad_filter[1] = {6, 3, 3, 1};  // OHWI instead of 1HWO
  EXPECT_EQ(RunSingleNode("depthwise_convolution_2d", bad_filter, ints, no_clamp, kWeights),
            Error::kInvalidProgram);
}

TEST_P(NodeTest, FullyConnectedRefusesInconsistentShapes) {
  const std::vector<double> no_clamp = {-kInf, kInf};
  EXPECT_EQ(RunSingleNode("fully_connected", {{2, 8}, {3, 8}, {3}, {2, 3}}, {}, no_clamp, kWeights),
            Error::kOk);
  EXPECT_EQ(RunSingleNode("fully_connected", {{2, 8}, {3, 7}, {3}, {2, 3}}, {}, no_clamp, kWeights),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("fully_connected", {{2, 8}, {3, 8}, {3}, {2, 4}}, {}, no_clamp, kWeights),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("fully_connected", {{2, 8}, {3, 8}, {3}, {6}}, {}, no_clamp, kWeights),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("fully_connected", {{2, 8}, {24}, {3}, {2, 3}}, {}, no_clamp, kWeights),
            Error::kInvalidProgram);
  EXPECT_EQ(
      RunSingleNode("fully_connected", {{2, 8}, {3, 8}, {3}, {2, 3}}, {1}, no_clamp, kWeights),
      Error::kInvalidProgram);  // fully_connected takes no ints
}

TEST_P(NodeTest, ElementwiseRefusesInconsistentShapes) {
  const std::vector<double> no_clamp = {-kInf, kInf};
  EXPECT_EQ(RunSingleNode("add2", {{2, 3}, {4, 3}, {2, 3}}, {}, no_clamp), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("add2", {{2, 3}, {1, 3}, {2, 4}}, {}, no_clamp), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("add2", {{2, 3}, {1, 3}, {6}}, {}, no_clamp), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("add2", {{2, 3}, {1, 3}, {2, 3}}, {}, {}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("maximum2", {{2, 3}, {1, 3}, {2, 3}}, {}, {0, 1}),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("sigmoid", {{2, 3}, {3, 2}}, {}, {}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("sigmoid", {{2, 3}, {2, 3}}, {}, {}), Error::kOk);
  // XNNPACK reads the last dim of a unary op's input: rank 0 is refused.
  EXPECT_EQ(RunSingleNode("sigmoid", {{}, {}}, {}, {}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("softmax", {{2, 3}, {2, 3, 1}}, {}, {}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("clamp", {{4}, {4}}, {}, {1, -1}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("clamp", {{4}, {4}}, {}, {NAN, 1}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("leaky_relu", {{4}, {4}}, {}, {NAN}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("elu", {{4}, {4}}, {}, {kInf}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("negate", {{4}, {4}}, {}, {1.0}), Error::kInvalidProgram);
}

TEST_P(NodeTest, PoolingRefusesBadParametersAndShapes) {
  const std::vector<double> no_clamp = {-kInf, kInf};
  const std::vector<int64_t> max_ints = {0, 0, 0, 0, 2, 2, 2, 2, 1, 1};
  EXPECT_EQ(RunSingleNode("max_pooling_2d", {{1, 4, 4, 3}, {1, 2, 2, 3}}, max_ints, no_clamp),
            Error::kOk);
  std::vector<int64_t> negative = max_ints;
  negative[3] = -1;
  EXPECT_EQ(RunSingleNode("max_pooling_2d", {{1, 4, 4, 3}, {1, 2, 2, 3}}, negative, no_clamp),
            Error::kInvalidProgram);
  std::vector<int64_t> zero_stride = max_ints;
  zero_stride[6] = 0;
  EXPECT_EQ(RunSingleNode("max_pooling_2d", {{1, 4, 4, 3}, {1, 2, 2, 3}}, zero_stride, no_clamp),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("max_pooling_2d", {{1, 4, 4, 3}, {1, 3, 2, 3}}, max_ints, no_clamp),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("average_pooling_2d", {{1, 4, 4, 3}, {1, 2, 2, 3}}, max_ints, no_clamp),
            Error::kInvalidProgram);  // 10 ints where 8 are expected
  EXPECT_EQ(RunSingleNode("global_average_pooling_2d", {{1, 4, 4, 3}, {1, 3}}, {}, no_clamp),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("global_average_pooling_2d", {{4, 4, 3}, {1, 1, 3}}, {}, no_clamp),
            Error::kInvalidProgram);
  // Padding with unequal dilations, or beyond half the window: the snapshot
  // computes those wrongly.
  const std::vector<int64_t> unequal = {1, 1, 1, 1, 2, 2, 1, 1, 2, 1};
  EXPECT_EQ(RunSingleNode("max_pooling_2d", {{1, 4, 4, 3}, {1, 4, 5, 3}}, unequal, no_clamp),
            Error::kInvalidProgram);
  const std::vector<int64_t> wide_pad = {2, 0, 0, 0, 2, 2, 1, 1, 1, 1};
  EXPECT_EQ(RunSingleNode("max_pooling_2d", {{1, 4, 4, 3}, {1, 5, 3, 3}}, wide_pad, no_clamp),
            Error::kInvalidProgram);
  // A 1x1 max pooling passes our checks; this XNNPACK refuses it itself.
  const std::vector<int64_t> identity = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(RunSingleNode("max_pooling_2d", {{1, 4, 4, 3}, {1, 4, 4, 3}}, identity, no_clamp),
            Error::kDelegateFailed);
}

TEST_P(NodeTest, DataMovementRefusesInconsistentShapes) {
  EXPECT_EQ(RunSingleNode("static_reshape", {{2, 3}, {3, 2}}, {2, 3}, {}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("static_reshape", {{2, 3}, {7}}, {7}, {}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("static_reshape", {{2, 3}, {6}}, {-6}, {}), Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("static_reshape", {{2, 3}, {6}}, {1, 1, 1, 1, 1, 1, 6}, {}),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("static_constant_pad", {{2, 3}, {3, 5}}, {0, 1, 1, 1}, {0}), Error::kOk);
  EXPECT_EQ(RunSingleNode("static_constant_pad", {{2, 3}, {3, 5}}, {0, 1, 1, 1}, {}),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("static_constant_pad", {{2, 3}, {3, 5}}, {0, 1, 1}, {0}),
            Error::kInvalidProgram);
  EXPECT_EQ(RunSingleNode("static_constant_pad", {{2, 3}, {1, 3}}, {0, 0, -1, 0}, {0}),
            Error::kInvalidProgram);  // negative (cropping) padding
  EXPECT_EQ(RunSingleNode("static_constant_pad", {{2, 3}, {3, 6}}, {0, 1, 1, 1}, {0}),
            Error::kInvalidProgram);
}

}  // namespace
}  // namespace torchir::testing::xnnpack
