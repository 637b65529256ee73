// edge.cast between all 17 dtypes. Pairs LibTorch 1.13 knows are compared
// bit-exactly with the reference on inputs built to hit each conversion's edge
// cases (every float16 and bfloat16 pattern, NaN, infinities, out-of-range
// values, rounding ties, subnormals). uint16/32/64 and float8, which it lacks,
// are checked against hand-computed values, and every one of the 289 pairs by
// round trips.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_harness.h"
#include "tests/runtime/kernels/kernel_test_support.h"
#include "tests/support/graph_builder.h"

namespace torchir::testing {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;

constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();
constexpr float kInff = std::numeric_limits<float>::infinity();

std::unique_ptr<ir::Graph> CastGraph(DType from, DType to, const Shape& sizes,
                                     const Shape* out_sizes = nullptr) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(from, sizes));
  b.Output(b.Op("edge.cast", {x})
               .Attr("dtype", ir::AttrValue::OfDType(to))
               .Out(TypeOf(to, out_sizes != nullptr ? *out_sizes : sizes)));
  return b.Build();
}

std::vector<DType> AllDTypes() {
  std::vector<DType> dtypes;
  for (int i = 0; i < ir::kNumDTypes; ++i) dtypes.push_back(static_cast<DType>(i));
  return dtypes;
}

// float32 values at the edges of every conversion.
std::vector<float> FloatEdgeValues() {
  std::vector<float> v = {
      kNaNf, -kNaNf, kInff, -kInff, 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f,
      0.99999994f, 127.9f, 128.0f, 255.5f, 256.0f, -128.5f, -129.0f, 32767.5f, 32768.0f, 65535.0f,
      65536.0f, 70000.0f, -70000.0f,
      // int32 and int64 limits (2^31, 2^63 and the floats around them).
      2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 3e9f, -3e9f, 4294967296.0f,
      5e9f, 9223371487098961920.0f, 9223372036854775808.0f, -9223372036854775808.0f, 1e19f, 1e20f,
      -1e20f, 3.4e38f, -3.4e38f,
      // float16: max, the rounding midpoint to inf, normal/subnormal limits, ties.
      65504.0f, 65519.99f, 65520.0f, 6.1035156e-05f, 5.9604645e-08f, 2.9802322e-08f, 8.9406967e-08f,
      1.00048828125f, 1.00146484375f, 2049.0f, 2051.0f,
      // bfloat16: ties and the overflow midpoint.
      1.00390625f, 1.01171875f, 3.3895314e38f, 3.3961775e38f,
      // float32 subnormals.
      1e-40f, -1e-45f, 1.1754942e-38f};
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> uniform(-1000.0f, 1000.0f);
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (int i = 0; i < 200; ++i) v.push_back(uniform(rng));
  for (int i = 0; i < 200; ++i) {
    v.push_back(std::ldexp(uniform(rng) / 1000.0f, exponent(rng)));
  }
  return v;
}

std::vector<double> DoubleEdgeValues() {
  std::vector<double> v;
  for (float f : FloatEdgeValues()) v.push_back(f);
  // Values that round differently directly than through float32 (c10 goes
  // through float32), and int32 limits only a double can straddle.
  v.insert(v.end(), {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                     1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40), 2147483647.9, -2147483648.9,
                     2147483648.0, -2147483649.0, 1e300, -1e300, 1e-310, 9223372036854774784.0,
                     3.141592653589793});
  return v;
}

template <typename T>
std::vector<T> RandomIntegers(std::vector<T> edges, int count, uint32_t seed) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) edges.push_back(static_cast<T>(rng()));
  return edges;
}

