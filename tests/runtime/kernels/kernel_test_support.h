// Helpers for the portable kernel tests: tensor types of any dtype, the dtypes the
// Edge table allows for an op, typed host tensors, checking a one-node graph
// against the LibTorch reference (kernel_harness.h) or that its kernel refuses
// it, and running a one-node graph through its portable kernel alone. The last
// serves what the LibTorch reference cannot: dtypes LibTorch 1.13 lacks
// (uint16/32/64, float8), hand-computed expectations, and an output that shares
// its input's storage (as the memory planner arranges for edge.reshape).
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/dialect/kernel_arguments.h"
#include "compiler/ir/graph.h"
#include "gtest/gtest.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/kernel_registry.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "tests/runtime/kernels/kernel_harness.h"
#include "tests/support/graph_builder.h"
#include "tools/reference/host_tensor.h"

namespace torchir::testing {

// EXPECT_TRUE(IsOk(status)) prints the status message on failure.
inline ::testing::AssertionResult IsOk(const absl::Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status.message();
}

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline ir::TensorType TypeOf(ir::DType dtype, std::vector<int64_t> sizes) {
  return ir::TensorType{dtype, std::move(sizes)};
}

inline ir::TensorType I32(std::vector<int64_t> sizes) {
  return TypeOf(ir::DType::kInt32, std::move(sizes));
}

// The graph passes the Edge verifier (so each test states a call the compiler
// could emit) and its kernel matches the reference on random inputs (floats in
// [low, high), integers in [int_low, int_high)).
inline void ExpectMatchesReference(const ir::Graph& graph, uint32_t seed,
                                   verify::Tolerance tolerance = {1e-5, 1e-4}, double low = -2.0,
                                   double high = 2.0, int64_t int_low = 0, int64_t int_high = 10) {
  absl::Status verified = dialect::VerifyEdgeGraph(graph);
  ASSERT_TRUE(verified.ok()) << verified.message();
  absl::Status compared = CompareKernelWithReference(
      graph, RandomInputs(graph, seed, low, high, int_low, int_high), tolerance);
  EXPECT_TRUE(compared.ok()) << compared.message();
}

// The kernel's init-time check refuses the node with `expected`.
inline void ExpectKernelRefuses(const ir::Graph& graph, runtime::Error expected) {
  EXPECT_STREQ(runtime::ErrorName(CheckKernel(graph)), runtime::ErrorName(expected));
}

// As above, and the compiler's Edge verifier refuses the node too: the two
// agree on what a valid call is.
inline void ExpectRefused(const ir::Graph& graph, runtime::Error expected) {
  EXPECT_FALSE(dialect::VerifyEdgeGraph(graph).ok()) << "the Edge verifier accepts the node";
  ExpectKernelRefuses(graph, expected);
}

// The dtypes type variable `var` of Edge op `op` may take, in DType order.
inline std::vector<ir::DType> AllowedDTypes(const std::string& op, const std::string& var = "T") {
  std::vector<ir::DType> dtypes;
  const dialect::EdgeOpDef* def = dialect::FindEdgeOp(op);
  if (def == nullptr) return dtypes;
  for (const dialect::TypeVariable& variable : def->type_vars) {
    if (variable.name != var) continue;
    for (int i = 0; i < ir::kNumDTypes; ++i) {
      if (variable.allowed.Contains(static_cast<ir::DType>(i))) {
        dtypes.push_back(static_cast<ir::DType>(i));
      }
    }
  }
  return dtypes;
}

// Whether the LibTorch 1.13 reference handles `dtype`.
inline bool ReferenceSupports(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kUInt16:
    case ir::DType::kUInt32:
    case ir::DType::kUInt64:
    case ir::DType::kFloat8E4M3FN:
    case ir::DType::kFloat8E5M2:
      return false;
    default:
      return true;
  }
}

// A dtype the reference supports with `dtype`'s element size, for comparing
// data movement bit for bit.
inline ir::DType SameSizeReferenceDType(ir::DType dtype) {
  switch (ir::DTypeSize(dtype)) {
    case 1:
      return ir::DType::kUInt8;
    case 2:
      return ir::DType::kInt16;
    case 4:
      return ir::DType::kInt32;
    case 8:
      return ir::DType::kInt64;
    default:
      return ir::DType::kComplex128;
  }
}

