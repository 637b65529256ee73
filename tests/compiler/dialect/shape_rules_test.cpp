#include "compiler/dialect/shape_rules.h"

#include <gtest/gtest.h>

#include <limits>
#include <list>

#include "compiler/dialect/edge_ops.h"

namespace torchir::dialect {
namespace {

using ir::AttrValue;
using ir::DType;
using ir::TensorType;

TensorType F32(std::vector<int64_t> sizes) { return {DType::kFloat32, std::move(sizes)}; }

// Runs the shape rule of `op` on inputs of `types` with `attrs`; returns the
// output types or the error message.
class ShapeRuleTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::vector<TensorType>> Infer(
      const std::string& op, const std::vector<TensorType>& types,
      const std::vector<std::pair<std::string, AttrValue>>& attrs) {
    ir::Graph& graph = graphs_.emplace_back();
    std::vector<ir::Value*> inputs;
    for (size_t i = 0; i < types.size(); ++i) {
      inputs.push_back(graph.AddInput("in" + std::to_string(i), types[i]));
    }
    ir::Node* node = graph.AppendNode("n", op, inputs, {}, {});
    for (const auto& [name, value] : attrs) node->SetAttr(name, value);
    std::vector<const TensorType*> pointers;
    for (ir::Value* input : inputs) pointers.push_back(&input->type());
    return FindEdgeOp(op)->shape_rule(pointers, *node);
  }
  std::vector<int64_t> Sizes(const std::string& op, const std::vector<TensorType>& types,
                             const std::vector<std::pair<std::string, AttrValue>>& attrs,
                             size_t output = 0) {
    auto result = Infer(op, types, attrs);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? (*result)[output].sizes : std::vector<int64_t>{};
  }
  std::string ErrorOf(const std::string& op, const std::vector<TensorType>& types,
                      const std::vector<std::pair<std::string, AttrValue>>& attrs) {
    auto result = Infer(op, types, attrs);
    EXPECT_FALSE(result.ok());
    return result.ok() ? "" : std::string(result.status().message());
  }
  std::list<ir::Graph> graphs_;
};

std::vector<std::pair<std::string, AttrValue>> Conv(std::vector<int64_t> stride,
                                                    std::vector<int64_t> padding,
                                                    std::vector<int64_t> dilation,
                                                    int64_t groups) {
  return {{"stride", AttrValue::IntList(stride)},   {"padding", AttrValue::IntList(padding)},
          {"dilation", AttrValue::IntList(dilation)}, {"groups", AttrValue::Int(groups)},
          {"output_min", AttrValue::Double(0)},     {"output_max", AttrValue::Double(0)}};
}

TEST_F(ShapeRuleTest, ConvolutionMatchesPyTorch) {
  // torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)(x[1,3,224,224]) -> [1,16,112,112]
  EXPECT_EQ(Sizes("edge.convolution", {F32({1, 3, 224, 224}), F32({16, 3, 3, 3})},
                  Conv({2, 2}, {1, 1}, {1, 1}, 1)),
            (std::vector<int64_t>{1, 16, 112, 112}));
  // dilation 2, padding 2 keeps 10x10; depthwise groups = channels.
  EXPECT_EQ(Sizes("edge.convolution", {F32({1, 8, 10, 10}), F32({8, 1, 3, 3}), F32({8})},
                  Conv({1, 1}, {2, 2}, {2, 2}, 8)),
            (std::vector<int64_t>{1, 8, 10, 10}));
  // conv1d, kernel 5, stride 2: (20 - 5) / 2 + 1 = 8.
  EXPECT_EQ(Sizes("edge.convolution", {F32({1, 4, 20}), F32({6, 4, 5})}, Conv({2}, {0}, {1}, 1)),
            (std::vector<int64_t>{1, 6, 8}));
  EXPECT_NE(ErrorOf("edge.convolution", {F32({1, 8, 10, 10}), F32({8, 3, 3, 3})},
                    Conv({1, 1}, {0, 0}, {1, 1}, 4))
                .find("does not fit 8 input channels"),
            std::string::npos);
  EXPECT_NE(ErrorOf("edge.convolution", {F32({1, 3, 2, 2}), F32({4, 3, 3, 3})},
                    Conv({1, 1}, {0, 0}, {1, 1}, 1))
                .find("does not fit input length 2"),
            std::string::npos);
}

std::vector<std::pair<std::string, AttrValue>> Pool(std::vector<int64_t> kernel,
                                                    std::vector<int64_t> stride,
                                                    std::vector<int64_t> padding, bool ceil) {
  return {{"kernel_size", AttrValue::IntList(kernel)}, {"stride", AttrValue::IntList(stride)},
          {"padding", AttrValue::IntList(padding)},    {"dilation", AttrValue::IntList({1, 1})},
          {"ceil_mode", AttrValue::Bool(ceil)}};
}

TEST_F(ShapeRuleTest, PoolingFloorAndCeilModes) {
  // F.max_pool2d(x[1,4,10,10], 3, 2): 4x4; with ceil_mode=True: 5x5.
  EXPECT_EQ(Sizes("edge.max_pool2d", {F32({1, 4, 10, 10})}, Pool({3, 3}, {2, 2}, {0, 0}, false)),
            (std::vector<int64_t>{1, 4, 4, 4}));
  EXPECT_EQ(Sizes("edge.max_pool2d", {F32({1, 4, 10, 10})}, Pool({3, 3}, {2, 2}, {0, 0}, true)),
            (std::vector<int64_t>{1, 4, 5, 5}));
  // ResNet's stem pool: 112 -> 56 with k3 s2 p1.
  EXPECT_EQ(Sizes("edge.max_pool2d", {F32({1, 64, 112, 112})}, Pool({3, 3}, {2, 2}, {1, 1}, false)),
            (std::vector<int64_t>{1, 64, 56, 56}));
  // ceil_mode may not start a window in the right padding: 5 with k2 s2 p1 gives 3.
  EXPECT_EQ(Sizes("edge.max_pool2d", {F32({1, 1, 5, 5})}, Pool({2, 2}, {2, 2}, {1, 1}, true)),
            (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_NE(ErrorOf("edge.max_pool2d", {F32({1, 1, 5, 5})}, Pool({2, 2}, {2, 2}, {2, 2}, false))
                .find("exceeds half the kernel"),
            std::string::npos);
}

TEST_F(ShapeRuleTest, BroadcastingBinaryOps) {
  EXPECT_EQ(Sizes("edge.add", {F32({2, 3, 4}), F32({4})}, {}), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Sizes("edge.mul", {F32({1, 8, 10, 10}), F32({8, 1, 1})}, {}),
            (std::vector<int64_t>{1, 8, 10, 10}));
  EXPECT_EQ(Sizes("edge.mul", {F32({}), F32({3, 1})}, {}), (std::vector<int64_t>{3, 1}));
  EXPECT_NE(ErrorOf("edge.add", {F32({2, 3}), F32({4})}, {}).find("do not broadcast"),
            std::string::npos);
}

TEST_F(ShapeRuleTest, MatmulBroadcastsBatchDims) {
  EXPECT_EQ(Sizes("edge.matmul", {F32({2, 1, 5, 4}), F32({3, 4, 6})}, {}),
            (std::vector<int64_t>{2, 3, 5, 6}));
  EXPECT_NE(ErrorOf("edge.matmul", {F32({5, 4}), F32({5, 4})}, {}).find("inner dimensions differ"),
            std::string::npos);
}

TEST_F(ShapeRuleTest, ReductionsWithAndWithoutKeepdim) {
  auto attrs = [](std::vector<int64_t> dims, bool keep) {
    return std::vector<std::pair<std::string, AttrValue>>{{"dims", AttrValue::IntList(dims)},
                                                          {"keepdim", AttrValue::Bool(keep)}};
  };
  EXPECT_EQ(Sizes("edge.mean", {F32({1, 8, 10, 10})}, attrs({2, 3}, true)),
            (std::vector<int64_t>{1, 8, 1, 1}));
  EXPECT_EQ(Sizes("edge.mean", {F32({1, 8, 10, 10})}, attrs({-1, -2}, false)),
            (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(Sizes("edge.sum", {F32({2, 3})}, attrs({}, false)), (std::vector<int64_t>{}));
  EXPECT_NE(ErrorOf("edge.sum", {F32({2, 3})}, attrs({1, -1}, false)).find("listed twice"),
            std::string::npos);
}

TEST_F(ShapeRuleTest, DataMovement) {
  EXPECT_EQ(Sizes("edge.permute", {F32({1, 8, 10, 12})}, {{"dims", AttrValue::IntList({0, 2, 3, 1})}}),
            (std::vector<int64_t>{1, 10, 12, 8}));
  EXPECT_NE(ErrorOf("edge.permute", {F32({2, 3})}, {{"dims", AttrValue::IntList({0, 0})}})
                .find("not a permutation"),
            std::string::npos);
  // x[..., ::2] on 4 elements -> 2; 1:3 -> 2.
  auto slice = [](int64_t dim, int64_t start, int64_t end, int64_t step) {
    return std::vector<std::pair<std::string, AttrValue>>{
        {"dim", AttrValue::Int(dim)}, {"start", AttrValue::Int(start)},
        {"end", AttrValue::Int(end)}, {"step", AttrValue::Int(step)}};
  };
  EXPECT_EQ(Sizes("edge.slice", {F32({2, 3, 4})}, slice(2, 0, 4, 2)), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(Sizes("edge.slice", {F32({2, 3, 5})}, slice(2, 0, 5, 2)), (std::vector<int64_t>{2, 3, 3}));
  EXPECT_NE(ErrorOf("edge.slice", {F32({2, 3})}, slice(1, 2, 4, 1)).find("end <= 3"),
            std::string::npos);
  EXPECT_EQ(Sizes("edge.concatenate", {F32({2, 3, 4}), F32({2, 5, 4})}, {{"dim", AttrValue::Int(1)}}),
            (std::vector<int64_t>{2, 8, 4}));
  EXPECT_EQ(Sizes("edge.expand", {F32({3, 1})}, {{"sizes", AttrValue::IntList({2, 3, 4})}}),
            (std::vector<int64_t>{2, 3, 4}));
  EXPECT_NE(ErrorOf("edge.expand", {F32({3, 2})}, {{"sizes", AttrValue::IntList({3, 4})}})
                .find("do not broadcast"),
            std::string::npos);
  EXPECT_EQ(Sizes("edge.index_select", {F32({10, 8}), TensorType{DType::kInt64, {6}}},
                  {{"dim", AttrValue::Int(0)}}),
            (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(Sizes("edge.constant_pad", {F32({1, 2, 3})},
                  {{"pad", AttrValue::IntList({1, 2, 0, 1})}, {"value", AttrValue::Double(0)}}),
            (std::vector<int64_t>{1, 3, 6}));
}

// Attribute values from a hostile file near +-2^63: each is an error naming the
// attribute, computed without signed overflow (the CLI corpus in
// tests/tools/compile/hostile_model_test.cpp drives the same through the compiler).
TEST_F(ShapeRuleTest, ExtremeAttributesAreErrorsWithoutOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const TensorType image = F32({1, 1, 8, 8});
  const TensorType kernel = F32({1, 1, 3, 3});
  auto conv_error = [&](std::vector<int64_t> stride, std::vector<int64_t> padding,
                        std::vector<int64_t> dilation) {
    return ErrorOf("edge.convolution", {image, kernel}, Conv(stride, padding, dilation, 1));
  };
  EXPECT_NE(conv_error({1, 1}, {kMax, 0}, {1, 1})
                .find("padding[0] = 9223372036854775807 "
                      "overflows"),
            std::string::npos);
  EXPECT_NE(conv_error({1, 1}, {int64_t{1} << 62, 0}, {1, 1}).find("padding[0]"),
            std::string::npos);
  EXPECT_NE(conv_error({1, 1}, {0, kMin}, {1, 1})
                .find("padding[1] = -9223372036854775808 must "
                      "be non-negative"),
            std::string::npos);
  EXPECT_NE(conv_error({1, 1}, {0, 0}, {kMax, 1})
                .find("dilation[0] = 9223372036854775807 with "
                      "kernel[0] = 3 overflows"),
            std::string::npos);
  EXPECT_NE(conv_error({1, 1}, {0, 0}, {1, kMin}).find("dilation[1]"), std::string::npos);
  EXPECT_NE(conv_error({0, 1}, {0, 0}, {1, 1}).find("stride[0] = 0 must be positive"),
            std::string::npos);
  EXPECT_NE(conv_error({1, kMin}, {0, 0}, {1, 1}).find("stride[1]"), std::string::npos);
  // A huge stride is fine: one output element.
  EXPECT_EQ(Sizes("edge.convolution", {image, kernel}, Conv({kMax, kMax}, {0, 0}, {1, 1}, 1)),
            (std::vector<int64_t>{1, 1, 1, 1}));

  auto pool = [](std::vector<int64_t> kernel_size, std::vector<int64_t> stride,
                 std::vector<int64_t> padding, std::vector<int64_t> dilation) {
    return std::vector<std::pair<std::string, AttrValue>>{
        {"kernel_size", AttrValue::IntList(kernel_size)},
        {"stride", AttrValue::IntList(stride)},
        {"padding", AttrValue::IntList(padding)},
        {"dilation", AttrValue::IntList(dilation)},
        {"ceil_mode", AttrValue::Bool(true)}};
  };
  EXPECT_NE(ErrorOf("edge.max_pool2d", {image}, pool({kMax, 2}, {2, 2}, {0, 0}, {1, 1}))
                .find("kernel_size[0] = 9223372036854775807"),
            std::string::npos);
  EXPECT_NE(ErrorOf("edge.max_pool2d", {image}, pool({kMin, 2}, {2, 2}, {0, 0}, {1, 1}))
                .find("kernel_size[0] = -9223372036854775808 must be positive"),
            std::string::npos);
  EXPECT_NE(ErrorOf("edge.max_pool2d", {image}, pool({2, 2}, {kMax, 2}, {kMax, 0}, {1, 1}))
                .find("padding[0]"),
            std::string::npos);
  EXPECT_NE(ErrorOf("edge.max_pool2d", {image}, pool({2, 2}, {2, 2}, {0, 0}, {1, kMax}))
                .find("dilation[1]"),
            std::string::npos);
  // ceil_mode with a stride near 2^63: one window, no overflow in the ceiling.
  EXPECT_EQ(Sizes("edge.max_pool2d", {image}, pool({2, 2}, {kMax, kMax}, {1, 1}, {1, 1})),
            (std::vector<int64_t>{1, 1, 1, 1}));

  auto slice = [](int64_t start, int64_t end, int64_t step) {
    return std::vector<std::pair<std::string, AttrValue>>{{"dim", AttrValue::Int(1)},
                                                          {"start", AttrValue::Int(start)},
                                                          {"end", AttrValue::Int(end)},
                                                          {"step", AttrValue::Int(step)}};
  };
  EXPECT_EQ(Sizes("edge.slice", {F32({2, 6})}, slice(1, 6, kMax)), (std::vector<int64_t>{2, 1}));
  EXPECT_NE(ErrorOf("edge.slice", {F32({2, 6})}, slice(0, 6, 0)).find("step = 0 must be positive"),
            std::string::npos);
  EXPECT_NE(ErrorOf("edge.slice", {F32({2, 6})}, slice(kMin, kMax, 1)).find("start = "),
            std::string::npos);

  auto pad = [](std::vector<int64_t> pads) {
    return std::vector<std::pair<std::string, AttrValue>>{{"pad", AttrValue::IntList(pads)},
                                                          {"value", AttrValue::Double(0)}};
  };
  EXPECT_NE(ErrorOf("edge.constant_pad", {F32({1, 4})}, pad({kMax, 1})).find("overflow dim 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("edge.constant_pad", {F32({1, 4})}, pad({int64_t{1} << 62, int64_t{1} << 62}))
                .find("pad[0] = 4611686018427387904"),
            std::string::npos);
  EXPECT_NE(ErrorOf("edge.constant_pad", {F32({1, 4})}, pad({kMin, 0})).find("remove more"),
            std::string::npos);

  const TensorType half{DType::kBool, {(int64_t{1} << 62) + 1}};
  EXPECT_NE(
      ErrorOf("edge.concatenate", {half, half}, {{"dim", AttrValue::Int(0)}}).find("overflow"),
      std::string::npos);
  // The element counts saturate alike; the reshape must still be refused.
  EXPECT_NE(ErrorOf("edge.reshape", {F32({2, 6})}, {{"shape", AttrValue::IntList({kMax, kMax})}})
                .find("element count overflows"),
            std::string::npos);
}

TEST_F(ShapeRuleTest, NormalisationAndMaxDim) {
  EXPECT_EQ(Sizes("edge.layer_norm", {F32({2, 5, 16}), F32({16}), F32({16})},
                  {{"normalized_shape", AttrValue::IntList({16})}, {"eps", AttrValue::Double(1e-5)}}),
            (std::vector<int64_t>{2, 5, 16}));
  EXPECT_NE(ErrorOf("edge.layer_norm", {F32({2, 5, 16})},
                    {{"normalized_shape", AttrValue::IntList({5})}, {"eps", AttrValue::Double(0)}})
                .find("not a suffix"),
            std::string::npos);
  auto result = Infer("edge.max_dim", {F32({2, 3, 4})},
                      {{"dim", AttrValue::Int(1)}, {"keepdim", AttrValue::Bool(true)}});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)[0].sizes, (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ((*result)[1].dtype, DType::kInt64);
}

}  // namespace
}  // namespace torchir::dialect
