// The portable edge.mean, edge.sum, edge.amax and edge.max_dim kernels against LibTorch:
// every dtype each allows, dim lists of every shape (empty, negative, non-adjacent, with
// size-1 dims), keepdim, 0-d inputs and outputs, ties, and refused calls.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using runtime::Error;

std::unique_ptr<ir::Graph> Reduce(const std::string& op, ir::DType dtype,
                                  std::vector<int64_t> input, std::vector<int64_t> dims,
                                  bool keepdim, std::vector<int64_t> out) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(dtype, input));
  b.Output(b.Op(op, {x}).Attr("dims", dims).Attr("keepdim", keepdim).Out(TypeOf(dtype, out)));
  return b.Build();
}

std::unique_ptr<ir::Graph> ExtremumDim(const std::string& op, ir::DType dtype,
                                       std::vector<int64_t> input, int64_t dim, bool keepdim,
                                       std::vector<int64_t> out,
                                       ir::DType index_dtype = ir::DType::kInt64) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(dtype, input));
  std::vector<ir::Value*> outs = b.Op(op, {x})
                                     .Attr("dim", dim)
                                     .Attr("keepdim", keepdim)
                                     .Outs({TypeOf(dtype, out), TypeOf(index_dtype, out)});
  b.Output(outs[0]);
  b.Output(outs[1]);
  return b.Build();
}

std::unique_ptr<ir::Graph> MaxDim(ir::DType dtype, std::vector<int64_t> input, int64_t dim,
                                  bool keepdim, std::vector<int64_t> out,
                                  ir::DType index_dtype = ir::DType::kInt64) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(dtype, input));
  std::vector<ir::Value*> outs = b.Op("edge.max_dim", {x})
                                     .Attr("dim", dim)
                                     .Attr("keepdim", keepdim)
                                     .Outs({TypeOf(dtype, out), TypeOf(index_dtype, out)});
  b.Output(outs[0]);
  b.Output(outs[1]);
  return b.Build();
}

// Integers in [-50, 50): sums that cancel, and maxima with ties.
void ExpectReductionMatches(const ir::Graph& graph, uint32_t seed) {
  ExpectMatchesReference(graph, seed, verify::Tolerance{1e-5, 1e-4}, -2.0, 2.0, -50, 50);
}

// (op, dtype) pairs the Edge table allows for mean, sum and amax.
struct ReductionCase {
  std::string op;
  ir::DType dtype;
};

class ReductionKernel : public ::testing::TestWithParam<ReductionCase> {
 protected:
  std::unique_ptr<ir::Graph> Graph(std::vector<int64_t> input, std::vector<int64_t> dims,
                                   bool keepdim, std::vector<int64_t> out) {
    return Reduce(GetParam().op, GetParam().dtype, input, dims, keepdim, out);
  }
};

TEST_P(ReductionKernel, InnermostDim) {
  ExpectReductionMatches(*Graph({3, 4, 50}, {2}, false, {3, 4}), 1);
  ExpectReductionMatches(*Graph({3, 4, 50}, {-1}, true, {3, 4, 1}), 2);
}

TEST_P(ReductionKernel, OutermostAndMiddleDims) {
  ExpectReductionMatches(*Graph({6, 4, 5}, {0}, false, {4, 5}), 3);
  ExpectReductionMatches(*Graph({6, 4, 5}, {1}, true, {6, 1, 5}), 4);
}

TEST_P(ReductionKernel, NonAdjacentDims) {
  ExpectReductionMatches(*Graph({3, 4, 5, 6}, {0, 2}, false, {4, 6}), 5);
  ExpectReductionMatches(*Graph({3, 4, 5, 6}, {-1, 1}, true, {3, 1, 5, 1}), 6);
}

TEST_P(ReductionKernel, SpatialDimsLikeGlobalPooling) {
  ExpectReductionMatches(*Graph({2, 3, 7, 7}, {2, 3}, true, {2, 3, 1, 1}), 7);
}

TEST_P(ReductionKernel, ManyInnerColumns) {
  // 150 kept innermost elements: two full chunks of 64 and a partial one.
  ExpectReductionMatches(*Graph({9, 150}, {0}, false, {150}), 8);
}

