// Hand-made Edge graphs for the partitioner tests: nodes typed by the Edge op
// table's own shape rules, with every attribute the verifier requires, so that
// the graphs are what lowering would produce.
//
//   EdgeGraphBuilder g;
//   ir::Value* x = g.Input("x", F32({1, 3, 8, 8}));
//   ir::Value* w = g.Weight("w", F32({8, 3, 3, 3}));           // values 0, 1, 2, ...
//   ir::Value* y = g.Conv(x, w, nullptr, {1, 1}, {1, 1});
//   g.Output(g.Clamp(y, 0, 6));
//   std::unique_ptr<ir::Graph> graph = g.Build();             // verified
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/dialect/edge_ops.h"
#include "tests/support/graph_builder.h"

namespace torchir::testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// 0, 1, 2, ... as floats: weights whose bytes show where each element went.
inline std::vector<float> Iota(int64_t count, float start = 0) {
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    values[static_cast<size_t>(i)] = start + static_cast<float>(i);
  return values;
}

class EdgeGraphBuilder {
 public:
  using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;

  ir::Value* Input(std::string name, ir::TensorType type) {
    return b_.Input(std::move(name), std::move(type));
  }
  // A weight holding 0, 1, 2, ... unless `values` says otherwise.
  ir::Value* Weight(std::string name, ir::TensorType type, std::vector<float> values = {}) {
    if (values.empty()) values = Iota(type.numel());
    return b_.Weight(std::move(name), std::move(type), values);
  }
  ir::Value* Scalar(std::string name, float value) {
    return b_.Constant(std::move(name), F32({}), std::vector<float>{value});
  }
  void Output(ir::Value* value) { b_.Output(value); }
  ir::Graph& graph() { return b_.graph(); }

  // Any Edge op: outputs typed by its shape rule. `name` empty: named after the op.
  ir::Node* Node(const std::string& op, std::vector<ir::Value*> inputs, Attrs attrs = {},
                 std::string name = "") {
    const dialect::EdgeOpDef* def = dialect::FindEdgeOp(op);
    EXPECT_NE(def, nullptr) << op;
    std::vector<ir::TensorType> placeholder(def->outputs.size(), F32({}));
    NodeBuilder builder = b_.Op(op, std::move(inputs));
    if (!name.empty()) builder.Name(std::move(name));
    for (auto& [attr, value] : attrs) builder.Attr(attr, value);
    ir::Node* node = builder.Emit(placeholder);
    std::vector<const ir::TensorType*> types;
    for (const ir::Value* input : node->inputs()) types.push_back(&input->type());
    auto outputs = def->shape_rule(types, *node);
    EXPECT_TRUE(outputs.ok()) << op << ": " << outputs.status();
    if (outputs.ok()) {
      for (size_t i = 0; i < outputs->size(); ++i) node->output(i)->set_type((*outputs)[i]);
    }
    return node;
  }
  ir::Value* Op(const std::string& op, std::vector<ir::Value*> inputs, Attrs attrs = {},
                std::string name = "") {
    return Node(op, std::move(inputs), std::move(attrs), std::move(name))->output(0);
  }

  ir::Value* Conv(ir::Value* x, ir::Value* w, ir::Value* bias, std::vector<int64_t> stride,
                  std::vector<int64_t> padding, std::vector<int64_t> dilation = {},
                  int64_t groups = 1, double min = -kInf, double max = kInf,
                  std::string name = "") {
    if (dilation.empty()) dilation.assign(stride.size(), 1);
    std::vector<ir::Value*> inputs = {x, w};
    if (bias != nullptr) inputs.push_back(bias);
    return Op("edge.convolution", inputs,
              {{"stride", ir::AttrValue::IntList(stride)},
               {"padding", ir::AttrValue::IntList(padding)},
               {"dilation", ir::AttrValue::IntList(dilation)},
               {"groups", ir::AttrValue::Int(groups)},
               {"output_min", ir::AttrValue::Double(min)},
               {"output_max", ir::AttrValue::Double(max)}},
              std::move(name));
  }
  ir::Value* Linear(ir::Value* x, ir::Value* w, ir::Value* bias = nullptr, double min = -kInf,
                    double max = kInf) {
    std::vector<ir::Value*> inputs = {x, w};
    if (bias != nullptr) inputs.push_back(bias);
    return Op(
        "edge.linear", inputs,
        {{"output_min", ir::AttrValue::Double(min)}, {"output_max", ir::AttrValue::Double(max)}});
  }
  ir::Value* Clamp(ir::Value* x, double min, double max, std::string name = "") {
    return Op("edge.clamp", {x},
              {{"min", ir::AttrValue::Double(min)}, {"max", ir::AttrValue::Double(max)}},
              std::move(name));
  }
  ir::Value* Softmax(ir::Value* x, int64_t dim) {
    return Op("edge.softmax", {x}, {{"dim", ir::AttrValue::Int(dim)}});
  }
  ir::Value* Mean(ir::Value* x, std::vector<int64_t> dims, bool keepdim) {
    return Op("edge.mean", {x},
              {{"dims", ir::AttrValue::IntList(dims)}, {"keepdim", ir::AttrValue::Bool(keepdim)}});
  }
  ir::Value* Reshape(ir::Value* x, std::vector<int64_t> shape, std::string name = "") {
    return Op("edge.reshape", {x}, {{"shape", ir::AttrValue::IntList(shape)}}, std::move(name));
  }
  ir::Value* Permute(ir::Value* x, std::vector<int64_t> dims, std::string name = "") {
    return Op("edge.permute", {x}, {{"dims", ir::AttrValue::IntList(dims)}}, std::move(name));
  }
  ir::Value* MaxPool(ir::Value* x, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                     std::vector<int64_t> padding, std::vector<int64_t> dilation = {1, 1},
                     bool ceil_mode = false) {
    return Op("edge.max_pool2d", {x},
              {{"kernel_size", ir::AttrValue::IntList(kernel)},
               {"stride", ir::AttrValue::IntList(stride)},
               {"padding", ir::AttrValue::IntList(padding)},
               {"dilation", ir::AttrValue::IntList(dilation)},
               {"ceil_mode", ir::AttrValue::Bool(ceil_mode)}});
  }
  ir::Value* AvgPool(ir::Value* x, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                     std::vector<int64_t> padding, bool ceil_mode, bool count_include_pad) {
    return Op("edge.avg_pool2d", {x},
              {{"kernel_size", ir::AttrValue::IntList(kernel)},
               {"stride", ir::AttrValue::IntList(stride)},
               {"padding", ir::AttrValue::IntList(padding)},
               {"ceil_mode", ir::AttrValue::Bool(ceil_mode)},
               {"count_include_pad", ir::AttrValue::Bool(count_include_pad)}});
  }
  ir::Value* Pad(ir::Value* x, std::vector<int64_t> pad, double value) {
    return Op("edge.constant_pad", {x},
              {{"pad", ir::AttrValue::IntList(pad)}, {"value", ir::AttrValue::Double(value)}});
  }

  // The graph, after checking that it is a valid Edge graph.
  std::unique_ptr<ir::Graph> Build() {
    absl::Status status = dialect::VerifyEdgeGraph(b_.graph());
    EXPECT_TRUE(status.ok()) << status;
    return b_.Build();
  }
  // The graph as it is, for graphs the Edge verifier is meant to reject.
  std::unique_ptr<ir::Graph> BuildUnverified() { return b_.Build(); }

 private:
  GraphBuilder b_;
};

}  // namespace torchir::testing