// Inputs for a cast from `dtype` that exercise its conversions.
reference::HostTensor CastSource(DType dtype) {
  auto tensor = [&](auto values) {
    return HostTensorOf(TypeOf(dtype, {static_cast<int64_t>(values.size())}), values);
  };
  switch (dtype) {
    case DType::kFloat32:
      return tensor(FloatEdgeValues());
    case DType::kFloat64:
      return tensor(DoubleEdgeValues());
    case DType::kFloat16:
    case DType::kBFloat16: {
      std::vector<uint16_t> every_pattern(65536);
      for (int i = 0; i < 65536; ++i) every_pattern[i] = static_cast<uint16_t>(i);
      return tensor(every_pattern);
    }
    case DType::kInt8:
    case DType::kUInt8: {
      std::vector<uint8_t> every_value(256);
      for (int i = 0; i < 256; ++i) every_value[i] = static_cast<uint8_t>(i);
      return tensor(every_value);
    }
    case DType::kBool:
      return tensor(std::vector<uint8_t>{0, 1, 1, 0, 1});
    case DType::kInt16:
      return tensor(
          RandomIntegers<int16_t>({INT16_MIN, INT16_MAX, 0, -1, 2049, 2051, 4097, 255}, 100, 1));
    case DType::kInt32:
      return tensor(RandomIntegers<int32_t>({INT32_MIN, INT32_MAX, 16777217, 16777219, -16777217,
                                             2049, 65519, 65520, 70000, 255, 256, -129, 0},
                                            100, 2));
    case DType::kInt64:
      return tensor(RandomIntegers<int64_t>(
          {INT64_MIN, INT64_MAX, (int64_t{1} << 53) + 1, (int64_t{1} << 62) + 1,
           -(int64_t{1} << 62) - 1, int64_t{1} << 31, -(int64_t{1} << 31) - 1,
           (int64_t{1} << 32) + 5, 0, -1},
          100, 3));
    case DType::kComplex64: {
      const std::vector<float> parts = FloatEdgeValues();
      std::vector<float> pairs;  // real, imag interleaved; imag cycles through the list too
      for (size_t i = 0; i < parts.size(); ++i) {
        pairs.push_back(parts[i]);
        pairs.push_back(parts[(i * 7 + 3) % parts.size()]);
      }
      pairs.insert(pairs.end(), {0.0f, 1.0f, 0.0f, kNaNf, kNaNf, 0.0f});
      return HostTensorOf(TypeOf(dtype, {static_cast<int64_t>(pairs.size() / 2)}), pairs);
    }
    case DType::kComplex128: {
      const std::vector<double> parts = DoubleEdgeValues();
      std::vector<double> pairs;
      for (size_t i = 0; i < parts.size(); ++i) {
        pairs.push_back(parts[i]);
        pairs.push_back(parts[(i * 5 + 1) % parts.size()]);
      }
      pairs.insert(pairs.end(), {0.0, -2.0, 0.0, std::nan("")});
      return HostTensorOf(TypeOf(dtype, {static_cast<int64_t>(pairs.size() / 2)}), pairs);
    }
    default:
      return reference::HostTensor{};
  }
}

class CastReferenceTest : public ::testing::TestWithParam<DType> {};

// Conversions are exact operations: compare with zero tolerance.
TEST_P(CastReferenceTest, MatchesReferenceBitForBitToEveryDType) {
  const DType from = GetParam();
  const reference::HostTensor source = CastSource(from);
  for (DType to : AllDTypes()) {
    if (!ReferenceSupports(to)) continue;
    auto graph = CastGraph(from, to, source.type.sizes);
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, {source}, {0.0, 0.0})))
        << ir::DTypeName(from) << " -> " << ir::DTypeName(to);
  }
}

std::vector<DType> ReferenceDTypes() {
  std::vector<DType> dtypes;
  for (DType dtype : AllDTypes()) {
    if (ReferenceSupports(dtype)) dtypes.push_back(dtype);
  }
  return dtypes;
}

INSTANTIATE_TEST_SUITE_P(EverySource, CastReferenceTest, ::testing::ValuesIn(ReferenceDTypes()),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(ir::DTypeName(info.param));
                         });

TEST(CastKernelTest, RandomShapesMatchReference) {
  for (const Shape& sizes : {Shape{}, Shape{0, 4}, Shape{2, 3, 5}}) {
    auto graph = CastGraph(DType::kFloat32, DType::kInt32, sizes);
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 4, -100, 100))));
    graph = CastGraph(DType::kInt64, DType::kFloat16, sizes);
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 4, 0, 0, -999, 999))));
  }
}

// ---- dtypes the reference lacks --------------------------------------------------

// Runs a cast of `values` (the bytes of `from` elements, e.g. complex as pairs
// of floats) and returns the output as To.
template <typename To, typename From>
std::vector<To> Cast(DType from, DType to, const std::vector<From>& values) {
  const Shape sizes = {static_cast<int64_t>(values.size() * sizeof(From) / ir::DTypeSize(from))};
  auto graph = CastGraph(from, to, sizes);
  KernelOnlyResult r = RunKernelOnly(*graph, {HostTensorOf(TypeOf(from, sizes), values)});
  EXPECT_EQ(r.check, runtime::Error::kOk) << ir::DTypeName(from) << " -> " << ir::DTypeName(to);
  EXPECT_EQ(r.run, runtime::Error::kOk) << ir::DTypeName(from) << " -> " << ir::DTypeName(to);
  return r.outputs.empty() ? std::vector<To>() : ValuesOf<To>(r.outputs[0]);
}

