// The data-movement kernels (reshape, permute, slice, concatenate, expand,
// index_select, constant_pad) on every dtype the Edge table allows. Dtypes the
// LibTorch reference knows are compared with it; the others (uint16/32/64,
// float8) must move the same bytes as a same-sized dtype it knows.
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_harness.h"
#include "tests/runtime/kernels/kernel_test_support.h"
#include "tests/support/graph_builder.h"

namespace torchir::testing {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;
using A = ir::AttrValue;

// Builds the graph under test for a dtype.
using GraphFactory = std::function<std::unique_ptr<ir::Graph>(DType)>;

// Runs `make(dtype)`'s node: against the reference when it knows the dtype,
// else bit for bit against the same node on a same-sized dtype it knows
// (which is itself compared with the reference).
void ExpectMatches(const GraphFactory& make, DType dtype, const std::string& what) {
  SCOPED_TRACE(std::string(ir::DTypeName(dtype)) + " " + what);
  std::unique_ptr<ir::Graph> graph = make(dtype);
  ASSERT_NE(graph, nullptr);
  if (ReferenceSupports(dtype)) {
    EXPECT_TRUE(IsOk(CompareKernelWithReference(*graph, RandomInputs(*graph, 17, -9, 9, -9, 9))));
    return;
  }
  std::unique_ptr<ir::Graph> known = make(SameSizeReferenceDType(dtype));
  ASSERT_NE(known, nullptr);
  std::vector<reference::HostTensor> known_inputs = RandomInputs(*known, 17, -9, 9, -9, 9);
  EXPECT_TRUE(IsOk(CompareKernelWithReference(*known, known_inputs)));
  std::vector<reference::HostTensor> inputs;
  for (size_t i = 0; i < known_inputs.size(); ++i) {
    inputs.push_back({graph->inputs()[i]->type(), known_inputs[i].data});
  }
  KernelOnlyResult expected = RunKernelOnly(*known, known_inputs);
  KernelOnlyResult actual = RunKernelOnly(*graph, inputs);
  ASSERT_EQ(actual.check, runtime::Error::kOk);
  ASSERT_EQ(actual.run, runtime::Error::kOk);
  ASSERT_EQ(actual.outputs.size(), expected.outputs.size());
  for (size_t i = 0; i < actual.outputs.size(); ++i) {
    EXPECT_EQ(ValuesOf<uint8_t>(actual.outputs[i]), ValuesOf<uint8_t>(expected.outputs[i]));
  }
}

Operand In(DType dtype, Shape sizes) { return {TypeOf(dtype, std::move(sizes)), std::nullopt}; }

std::string ShapeText(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

class DataMovementTest : public ::testing::TestWithParam<DType> {};

TEST_P(DataMovementTest, Reshape) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3, 4}, {6, 4}}, {{2, 3, 4}, {24}}, {{2, 3, 4}, {4, 1, 6}}, {{}, {1, 1}}, {{1}, {}},
      {{0, 3}, {3, 0}},    {{5}, {5}}};
  for (const auto& [from, to] : cases) {
    ExpectMatches(
        [&](DType t) {
          return OpGraph("edge.reshape", {In(t, from)}, {{"shape", A::IntList(to)}});
        },
        GetParam(), ShapeText(from) + "->" + ShapeText(to));
  }
}

TEST_P(DataMovementTest, Permute) {
  const std::vector<std::pair<Shape, Shape>> cases = {{{2, 3, 4}, {0, 1, 2}},
                                                      {{2, 3, 4}, {0, 2, 1}},
                                                      {{2, 3, 4}, {1, 0, 2}},
                                                      {{2, 3, 4}, {1, 2, 0}},
                                                      {{2, 3, 4}, {2, 0, 1}},
                                                      {{2, 3, 4}, {2, 1, 0}},
                                                      {{2, 1, 3, 5}, {3, 2, 1, 0}},
                                                      {{2, 1, 3, 5}, {0, 2, 3, 1}},
                                                      {{2, 1, 3, 5}, {1, 0, 2, 3}},
                                                      {{}, {}},
                                                      {{7}, {0}},
                                                      {{37, 19}, {1, 0}},
                                                      // Channels last for 1-5 channels: the
                                                      // few-columns path and the tiles.
                                                      {{1, 3, 9, 11}, {0, 2, 3, 1}},
                                                      {{2, 2, 5, 7}, {0, 2, 3, 1}},
                                                      {{2, 4, 3, 3}, {0, 2, 3, 1}},
                                                      {{1, 5, 6, 5}, {0, 2, 3, 1}},
                                                      {{3, 37}, {1, 0}},
                                                      {{4, 2, 19}, {0, 2, 1}},
                                                      {{0, 3}, {1, 0}}};
  for (const auto& [sizes, dims] : cases) {
    ExpectMatches(
        [&](DType t) {
          return OpGraph("edge.permute", {In(t, sizes)}, {{"dims", A::IntList(dims)}});
        },
        GetParam(), ShapeText(sizes) + " by " + ShapeText(dims));
  }
}

