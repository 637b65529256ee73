#include "backends/xnnpack/partitioner/subgraph_serializer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "backends/xnnpack/serialization/xnnpack_blob_generated.h"
#include "flatbuffers/flatbuffers.h"

namespace torchir::xnnpack {
namespace {

constexpr uint32_t kBlobVersion = 1;

}  // namespace

SubgraphSerializer::SubgraphSerializer(Layout layout, const std::vector<const ir::Node*>& members)
    : layout_(layout), members_(members), member_set_(members.begin(), members.end()) {}

std::vector<int64_t> SubgraphSerializer::Dims(const ir::Value* value) const {
  return PhysicalDims(value->sizes(), layout_);
}

uint32_t SubgraphSerializer::NewValue(std::vector<int64_t> dims) {
  values_.push_back(BlobValue{std::move(dims), -1, false, {}});
  producer_.push_back(-1);
  return static_cast<uint32_t>(values_.size() - 1);
}

uint32_t SubgraphSerializer::Operand(ir::Value* value) {
  if (auto it = value_ids_.find(value); it != value_ids_.end()) return it->second;
  if (value->is_constant_like()) {
    return Constant(value, OperandTransform(value->sizes(), value->sizes().size(), layout_));
  }
  if (value->producer() != nullptr && member_set_.count(value->producer()) != 0 && status_.ok()) {
    // A serialiser read a region value before the node writing it was serialised.
    status_ = absl::InternalError(
        absl::StrCat("XNNPACK region: '", value->name(), "' is read before it is written"));
  }
  const uint32_t id = NewValue(Dims(value));
  SubgraphArgument argument;
  argument.kind = SubgraphArgument::Kind::kActivation;
  argument.value = value;
  argument.perm = PhysicalPermutation(layout_, value->sizes().size());
  argument.dims = values_[id].dims;
  values_[id].argument = static_cast<int>(inputs_.size());
  inputs_.push_back(std::move(argument));
  value_ids_.emplace(value, id);
  return id;
}

uint32_t SubgraphSerializer::BroadcastOperand(ir::Value* value, size_t rank) {
  const std::vector<int64_t>& sizes = value->sizes();
  if (sizes.empty() || sizes.size() >= rank) return Operand(value);
  if (value->is_constant_like()) return Constant(value, OperandTransform(sizes, rank, layout_));
  if (auto it = broadcasts_.find({value, rank}); it != broadcasts_.end()) return it->second;
  const uint32_t source = Operand(value);
  std::vector<int64_t> padded(rank - sizes.size(), 1);
  padded.insert(padded.end(), sizes.begin(), sizes.end());
  std::vector<int64_t> dims = PermuteSizes(padded, PhysicalPermutation(layout_, rank));
  // NumPy broadcasting pads the physical dims on the left; only a different order needs a
  // reshape (free in XNNPACK: same bytes, new dims).
  std::vector<int64_t> aligned(rank - sizes.size(), 1);
  aligned.insert(aligned.end(), values_[source].dims.begin(), values_[source].dims.end());
  uint32_t id = source;
  if (aligned != dims) {
    id = Internal(dims);
    AddNode<node_params::StaticReshape>({source}, id, dims);
  }
  broadcasts_.emplace(std::make_pair(value, rank), id);
  return id;
}

uint32_t SubgraphSerializer::Constant(ir::Value* value, const ConstantTransform& transform) {
  for (const auto& [key, id] : constants_) {
    if (key.first == value && key.second == transform) return id;
  }
  const uint32_t id = NewValue(transform.Dims());
  SubgraphArgument argument;
  argument.kind = SubgraphArgument::Kind::kConstant;
  argument.value = value;
  argument.transform = transform;
  argument.dims = values_[id].dims;
  values_[id].argument = static_cast<int>(inputs_.size());
  inputs_.push_back(std::move(argument));
  constants_.push_back({{value, transform}, id});
  return id;
}

uint32_t SubgraphSerializer::Output(ir::Value* value) {
  const uint32_t id = NewValue(Dims(value));
  value_ids_[value] = id;
  return id;
}

uint32_t SubgraphSerializer::Internal(std::vector<int64_t> dims) {
  return NewValue(std::move(dims));
}

uint32_t SubgraphSerializer::StaticData(std::vector<int64_t> dims, std::vector<float> data) {
  const uint32_t id = NewValue(std::move(dims));
  values_[id].data = std::move(data);
  return id;
}

void SubgraphSerializer::CheckLayout(const char* op, size_t min_inputs, size_t max_inputs,
                                     size_t num_inputs, int num_ints,
                                     const node_params::IntSlot* slots,
                                     const std::vector<int64_t>& ints, int num_floats,
                                     size_t floats) {
  if (!status_.ok()) return;
  if (num_inputs < min_inputs || num_inputs > max_inputs) {
    status_ = absl::InternalError(absl::StrCat("XNNPACK node ", op, " given ", num_inputs,
                                               " inputs, its layout takes ", min_inputs, " to ",
                                               max_inputs));
  } else if (num_ints != node_params::kVariableCount &&
             ints.size() != static_cast<size_t>(num_ints)) {
    status_ = absl::InternalError(absl::StrCat("XNNPACK node ", op, " given ", ints.size(),
                                               " ints, its layout has ", num_ints));
  } else if (floats != static_cast<size_t>(num_floats)) {
    status_ = absl::InternalError(absl::StrCat("XNNPACK node ", op, " given ", floats,
                                               " floats, its layout has ", num_floats));
  }
  for (size_t i = 0; status_.ok() && slots != nullptr && i < ints.size(); ++i) {
    if (ints[i] < slots[i].min || ints[i] > slots[i].max) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "XNNPACK node ", op, ": ", slots[i].name, " = ", ints[i],
          " is outside what the delegate accepts [", slots[i].min, ", ", slots[i].max, "]"));
    }
  }
}

