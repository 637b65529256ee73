// The portable edge.max_pool2d, edge.avg_pool2d and edge.adaptive_avg_pool2d kernels against
// LibTorch: padding, dilation, ceil_mode (including its dropped last window),
// count_include_pad, 3-d inputs, and refused calls.
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"

namespace torchir::testing {
namespace {

using runtime::Error;

struct Window {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;
  std::vector<int64_t> padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  bool ceil_mode = false;
};

std::unique_ptr<ir::Graph> MaxPool(std::vector<int64_t> input, const Window& w,
                                   std::vector<int64_t> out) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32(input));
  b.Output(b.Op("edge.max_pool2d", {x})
               .Attr("kernel_size", w.kernel_size)
               .Attr("stride", w.stride)
               .Attr("padding", w.padding)
               .Attr("dilation", w.dilation)
               .Attr("ceil_mode", w.ceil_mode)
               .Out(F32(out)));
  return b.Build();
}

std::unique_ptr<ir::Graph> AvgPool(std::vector<int64_t> input, const Window& w,
                                   bool count_include_pad, std::vector<int64_t> out) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32(input));
  b.Output(b.Op("edge.avg_pool2d", {x})
               .Attr("kernel_size", w.kernel_size)
               .Attr("stride", w.stride)
               .Attr("padding", w.padding)
               .Attr("ceil_mode", w.ceil_mode)
               .Attr("count_include_pad", count_include_pad)
               .Out(F32(out)));
  return b.Build();
}

std::unique_ptr<ir::Graph> AdaptiveAvgPool(std::vector<int64_t> input,
                                           std::vector<int64_t> output_size,
                                           std::vector<int64_t> out) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", F32(input));
  b.Output(b.Op("edge.adaptive_avg_pool2d", {x}).Attr("output_size", output_size).Out(F32(out)));
  return b.Build();
}

Window Square(int64_t kernel, int64_t stride, int64_t padding, bool ceil_mode = false) {
  Window w;
  w.kernel_size = {kernel, kernel};
  w.stride = {stride, stride};
  w.padding = {padding, padding};
  w.ceil_mode = ceil_mode;
  return w;
}

// ---- max_pool2d -----------------------------------------------------------------------

TEST(MaxPool2dKernel, PaddedStrided) {
  ExpectMatchesReference(*MaxPool({2, 3, 9, 9}, Square(3, 2, 1), {2, 3, 5, 5}), 1);
}

TEST(MaxPool2dKernel, CeilModeAddsAWindow) {
  // floor((10 - 3) / 2) + 1 = 4; ceil gives 5.
  ExpectMatchesReference(*MaxPool({1, 2, 10, 10}, Square(3, 2, 0, true), {1, 2, 5, 5}), 2);
  // (4 + 2 - 3) / 2: floor 2 windows, ceil 3, the last starting in the input.
  ExpectMatchesReference(*MaxPool({1, 2, 4, 4}, Square(3, 2, 1, true), {1, 2, 3, 3}), 3);
}

TEST(MaxPool2dKernel, CeilModeDropsAWindowStartingInThePadding) {
  // (5 + 2 - 2) / 3 rounds up to 2 (3 windows), but the third would start at 6 - 1 = 5, past
  // the input: PyTorch drops it.
  ExpectMatchesReference(*MaxPool({1, 2, 5, 5}, Square(2, 3, 1, true), {1, 2, 2, 2}), 4);
}

TEST(MaxPool2dKernel, DilationPerAxis) {
  // H: (9 + 2 - 5) / 1 + 1 = 7; W: (8 + 2 - 4) / 2 + 1 = 4.
  Window w;
  w.kernel_size = {3, 2};
  w.stride = {1, 2};
  w.padding = {1, 1};
  w.dilation = {2, 3};
  ExpectMatchesReference(*MaxPool({1, 2, 9, 8}, w, {1, 2, 7, 4}), 5);
}

TEST(MaxPool2dKernel, WindowsOnlyInThePaddingGiveMinusInfinity) {
  // One input row; the dilated window's two rows are -1 and 1, both outside it.
  Window w;
  w.kernel_size = {2, 2};
  w.stride = {1, 1};
  w.padding = {1, 1};
  w.dilation = {2, 1};
  ExpectMatchesReference(*MaxPool({1, 1, 1, 4}, w, {1, 1, 1, 5}), 6);
}

TEST(MaxPool2dKernel, ThreeDimensionalInput) {
  ExpectMatchesReference(*MaxPool({3, 7, 7}, Square(2, 2, 0), {3, 3, 3}), 7);
}

TEST(MaxPool2dKernel, RectangularWindow) {
  Window w;
  w.kernel_size = {2, 3};
  w.stride = {2, 1};
  w.padding = {1, 0};
  ExpectMatchesReference(*MaxPool({2, 2, 7, 6}, w, {2, 2, 4, 4}), 8);
}

