// The per-op facts of the Edge op table (compiler/dialect/edge_ops.h) checked against what
// the portable kernels compute: a fact the compiler relies on must be true of the kernel that
// runs the op. Each check runs over the whole table, so a new row's facts are checked too;
// where a check needs a concrete call of the op, a row that gains the fact without a sample
// call below fails until one is added.
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/dialect/edge_ops.h"
#include "gtest/gtest.h"
#include "tests/runtime/kernels/kernel_test_support.h"
#include "tests/support/graph_builder.h"

namespace torchir::testing {
namespace {

using dialect::EdgeOpDef;
using ir::DType;
using A = ir::AttrValue;
using Bytes = std::vector<uint8_t>;

ir::TensorType F32(std::vector<int64_t> sizes) { return TypeOf(DType::kFloat32, std::move(sizes)); }

// Deterministic values of `type` with few repeats: floats in (-3, 3), small signed integers,
// bools alternating unevenly. `salt` makes two tensors differ.
reference::HostTensor Values(const ir::TensorType& type, int salt) {
  const int64_t n = type.numel();
  switch (type.dtype) {
    case DType::kFloat32: {
      std::vector<float> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(3 * std::sin(1.7 * i + salt));
      return HostTensorOf(type, v);
    }
    case DType::kInt32: {
      std::vector<int32_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>((7 * i + 3 * salt) % 11 - 5);
      return HostTensorOf(type, v);
    }
    case DType::kInt64: {
      std::vector<int64_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = (5 * i + 3 * salt) % 13 - 6;
      return HostTensorOf(type, v);
    }
    default: {
      std::vector<uint8_t> v(type.nbytes());
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(37 * i + salt);
      return HostTensorOf(type, v);
    }
  }
}

// Runs the one-node `graph` through its portable kernel; the output's bytes.
Bytes RunOutput(const ir::Graph& graph, const std::vector<reference::HostTensor>& inputs,
                bool alias_first_output = false) {
  KernelOnlyResult result = RunKernelOnly(graph, inputs, alias_first_output);
  EXPECT_STREQ(runtime::ErrorName(result.check), "Ok") << "check";
  EXPECT_STREQ(runtime::ErrorName(result.run), "Ok") << "run";
  if (alias_first_output) {
    EXPECT_TRUE(result.output_aliases_input);
  }
  return result.outputs.empty() ? Bytes() : ValuesOf<uint8_t>(result.outputs[0]);
}

// Ops whose two tensor operands are interchangeable as far as types go: exactly two
// required inputs bound to one type variable, no attributes.
bool TakesTwoOperandsOfOneType(const EdgeOpDef& def) {
  return def.inputs.size() == 2 && def.attrs.empty() && !def.inputs[0].type_var.empty() &&
         def.inputs[0].type_var == def.inputs[1].type_var && !def.inputs[1].optional &&
         !def.inputs[1].variadic;
}

// op(a, b) and op(b, a) for every dtype the op allows, with operand shapes valid in both
// orders for elementwise and matrix ops (b broadcasts against a's batch dim).
struct SwappedRun {
  DType dtype;
  Bytes forward, swapped;
};
std::vector<SwappedRun> RunBothOrders(const EdgeOpDef& def) {
  std::vector<SwappedRun> runs;
  for (DType dtype : AllowedDTypes(def.name, def.inputs[0].type_var)) {
    const ir::TensorType a = TypeOf(dtype, {2, 3, 3}), b = TypeOf(dtype, {3, 3});
    const reference::HostTensor a_values = Values(a, 1), b_values = Values(b, 2);
    std::unique_ptr<ir::Graph> forward = OpGraph(def.name, {{a, {}}, {b, {}}}, {});
    std::unique_ptr<ir::Graph> swapped = OpGraph(def.name, {{b, {}}, {a, {}}}, {});
    if (forward == nullptr || swapped == nullptr) continue;
    runs.push_back({dtype, RunOutput(*forward, {a_values, b_values}),
                    RunOutput(*swapped, {b_values, a_values})});
  }
  return runs;
}

TEST(EdgeOpFactsTest, CommutativeOpsGiveTheSameResultWithSwappedInputs) {
  size_t checked = 0;
  for (const EdgeOpDef& def : dialect::EdgeOps()) {
    if (!def.commutative) continue;
    SCOPED_TRACE(def.name);
    ASSERT_TRUE(TakesTwoOperandsOfOneType(def)) << "only two operands of one type can commute";
    for (const SwappedRun& run : RunBothOrders(def)) {
      EXPECT_EQ(run.forward, run.swapped) << ir::DTypeName(run.dtype);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

// The converse: an op that could be commutative but is not marked so really depends on the
// order (so a forgotten flag, which costs CSE merges, is noticed as well as a wrong one).
TEST(EdgeOpFactsTest, OpsNotMarkedCommutativeDependOnOperandOrder) {
  size_t checked = 0;
  for (const EdgeOpDef& def : dialect::EdgeOps()) {
    if (def.commutative || !TakesTwoOperandsOfOneType(def)) continue;
    SCOPED_TRACE(def.name);
    for (const SwappedRun& run : RunBothOrders(def)) {
      EXPECT_NE(run.forward, run.swapped)
          << ir::DTypeName(run.dtype) << ": same result both ways; mark the row Commutative()";
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

// Calls of the ops whose rows carry no-op, view, chain or fold facts.
struct Call {
  std::vector<ir::TensorType> inputs;
  Attrs attrs;
};
struct Samples {
  Call noop;  // a call that does nothing (its row's is_noop holds); for an op without a no-op
              // rule, a second call
  Call real;  // a call that does something
};

// Two calls of a comparison: floats broadcast over rows, integers (with repeats) over a dim.
Samples CompareSamples() {
  return {{{F32({2, 3}), F32({1, 3})}, {}},
          {{TypeOf(DType::kInt64, {2, 4}), TypeOf(DType::kInt64, {4})}, {}}};
}
const std::map<std::string, Samples>& SampleCalls() {
  static const auto* samples = new std::map<std::string, Samples>{
      {"edge.reshape",
       {{{F32({2, 3, 4})}, {{"shape", A::IntList({2, 3, 4})}}},
        {{F32({2, 3, 4})}, {{"shape", A::IntList({4, 6})}}}}},
      {"edge.expand",
       {{{F32({1, 3})}, {{"sizes", A::IntList({1, 3})}}},
        {{F32({1, 3})}, {{"sizes", A::IntList({2, 3})}}}}},
      {"edge.cast",
       {{{F32({2, 3})}, {{"dtype", A::OfDType(DType::kFloat32)}}},
        {{F32({2, 3})}, {{"dtype", A::OfDType(DType::kInt32)}}}}},
      {"edge.permute",
       {{{F32({2, 3, 4})}, {{"dims", A::IntList({0, 1, 2})}}},
        {{F32({2, 3, 4})}, {{"dims", A::IntList({2, 0, 1})}}}}},
      {"edge.slice",
       {{{F32({4, 3})},
         {{"dim", A::Int(0)}, {"start", A::Int(0)}, {"end", A::Int(4)}, {"step", A::Int(1)}}},
        {{F32({4, 3})},
         {{"dim", A::Int(0)}, {"start", A::Int(1)}, {"end", A::Int(4)}, {"step", A::Int(2)}}}}},
      {"edge.concatenate",
       {{{F32({2, 3})}, {{"dim", A::Int(0)}}}, {{F32({2, 3}), F32({1, 3})}, {{"dim", A::Int(0)}}}}},
      {"edge.eq", CompareSamples()},
      {"edge.ne", CompareSamples()},
      {"edge.lt", CompareSamples()},
      {"edge.le", CompareSamples()},
      {"edge.gt", CompareSamples()},
      {"edge.ge", CompareSamples()},
  };
  return *samples;
}

const Samples* FindSamples(const EdgeOpDef& def) {
  auto it = SampleCalls().find(def.name);
  if (it == SampleCalls().end()) {
    ADD_FAILURE() << def.name << " has a table fact but no sample call in " << __FILE__;
    return nullptr;
  }
  return &it->second;
}

// The call as a one-node graph: graph inputs, or constants holding Values() with `constants`.
std::unique_ptr<ir::Graph> CallGraph(const std::string& op, const Call& call,
                                     bool constants = false) {
  std::vector<Operand> operands;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    operands.push_back({call.inputs[i], constants ? std::optional<ir::TensorData>(
                                                        Values(call.inputs[i], int(i)).data)
                                                  : std::nullopt});
  }
  return OpGraph(op, operands, call.attrs);
}

std::vector<reference::HostTensor> CallValues(const Call& call) {
  std::vector<reference::HostTensor> values;
  for (size_t i = 0; i < call.inputs.size(); ++i) values.push_back(Values(call.inputs[i], int(i)));
  return values;
}

// kViewOfInput0 lets the planner put the output in input 0's bytes: the kernel must then
// compute the same result, and that result must be input 0's bytes unchanged (a view
// reinterprets; it does not reorder).
TEST(EdgeOpFactsTest, ViewOpsLeaveTheBytesOfTheirInputInPlace) {
  size_t checked = 0;
  for (const EdgeOpDef& def : dialect::EdgeOps()) {
    if (def.output_storage != dialect::OutputStorage::kViewOfInput0) continue;
    SCOPED_TRACE(def.name);
    const Samples* samples = FindSamples(def);
    if (samples == nullptr) continue;
    std::unique_ptr<ir::Graph> graph = CallGraph(def.name, samples->real);
    ASSERT_NE(graph, nullptr);
    const std::vector<reference::HostTensor> inputs = CallValues(samples->real);
    const Bytes apart = RunOutput(*graph, inputs);
    EXPECT_EQ(RunOutput(*graph, inputs, /*alias_first_output=*/true), apart);
    EXPECT_EQ(apart, ValuesOf<uint8_t>(inputs[0]));
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

// is_noop holds on the sample that does nothing, where the kernel indeed returns input 0,
// and not on the one that does something.
TEST(EdgeOpFactsTest, NoopRulesHoldExactlyWhenTheKernelReturnsItsInput) {
  size_t checked = 0;
  for (const EdgeOpDef& def : dialect::EdgeOps()) {
    if (def.is_noop == nullptr) continue;
    SCOPED_TRACE(def.name);
    const Samples* samples = FindSamples(def);
    if (samples == nullptr) continue;
    std::unique_ptr<ir::Graph> noop = CallGraph(def.name, samples->noop);
    std::unique_ptr<ir::Graph> real = CallGraph(def.name, samples->real);
    ASSERT_NE(noop, nullptr);
    ASSERT_NE(real, nullptr);
    const ir::Node& noop_node = **noop->nodes().begin();
    EXPECT_TRUE(def.is_noop(noop_node));
    EXPECT_EQ(noop_node.output()->type(), noop_node.input(0)->type());
    const std::vector<reference::HostTensor> inputs = CallValues(samples->noop);
    EXPECT_EQ(RunOutput(*noop, inputs), ValuesOf<uint8_t>(inputs[0]));
    EXPECT_FALSE(def.is_noop(**real->nodes().begin()));
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

// A fold rule computes at compile time exactly what the kernel computes at run time.
TEST(EdgeOpFactsTest, FoldRulesComputeWhatTheKernelComputes) {
  size_t checked = 0;
  for (const EdgeOpDef& def : dialect::EdgeOps()) {
    if (def.fold == nullptr) continue;
    SCOPED_TRACE(def.name);
    const Samples* samples = FindSamples(def);
    if (samples == nullptr) continue;
    for (const Call* call : {&samples->noop, &samples->real}) {
      std::unique_ptr<ir::Graph> graph = CallGraph(def.name, *call, /*constants=*/true);
      ASSERT_NE(graph, nullptr);
      EXPECT_EQ(def.fold(**graph->nodes().begin()), RunOutput(*graph, {}));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

// Two chained calls of one op (its real sample, then `outer` on the result).
struct Chain {
  Attrs outer;
  ir::TensorType outer_type;
};
const std::map<std::string, Chain>& ChainCalls() {
  static const auto* chains = new std::map<std::string, Chain>{
      {"edge.reshape", {{{"shape", A::IntList({3, 8})}}, F32({3, 8})}},
      {"edge.permute", {{{"dims", A::IntList({0, 2, 1})}}, F32({4, 3, 2})}},
  };
  return *chains;
}

// After collapse_chain the outer node, reading the chain's input, computes what the two
// nodes computed.
TEST(EdgeOpFactsTest, ChainRulesKeepTheResultOfTheChain) {
  size_t checked = 0;
  for (const EdgeOpDef& def : dialect::EdgeOps()) {
    if (def.collapse_chain == nullptr) continue;
    SCOPED_TRACE(def.name);
    const Samples* samples = FindSamples(def);
    auto chain = ChainCalls().find(def.name);
    ASSERT_NE(chain, ChainCalls().end()) << "no chain sample in " << __FILE__;
    if (samples == nullptr) continue;
    const Call& inner_call = samples->real;
    std::unique_ptr<ir::Graph> inner_graph = CallGraph(def.name, inner_call);
    ASSERT_NE(inner_graph, nullptr);
    const ir::TensorType mid_type = (*inner_graph->nodes().begin())->output()->type();
    const std::vector<reference::HostTensor> x = CallValues(inner_call);
    const Bytes mid = RunOutput(*inner_graph, x);
    std::unique_ptr<ir::Graph> outer_graph =
        OpGraph(def.name, {{mid_type, {}}}, chain->second.outer);
    ASSERT_NE(outer_graph, nullptr);
    const Bytes expected =
        RunOutput(*outer_graph,
                  {reference::HostTensor{mid_type, ir::TensorData::Copy(mid.data(), mid.size())}});

    // The chain as one graph, collapsed.
    GraphBuilder b;
    ir::Value* input = b.Input("x", inner_call.inputs[0]);
    NodeBuilder inner = b.Op(def.name, {input});
    for (const auto& [key, value] : inner_call.attrs) inner.Attr(key, value);
    ir::Node* inner_node = inner.Emit({mid_type});
    NodeBuilder outer = b.Op(def.name, {inner_node->output()});
    for (const auto& [key, value] : chain->second.outer) outer.Attr(key, value);
    ir::Node* outer_node = outer.Emit({chain->second.outer_type});
    b.Output(outer_node->output());
    std::unique_ptr<ir::Graph> graph = b.Build();
    ASSERT_TRUE(dialect::VerifyEdgeGraph(*graph).ok());
    def.collapse_chain(*outer_node, *inner_node);
    EXPECT_EQ(outer_node->input(0), input);
    Attrs collapsed;
    for (const auto& [key, value] : outer_node->attrs()) collapsed.emplace_back(key, value);
    std::unique_ptr<ir::Graph> collapsed_graph =
        OpGraph(def.name, {{inner_call.inputs[0], {}}}, collapsed, chain->second.outer_type);
    ASSERT_TRUE(dialect::VerifyEdgeGraph(*collapsed_graph).ok());
    EXPECT_EQ(RunOutput(*collapsed_graph, x), expected);
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace torchir::testing
