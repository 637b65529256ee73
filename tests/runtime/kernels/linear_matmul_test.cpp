// The portable edge.linear and edge.matmul kernels against LibTorch: tile edges, leading
// dims, bias, fused clamp, batch broadcasting, empty inner dims, and refused calls.
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using runtime::Error;

// One edge.linear node over graph inputs x [input], w [weight] and, with `bias`, b [weight[0]].
std::unique_ptr<ir::Graph> Linear(std::vector<int64_t> input, std::vector<int64_t> weight,
                                  bool bias, std::vector<int64_t> out, double min = -kInf,
                                  double max = kInf, ir::DType dtype = ir::DType::kFloat32) {
  GraphBuilder b;
  std::vector<ir::Value*> inputs = {b.Input("x", TypeOf(dtype, input)),
                                    b.Input("w", TypeOf(dtype, weight))};
  if (bias) inputs.push_back(b.Input("b", TypeOf(dtype, {weight[0]})));
  b.Output(b.Op("edge.linear", inputs)
               .Attr("output_min", min)
               .Attr("output_max", max)
               .Out(TypeOf(dtype, out)));
  return b.Build();
}

std::unique_ptr<ir::Graph> Matmul(std::vector<int64_t> a, std::vector<int64_t> other,
                                  std::vector<int64_t> out,
                                  ir::DType dtype = ir::DType::kFloat32) {
  GraphBuilder b;
  ir::Value* x = b.Input("a", TypeOf(dtype, a));
  ir::Value* y = b.Input("b", TypeOf(dtype, other));
  b.Output(b.Op("edge.matmul", {x, y}).Out(TypeOf(dtype, out)));
  return b.Build();
}

// ---- linear ---------------------------------------------------------------------------

TEST(LinearKernel, MatrixWithBias) {
  ExpectMatchesReference(*Linear({5, 7}, {3, 7}, /*bias=*/true, {5, 3}), 1);
}

TEST(LinearKernel, WithoutBias) {
  ExpectMatchesReference(*Linear({4, 16}, {8, 16}, /*bias=*/false, {4, 8}), 2);
}

TEST(LinearKernel, TileEdgesInEveryDirection) {
  // 37 is not a multiple of the lane count; 5 rows and 13 columns leave partial tiles.
  ExpectMatchesReference(*Linear({5, 37}, {13, 37}, /*bias=*/true, {5, 13}), 3);
}

TEST(LinearKernel, VectorInput) {
  ExpectMatchesReference(*Linear({9}, {4, 9}, /*bias=*/true, {4}), 4);
}

TEST(LinearKernel, LeadingDimsAreRows) {
  ExpectMatchesReference(*Linear({2, 3, 17}, {9, 17}, /*bias=*/true, {2, 3, 9}), 5);
}

TEST(LinearKernel, FusedClamp) {
  ExpectMatchesReference(*Linear({6, 10}, {8, 10}, /*bias=*/true, {6, 8}, 0.0, 6.0), 6);
  ExpectMatchesReference(*Linear({6, 10}, {8, 10}, /*bias=*/false, {6, 8}, -kInf, 0.25), 7);
}

TEST(LinearKernel, EmptyInnerDimGivesTheBias) {
  ExpectMatchesReference(*Linear({4, 0}, {3, 0}, /*bias=*/true, {4, 3}), 8);
}

TEST(LinearKernel, TransformerSizedLayer) {
  ExpectMatchesReference(*Linear({8, 512}, {64, 512}, /*bias=*/true, {8, 64}), 9);
}

// float64 computes in double (the harness holds float64 outputs to 1e-10, compare.h): tile
// edges, leading dims, the fused clamp and a long K.
TEST(LinearKernel, Float64) {
  const ir::DType f64 = ir::DType::kFloat64;
  ExpectMatchesReference(*Linear({5, 37}, {13, 37}, true, {5, 13}, -kInf, kInf, f64), 31);
  ExpectMatchesReference(*Linear({2, 3, 17}, {9, 17}, false, {2, 3, 9}, -kInf, kInf, f64), 32);
  ExpectMatchesReference(*Linear({6, 10}, {8, 10}, true, {6, 8}, 0.0, 0.25, f64), 33);
  ExpectMatchesReference(*Linear({4, 0}, {3, 0}, true, {4, 3}, -kInf, kInf, f64), 34);
  ExpectMatchesReference(*Linear({8, 512}, {64, 512}, true, {8, 64}, -kInf, kInf, f64), 35);
}