TEST_P(ReductionKernel, SizeOneDims) {
  ExpectReductionMatches(*Graph({3, 1, 4}, {1}, false, {3, 4}), 9);
  ExpectReductionMatches(*Graph({1, 5, 1}, {0, 2}, true, {1, 5, 1}), 10);
}

TEST_P(ReductionKernel, EmptyDimsReduceEverythingToAScalar) {
  ExpectReductionMatches(*Graph({4, 3, 5}, {}, false, {}), 11);
  ExpectReductionMatches(*Graph({4, 3, 5}, {}, true, {1, 1, 1}), 12);
}

TEST_P(ReductionKernel, ListingEveryDimGivesAScalar) {
  ExpectReductionMatches(*Graph({4, 3}, {1, 0}, false, {}), 13);
}

TEST_P(ReductionKernel, LongContiguousRuns) {
  ExpectReductionMatches(*Graph({2, 1003}, {1}, false, {2}), 14);
}

TEST_P(ReductionKernel, ScalarInput) {
  ExpectReductionMatches(*Graph({}, {}, false, {}), 15);
  ExpectReductionMatches(*Graph({}, {0}, true, {}), 16);
  ExpectReductionMatches(*Graph({}, {-1}, false, {}), 17);
}

TEST_P(ReductionKernel, RefusesDimsOutOfRangeOrRepeated) {
  ExpectRefused(*Graph({3, 4}, {2}, false, {3}), Error::kInvalidProgram);
  ExpectRefused(*Graph({3, 4}, {-3}, false, {4}), Error::kInvalidProgram);
  ExpectRefused(*Graph({3, 4}, {1, -1}, false, {3}), Error::kInvalidProgram);
  ExpectRefused(*Graph({}, {1}, false, {}), Error::kInvalidProgram);
}

TEST_P(ReductionKernel, RefusesAWrongOutputShape) {
  ExpectRefused(*Graph({3, 4}, {1}, false, {3, 1}), Error::kShapeMismatch);
  ExpectRefused(*Graph({3, 4}, {1}, true, {3}), Error::kShapeMismatch);
  ExpectRefused(*Graph({3, 4}, {}, false, {1}), Error::kShapeMismatch);
}

std::vector<ReductionCase> AllowedReductions() {
  return {{"edge.mean", ir::DType::kFloat32}, {"edge.sum", ir::DType::kFloat32},
          {"edge.sum", ir::DType::kInt32},    {"edge.sum", ir::DType::kInt64},
          {"edge.amax", ir::DType::kFloat32}, {"edge.amax", ir::DType::kInt32},
          {"edge.amax", ir::DType::kInt64},   {"edge.amin", ir::DType::kFloat32},
          {"edge.amin", ir::DType::kInt32},   {"edge.amin", ir::DType::kInt64},
          {"edge.prod", ir::DType::kFloat32}, {"edge.prod", ir::DType::kInt32},
          {"edge.prod", ir::DType::kInt64},   {"edge.mean", ir::DType::kFloat64},
          {"edge.sum", ir::DType::kFloat64},  {"edge.amax", ir::DType::kFloat64},
          {"edge.amin", ir::DType::kFloat64}, {"edge.prod", ir::DType::kFloat64}};
}

INSTANTIATE_TEST_SUITE_P(EveryAllowedDtype, ReductionKernel,
                         ::testing::ValuesIn(AllowedReductions()),
                         [](const ::testing::TestParamInfo<ReductionCase>& info) {
                           return info.param.op.substr(5) + "_" +
                                  std::string(ir::DTypeName(info.param.dtype));
                         });

TEST(ReductionKernel, SumAndMeanOverAnEmptyDim) {
  // A sum of nothing is 0 and a mean of nothing NaN, as in PyTorch.
  ExpectReductionMatches(*Reduce("edge.sum", ir::DType::kFloat32, {3, 0}, {1}, false, {3}), 21);
  ExpectReductionMatches(*Reduce("edge.sum", ir::DType::kInt64, {3, 0}, {1}, false, {3}), 22);
  ExpectReductionMatches(*Reduce("edge.mean", ir::DType::kFloat32, {3, 0}, {1}, false, {3}), 23);
}

