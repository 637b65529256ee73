#include "compiler/emit/program_emitter.h"

#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "compiler/dialect/delegate_call.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/dialect/kernel_arguments.h"
#include "compiler/dialect/node_macs.h"
#include "compiler/emit/constant_pool.h"
#include "compiler/emit/segment_builder.h"
#include "compiler/emit/value_table.h"
#include "flatbuffers/flatbuffers.h"
#include "schema/file_header.h"
#include "schema/program_generated.h"

namespace torchir::emit {
namespace {

using flatbuffers::Offset;

// The constant segment, when there is one, comes first; delegate blobs follow.
constexpr uint32_t kConstantSegment = 0;

std::string NodeLabel(const ir::Node& node) {
  return absl::StrCat("node '", node.name(), "' (", node.op(), ")");
}

// "tensor 'conv' (output of node 'conv')", "tensor 'x' (input)", "tensor 'w' (weight)".
std::string TensorLabel(const ir::Value& value) {
  if (value.producer() != nullptr) {
    return absl::StrCat("tensor '", value.name(), "' (output of node '", value.producer()->name(),
                        "')");
  }
  return absl::StrCat("tensor '", value.name(), "' (", std::string(ir::ValueKindName(value.kind())),
                      ")");
}

// Emits one method into a FlatBufferBuilder: its values, instructions,
// operators and delegates, and collects the constant segment's layout.
class MethodEmitter {
 public:
  MethodEmitter(const EmitInput& input, flatbuffers::FlatBufferBuilder& builder)
      : input_(input), builder_(builder), values_(builder) {}

  // Checks that `order` holds each node of the graph once, producers first,
  // and that signature names, when given, match the signature.
  absl::Status CheckInput() const {
    const ir::Graph& graph = *input_.graph;
    if (!input_.input_names.empty() && input_.input_names.size() != graph.inputs().size()) {
      return absl::InvalidArgumentError(absl::StrCat(input_.input_names.size(), " input names for ",
                                                     graph.inputs().size(), " graph inputs"));
    }
    if (!input_.output_names.empty() && input_.output_names.size() != graph.outputs().size()) {
      return absl::InvalidArgumentError(absl::StrCat(input_.output_names.size(),
                                                     " output names for ", graph.outputs().size(),
                                                     " graph outputs"));
    }
    if (input_.order.size() != graph.num_nodes()) {
      return absl::InvalidArgumentError(absl::StrCat("the execution order has ",
                                                     input_.order.size(), " nodes, the graph ",
                                                     graph.num_nodes()));
    }
    std::unordered_set<const ir::Node*> seen;
    for (const ir::Node* node : input_.order) {
      if (node == nullptr || node->graph() != &graph) {
        return absl::InvalidArgumentError("the execution order holds a node of another graph");
      }
      if (!seen.insert(node).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(NodeLabel(*node), " appears twice in the execution order"));
      }
      for (const ir::Value* operand : node->inputs()) {
        const ir::Node* producer = operand->producer();
        if (producer != nullptr && seen.count(producer) == 0) {
          return absl::InvalidArgumentError(absl::StrCat(NodeLabel(*node), " reads ",
                                                         TensorLabel(*operand),
                                                         " before the execution order runs its "
                                                         "producer"));
        }
      }
    }
    return absl::OkStatus();
  }

  // The tensor value of `value`, added on first use.
  absl::StatusOr<int32_t> Tensor(const ir::Value* value) {
    int32_t found = values_.FindTensor(value);
    if (found >= 0) return found;
    const uint64_t nbytes = value->type().nbytes();
    if (value->is_constant_like()) {
      const ir::TensorData& data = value->data();
      if (data.size() != nbytes) {
        if (data.empty()) {
          return absl::FailedPreconditionError(
              absl::StrCat(TensorLabel(*value), " has no value (give --weights)"));
        }
        return absl::InvalidArgumentError(
            absl::StrCat(TensorLabel(*value), " holds ", data.size(), " bytes, its type ",
                         value->type().ToString(), " needs ", nbytes));
      }
      uint64_t offset = constants_.Add(data.data(), data.size());
      return values_.AddConstantTensor(value, kConstantSegment, offset);
    }
    auto it = input_.placements.find(value);
    if (it == input_.placements.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(TensorLabel(*value), " has no memory placement"));
    }
    const TensorPlacement& placement = it->second;
    if (placement.arena >= input_.arena_sizes.size()) {
      return absl::InvalidArgumentError(absl::StrCat(TensorLabel(*value), " is placed in arena ",
                                                     placement.arena, " of ",
                                                     input_.arena_sizes.size()));
    }
    const uint64_t arena_size = input_.arena_sizes[placement.arena];
    if (placement.offset > arena_size || nbytes > arena_size - placement.offset) {
      return absl::InvalidArgumentError(
          absl::StrCat(TensorLabel(*value), " (", nbytes, " bytes at offset ", placement.offset,
                       ") does not fit in arena ", placement.arena, " of ", arena_size, " bytes"));
    }
    return values_.AddPlannedTensor(value, placement.arena, placement.offset);
  }