// No implicit promotion: float32 weights on a float64 input are refused.
TEST(LinearKernelCheck, RefusesMixedFloat32AndFloat64) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(ir::DType::kFloat64, {5, 3}));
  ir::Value* w = b.Input("w", F32({4, 3}));
  b.Output(b.Op("edge.linear", {x, w})
               .Attr("output_min", -kInf)
               .Attr("output_max", kInf)
               .Out(TypeOf(ir::DType::kFloat64, {5, 4})));
  ExpectRefused(*b.Build(), Error::kInvalidType);
}

TEST(LinearKernelCheck, RefusesMismatchedOperands) {
  ExpectRefused(*Linear({5, 7}, {3, 6}, /*bias=*/true, {5, 3}), Error::kInvalidProgram);
  ExpectRefused(*Linear({5, 7}, {3, 7, 1}, /*bias=*/true, {5, 3}), Error::kInvalidProgram);
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({5, 7}));
  ir::Value* w = b.Input("w", F32({3, 7}));
  ir::Value* bias = b.Input("b", F32({7}));
  b.Output(b.Op("edge.linear", {x, w, bias})
               .Attr("output_min", -kInf)
               .Attr("output_max", kInf)
               .Out(F32({5, 3})));
  ExpectRefused(*b.Build(), Error::kInvalidProgram);
}

TEST(LinearKernelCheck, RefusesAWrongOutputShape) {
  ExpectRefused(*Linear({5, 7}, {3, 7}, /*bias=*/true, {5, 7}), Error::kShapeMismatch);
  ExpectRefused(*Linear({2, 5, 7}, {3, 7}, /*bias=*/true, {10, 3}), Error::kShapeMismatch);
}

TEST(LinearKernelCheck, RefusesAnIntegerOutput) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32({5, 7}));
  ir::Value* w = b.Input("w", F32({3, 7}));
  b.Output(b.Op("edge.linear", {x, w})
               .Attr("output_min", -kInf)
               .Attr("output_max", kInf)
               .Out(I64({5, 3})));
  ExpectRefused(*b.Build(), Error::kInvalidType);
}

// ---- matmul ---------------------------------------------------------------------------

TEST(MatmulKernel, Matrices) { ExpectMatchesReference(*Matmul({3, 4}, {4, 5}, {3, 5}), 11); }

TEST(MatmulKernel, WideOutputWithPartialRowBlocks) {
  // 6 rows: one block of four and two single rows; 40 columns take the row-pass path.
  ExpectMatchesReference(*Matmul({6, 19}, {19, 40}, {6, 40}), 12);
}

TEST(MatmulKernel, OutputWiderThanOneColumnBlock) {
  ExpectMatchesReference(*Matmul({5, 3}, {3, 1030}, {5, 1030}), 13);
}

TEST(MatmulKernel, NarrowOutputs) {
  ExpectMatchesReference(*Matmul({4, 9}, {9, 1}, {4, 1}), 14);
  ExpectMatchesReference(*Matmul({7, 30}, {30, 7}, {7, 7}), 15);
}

TEST(MatmulKernel, SameBatchDims) {
  ExpectMatchesReference(*Matmul({2, 3, 4}, {2, 4, 5}, {2, 3, 5}), 16);
}

TEST(MatmulKernel, BroadcastsBatchDims) {
  ExpectMatchesReference(*Matmul({2, 1, 3, 4}, {5, 4, 6}, {2, 5, 3, 6}), 17);
  ExpectMatchesReference(*Matmul({3, 1, 2, 8}, {1, 4, 8, 9}, {3, 4, 2, 9}), 18);
}