TEST_P(DataMovementTest, Slice) {
  // (dim, start, end, step) over [5, 6, 7]: steps beyond the length, empty and
  // full slices, a suffix.
  const std::vector<Shape> cases = {{0, 1, 4, 1},  {1, 0, 6, 2}, {2, 1, 7, 3},
                                    {2, 0, 7, 10}, {1, 3, 3, 1}, {0, 0, 5, 1},
                                    {2, 6, 7, 1},  {1, 1, 6, 4}, {0, 5, 5, 2}};
  for (const Shape& c : cases) {
    ExpectMatches(
        [&](DType t) {
          return OpGraph("edge.slice", {In(t, {5, 6, 7})},
                         {{"dim", A::Int(c[0])},
                          {"start", A::Int(c[1])},
                          {"end", A::Int(c[2])},
                          {"step", A::Int(c[3])}});
        },
        GetParam(), "slice " + ShapeText(c));
  }
  ExpectMatches(
      [&](DType t) {
        return OpGraph(
            "edge.slice", {In(t, {10})},
            {{"dim", A::Int(0)}, {"start", A::Int(2)}, {"end", A::Int(9)}, {"step", A::Int(3)}});
      },
      GetParam(), "1-d slice");
}

TEST_P(DataMovementTest, ConcatenateOneToFourTensorsAlongEveryDim) {
  const Shape base = {2, 3, 4};
  const int64_t lengths[] = {1, 3, 0, 2};  // along the joined dim; 0 is an empty input
  for (int64_t dim = 0; dim < 3; ++dim) {
    for (size_t count = 1; count <= 4; ++count) {
      ExpectMatches(
          [&](DType t) {
            std::vector<Operand> operands;
            for (size_t i = 0; i < count; ++i) {
              Shape sizes = base;
              sizes[dim] = lengths[i];
              operands.push_back(In(t, sizes));
            }
            return OpGraph("edge.concatenate", operands, {{"dim", A::Int(dim)}});
          },
          GetParam(), std::to_string(count) + " along " + std::to_string(dim));
    }
  }
  ExpectMatches(
      [&](DType t) {
        return OpGraph("edge.concatenate", {In(t, {5}), In(t, {2})}, {{"dim", A::Int(0)}});
      },
      GetParam(), "1-d");
}

TEST_P(DataMovementTest, Expand) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 1}, {2, 3, 4}}, {{}, {2, 3}},           {{1}, {0}},
      {{1, 4}, {3, 4}},    {{2, 1, 3}, {2, 5, 3}}, {{4}, {2, 3, 4}},
      {{1, 1}, {1, 1}},    {{2, 3}, {2, 3}},       {{1}, {1027}}};
  for (const auto& [from, to] : cases) {
    ExpectMatches(
        [&](DType t) {
          return OpGraph("edge.expand", {In(t, from)}, {{"sizes", A::IntList(to)}});
        },
        GetParam(), ShapeText(from) + "->" + ShapeText(to));
  }
}

// An index constant of `dtype` holding `values`.
Operand IndexOperand(DType dtype, const std::vector<int64_t>& values) {
  const ir::TensorType type = TypeOf(dtype, {static_cast<int64_t>(values.size())});
  if (dtype == DType::kInt64) return {type, DataOf(values)};
  return {type, DataOf(std::vector<int32_t>(values.begin(), values.end()))};
}