TEST(MaxPool2dKernelCheck, RefusesBadWindows) {
  // Padding above half the kernel.
  ExpectRefused(*MaxPool({1, 1, 8, 8}, Square(2, 2, 2), {1, 1, 6, 6}), Error::kInvalidProgram);
  ExpectRefused(*MaxPool({1, 1, 8, 8}, Square(2, 0, 0), {1, 1, 4, 4}), Error::kInvalidProgram);
  ExpectRefused(*MaxPool({1, 1, 8, 8}, Square(0, 1, 0), {1, 1, 8, 8}), Error::kInvalidProgram);
  ExpectRefused(*MaxPool({1, 1, 2, 2}, Square(3, 1, 0), {1, 1, 1, 1}), Error::kInvalidProgram);
  Window one_entry;
  one_entry.kernel_size = {2};
  one_entry.stride = {2, 2};
  ExpectRefused(*MaxPool({1, 1, 8, 8}, one_entry, {1, 1, 4, 4}), Error::kInvalidProgram);
}

TEST(MaxPool2dKernelCheck, RefusesBadShapes) {
  ExpectRefused(*MaxPool({1, 1, 8, 8}, Square(2, 2, 0), {1, 1, 4, 5}), Error::kShapeMismatch);
  ExpectRefused(*MaxPool({1, 1, 8, 8}, Square(2, 2, 0), {1, 4, 4}), Error::kShapeMismatch);
  ExpectRefused(*MaxPool({8, 8}, Square(2, 2, 0), {4, 4}), Error::kInvalidProgram);
}

// ---- avg_pool2d -----------------------------------------------------------------------

TEST(AvgPool2dKernel, PaddingCountedOrNot) {
  ExpectMatchesReference(*AvgPool({2, 3, 9, 9}, Square(3, 2, 1), true, {2, 3, 5, 5}), 11);
  ExpectMatchesReference(*AvgPool({2, 3, 9, 9}, Square(3, 2, 1), false, {2, 3, 5, 5}), 12);
}

TEST(AvgPool2dKernel, CeilModeWindowPastThePaddedInput) {
  // (6 + 2 - 3) / 2 rounds up to 3, so 4 windows; the last covers rows 5..7, of which 7 lies
  // past the padding: the divisor counts only rows 5 and 6 with count_include_pad.
  ExpectMatchesReference(*AvgPool({1, 2, 6, 6}, Square(3, 2, 1, true), true, {1, 2, 4, 4}), 13);
  ExpectMatchesReference(*AvgPool({1, 2, 6, 6}, Square(3, 2, 1, true), false, {1, 2, 4, 4}), 14);
}

TEST(AvgPool2dKernel, CeilModeWithoutPadding) {
  ExpectMatchesReference(*AvgPool({1, 1, 5, 5}, Square(2, 2, 0, true), true, {1, 1, 3, 3}), 15);
}

TEST(AvgPool2dKernel, ThreeDimensionalInputAndRectangularWindow) {
  Window w;
  w.kernel_size = {2, 4};
  w.stride = {2, 4};
  ExpectMatchesReference(*AvgPool({3, 8, 8}, w, true, {3, 4, 2}), 16);
}

TEST(AvgPool2dKernelCheck, RefusesBadCalls) {
  ExpectRefused(*AvgPool({1, 1, 8, 8}, Square(3, 1, 2), true, {1, 1, 10, 10}),
                Error::kInvalidProgram);
  ExpectRefused(*AvgPool({1, 1, 8, 8}, Square(2, 2, 0), true, {1, 1, 4}), Error::kShapeMismatch);
}

// ---- adaptive_avg_pool2d --------------------------------------------------------------

TEST(AdaptiveAvgPool2dKernel, UnevenWindows) {
  ExpectMatchesReference(*AdaptiveAvgPool({2, 3, 10, 7}, {4, 3}, {2, 3, 4, 3}), 21);
}

TEST(AdaptiveAvgPool2dKernel, EvenWindows) {
  ExpectMatchesReference(*AdaptiveAvgPool({1, 2, 9, 9}, {3, 3}, {1, 2, 3, 3}), 22);
}

TEST(AdaptiveAvgPool2dKernel, OutputLargerThanInput) {
  ExpectMatchesReference(*AdaptiveAvgPool({1, 2, 5, 4}, {7, 6}, {1, 2, 7, 6}), 23);
}

TEST(AdaptiveAvgPool2dKernel, ThreeDimensionalInput) {
  ExpectMatchesReference(*AdaptiveAvgPool({3, 5, 6}, {2, 4}, {3, 2, 4}), 24);
}

TEST(AdaptiveAvgPool2dKernelCheck, RefusesBadCalls) {
  ExpectRefused(*AdaptiveAvgPool({1, 2, 5, 4}, {0, 2}, {1, 2, 0, 2}), Error::kInvalidProgram);
  ExpectRefused(*AdaptiveAvgPool({1, 2, 5, 4}, {2, 2, 2}, {1, 2, 2, 2}), Error::kInvalidProgram);
  ExpectRefused(*AdaptiveAvgPool({1, 2, 5, 4}, {2, 2}, {1, 2, 2, 3}), Error::kShapeMismatch);
  // Averages over nothing: LibTorch refuses empty non-batch dims, the shape rule does not.
  ExpectKernelRefuses(*AdaptiveAvgPool({1, 2, 0, 4}, {2, 2}, {1, 2, 2, 2}), Error::kInvalidProgram);
}

}  // namespace
}  // namespace torchir::testing