  absl::Status Node(const ir::Node& node) {
    absl::StatusOr<Offset<pte::Instruction>> instruction =
        node.op() == dialect::kDelegateCallOp ? DelegateCall(node) : KernelCall(node);
    if (!instruction.ok()) return instruction.status();
    instructions_.push_back(*instruction);
    return absl::OkStatus();
  }

  // The method table; call after every node. Adds the data segments to `segments`.
  absl::StatusOr<Offset<pte::Method>> Finish(SegmentBuilder& segments) {
    std::vector<int32_t> inputs, outputs;
    std::vector<Offset<flatbuffers::String>> input_names, output_names;
    const std::vector<ir::Value*>& graph_inputs = input_.graph->inputs();
    for (size_t i = 0; i < graph_inputs.size(); ++i) {
      absl::StatusOr<int32_t> index = Tensor(graph_inputs[i]);
      if (!index.ok()) return index.status();
      inputs.push_back(*index);
      input_names.push_back(builder_.CreateString(
          input_.input_names.empty() ? graph_inputs[i]->name() : input_.input_names[i]));
    }
    const std::vector<ir::Value*>& graph_outputs = input_.graph->outputs();
    for (size_t i = 0; i < graph_outputs.size(); ++i) {
      absl::StatusOr<int32_t> index = Tensor(graph_outputs[i]);
      if (!index.ok()) return index.status();
      outputs.push_back(*index);
      output_names.push_back(builder_.CreateString(
          input_.output_names.empty() ? graph_outputs[i]->name() : input_.output_names[i]));
    }
    if (!constants_.empty()) {
      uint32_t index = segments.Add(constants_.size(), constants_.pieces());
      if (index != kConstantSegment) return absl::InternalError("constant segment is not first");
    }
    std::vector<Offset<pte::BackendDelegate>> delegates;
    for (const DelegatePayload& payload : input_.delegates) {
      uint32_t segment =
          segments.Add(payload.blob.size(), {{0, payload.blob.data(), payload.blob.size()}});
      std::vector<Offset<pte::CompileSpec>> specs;
      for (const auto& [key, value] : payload.compile_specs) {
        specs.push_back(pte::CreateCompileSpecDirect(builder_, key.c_str(), &value));
      }
      delegates.push_back(pte::CreateBackendDelegateDirect(
          builder_, payload.backend_id.c_str(), &specs, segment, payload.read_overrun_bytes));
    }
    std::vector<Offset<pte::Operator>> operators;
    for (const std::string& name : operator_names_) {
      operators.push_back(pte::CreateOperatorDirect(builder_, name.c_str()));
    }
    return pte::CreateMethodDirect(builder_, input_.method_name.c_str(), &values_.values(), &inputs,
                                   &outputs, &input_names, &output_names, &instructions_,
                                   &operators, &delegates, &input_.arena_sizes);
  }

  size_t value_count() const { return values_.size(); }
  size_t operator_count() const { return operator_names_.size(); }
  size_t instruction_count() const { return instructions_.size(); }
  uint64_t constant_bytes() const { return constants_.size(); }