TEST_P(DataMovementTest, IndexSelectWithInt32AndInt64Indices) {
  const Shape sizes = {4, 5, 6};
  for (DType index_dtype : AllowedDTypes("edge.index_select", "I")) {
    for (int64_t dim = 0; dim < 3; ++dim) {
      const int64_t last = sizes[dim] - 1;
      for (const std::vector<int64_t>& index :
           {std::vector<int64_t>{last, 0, 1, 0}, std::vector<int64_t>{2}, std::vector<int64_t>{}}) {
        ExpectMatches(
            [&](DType t) {
              return OpGraph("edge.index_select", {In(t, sizes), IndexOperand(index_dtype, index)},
                             {{"dim", A::Int(dim)}});
            },
            GetParam(),
            std::string(ir::DTypeName(index_dtype)) + " dim " + std::to_string(dim) + " " +
                ShapeText(index));
      }
    }
  }
}

std::vector<DType> DataMovementDTypes() { return AllowedDTypes("edge.permute"); }

INSTANTIATE_TEST_SUITE_P(EveryDType, DataMovementTest, ::testing::ValuesIn(DataMovementDTypes()),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(ir::DTypeName(info.param));
                         });

TEST(DataMovementKernelTest, EveryShapeOpAllowsEveryDType) {
  for (const char* op : {"edge.reshape", "edge.permute", "edge.slice", "edge.concatenate",
                         "edge.expand", "edge.index_select"}) {
    EXPECT_EQ(AllowedDTypes(op).size(), static_cast<size_t>(ir::kNumDTypes)) << op;
  }
  EXPECT_EQ(DataMovementDTypes().size(), static_cast<size_t>(ir::kNumDTypes));
}

TEST(DataMovementKernelTest, ConstantPadIncludingCrops) {
  // Pairs innermost dim first; negative entries crop, down to nothing. (LibTorch
  // refuses an after-crop that empties a dim, {0, -5}, though not {-5, 0}.)
  const std::vector<Shape> pads = {{1, 2},         {0, 0},  {1, 1, 2, 0},       {-1, 2},
                                   {2, -1, -1, 3}, {-5, 0}, {1, 1, 1, 1, 1, 1}, {},
                                   {-2, -2, 1, 0}, {-3, 5}, {0, -4, 0, 1},      {0, 0, -3, 0}};
  const std::vector<DType> dtypes = AllowedDTypes("edge.constant_pad");
  ASSERT_EQ(dtypes.size(), 4u);
  for (DType dtype : dtypes) {
    for (const Shape& pad : pads) {
      for (double value : {0.0, 1.7, -2.5}) {
        ExpectMatches(
            [&](DType t) {
              return OpGraph("edge.constant_pad", {In(t, {3, 4, 5})},
                             {{"pad", A::IntList(pad)}, {"value", A::Double(value)}});
            },
            dtype, ShapeText(pad) + " value " + std::to_string(value));
      }
    }
  }
}

// The shape rule accepts crops past the padding PyTorch's narrow() refuses
// ([5, -4] pads 5 then crops 4 off the end); the kernel gives the output the
// rule describes, all value here.
TEST(DataMovementKernelTest, ConstantPadPastTheInputIsAllValue) {
  auto graph = OpGraph("edge.constant_pad", {In(DType::kInt32, {3})},
                       {{"pad", A::IntList({5, -4})}, {"value", A::Double(7.0)}});
  ASSERT_NE(graph, nullptr);
  KernelOnlyResult r = RunKernelOnly(
      *graph, {HostTensorOf(TypeOf(DType::kInt32, {3}), std::vector<int32_t>{1, 2, 3})});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<int32_t>(r.outputs[0]), (std::vector<int32_t>{7, 7, 7, 7}));
  graph = OpGraph("edge.constant_pad", {In(DType::kInt32, {3})},
                  {{"pad", A::IntList({2, -2})}, {"value", A::Double(-1.9)}});
  r = RunKernelOnly(*graph,
                    {HostTensorOf(TypeOf(DType::kInt32, {3}), std::vector<int32_t>{1, 2, 3})});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_EQ(ValuesOf<int32_t>(r.outputs[0]), (std::vector<int32_t>{-1, -1, 1}));
}