// Small integers every dtype holds exactly, float8 included; through every pair
// and back to int64 they must come out unchanged.
TEST(CastKernelTest, EveryPairRoundTripsExactValues) {
  const std::vector<int64_t> values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16};
  const std::vector<int64_t> bools = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  for (DType from : AllDTypes()) {
    const std::vector<uint8_t> source_bytes = Cast<uint8_t>(DType::kInt64, from, values);
    const std::vector<int64_t> through_source = Cast<int64_t>(from, DType::kInt64, source_bytes);
    EXPECT_EQ(through_source, from == DType::kBool ? bools : values) << ir::DTypeName(from);
    for (DType to : AllDTypes()) {
      const std::vector<uint8_t> target_bytes = Cast<uint8_t>(from, to, source_bytes);
      const std::vector<int64_t> back = Cast<int64_t>(to, DType::kInt64, target_bytes);
      const bool through_bool = from == DType::kBool || to == DType::kBool;
      EXPECT_EQ(back, through_bool ? bools : values)
          << ir::DTypeName(from) << " -> " << ir::DTypeName(to);
    }
  }
}

TEST(CastKernelTest, Float32ToFloat8RoundsToNearestEven) {
  const std::vector<float> in = {0.0f,
                                 -0.0f,
                                 1.0f,
                                 -2.0f,
                                 448.0f,
                                 464.0f,  // tie between 448 and NaN's pattern: even, 448
                                 470.0f,  // rounds above 448: no such value, NaN
                                 480.0f,
                                 1e9f,
                                 kInff,
                                 -kInff,
                                 kNaNf,
                                 std::ldexp(1.0f, -9),   // smallest subnormal
                                 std::ldexp(1.0f, -10),  // tie with 0: even, 0
                                 std::ldexp(1.5f, -10),  // above the tie
                                 std::ldexp(1.0f, -6),   // smallest normal
                                 7 * std::ldexp(1.0f, -9),
                                 1.0625f,  // tie between 1 and 1.125: even, 1
                                 1.1875f,  // tie between 1.125 and 1.25: even, 1.25
                                 17.0f,
                                 300.0f};
  EXPECT_EQ(Cast<uint8_t>(DType::kFloat32, DType::kFloat8E4M3FN, in),
            (std::vector<uint8_t>{0x00, 0x80, 0x38, 0xc0, 0x7e, 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0xff,
                                  0x7f, 0x01, 0x00, 0x01, 0x08, 0x07, 0x38, 0x3a, 0x58, 0x79}));
  const std::vector<float> in5 = {
      1.0f,     57344.0f, 60000.0f, 61440.0f,  // tie: even is inf
      65536.0f, kInff,    -kInff,   kNaNf,    std::ldexp(1.0f, -16), std::ldexp(1.0f, -14),
      1.125f,   1.375f,   -0.0f};
  EXPECT_EQ(Cast<uint8_t>(DType::kFloat32, DType::kFloat8E5M2, in5),
            (std::vector<uint8_t>{0x3c, 0x7b, 0x7b, 0x7c, 0x7c, 0x7c, 0xfc, 0x7f, 0x01, 0x04, 0x3c,
                                  0x3e, 0x80}));
}

// The value of a float8 pattern, from the format's definition.
float Float8Value(uint8_t bits, int exponent_bits, bool has_infinity) {
  const int mantissa_bits = 7 - exponent_bits;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  const float sign = (bits & 0x80) != 0 ? -1.0f : 1.0f;
  const int max_exponent = (1 << exponent_bits) - 1;
  if (has_infinity && exponent == max_exponent) return mantissa == 0 ? sign * kInff : kNaNf;
  if (!has_infinity && exponent == max_exponent && mantissa == (1 << mantissa_bits) - 1) {
    return kNaNf;
  }
  if (exponent == 0)
    return sign * std::ldexp(static_cast<float>(mantissa), 1 - bias - mantissa_bits);
  return sign * std::ldexp(1.0f + std::ldexp(static_cast<float>(mantissa), -mantissa_bits),
                           exponent - bias);
}