void SubgraphSerializer::AppendNode(const char* op, std::vector<uint32_t> inputs, uint32_t output,
                                    std::vector<int64_t> ints, std::vector<double> floats,
                                    int range_at) {
  producer_[output] = static_cast<int>(nodes_.size());
  nodes_.push_back(
      BlobNode{op, std::move(inputs), {output}, std::move(ints), std::move(floats), range_at});
}

bool SubgraphSerializer::FoldClamp(const ir::Value* input, const ir::Value* output, double min,
                                   double max) {
  auto it = value_ids_.find(input);
  if (it == value_ids_.end() || input->uses().size() != 1 || input->is_graph_output()) {
    return false;
  }
  const int producer = producer_[it->second];
  if (producer < 0 || nodes_[static_cast<size_t>(producer)].range_at < 0) return false;
  BlobNode& node = nodes_[static_cast<size_t>(producer)];
  const size_t at = static_cast<size_t>(node.range_at);
  const double lower = std::max(node.floats[at], min);
  const double upper = std::min(node.floats[at + 1], max);
  if (!(lower < upper)) return false;  // XNNPACK needs a non-empty range
  node.floats[at] = lower;
  node.floats[at + 1] = upper;
  value_ids_[output] = it->second;
  return true;
}

absl::StatusOr<SerializedSubgraph> SubgraphSerializer::Finish(
    const std::vector<std::string>& source_ops, uint64_t macs) {
  if (!status_.ok()) return status_;
  SerializedSubgraph result;
  // Inputs: activations first, then constants, each in first-use order.
  std::vector<uint32_t> input_ids;
  for (int pass = 0; pass < 2; ++pass) {
    const auto kind =
        pass == 0 ? SubgraphArgument::Kind::kActivation : SubgraphArgument::Kind::kConstant;
    for (uint32_t id = 0; id < values_.size(); ++id) {
      const int argument = values_[id].argument;
      if (argument >= 0 && inputs_[static_cast<size_t>(argument)].kind == kind) {
        input_ids.push_back(id);
      }
    }
  }
  std::vector<int32_t> argument_of(values_.size(), -1);
  for (uint32_t id : input_ids) {
    argument_of[id] = static_cast<int32_t>(result.arguments.size());
    result.arguments.push_back(inputs_[static_cast<size_t>(values_[id].argument)]);
  }
  result.num_inputs = result.arguments.size();
  // Outputs: every value a region node writes that is read outside the region or returned.
  for (const ir::Node* member : members_) {
    for (ir::Value* value : member->outputs()) {
      bool read_outside = value->is_graph_output();
      for (const ir::Use& use : value->uses()) {
        if (member_set_.count(use.user) == 0) read_outside = true;
      }
      if (!read_outside) continue;
      auto it = value_ids_.find(value);
      if (it == value_ids_.end()) {
        return absl::InternalError(absl::StrCat("XNNPACK region: '", value->name(),
                                                "' is read outside the region but was not "
                                                "serialised"));
      }
      BlobValue& blob_value = values_[it->second];
      if (blob_value.is_output || blob_value.argument >= 0) {
        return absl::InternalError(absl::StrCat("XNNPACK region: '", value->name(),
                                                "' shares its XNNPACK value with another "
                                                "argument"));
      }
      blob_value.is_output = true;
      argument_of[it->second] = static_cast<int32_t>(result.arguments.size());
      SubgraphArgument argument;
      argument.kind = SubgraphArgument::Kind::kOutput;
      argument.value = value;
      argument.perm = PhysicalPermutation(layout_, value->sizes().size());
      argument.dims = blob_value.dims;
      result.arguments.push_back(std::move(argument));
    }
  }

  flatbuffers::FlatBufferBuilder builder;
  builder.ForceDefaults(true);
  std::vector<flatbuffers::Offset<Value>> values;
  for (uint32_t id = 0; id < values_.size(); ++id) {
    const BlobValue& value = values_[id];
    std::vector<uint64_t> dims(value.dims.begin(), value.dims.end());
    values.push_back(CreateValueDirect(builder, &dims, argument_of[id], value.is_output,
                                       value.data.empty() ? nullptr : &value.data));
  }
  std::vector<flatbuffers::Offset<Node>> nodes;
  for (const BlobNode& node : nodes_) {
    nodes.push_back(CreateNodeDirect(builder, node.op.c_str(), &node.inputs, &node.outputs,
                                     &node.ints, &node.floats));
  }
  std::vector<flatbuffers::Offset<flatbuffers::String>> ops;
  for (const std::string& op : source_ops) ops.push_back(builder.CreateString(op));
  FinishGraphBuffer(builder,
                    CreateGraphDirect(builder, kBlobVersion, &values, &nodes,
                                      static_cast<uint32_t>(result.arguments.size()), &ops, macs));
  result.blob.assign(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
  return result;
}

}  // namespace torchir::xnnpack