// The memory planner gives edge.reshape's output its input's storage.
TEST(DataMovementKernelTest, ReshapeInPlaceWhenStorageIsShared) {
  auto graph =
      OpGraph("edge.reshape", {In(DType::kFloat32, {2, 3})}, {{"shape", A::IntList({3, 2})}});
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  KernelOnlyResult r = RunKernelOnly(
      *graph, {HostTensorOf(TypeOf(DType::kFloat32, {2, 3}), values)}, /*alias_first_output=*/true);
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_TRUE(r.output_aliases_input);
  EXPECT_EQ(ValuesOf<float>(r.outputs[0]), values);
  // And into a separate buffer.
  r = RunKernelOnly(*graph, {HostTensorOf(TypeOf(DType::kFloat32, {2, 3}), values)});
  ASSERT_EQ(r.run, runtime::Error::kOk);
  EXPECT_FALSE(r.output_aliases_input);
  EXPECT_EQ(ValuesOf<float>(r.outputs[0]), values);
}

TEST(DataMovementKernelTest, IndexSelectRefusesOutOfRangeIndicesAtRun) {
  for (DType index_dtype : {DType::kInt32, DType::kInt64}) {
    for (const std::vector<int64_t>& index :
         {std::vector<int64_t>{0, 5}, std::vector<int64_t>{-1}, std::vector<int64_t>{1, 99, 2}}) {
      auto graph = OpGraph("edge.index_select",
                           {In(DType::kFloat32, {5, 3}), IndexOperand(index_dtype, index)},
                           {{"dim", A::Int(0)}});
      ASSERT_NE(graph, nullptr);
      EXPECT_EQ(CheckKernel(*graph), runtime::Error::kOk);  // values are data: run's job
      absl::Status status = CompareKernelWithReference(*graph, RandomInputs(*graph, 1));
      EXPECT_FALSE(status.ok());
      EXPECT_NE(status.message().find("run failed: IndexOutOfRange"), std::string::npos)
          << status.message();
      KernelOnlyResult r = RunKernelOnly(*graph, RandomInputs(*graph, 1));
      EXPECT_EQ(r.run, runtime::Error::kIndexOutOfRange);
    }
  }
}

// ---- Malformed calls are refused at init ------------------------------------------

runtime::Error Check(const std::string& op, const std::vector<Operand>& operands,
                     const Attrs& attrs, const ir::TensorType& out) {
  return CheckKernel(*OpGraph(op, operands, attrs, out));
}

TEST(DataMovementKernelTest, RefusesMalformedReshapeAndPermute) {
  const Operand x = In(DType::kFloat32, {2, 3});
  EXPECT_EQ(
      Check("edge.reshape", {x}, {{"shape", A::IntList({3, 2})}}, TypeOf(DType::kFloat32, {3, 2})),
      runtime::Error::kOk);
  EXPECT_NE(Check("edge.reshape", {x}, {{"shape", A::IntList({5})}}, TypeOf(DType::kFloat32, {5})),
            runtime::Error::kOk);
  EXPECT_NE(
      Check("edge.reshape", {x}, {{"shape", A::IntList({6})}}, TypeOf(DType::kFloat32, {3, 2})),
      runtime::Error::kOk);
  EXPECT_NE(Check("edge.reshape", {x}, {{"shape", A::IntList({6})}}, TypeOf(DType::kInt32, {6})),
            runtime::Error::kOk);
  EXPECT_EQ(
      Check("edge.permute", {x}, {{"dims", A::IntList({1, 0})}}, TypeOf(DType::kFloat32, {3, 2})),
      runtime::Error::kOk);
  const Operand y = In(DType::kFloat32, {2, 3, 4});
  for (const Shape& dims :
       {Shape{0, 0, 1}, Shape{0, 1, 3}, Shape{0, 1}, Shape{-1, 0, 1}, Shape{0, 1, 2, 3}}) {
    EXPECT_NE(Check("edge.permute", {y}, {{"dims", A::IntList(dims)}},
                    TypeOf(DType::kFloat32, {2, 3, 4})),
              runtime::Error::kOk)
        << ShapeText(dims);
  }
  // A valid permutation with the output recorded unpermuted.
  EXPECT_NE(Check("edge.permute", {y}, {{"dims", A::IntList({2, 1, 0})}},
                  TypeOf(DType::kFloat32, {2, 3, 4})),
            runtime::Error::kOk);
}