using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;

// A node operand: a graph input (filled by the test) or a constant.
struct Operand {
  ir::TensorType type;
  std::optional<ir::TensorData> constant;
};

// A one-node graph applying `op` to `operands` with `attrs`, its output typed
// by the op's own shape rule (the compiler's, which the kernels must match)
// unless `out` is given. Null, with a test failure, when the rule refuses.
inline std::unique_ptr<ir::Graph> OpGraph(const std::string& op,
                                          const std::vector<Operand>& operands, const Attrs& attrs,
                                          std::optional<ir::TensorType> out = std::nullopt) {
  auto build = [&](const std::vector<ir::TensorType>& outs) {
    GraphBuilder b;
    std::vector<ir::Value*> inputs;
    for (size_t i = 0; i < operands.size(); ++i) {
      const std::string name = "in" + std::to_string(i);
      inputs.push_back(operands[i].constant.has_value()
                           ? b.Constant(name, operands[i].type, *operands[i].constant)
                           : b.Input(name, operands[i].type));
    }
    NodeBuilder node = b.Op(op, inputs);
    for (const auto& [key, value] : attrs) node.Attr(key, value);
    for (ir::Value* output : node.Outs(outs)) b.Output(output);
    return b.Build();
  };
  if (!out.has_value()) {
    std::unique_ptr<ir::Graph> probe = build({});
    const ir::Node* node = *probe->nodes().begin();
    std::vector<const ir::TensorType*> types;
    for (const ir::Value* input : node->inputs()) types.push_back(&input->type());
    absl::StatusOr<std::vector<ir::TensorType>> rule =
        dialect::FindEdgeOp(op)->shape_rule(types, *node);
    if (!rule.ok()) {
      ADD_FAILURE() << op << ": the shape rule refuses: " << rule.status().message();
      return nullptr;
    }
    out = (*rule)[0];
  }
  return build({*out});
}

// A host tensor of `type` holding `values` (sizeof(T) must be the element size).
template <typename T>
reference::HostTensor HostTensorOf(ir::TensorType type, const std::vector<T>& values) {
  return reference::HostTensor{std::move(type),
                               ir::TensorData::Copy(values.data(), values.size() * sizeof(T))};
}

// The elements of `tensor` read as T.
template <typename T>
std::vector<T> ValuesOf(const reference::HostTensor& tensor) {
  std::vector<T> values(tensor.data.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), tensor.data.data(), values.size() * sizeof(T));
  return values;
}

// The outcome of RunKernelOnly.
struct KernelOnlyResult {
  runtime::Error check = runtime::Error::kKernelNotFound;
  runtime::Error run = runtime::Error::kNotInitialized;  // unset when check failed
  std::vector<reference::HostTensor> outputs;
  bool output_aliases_input = false;  // the run saw out.data == in.data
};