TEST(CastKernelTest, Float8DecodesEveryPatternAndRoundTrips) {
  std::vector<uint8_t> every(256);
  for (int i = 0; i < 256; ++i) every[i] = static_cast<uint8_t>(i);
  for (auto [dtype, exponent_bits, has_infinity] :
       {std::tuple{DType::kFloat8E4M3FN, 4, false}, std::tuple{DType::kFloat8E5M2, 5, true}}) {
    const std::vector<float> decoded = Cast<float>(dtype, DType::kFloat32, every);
    ASSERT_EQ(decoded.size(), 256u);
    for (int i = 0; i < 256; ++i) {
      const float expected = Float8Value(static_cast<uint8_t>(i), exponent_bits, has_infinity);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(decoded[i])) << ir::DTypeName(dtype) << " " << i;
      } else {
        EXPECT_EQ(decoded[i], expected) << ir::DTypeName(dtype) << " " << i;
      }
    }
    // Every non-NaN pattern survives the wider floats and back.
    for (DType wide : {DType::kFloat32, DType::kFloat16, DType::kFloat64, DType::kBFloat16}) {
      const std::vector<uint8_t> back =
          Cast<uint8_t>(wide, dtype, Cast<uint8_t>(dtype, wide, every));
      for (int i = 0; i < 256; ++i) {
        if (std::isnan(decoded[i])) continue;
        EXPECT_EQ(back[i], i) << ir::DTypeName(dtype) << " via " << ir::DTypeName(wide);
      }
    }
  }
}

TEST(CastKernelTest, Float8ToAndFromOtherDTypes) {
  // 448, -448, NaN, the smallest subnormal, -0.
  const std::vector<uint8_t> e4m3 = {0x7e, 0xfe, 0x7f, 0x01, 0x80};
  EXPECT_EQ(Cast<int32_t>(DType::kFloat8E4M3FN, DType::kInt32, e4m3),
            (std::vector<int32_t>{448, -448, INT32_MIN, 0, 0}));
  EXPECT_EQ(Cast<uint8_t>(DType::kFloat8E4M3FN, DType::kBool, e4m3),
            (std::vector<uint8_t>{1, 1, 1, 1, 0}));
  EXPECT_EQ(Cast<uint8_t>(DType::kFloat8E4M3FN, DType::kUInt8, e4m3),
            (std::vector<uint8_t>{192, 64, 0, 0, 0}));
  // 448 = 1.75 * 2^8 is exact in e5m2, 2^-9 a normal there; NaN stays NaN.
  EXPECT_EQ(Cast<uint8_t>(DType::kFloat8E4M3FN, DType::kFloat8E5M2, e4m3),
            (std::vector<uint8_t>{0x5f, 0xdf, 0x7f, 0x18, 0x80}));
  // Integers round to nearest even through float32; e4m3fn overflows to NaN.
  EXPECT_EQ(Cast<uint8_t>(DType::kInt32, DType::kFloat8E4M3FN, std::vector<int32_t>{17, 300, 1000}),
            (std::vector<uint8_t>{0x58, 0x79, 0x7f}));
  // Complex keeps the real part.
  EXPECT_EQ(Cast<uint8_t>(DType::kComplex64, DType::kFloat8E5M2,
                          std::vector<float>{-2.0f, 5.0f, 0.0f, 1.0f}),
            (std::vector<uint8_t>{0xc0, 0x00}));
}

TEST(CastKernelTest, UnsignedFromFloatingPinsX86Results) {
  const std::vector<float> in = {0.0f, 1.9f, 65535.0f, 65536.5f, -1.0f, -1.5f, 3e9f, kNaNf};
  EXPECT_EQ(Cast<uint16_t>(DType::kFloat32, DType::kUInt16, in),
            (std::vector<uint16_t>{0, 1, 65535, 0, 65535, 65535, 0, 0}));
  const std::vector<float> in32 = {0.0f, 1.9f, 4294967040.0f, 5e9f, -1.0f, 3e9f, kNaNf, 1e20f};
  EXPECT_EQ(Cast<uint32_t>(DType::kFloat32, DType::kUInt32, in32),
            (std::vector<uint32_t>{0, 1, 4294967040u, 705032704u, 4294967295u, 3000000000u, 0, 0}));
  const std::vector<double> in64 = {
      0.0, 1.5, -1.0, 1e19, 18446744073709551616.0, std::nan(""), -INFINITY, 9223372036854775808.0};
  EXPECT_EQ(
      Cast<uint64_t>(DType::kFloat64, DType::kUInt64, in64),
      (std::vector<uint64_t>{0, 1, UINT64_MAX, 10000000000000000000ull, 0, 9223372036854775808ull,
                             9223372036854775808ull, 9223372036854775808ull}));
}