TEST(ReductionKernel, ProdOverAnEmptyDimIsOne) {
  ExpectReductionMatches(*Reduce("edge.prod", ir::DType::kFloat32, {3, 0}, {1}, false, {3}), 25);
  ExpectReductionMatches(*Reduce("edge.prod", ir::DType::kInt32, {3, 0}, {1}, true, {3, 1}), 26);
}

TEST(ReductionKernel, IntegerProductsWrapLikeTheDtype) {
  // 40 factors in [-50, 50): far beyond int32 and int64; the low bits must still agree.
  ExpectReductionMatches(*Reduce("edge.prod", ir::DType::kInt32, {3, 40}, {1}, false, {3}), 27);
  ExpectReductionMatches(*Reduce("edge.prod", ir::DType::kInt64, {40, 3}, {0}, false, {3}), 28);
}

TEST(ReductionKernelCheck, RefusesAminOverAnEmptyDim) {
  ExpectKernelRefuses(*Reduce("edge.amin", ir::DType::kInt64, {3, 0}, {1}, false, {3}),
                      Error::kInvalidProgram);
}

TEST(ReductionKernel, LargeFloatSum) {
  ExpectReductionMatches(*Reduce("edge.sum", ir::DType::kFloat32, {64, 500}, {}, false, {}), 24);
}

TEST(ReductionKernelCheck, RefusesAmaxOverAnEmptyDim) {
  // A max of nothing has no value (LibTorch raises); the shape rule alone does not see it.
  ExpectKernelRefuses(*Reduce("edge.amax", ir::DType::kFloat32, {3, 0}, {1}, false, {3}),
                      Error::kInvalidProgram);
}

TEST(ReductionKernelCheck, RefusesDtypesTheTableDoesNot) {
  ExpectRefused(*Reduce("edge.mean", ir::DType::kInt32, {3, 4}, {1}, false, {3}),
                Error::kInvalidType);
  ExpectRefused(*Reduce("edge.sum", ir::DType::kBool, {3, 4}, {1}, false, {3}),
                Error::kInvalidType);
  // Output dtype differs from the input's.
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3, 4}));
  b.Output(b.Op("edge.sum", {x})
               .Attr("dims", std::vector<int64_t>{1})
               .Attr("keepdim", false)
               .Out(I64({3})));
  ExpectRefused(*b.Build(), Error::kInvalidType);
}

// ---- max_dim --------------------------------------------------------------------------

class MaxDimKernel : public ::testing::TestWithParam<ir::DType> {};

TEST_P(MaxDimKernel, EveryDimPosition) {
  ExpectReductionMatches(*MaxDim(GetParam(), {4, 5, 6}, 0, false, {5, 6}), 31);
  ExpectReductionMatches(*MaxDim(GetParam(), {4, 5, 6}, 1, true, {4, 1, 6}), 32);
  ExpectReductionMatches(*MaxDim(GetParam(), {4, 5, 6}, -1, false, {4, 5}), 33);
}

TEST_P(MaxDimKernel, TiesGiveTheFirstIndex) {
  // Integers in [0, 3): every row has repeated maxima.
  ExpectMatchesReference(*MaxDim(GetParam(), {8, 20}, 1, false, {8}), 34,
                         verify::Tolerance{1e-5, 1e-4}, 0.0, 3.0, 0, 3);
  ExpectMatchesReference(*MaxDim(GetParam(), {20, 8}, 0, true, {1, 8}), 35,
                         verify::Tolerance{1e-5, 1e-4}, 0.0, 3.0, 0, 3);
}

TEST_P(MaxDimKernel, ScalarInput) {
  ExpectReductionMatches(*MaxDim(GetParam(), {}, 0, false, {}), 36);
  ExpectReductionMatches(*MaxDim(GetParam(), {}, -1, true, {}), 37);
}

TEST_P(MaxDimKernel, SizeOneDim) {
  ExpectReductionMatches(*MaxDim(GetParam(), {3, 1, 4}, 1, false, {3, 4}), 38);
}

