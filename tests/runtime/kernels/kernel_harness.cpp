#include "tests/runtime/kernels/kernel_harness.h"

#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/dialect/kernel_arguments.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/kernel_registry.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "tools/reference/edge_reference.h"

namespace torchir::testing {
namespace {

using reference::HostTensor;
using runtime::EValue;

// Storage for one kernel call: aligned tensor buffers, tensor views and the
// EValues pointing at them. Everything lives as long as the call.
class KernelCall {
 public:
  // `inputs` are for the graph's inputs, in order; nullptr zero-fills them.
  absl::Status Build(const ir::Graph& graph, const std::vector<HostTensor>* inputs) {
    if (graph.num_nodes() != 1) {
      return absl::InvalidArgumentError("the kernel harness needs a graph of exactly one node");
    }
    node_ = *graph.nodes().begin();
    const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node_->op());
    if (def == nullptr) return absl::InvalidArgumentError(absl::StrCat(node_->op(), " is not Edge"));
    kernel_ = runtime::FindKernel(def->kernel.data(), def->kernel.size());
    if (kernel_ == nullptr) {
      return absl::NotFoundError(absl::StrCat("no portable kernel '", def->kernel, "'"));
    }
    absl::StatusOr<std::vector<dialect::KernelArgumentSlot>> slots =
        dialect::KernelArgumentSlots(*node_);
    if (!slots.ok()) return slots.status();
    // Reserve so that pointers into these vectors stay valid.
    values_.reserve(slots->size() + node_->inputs().size() + 1);
    tensors_.reserve(node_->inputs().size() + node_->outputs().size());
    for (const dialect::KernelArgumentSlot& slot : *slots) {
      switch (slot.kind) {
        case dialect::KernelArgumentSlot::Kind::kTensor: {
          absl::StatusOr<runtime::Tensor*> t = InputTensor(graph, node_->input(slot.first_input), inputs);
          if (!t.ok()) return t.status();
          args_.push_back(Push(EValue::FromTensor(*t)));
          break;
        }
        case dialect::KernelArgumentSlot::Kind::kTensorList: {
          auto& list = lists_.emplace_back(std::make_unique<std::vector<runtime::Tensor*>>());
          for (size_t i = 0; i < slot.count; ++i) {
            absl::StatusOr<runtime::Tensor*> t =
                InputTensor(graph, node_->input(slot.first_input + i), inputs);
            if (!t.ok()) return t.status();
            list->push_back(*t);
          }
          args_.push_back(Push(EValue::FromTensorList(
              runtime::Span<runtime::Tensor* const>(list->data(), list->size()))));
          break;
        }
        case dialect::KernelArgumentSlot::Kind::kAbsent:
          args_.push_back(Push(EValue()));
          break;
        case dialect::KernelArgumentSlot::Kind::kAttribute: {
          const ir::AttrValue* attr = node_->FindAttr(slot.attribute);
          if (attr == nullptr) return absl::InvalidArgumentError("missing attribute " + slot.attribute);
          args_.push_back(Push(AttributeValue(*attr, slot.attribute_kind)));
          break;
        }
        case dialect::KernelArgumentSlot::Kind::kOutput: {
          const ir::Value* out = node_->output(slot.output_index);
          args_.push_back(Push(EValue::FromTensor(NewTensor(out->type()))));
          outputs_.push_back(tensors_.back().get());
          break;
        }
      }
    }
    return absl::OkStatus();
  }

  runtime::Error Check() const {
    return kernel_->check(runtime::KernelArgs(args_.data(), args_.size()));
  }
  runtime::Error Run() const {
    runtime::KernelContext context;
    context.instruction_name = node_->name().c_str();
    return kernel_->run(context, runtime::KernelArgs(args_.data(), args_.size()));
  }

  std::vector<HostTensor> Outputs() const {
    std::vector<HostTensor> result;
    for (size_t i = 0; i < outputs_.size(); ++i) {
      const runtime::Tensor& t = *outputs_[i];
      result.push_back(HostTensor{node_->output(i)->type(),
                                  ir::TensorData::Copy(t.data(), t.nbytes())});
    }
    return result;
  }