TEST(MatmulKernel, MatrixTimesBatch) {
  ExpectMatchesReference(*Matmul({3, 4}, {2, 4, 5}, {2, 3, 5}), 19);
  ExpectMatchesReference(*Matmul({2, 2, 3, 4}, {4, 10}, {2, 2, 3, 10}), 20);
}

TEST(MatmulKernel, AttentionShapes) {
  ExpectMatchesReference(*Matmul({1, 4, 16, 32}, {1, 4, 32, 16}, {1, 4, 16, 16}), 21);
  ExpectMatchesReference(*Matmul({1, 4, 16, 16}, {1, 4, 16, 32}, {1, 4, 16, 32}), 22);
}

TEST(MatmulKernel, EmptyInnerDimGivesZeros) {
  ExpectMatchesReference(*Matmul({2, 0}, {0, 9}, {2, 9}), 23);
  ExpectMatchesReference(*Matmul({2, 0}, {0, 3}, {2, 3}), 24);
}

TEST(MatmulKernel, EmptyBatch) {
  ExpectMatchesReference(*Matmul({0, 3, 4}, {1, 4, 5}, {0, 3, 5}), 25);
}

TEST(MatmulKernel, LargeSquare) {
  // K = 256 products of terms in [-2, 2): sum |a*b| is ~256, so two correct summation orders
  // differ by about sqrt(K) * 2^-24 * 256 ~ 2.4e-4 in the worst elements (ones that nearly
  // cancel; the default atol of 1e-5 only held while the reference happened to sum like us).
  ExpectMatchesReference(*Matmul({64, 256}, {256, 48}, {64, 48}), 26, {2.5e-4, 1e-4});
}

// float64 computes in double (the harness holds float64 outputs to 1e-10, compare.h): the
// row-block, narrow and broadcast paths, and a K of 256 (whose float32 result is 2.5e-4 off).
TEST(MatmulKernel, Float64) {
  const ir::DType f64 = ir::DType::kFloat64;
  ExpectMatchesReference(*Matmul({6, 19}, {19, 40}, {6, 40}, f64), 31);
  ExpectMatchesReference(*Matmul({4, 9}, {9, 1}, {4, 1}, f64), 32);
  ExpectMatchesReference(*Matmul({2, 1, 3, 4}, {5, 4, 6}, {2, 5, 3, 6}, f64), 33);
  ExpectMatchesReference(*Matmul({2, 0}, {0, 9}, {2, 9}, f64), 34);
  ExpectMatchesReference(*Matmul({64, 256}, {256, 48}, {64, 48}, f64), 35);
}

TEST(MatmulKernelCheck, RefusesMixedFloat32AndFloat64) {
  GraphBuilder b;
  ir::Value* x = b.Input("a", TypeOf(ir::DType::kFloat64, {3, 4}));
  ir::Value* y = b.Input("b", F32({4, 5}));
  b.Output(b.Op("edge.matmul", {x, y}).Out(TypeOf(ir::DType::kFloat64, {3, 5})));
  ExpectRefused(*b.Build(), Error::kInvalidType);
}

TEST(MatmulKernelCheck, RefusesMismatchedOperands) {
  ExpectRefused(*Matmul({3, 4}, {5, 6}, {3, 6}), Error::kInvalidProgram);
  ExpectRefused(*Matmul({2, 3, 4}, {3, 4, 5}, {3, 3, 5}), Error::kInvalidProgram);
  ExpectRefused(*Matmul({4}, {4, 5}, {5}), Error::kInvalidProgram);
}

TEST(MatmulKernelCheck, RefusesAWrongOutputShape) {
  ExpectRefused(*Matmul({3, 4}, {4, 5}, {3, 4}), Error::kShapeMismatch);
  ExpectRefused(*Matmul({2, 1, 3, 4}, {5, 4, 6}, {2, 3, 6}), Error::kShapeMismatch);
  ExpectRefused(*Matmul({2, 1, 3, 4}, {5, 4, 6}, {2, 1, 3, 6}), Error::kShapeMismatch);
}

}  // namespace
}  // namespace torchir::testing