// Runs the single node of `graph` through its portable kernel (check, then run
// if the check passed) with `inputs` for the graph's inputs. With
// `alias_first_output`, output 0 is placed in input 0's buffer.
inline KernelOnlyResult RunKernelOnly(const ir::Graph& graph,
                                      const std::vector<reference::HostTensor>& inputs,
                                      bool alias_first_output = false) {
  KernelOnlyResult result;
  if (runtime::portable::RegisterPortableKernels() != runtime::Error::kOk) return result;
  const ir::Node* node = *graph.nodes().begin();
  const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node->op());
  if (def == nullptr) return result;
  const runtime::Kernel* kernel = runtime::FindKernel(def->kernel.data(), def->kernel.size());
  absl::StatusOr<std::vector<dialect::KernelArgumentSlot>> slots =
      dialect::KernelArgumentSlots(*node);
  if (kernel == nullptr || !slots.ok()) return result;

  std::deque<std::vector<int64_t>> int_lists;
  std::deque<std::vector<uint64_t>> buffers;
  std::deque<runtime::Tensor> tensors;
  std::deque<std::vector<runtime::Tensor*>> tensor_lists;
  std::deque<std::string> strings;
  std::deque<runtime::EValue> values;
  std::vector<runtime::EValue*> args;
  std::vector<runtime::Tensor*> outputs;
  runtime::Tensor* first_input = nullptr;
  auto new_tensor = [&](const ir::TensorType& type, const ir::TensorData* data) {
    std::vector<int64_t>& sizes = int_lists.emplace_back(type.sizes);
    std::vector<uint64_t>& buffer = buffers.emplace_back(type.nbytes() / 8 + 2, 0);
    if (data != nullptr && data->size() == type.nbytes() && data->size() > 0) {
      std::memcpy(buffer.data(), data->data(), data->size());
    }
    return &tensors.emplace_back(static_cast<runtime::ScalarType>(type.dtype),
                                 runtime::Span<const int64_t>(sizes.data(), sizes.size()),
                                 runtime::Span<const uint8_t>(), buffer.data());
  };
  auto input_tensor = [&](const ir::Value* value) {
    const ir::TensorData* data = value->is_constant_like() ? &value->data() : nullptr;
    for (size_t i = 0; i < graph.inputs().size() && i < inputs.size(); ++i) {
      if (graph.inputs()[i] == value) data = &inputs[i].data;
    }
    runtime::Tensor* tensor = new_tensor(value->type(), data);
    if (first_input == nullptr) first_input = tensor;
    return tensor;
  };
  using Kind = dialect::KernelArgumentSlot::Kind;
  for (const dialect::KernelArgumentSlot& slot : *slots) {
    switch (slot.kind) {
      case Kind::kTensor:
        values.push_back(runtime::EValue::FromTensor(input_tensor(node->input(slot.first_input))));
        break;
      case Kind::kTensorList: {
        std::vector<runtime::Tensor*>& list = tensor_lists.emplace_back();
        for (size_t i = 0; i < slot.count; ++i) {
          list.push_back(input_tensor(node->input(slot.first_input + i)));
        }
        values.push_back(runtime::EValue::FromTensorList(
            runtime::Span<runtime::Tensor* const>(list.data(), list.size())));
        break;
      }
      case Kind::kAbsent:
        values.emplace_back();
        break;
      case Kind::kAttribute: {
        const ir::AttrValue& attr = *node->FindAttr(slot.attribute);
        switch (slot.attribute_kind) {
          case dialect::AttrKind::kInt:
            values.push_back(runtime::EValue::FromInt(attr.as_int()));
            break;
          case dialect::AttrKind::kDouble:
            values.push_back(runtime::EValue::FromDouble(attr.as_double()));
            break;
          case dialect::AttrKind::kBool:
            values.push_back(runtime::EValue::FromBool(attr.as_bool()));
            break;
          case dialect::AttrKind::kDType:
            values.push_back(
                runtime::EValue::FromScalarType(static_cast<runtime::ScalarType>(attr.as_dtype())));
            break;
          case dialect::AttrKind::kString: {
            const std::string& text = strings.emplace_back(attr.as_string());
            values.push_back(runtime::EValue::FromString(text.data(), text.size()));
            break;
          }
          case dialect::AttrKind::kIntList: {
            const std::vector<int64_t>& list = int_lists.emplace_back(attr.as_int_list());
            values.push_back(runtime::EValue::FromIntList(
                runtime::Span<const int64_t>(list.data(), list.size())));
            break;
          }
        }
        break;
      }
      case Kind::kOutput: {
        runtime::Tensor* out = new_tensor(node->output(slot.output_index)->type(), nullptr);
        if (alias_first_output && outputs.empty() && first_input != nullptr) {
          out->set_data(first_input->mutable_data());
        }
        outputs.push_back(out);
        values.push_back(runtime::EValue::FromTensor(out));
        break;
      }
    }
  }
  for (runtime::EValue& value : values) args.push_back(&value);
  runtime::KernelArgs kernel_args(args.data(), args.size());
  result.check = kernel->check(kernel_args);
  if (result.check != runtime::Error::kOk) return result;
  runtime::KernelContext context;
  result.run = kernel->run(context, kernel_args);
  result.output_aliases_input =
      !outputs.empty() && first_input != nullptr && outputs[0]->data() == first_input->data();
  for (size_t i = 0; i < outputs.size(); ++i) {
    result.outputs.push_back(reference::HostTensor{
        node->output(i)->type(), ir::TensorData::Copy(outputs[i]->data(), outputs[i]->nbytes())});
  }
  return result;
}

}  // namespace torchir::testing