 private:
  absl::StatusOr<Offset<pte::Instruction>> KernelCall(const ir::Node& node) {
    const dialect::EdgeOpDef* def = dialect::FindEdgeOp(node.op());
    absl::StatusOr<std::vector<dialect::KernelArgumentSlot>> slots =
        dialect::KernelArgumentSlots(node);
    if (!slots.ok()) return slots.status();
    std::vector<int32_t> args;
    for (const dialect::KernelArgumentSlot& slot : *slots) {
      absl::StatusOr<int32_t> arg = Argument(node, slot);
      if (!arg.ok()) return arg.status();
      args.push_back(*arg);
    }
    auto [it, added] = operator_index_.emplace(def->kernel, operator_names_.size());
    if (added) operator_names_.push_back(def->kernel);
    auto name = builder_.CreateString(node.name());
    auto call = pte::CreateKernelCallDirect(builder_, it->second, &args);
    // The debug handle names the same string: no bytes beyond the vector.
    auto debug_nodes = builder_.CreateVector(std::vector<Offset<flatbuffers::String>>{name});
    return pte::CreateInstruction(builder_, pte::InstructionKind::KernelCall, call.Union(), name,
                                  dialect::NodeMacs(node), debug_nodes);
  }

  absl::StatusOr<int32_t> Argument(const ir::Node& node, const dialect::KernelArgumentSlot& slot) {
    using Kind = dialect::KernelArgumentSlot::Kind;
    switch (slot.kind) {
      case Kind::kTensor:
        return Operand(node, node.input(slot.first_input));
      case Kind::kTensorList: {
        std::vector<int32_t> items;
        for (size_t i = 0; i < slot.count; ++i) {
          absl::StatusOr<int32_t> item = Operand(node, node.input(slot.first_input + i));
          if (!item.ok()) return item.status();
          items.push_back(*item);
        }
        return values_.TensorList(items);
      }
      case Kind::kAbsent:
        return values_.Null();
      case Kind::kAttribute: {
        const ir::AttrValue* attribute = node.FindAttr(slot.attribute);
        if (attribute == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat(NodeLabel(node), ": missing attribute '", slot.attribute, "'"));
        }
        absl::StatusOr<int32_t> value = values_.Attribute(*attribute, slot.attribute_kind);
        if (!value.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              NodeLabel(node), ": attribute '", slot.attribute, "' ", value.status().message()));
        }
        return value;
      }
      case Kind::kOutput:
        return Tensor(node.output(slot.output_index));
    }
    return absl::InternalError("unknown kernel argument slot");
  }

  // The tensor value of `node`'s operand `value`. Errors also name the node: an
  // input or a weight says nothing about where it is used.
  absl::StatusOr<int32_t> Operand(const ir::Node& node, const ir::Value* value) {
    absl::StatusOr<int32_t> index = Tensor(value);
    if (index.ok()) return index;
    return absl::Status(index.status().code(),
                        absl::StrCat(NodeLabel(node), ": ", index.status().message()));
  }

  absl::StatusOr<Offset<pte::Instruction>> DelegateCall(const ir::Node& node) {
    const ir::AttrValue* index = node.FindAttr(dialect::kDelegateIndexAttr);
    if (index == nullptr || index->kind() != ir::AttrValue::Kind::kInt) {
      return absl::InvalidArgumentError(absl::StrCat(NodeLabel(node), ": needs an int attribute '",
                                                     dialect::kDelegateIndexAttr, "'"));
    }
    if (index->as_int() < 0 || static_cast<uint64_t>(index->as_int()) >= input_.delegates.size()) {
      return absl::InvalidArgumentError(absl::StrCat(NodeLabel(node), ": delegate_index ",
                                                     index->as_int(), " is out of range (",
                                                     input_.delegates.size(), " delegates)"));
    }
    std::vector<int32_t> args;
    for (const ir::Value* value : node.inputs()) {
      absl::StatusOr<int32_t> arg = Operand(node, value);
      if (!arg.ok()) return arg.status();
      args.push_back(*arg);
    }
    for (const ir::Value* value : node.outputs()) {
      absl::StatusOr<int32_t> arg = Tensor(value);
      if (!arg.ok()) return arg.status();
      args.push_back(*arg);
    }
    Offset<pte::Allocation> scratch;
    uint64_t scratch_bytes = 0;
    if (auto it = input_.delegate_scratch.find(&node);
        it != input_.delegate_scratch.end() && it->second.bytes > 0) {
      const ScratchPlacement& placement = it->second;
      if (placement.arena >= input_.arena_sizes.size() || placement.offset % 64 != 0 ||
          placement.offset > input_.arena_sizes[placement.arena] ||
          placement.bytes > input_.arena_sizes[placement.arena] - placement.offset) {
        return absl::InvalidArgumentError(
            absl::StrCat(NodeLabel(node), ": its ", placement.bytes, " bytes of scratch at offset ",
                         placement.offset, " are misaligned or outside arena ", placement.arena));
      }
      scratch = pte::CreateAllocation(builder_, placement.arena, placement.offset);
      scratch_bytes = placement.bytes;
    }
    auto name = builder_.CreateString(node.name());
    auto call = pte::CreateDelegateCallDirect(builder_, static_cast<uint32_t>(index->as_int()),
                                              &args, scratch, scratch_bytes);
    const std::vector<std::string>& taken =
        input_.delegates[static_cast<size_t>(index->as_int())].node_names;
    std::vector<Offset<flatbuffers::String>> debug_names;
    for (const std::string& taken_name : taken) {
      debug_names.push_back(builder_.CreateString(taken_name));
    }
    if (debug_names.empty()) debug_names.push_back(name);
    auto debug_nodes = builder_.CreateVector(debug_names);
    // The backend that built the delegate records the work it took.
    const ir::AttrValue* macs = node.FindAttr(dialect::kDelegateMacsAttr);
    return pte::CreateInstruction(
        builder_, pte::InstructionKind::DelegateCall, call.Union(), name,
        macs != nullptr && macs->kind() == ir::AttrValue::Kind::kInt && macs->as_int() > 0
            ? static_cast<uint64_t>(macs->as_int())
            : 0,
        debug_nodes);
  }

  const EmitInput& input_;
  flatbuffers::FlatBufferBuilder& builder_;
  ValueTable values_;
  ConstantPool constants_;
  std::vector<Offset<pte::Instruction>> instructions_;
  std::vector<std::string> operator_names_;  // first-use order
  std::unordered_map<std::string, uint32_t> operator_index_;
};

}  // namespace