TEST(DataMovementKernelTest, RefusesMalformedSlice) {
  const Operand x = In(DType::kInt64, {5, 6});
  auto slice = [&](int64_t dim, int64_t start, int64_t end, int64_t step, Shape out) {
    return Check("edge.slice", {x},
                 {{"dim", A::Int(dim)},
                  {"start", A::Int(start)},
                  {"end", A::Int(end)},
                  {"step", A::Int(step)}},
                 TypeOf(DType::kInt64, out));
  };
  EXPECT_EQ(slice(1, 1, 6, 2, {5, 3}), runtime::Error::kOk);
  EXPECT_NE(slice(1, 1, 6, 2, {5, 2}), runtime::Error::kOk);   // wrong length
  EXPECT_NE(slice(1, 0, 6, 0, {5, 6}), runtime::Error::kOk);   // step 0
  EXPECT_NE(slice(1, 0, 6, -1, {5, 6}), runtime::Error::kOk);  // negative step
  EXPECT_NE(slice(1, 0, 7, 1, {5, 7}), runtime::Error::kOk);   // end past the size
  EXPECT_NE(slice(1, 4, 2, 1, {5, 0}), runtime::Error::kOk);   // start after end
  EXPECT_NE(slice(1, -1, 6, 1, {5, 7}), runtime::Error::kOk);  // not normalised
  EXPECT_NE(slice(-1, 0, 6, 1, {5, 6}), runtime::Error::kOk);
  EXPECT_NE(slice(2, 0, 1, 1, {5, 6}), runtime::Error::kOk);
}

TEST(DataMovementKernelTest, RefusesMalformedConcatenate) {
  const Operand a = In(DType::kFloat32, {2, 3});
  auto concat = [&](std::vector<Operand> operands, int64_t dim, Shape out,
                    DType out_dtype = DType::kFloat32) {
    return Check("edge.concatenate", operands, {{"dim", A::Int(dim)}}, TypeOf(out_dtype, out));
  };
  EXPECT_EQ(concat({a, In(DType::kFloat32, {4, 3})}, 0, {6, 3}), runtime::Error::kOk);
  EXPECT_NE(concat({a, In(DType::kFloat32, {4, 3})}, 0, {6, 4}), runtime::Error::kOk);
  EXPECT_NE(concat({a, In(DType::kFloat32, {2, 4})}, 0, {4, 3}), runtime::Error::kOk);
  EXPECT_NE(concat({a, In(DType::kFloat32, {2, 3, 1})}, 0, {4, 3}), runtime::Error::kOk);
  EXPECT_NE(concat({a, In(DType::kInt32, {2, 3})}, 0, {4, 3}), runtime::Error::kOk);
  EXPECT_NE(concat({a, a}, -1, {2, 6}), runtime::Error::kOk);  // must be normalised
  EXPECT_NE(concat({a, a}, 2, {2, 6}), runtime::Error::kOk);
  EXPECT_NE(concat({a, a}, 1, {2, 6}, DType::kInt32), runtime::Error::kOk);
  EXPECT_NE(concat({In(DType::kFloat32, {}), In(DType::kFloat32, {})}, 0, {}), runtime::Error::kOk);
  EXPECT_NE(concat({}, 0, {2, 3}), runtime::Error::kOk);
}