TEST(CastKernelTest, UnsignedIntegersWrapAndConvert) {
  const std::vector<int64_t> in = {-1, 65536, (int64_t{1} << 32) + 7, INT64_MIN};
  EXPECT_EQ(Cast<uint16_t>(DType::kInt64, DType::kUInt16, in),
            (std::vector<uint16_t>{65535, 0, 7, 0}));
  EXPECT_EQ(Cast<uint32_t>(DType::kInt64, DType::kUInt32, in),
            (std::vector<uint32_t>{4294967295u, 65536, 7, 0}));
  EXPECT_EQ(
      Cast<uint64_t>(DType::kInt64, DType::kUInt64, in),
      (std::vector<uint64_t>{UINT64_MAX, 65536, (uint64_t{1} << 32) + 7, 9223372036854775808ull}));
  const std::vector<uint64_t> big = {0, UINT64_MAX, uint64_t{1} << 63, 255, 256};
  EXPECT_EQ(Cast<int64_t>(DType::kUInt64, DType::kInt64, big),
            (std::vector<int64_t>{0, -1, INT64_MIN, 255, 256}));
  EXPECT_EQ(
      Cast<float>(DType::kUInt64, DType::kFloat32, big),
      (std::vector<float>{0.0f, 18446744073709551616.0f, 9223372036854775808.0f, 255.0f, 256.0f}));
  EXPECT_EQ(Cast<uint8_t>(DType::kUInt64, DType::kBool, big),
            (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  EXPECT_EQ(Cast<int8_t>(DType::kUInt64, DType::kInt8, big),
            (std::vector<int8_t>{0, -1, 0, -1, 0}));
  EXPECT_EQ(Cast<double>(DType::kUInt32, DType::kFloat64, std::vector<uint32_t>{4294967295u}),
            (std::vector<double>{4294967295.0}));
  // 65535 is past float16's overflow midpoint (65520); bfloat16 rounds it to 2^16.
  EXPECT_EQ(Cast<uint16_t>(DType::kUInt16, DType::kFloat16, std::vector<uint16_t>{65535, 2049}),
            (std::vector<uint16_t>{0x7c00, 0x6800}));
  EXPECT_EQ(Cast<uint16_t>(DType::kUInt16, DType::kBFloat16, std::vector<uint16_t>{65535, 1}),
            (std::vector<uint16_t>{0x4780, 0x3f80}));
  EXPECT_EQ(Cast<uint32_t>(DType::kComplex128, DType::kUInt32, std::vector<double>{-1.5, 9.0}),
            (std::vector<uint32_t>{4294967295u}));
  EXPECT_EQ(Cast<uint32_t>(DType::kBool, DType::kUInt32, std::vector<uint8_t>{0, 1}),
            (std::vector<uint32_t>{0, 1}));
}

// ---- Malformed calls are refused at init ------------------------------------------

TEST(CastKernelTest, RefusesMalformedCalls) {
  const Shape sizes = {2, 3};
  EXPECT_EQ(CheckKernel(*CastGraph(DType::kFloat32, DType::kInt8, sizes)), runtime::Error::kOk);
  // The dtype attribute must name the output's dtype.
  {
    GraphBuilder b;
    ir::Value* x = b.Input("x", TypeOf(DType::kFloat32, sizes));
    b.Output(b.Op("edge.cast", {x})
                 .Attr("dtype", ir::AttrValue::OfDType(DType::kInt32))
                 .Out(TypeOf(DType::kInt64, sizes)));
    EXPECT_NE(CheckKernel(*b.Build()), runtime::Error::kOk);
  }
  // Sizes must be kept.
  for (const Shape& wrong : {Shape{3, 2}, Shape{6}, Shape{2, 3, 1}}) {
    EXPECT_NE(CheckKernel(*CastGraph(DType::kFloat32, DType::kInt8, sizes, &wrong)),
              runtime::Error::kOk);
  }
}

}  // namespace
}  // namespace torchir::testing