INSTANTIATE_TEST_SUITE_P(EveryAllowedDtype, MaxDimKernel,
                         ::testing::Values(ir::DType::kFloat32, ir::DType::kFloat64,
                                           ir::DType::kInt32, ir::DType::kInt64),
                         [](const ::testing::TestParamInfo<ir::DType>& info) {
                           return std::string(ir::DTypeName(info.param));
                         });

TEST(MaxDimKernelCheck, RefusesBadCalls) {
  ExpectRefused(*MaxDim(ir::DType::kFloat32, {4, 5}, 2, false, {4}), Error::kInvalidProgram);
  ExpectRefused(*MaxDim(ir::DType::kFloat32, {4, 5}, 1, false, {4, 1}), Error::kShapeMismatch);
  ExpectRefused(*MaxDim(ir::DType::kFloat32, {4, 5}, 1, false, {4}, ir::DType::kInt32),
                Error::kInvalidType);
  // A max of nothing has no index; only the kernel sees it.
  ExpectKernelRefuses(*MaxDim(ir::DType::kFloat32, {4, 0}, 1, false, {4}), Error::kInvalidProgram);
}

// ---- min_dim: max_dim's mirror ---------------------------------------------------------

class MinDimKernel : public ::testing::TestWithParam<ir::DType> {};

TEST_P(MinDimKernel, EveryDimPosition) {
  ExpectReductionMatches(*ExtremumDim("edge.min_dim", GetParam(), {4, 5, 6}, 0, false, {5, 6}),
                         41);
  ExpectReductionMatches(
      *ExtremumDim("edge.min_dim", GetParam(), {4, 5, 6}, 1, true, {4, 1, 6}), 42);
  ExpectReductionMatches(*ExtremumDim("edge.min_dim", GetParam(), {4, 5, 6}, -1, false, {4, 5}),
                         43);
}

TEST_P(MinDimKernel, TiesGiveTheFirstIndex) {
  ExpectMatchesReference(*ExtremumDim("edge.min_dim", GetParam(), {8, 20}, 1, false, {8}), 44,
                         verify::Tolerance{1e-5, 1e-4}, 0.0, 3.0, 0, 3);
  ExpectMatchesReference(*ExtremumDim("edge.min_dim", GetParam(), {20, 8}, 0, true, {1, 8}), 45,
                         verify::Tolerance{1e-5, 1e-4}, 0.0, 3.0, 0, 3);
}

TEST_P(MinDimKernel, ScalarInput) {
  ExpectReductionMatches(*ExtremumDim("edge.min_dim", GetParam(), {}, 0, false, {}), 46);
}

INSTANTIATE_TEST_SUITE_P(EveryAllowedDtype, MinDimKernel,
                         ::testing::Values(ir::DType::kFloat32, ir::DType::kFloat64,
                                           ir::DType::kInt32, ir::DType::kInt64),
                         [](const ::testing::TestParamInfo<ir::DType>& info) {
                           return std::string(ir::DTypeName(info.param));
                         });

TEST(MinDimKernelCheck, RefusesAnEmptyDim) {
  ExpectKernelRefuses(*ExtremumDim("edge.min_dim", ir::DType::kInt32, {4, 0}, 1, false, {4}),
                      Error::kInvalidProgram);
}

// ---- cumsum ----------------------------------------------------------------------------

std::unique_ptr<ir::Graph> Cumsum(ir::DType dtype, std::vector<int64_t> sizes, int64_t dim) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(dtype, sizes));
  b.Output(b.Op("edge.cumsum", {x}).Attr("dim", dim).Out(TypeOf(dtype, sizes)));
  return b.Build();
}

class CumsumKernel : public ::testing::TestWithParam<ir::DType> {};

TEST_P(CumsumKernel, EveryDimPosition) {
  ExpectReductionMatches(*Cumsum(GetParam(), {4, 5, 6}, 0), 51);
  ExpectReductionMatches(*Cumsum(GetParam(), {4, 5, 6}, 1), 52);
  ExpectReductionMatches(*Cumsum(GetParam(), {4, 5, 6}, -1), 53);
}

TEST_P(CumsumKernel, ManyColumnsAndLongRuns) {
  // 150 columns: two full blocks of 64 and a partial one.
  ExpectReductionMatches(*Cumsum(GetParam(), {9, 150}, 0), 54);
  ExpectReductionMatches(*Cumsum(GetParam(), {2, 1003}, 1), 55);
}