absl::StatusOr<std::vector<uint8_t>> EmitProgram(const EmitInput& input, EmitStats* stats) {
  if (input.graph == nullptr) return absl::InvalidArgumentError("EmitProgram: no graph");
  flatbuffers::FlatBufferBuilder builder(64 * 1024);
  // Zero-valued fields (offset 0, arena 0, Float32) are written too, so a
  // reader sees every field the emitter meant to set.
  builder.ForceDefaults(true);
  MethodEmitter method(input, builder);
  absl::Status valid = method.CheckInput();
  if (!valid.ok()) return valid;
  // Graph inputs take the first values, so a reader finds them at the front.
  for (const ir::Value* value : input.graph->inputs()) {
    absl::StatusOr<int32_t> index = method.Tensor(value);
    if (!index.ok()) return index.status();
  }
  for (const ir::Node* node : input.order) {
    absl::Status emitted = method.Node(*node);
    if (!emitted.ok()) return emitted;
  }
  SegmentBuilder segments;
  absl::StatusOr<Offset<pte::Method>> method_table = method.Finish(segments);
  if (!method_table.ok()) return method_table.status();

  std::vector<Offset<pte::Segment>> segment_tables;
  for (const SegmentRange& range : segments.ranges()) {
    segment_tables.push_back(pte::CreateSegment(builder, range.offset, range.size));
  }
  std::vector<Offset<pte::Method>> methods = {*method_table};
  pte::FinishProgramBuffer(
      builder, pte::CreateProgramDirect(builder, pte::kProgramVersion, &methods, &segment_tables));
  std::vector<uint8_t> file = segments.LayOutFile(builder.GetBufferPointer(), builder.GetSize());

  if (stats != nullptr) {
    stats->flatbuffer_bytes = builder.GetSize();
    stats->segment_count = segments.count();
    stats->constant_bytes = method.constant_bytes();
    stats->delegate_bytes = 0;
    for (const DelegatePayload& payload : input.delegates)
      stats->delegate_bytes += payload.blob.size();
    stats->file_bytes = file.size();
    stats->value_count = method.value_count();
    stats->instruction_count = method.instruction_count();
    stats->operator_count = method.operator_count();
  }
  return file;
}

}  // namespace torchir::emit
