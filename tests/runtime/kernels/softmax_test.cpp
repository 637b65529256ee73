// The portable edge.softmax and edge.log_softmax kernels against LibTorch: every dim
// position, negative dims, 0-d inputs, large values, and refused calls.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using runtime::Error;

std::unique_ptr<ir::Graph> Softmax(const std::string& op, std::vector<int64_t> input, int64_t dim,
                                   std::vector<int64_t> out,
                                   ir::DType dtype = ir::DType::kFloat32) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(dtype, input));
  b.Output(b.Op(op, {x}).Attr("dim", dim).Out(TypeOf(dtype, out)));
  return b.Build();
}

class SoftmaxKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(SoftmaxKernel, LastDim) {
  ExpectMatchesReference(*Softmax(GetParam(), {3, 7}, 1, {3, 7}), 1);
  ExpectMatchesReference(*Softmax(GetParam(), {2, 3, 100}, -1, {2, 3, 100}), 2);
}

TEST_P(SoftmaxKernel, OuterAndMiddleDims) {
  ExpectMatchesReference(*Softmax(GetParam(), {5, 4, 3}, 0, {5, 4, 3}), 3);
  ExpectMatchesReference(*Softmax(GetParam(), {2, 6, 5}, -2, {2, 6, 5}), 4);
}

TEST_P(SoftmaxKernel, MoreColumnsThanOneChunk) {
  // 70 adjacent columns: two full chunks of 32 and a partial one.
  ExpectMatchesReference(*Softmax(GetParam(), {2, 9, 70}, 1, {2, 9, 70}), 5);
}

TEST_P(SoftmaxKernel, ScalarInput) {
  ExpectMatchesReference(*Softmax(GetParam(), {}, 0, {}), 6);
  ExpectMatchesReference(*Softmax(GetParam(), {}, -1, {}), 7);
}

TEST_P(SoftmaxKernel, LargeValuesDoNotOverflow) {
  ExpectMatchesReference(*Softmax(GetParam(), {4, 33}, 1, {4, 33}), 8,
                         verify::Tolerance{1e-5, 1e-4}, -200.0, 200.0);
}

TEST_P(SoftmaxKernel, EmptyDim) {
  ExpectMatchesReference(*Softmax(GetParam(), {3, 0}, 1, {3, 0}), 9);
}

TEST_P(SoftmaxKernel, RefusesADimOutOfRange) {
  ExpectRefused(*Softmax(GetParam(), {3, 7}, 2, {3, 7}), Error::kInvalidProgram);
  ExpectRefused(*Softmax(GetParam(), {3, 7}, -3, {3, 7}), Error::kInvalidProgram);
  ExpectRefused(*Softmax(GetParam(), {}, 1, {}), Error::kInvalidProgram);
}

TEST_P(SoftmaxKernel, RefusesAWrongOutputShape) {
  ExpectRefused(*Softmax(GetParam(), {3, 7}, 1, {7, 3}), Error::kShapeMismatch);
}

// float64 computes in double (the harness holds float64 outputs to 1e-10, compare.h), along
// every kind of dim, and with values whose exponentials overflow a float.
TEST_P(SoftmaxKernel, Float64) {
  const ir::DType f64 = ir::DType::kFloat64;
  ExpectMatchesReference(*Softmax(GetParam(), {2, 3, 100}, -1, {2, 3, 100}, f64), 31);
  ExpectMatchesReference(*Softmax(GetParam(), {5, 4, 3}, 0, {5, 4, 3}, f64), 32);
  ExpectMatchesReference(*Softmax(GetParam(), {2, 9, 70}, 1, {2, 9, 70}, f64), 33);
  ExpectMatchesReference(*Softmax(GetParam(), {}, 0, {}, f64), 34);
  ExpectMatchesReference(*Softmax(GetParam(), {4, 33}, 1, {4, 33}, f64), 35,
                         verify::Tolerance{1e-5, 1e-4}, -200.0, 200.0);
}

TEST_P(SoftmaxKernel, RefusesAFloat64InputWithAFloat32Output) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", TypeOf(ir::DType::kFloat64, {3, 7}));
  b.Output(b.Op(GetParam(), {x}).Attr("dim", int64_t{1}).Out(F32({3, 7})));
  ExpectKernelRefuses(*b.Build(), Error::kInvalidType);
}

INSTANTIATE_TEST_SUITE_P(SoftmaxAndLogSoftmax, SoftmaxKernel,
                         ::testing::Values("edge.softmax", "edge.log_softmax"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(5);
                         });

}  // namespace
}  // namespace torchir::testing