TEST(DataMovementKernelTest, RefusesMalformedExpandAndIndexSelect) {
  auto expand = [](Shape from, Shape sizes, Shape out) {
    return Check("edge.expand", {In(DType::kBool, from)}, {{"sizes", A::IntList(sizes)}},
                 TypeOf(DType::kBool, out));
  };
  EXPECT_EQ(expand({3, 1}, {2, 3, 4}, {2, 3, 4}), runtime::Error::kOk);
  EXPECT_NE(expand({3}, {4}, {4}), runtime::Error::kOk);
  EXPECT_NE(expand({2, 3}, {3}, {3}), runtime::Error::kOk);
  EXPECT_NE(expand({3, 1}, {2, 3, 4}, {2, 3, 5}), runtime::Error::kOk);
  EXPECT_NE(expand({1}, {-1}, {1}), runtime::Error::kOk);

  const Operand x = In(DType::kFloat32, {4, 5});
  auto select = [&](Operand index, int64_t dim, Shape out) {
    return Check("edge.index_select", {x, index}, {{"dim", A::Int(dim)}},
                 TypeOf(DType::kFloat32, out));
  };
  EXPECT_EQ(select(IndexOperand(DType::kInt64, {1, 2}), 1, {4, 2}), runtime::Error::kOk);
  EXPECT_NE(select(IndexOperand(DType::kInt64, {1, 2}), 1, {4, 5}), runtime::Error::kOk);
  EXPECT_NE(select(IndexOperand(DType::kInt64, {1, 2}), 2, {4, 2}), runtime::Error::kOk);
  EXPECT_NE(select(IndexOperand(DType::kInt64, {1, 2}), -1, {4, 2}), runtime::Error::kOk);
  EXPECT_NE(select(In(DType::kFloat32, {2}), 1, {4, 2}), runtime::Error::kOk);
  EXPECT_NE(select(In(DType::kInt32, {2, 1}), 1, {4, 2}), runtime::Error::kOk);
}

TEST(DataMovementKernelTest, RefusesMalformedConstantPad) {
  auto pad = [](DType dtype, Shape pads, double value, Shape out) {
    return Check("edge.constant_pad", {In(dtype, {3, 5})},
                 {{"pad", A::IntList(pads)}, {"value", A::Double(value)}}, TypeOf(dtype, out));
  };
  EXPECT_EQ(pad(DType::kInt32, {1, 2}, 0.0, {3, 8}), runtime::Error::kOk);
  EXPECT_NE(pad(DType::kInt32, {1, 2}, 0.0, {3, 7}), runtime::Error::kOk);
  EXPECT_NE(pad(DType::kInt32, {1, 2, 3}, 0.0, {3, 8}), runtime::Error::kOk);           // odd
  EXPECT_NE(pad(DType::kInt32, {0, 0, 0, 0, 1, 1}, 0.0, {3, 5}), runtime::Error::kOk);  // > rank
  EXPECT_NE(pad(DType::kInt32, {-3, -3}, 0.0, {3, 0}), runtime::Error::kOk);  // crops past 0
  EXPECT_NE(pad(DType::kInt32, {1, 2}, 3e9, {3, 8}), runtime::Error::kOk);    // int32 overflow
  EXPECT_NE(pad(DType::kInt64, {1, 2}, std::nan(""), {3, 8}), runtime::Error::kOk);
  EXPECT_NE(pad(DType::kFloat32, {1, 2}, 1e300, {3, 8}), runtime::Error::kOk);
  EXPECT_EQ(pad(DType::kFloat32, {1, 2}, -INFINITY, {3, 8}), runtime::Error::kOk);
  EXPECT_EQ(pad(DType::kFloat64, {1, 2}, 1e300, {3, 8}), runtime::Error::kOk);
  EXPECT_NE(pad(DType::kFloat16, {1, 2}, 0.0, {3, 8}), runtime::Error::kOk);
  EXPECT_NE(pad(DType::kInt32, {INT64_MIN, INT64_MAX}, 0.0, {3, 4}), runtime::Error::kOk);
}

// ---- scatter ----------------------------------------------------------------------------

std::unique_ptr<ir::Graph> ScatterGraph(ir::DType dtype, std::vector<int64_t> input,
                                        std::vector<int64_t> index, std::vector<int64_t> src,
                                        int64_t dim, ir::DType index_dtype = ir::DType::kInt64,
                                        const char* reduce = "none", bool include_self = true) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(dtype, input));
  ir::Value* i = b.Input("index", TypeOf(index_dtype, index));
  ir::Value* s = b.Input("src", TypeOf(dtype, src));
  b.Output(b.Op("edge.scatter", {x, i, s})
               .Attr("dim", dim)
               .Attr("reduce", std::string(reduce))
               .Attr("include_self", include_self)
               .Out(TypeOf(dtype, input)));
  return b.Build();
}