  const ir::Node& node() const { return *node_; }

 private:
  EValue* Push(EValue value) {
    values_.push_back(std::make_unique<EValue>(value));
    return values_.back().get();
  }

  runtime::Tensor* NewTensor(const ir::TensorType& type) {
    auto& sizes = sizes_.emplace_back(std::make_unique<std::vector<int64_t>>(type.sizes));
    // 64-byte aligned, zero-filled, never empty (a 0-element tensor still gets a pointer).
    size_t bytes = type.nbytes();
    auto& buffer = buffers_.emplace_back(std::make_unique<std::vector<uint64_t>>(bytes / 8 + 9, 0));
    uintptr_t base = reinterpret_cast<uintptr_t>(buffer->data());
    void* data = reinterpret_cast<void*>((base + 63) & ~uintptr_t{63});
    tensors_.push_back(std::make_unique<runtime::Tensor>(
        static_cast<runtime::ScalarType>(type.dtype),
        runtime::Span<const int64_t>(sizes->data(), sizes->size()), runtime::Span<const uint8_t>(),
        data));
    return tensors_.back().get();
  }

  absl::StatusOr<runtime::Tensor*> InputTensor(const ir::Graph& graph, const ir::Value* value,
                                              const std::vector<HostTensor>* inputs) {
    runtime::Tensor* tensor = NewTensor(value->type());
    const ir::TensorData* data = nullptr;
    if (value->is_constant_like()) {
      data = &value->data();
    } else if (inputs != nullptr) {
      for (size_t i = 0; i < graph.inputs().size(); ++i) {
        if (graph.inputs()[i] == value && i < inputs->size()) data = &(*inputs)[i].data;
      }
    }
    if (data != nullptr) {
      if (data->size() != tensor->nbytes()) {
        return absl::InvalidArgumentError(absl::StrCat("value '", value->name(), "' has ",
                                                       data->size(), " bytes, expected ",
                                                       tensor->nbytes()));
      }
      if (data->size() > 0) std::memcpy(tensor->mutable_data(), data->data(), data->size());
    }
    return tensor;
  }

  EValue AttributeValue(const ir::AttrValue& attr, dialect::AttrKind kind) {
    switch (kind) {
      case dialect::AttrKind::kInt: return EValue::FromInt(attr.as_int());
      case dialect::AttrKind::kDouble: return EValue::FromDouble(attr.as_double());
      case dialect::AttrKind::kBool: return EValue::FromBool(attr.as_bool());
      case dialect::AttrKind::kDType:
        return EValue::FromScalarType(static_cast<runtime::ScalarType>(attr.as_dtype()));
      case dialect::AttrKind::kString: {
        auto& s = strings_.emplace_back(std::make_unique<std::string>(attr.as_string()));
        return EValue::FromString(s->data(), s->size());
      }
      case dialect::AttrKind::kIntList: {
        auto& v = sizes_.emplace_back(std::make_unique<std::vector<int64_t>>(attr.as_int_list()));
        return EValue::FromIntList(runtime::Span<const int64_t>(v->data(), v->size()));
      }
    }
    return EValue();
  }

  const ir::Node* node_ = nullptr;
  const runtime::Kernel* kernel_ = nullptr;
  std::vector<std::unique_ptr<EValue>> values_;
  std::vector<EValue*> args_;
  std::vector<std::unique_ptr<runtime::Tensor>> tensors_;
  std::vector<runtime::Tensor*> outputs_;
  std::vector<std::unique_ptr<std::vector<int64_t>>> sizes_;
  std::vector<std::unique_ptr<std::vector<uint64_t>>> buffers_;
  std::vector<std::unique_ptr<std::vector<runtime::Tensor*>>> lists_;
  std::vector<std::unique_ptr<std::string>> strings_;
};

}  // namespace