TEST_P(CumsumKernel, ScalarAndEmptyInputs) {
  ExpectReductionMatches(*Cumsum(GetParam(), {}, 0), 56);
  ExpectReductionMatches(*Cumsum(GetParam(), {3, 0}, 1), 57);
}

INSTANTIATE_TEST_SUITE_P(EveryAllowedDtype, CumsumKernel,
                         ::testing::Values(ir::DType::kFloat32, ir::DType::kFloat64,
                                           ir::DType::kInt32, ir::DType::kInt64),
                         [](const ::testing::TestParamInfo<ir::DType>& info) {
                           return std::string(ir::DTypeName(info.param));
                         });

TEST(CumsumKernelCheck, RefusesBadCalls) {
  ExpectRefused(*Cumsum(ir::DType::kFloat32, {4, 5}, 2), Error::kInvalidProgram);
  ExpectRefused(*Cumsum(ir::DType::kBool, {4, 5}, 1), Error::kInvalidType);
}

// ---- topk (sort, argsort) -----------------------------------------------------------------

std::unique_ptr<ir::Graph> TopK(ir::DType dtype, std::vector<int64_t> sizes, int64_t k,
                                int64_t dim, bool largest) {
  std::vector<int64_t> out = sizes;
  if (!out.empty()) out[dim < 0 ? dim + out.size() : dim] = k;
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(dtype, sizes));
  std::vector<ir::Value*> outs = b.Op("edge.topk", {x})
                                     .Attr("k", k)
                                     .Attr("dim", dim)
                                     .Attr("largest", largest)
                                     .Outs({TypeOf(dtype, out), I64(out)});
  b.Output(outs[0]);
  b.Output(outs[1]);
  return b.Build();
}

class TopKKernel : public ::testing::TestWithParam<ir::DType> {};

TEST_P(TopKKernel, LargestAndSmallestAlongEveryDim) {
  ExpectReductionMatches(*TopK(GetParam(), {6, 5, 4}, 3, 0, true), 61);
  ExpectReductionMatches(*TopK(GetParam(), {6, 5, 4}, 2, 1, false), 62);
  ExpectReductionMatches(*TopK(GetParam(), {6, 5, 40}, 7, -1, true), 63);
}

TEST_P(TopKKernel, AWholeDimIsAStableSort) {
  // Integers in [0, 3): many ties, which keep their index order both ways.
  ExpectMatchesReference(*TopK(GetParam(), {4, 30}, 30, 1, false), 64,
                         verify::Tolerance{1e-5, 1e-4}, 0.0, 3.0, 0, 3);
  ExpectMatchesReference(*TopK(GetParam(), {30, 4}, 30, 0, true), 65,
                         verify::Tolerance{1e-5, 1e-4}, 0.0, 3.0, 0, 3);
}

TEST_P(TopKKernel, ScalarAndEmptyCases) {
  ExpectReductionMatches(*TopK(GetParam(), {}, 1, 0, true), 66);
  ExpectReductionMatches(*TopK(GetParam(), {3, 5}, 0, 1, true), 67);
}

INSTANTIATE_TEST_SUITE_P(EveryAllowedDtype, TopKKernel,
                         ::testing::Values(ir::DType::kFloat32, ir::DType::kFloat64,
                                           ir::DType::kInt32, ir::DType::kInt64),
                         [](const ::testing::TestParamInfo<ir::DType>& info) {
                           return std::string(ir::DTypeName(info.param));
                         });

TEST(TopKKernelCheck, RefusesKBeyondTheDim) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({3, 4}));
  std::vector<ir::Value*> outs = b.Op("edge.topk", {x})
                                     .Attr("k", int64_t{5})
                                     .Attr("dim", int64_t{1})
                                     .Attr("largest", true)
                                     .Outs({F32({3, 5}), I64({3, 5})});
  b.Output(outs[0]);
  b.Output(outs[1]);
  ExpectRefused(*b.Build(), Error::kInvalidProgram);
}

}  // namespace
}  // namespace torchir::testing