TEST(ScatterKernel, OneWritePerTargetAlongEveryDim) {
  // One index entry along the scatter dim: no target is written twice (PyTorch leaves the
  // order of repeated writes open). Indices in [0, 4) (the harness's int range is [0, 4)).
  for (ir::DType dtype : {ir::DType::kFloat32, ir::DType::kInt64, ir::DType::kBool}) {
    ExpectMatchesReference(*ScatterGraph(dtype, {4, 5, 6}, {1, 5, 6}, {2, 5, 6}, 0), 71,
                           verify::Tolerance{0, 0}, -2.0, 2.0, 0, 4);
    ExpectMatchesReference(*ScatterGraph(dtype, {4, 5, 6}, {3, 1, 4}, {4, 2, 6}, 1), 72,
                           verify::Tolerance{0, 0}, -2.0, 2.0, 0, 4);
  }
  ExpectMatchesReference(
      *ScatterGraph(ir::DType::kFloat32, {4, 5, 6}, {4, 5, 1}, {4, 5, 1}, 2, ir::DType::kInt32), 73,
      verify::Tolerance{0, 0}, -2.0, 2.0, 0, 4);
}

TEST(ScatterKernel, AccumulateAddsRepeatedTargets) {
  // Many entries per target along the dim: every one is added.
  for (ir::DType dtype : {ir::DType::kFloat32, ir::DType::kInt32, ir::DType::kInt64}) {
    ExpectMatchesReference(
        *ScatterGraph(dtype, {4, 5, 6}, {9, 5, 6}, {9, 5, 6}, 0, ir::DType::kInt64, "sum"), 75,
        verify::Tolerance{1e-6, 1e-6}, -2.0, 2.0, 0, 4);
    ExpectMatchesReference(
        *ScatterGraph(dtype, {4, 5, 6}, {4, 3, 20}, {4, 3, 20}, 2, ir::DType::kInt32, "sum"), 76,
        verify::Tolerance{1e-6, 1e-6}, -2.0, 2.0, 0, 4);
  }
}

TEST(ScatterKernel, ReducesRepeatedTargetsWithAndWithoutSelf) {
  // scatter_reduce's reductions: several entries per target (and targets no entry reaches,
  // which keep the input), each reduction with and without the input's own value. Inputs in
  // [-2, 2) (floats) and [0, 4) (integers): products of 3 entries stay exact in float32.
  int seed = 80;
  for (const char* reduce : {"sum", "prod", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      for (ir::DType dtype : {ir::DType::kFloat32, ir::DType::kInt32, ir::DType::kInt64}) {
        ExpectMatchesReference(*ScatterGraph(dtype, {4, 5, 6}, {3, 5, 6}, {3, 5, 6}, 0,
                                             ir::DType::kInt64, reduce, include_self),
                               ++seed, verify::Tolerance{1e-6, 1e-6}, -2.0, 2.0, 0, 4);
        ExpectMatchesReference(*ScatterGraph(dtype, {4, 5, 6}, {4, 2, 3}, {4, 3, 6}, 2,
                                             ir::DType::kInt32, reduce, include_self),
                               ++seed, verify::Tolerance{1e-6, 1e-6}, -2.0, 2.0, 0, 4);
      }
    }
  }
}

TEST(ScatterKernelCheck, ReductionsRefuseBool) {
  ExpectRefused(
      *ScatterGraph(ir::DType::kBool, {4, 5}, {1, 5}, {1, 5}, 0, ir::DType::kInt64, "sum"),
      runtime::Error::kInvalidType);
}

TEST(ScatterKernelCheck, RefusesAnUnknownReduceAndAWriteWithoutSelf) {
  ExpectRefused(
      *ScatterGraph(ir::DType::kFloat32, {4, 5}, {1, 5}, {1, 5}, 0, ir::DType::kInt64, "mean"),
      runtime::Error::kInvalidProgram);
  ExpectRefused(*ScatterGraph(ir::DType::kFloat32, {4, 5}, {1, 5}, {1, 5}, 0, ir::DType::kInt64,
                              "none", false),
                runtime::Error::kInvalidProgram);
}

TEST(ScatterKernelCheck, RefusesAnIndexLargerThanSrc) {
  ExpectRefused(*ScatterGraph(ir::DType::kFloat32, {4, 5}, {2, 5}, {1, 5}, 0),
                runtime::Error::kShapeMismatch);
}

}  // namespace
}  // namespace torchir::testing