std::vector<HostTensor> RandomInputs(const ir::Graph& graph, uint32_t seed, double low,
                                     double high, int64_t int_low, int64_t int_high) {
  std::mt19937 rng(seed);
  std::vector<HostTensor> result;
  for (const ir::Value* input : graph.inputs()) {
    const ir::TensorType& type = input->type();
    const int64_t n = type.numel();
    std::vector<uint8_t> bytes(type.nbytes());
    for (int64_t i = 0; i < n; ++i) {
      switch (type.dtype) {
        case ir::DType::kFloat32: {
          float v = std::uniform_real_distribution<float>(low, high)(rng);
          std::memcpy(&bytes[i * 4], &v, 4);
          break;
        }
        case ir::DType::kFloat64: {
          double v = std::uniform_real_distribution<double>(low, high)(rng);
          std::memcpy(&bytes[i * 8], &v, 8);
          break;
        }
        case ir::DType::kInt32: {
          int32_t v = static_cast<int32_t>(std::uniform_int_distribution<int64_t>(int_low, int_high - 1)(rng));
          std::memcpy(&bytes[i * 4], &v, 4);
          break;
        }
        case ir::DType::kInt64: {
          int64_t v = std::uniform_int_distribution<int64_t>(int_low, int_high - 1)(rng);
          std::memcpy(&bytes[i * 8], &v, 8);
          break;
        }
        case ir::DType::kBool:
          bytes[i] = static_cast<uint8_t>(rng() & 1);
          break;
        default:
          // Other dtypes: small random bytes are valid bit patterns for every
          // integer type; tests of float16 casts fill their own inputs.
          for (size_t b = 0; b < ir::DTypeSize(type.dtype); ++b) {
            bytes[i * ir::DTypeSize(type.dtype) + b] = static_cast<uint8_t>(rng() & 0x3f);
          }
      }
    }
    result.push_back(HostTensor{type, ir::TensorData::Copy(bytes.data(), bytes.size())});
  }
  return result;
}

absl::Status CompareKernelWithReference(const ir::Graph& graph,
                                        const std::vector<HostTensor>& inputs,
                                        const verify::Tolerance& tolerance) {
  if (runtime::portable::RegisterPortableKernels() != runtime::Error::kOk) {
    return absl::InternalError("RegisterPortableKernels failed");
  }
  KernelCall call;
  if (absl::Status status = call.Build(graph, &inputs); !status.ok()) return status;
  const std::string op = call.node().op();
  if (runtime::Error e = call.Check(); e != runtime::Error::kOk) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": kernel check failed: ", runtime::ErrorName(e)));
  }
  if (runtime::Error e = call.Run(); e != runtime::Error::kOk) {
    return absl::InternalError(absl::StrCat(op, ": kernel run failed: ", runtime::ErrorName(e)));
  }
  absl::StatusOr<std::vector<HostTensor>> expected = reference::RunEdgeReference(graph, inputs);
  if (!expected.ok()) return expected.status();
  std::vector<HostTensor> actual = call.Outputs();
  // The reference returns the graph's outputs; the harness graphs output the node's outputs in order.
  if (expected->size() != actual.size()) {
    return absl::InternalError(absl::StrCat(op, ": kernel gave ", actual.size(),
                                            " outputs, reference ", expected->size()));
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    verify::Comparison c = verify::Compare(actual[i], (*expected)[i], tolerance);
    if (!c.passed) {
      return absl::InternalError(
          absl::StrCat(op, " output ", i, ": ", verify::Describe(c)));
    }
  }
  return absl::OkStatus();
}

runtime::Error CheckKernel(const ir::Graph& graph) {
  if (runtime::portable::RegisterPortableKernels() != runtime::Error::kOk) {
    return runtime::Error::kInternal;
  }
  KernelCall call;
  if (!call.Build(graph, nullptr).ok()) return runtime::Error::kKernelNotFound;
  return call.Check();
}

}  // namespace torchir::testing
