// Binding a node of the ATen graph to its op schema: which tensor input and which attribute
// is which argument, with schema defaults filled in.
//
// BindAtenCall(node) does, for the schema FindAtenSchema(node.op()):
//  1. Checks that every attribute names an argument.
//  2. Gives each Tensor[] / Tensor?[] argument its count of inputs from
//     node.tensor_list_sizes() (in schema order, skipping a list given as an attribute, which
//     can only be empty; a size counts the tensors present, not the Nones). A node without
//     sizes whose schema has a single list argument and no optional tensor gives that list
//     whatever the single tensors leave.
//  3. Decides which optional tensor (Tensor?) arguments were passed. A None leaves no input
//     behind, so when only some were passed the count alone is ambiguous; a table keyed by op
//     decides (batch-norm family: weight and bias come together, running stats come together,
//     `training=false` (`use_input_stats=false` for instance_norm) means the stats are present;
//     layer/group/RMS norm: a bias never comes without its weight). Shapes cannot decide it
//     (a norm's weight, bias and running stats all have shape [C]). Anything still ambiguous
//     is an error.
//  4. Walks the arguments in schema order consuming the flat inputs: a Tensor argument given
//     in the attributes instead (`x * 0.5` is aten.mul.Tensor with attrs.other = 0.5) is kept
//     as a scalar-for-tensor; a Tensor?[] list gets its Nones back from the next entry of
//     node.tensor_list_none_masks() whose count of present tensors matches the list's size.
//  5. Takes every other argument from the attribute of its name, else from the schema
//     default, else None for an optional; a required one missing is an error. Attribute values
//     are checked against the argument's type (`int[2]` takes one or two ints, not three).
// Surplus inputs, unused none-masks and surplus list sizes are errors.
//
// getitem is not an ATen op: BindAtenCall rejects it (callers read its `index` attribute and
// its producer directly).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/dialect/aten_schema.h"
#include "compiler/ir/graph.h"

namespace torchir::dialect {

// The arguments of one call of an ATen op, by name. The node must outlive the call.
// Every accessor fails, with a message naming the node, its op and the argument, when the
// argument does not exist or does not hold a value of the requested kind:
//   node 'conv2d' (aten.conv2d.default): argument 'stride': expected int[2], got [1, 1, 1]
class AtenCall {
 public:
  // What was bound to one argument.
  struct Bound {
    enum class Kind : uint8_t {
      kTensor,           // `tensor`
      kNone,             // an optional tensor passed as None
      kTensorList,       // `tensors` (nullptr entries are the Nones of a Tensor?[])
      kScalarForTensor,  // a number where the schema says Tensor: `value`
      kValue,            // a non-tensor argument: `value`
    };
    Kind kind = Kind::kValue;
    ir::Value* tensor = nullptr;
    std::vector<ir::Value*> tensors;
    ir::AttrValue value;
    bool from_default = false;  // the value is the schema default (or None for an absent optional)
  };

  AtenCall(const ir::Node* node, const AtenSchema* schema, std::vector<Bound> arguments)
      : node_(node), schema_(schema), arguments_(std::move(arguments)) {}

  const ir::Node& node() const { return *node_; }
  const AtenSchema& schema() const { return *schema_; }
  // The bound arguments, parallel to schema().arguments.
  const std::vector<Bound>& arguments() const { return arguments_; }
  // The bound argument `name`, or an error when the schema has no such argument.
  absl::StatusOr<const Bound*> Find(std::string_view name) const;

  // A Tensor argument's input. Fails for a scalar-for-tensor (see IsScalarForTensor) and for None.
  absl::StatusOr<ir::Value*> Tensor(std::string_view name) const;
  // A Tensor? argument's input, nullptr when None.
  absl::StatusOr<ir::Value*> OptionalTensor(std::string_view name) const;
  // A Tensor[] or Tensor?[] argument's inputs (nullptr entries for the Nones of a Tensor?[]).
  absl::StatusOr<std::vector<ir::Value*>> TensorList(std::string_view name) const;
  // True when a Tensor argument was given as a number in the attributes (`x * 0.5`).
  bool IsScalarForTensor(std::string_view name) const;
  // True when the argument is None (an absent optional tensor or a None value).
  bool IsNone(std::string_view name) const;

  // An int (or SymInt) argument.
  absl::StatusOr<int64_t> Int(std::string_view name) const;
  // An int? argument; nullopt when None.
  absl::StatusOr<std::optional<int64_t>> OptionalInt(std::string_view name) const;
  // An int[] / int[N] argument. A single int broadcasts to `expected_len` (or to the schema's
  // N > 1), and so does a one-element list for a schema N > 1 (`padding=[1]`). With
  // `expected_len` >= 0 the result must have that length; without, a schema N > 1 list is N
  // long or empty (`int[2] stride=[]` means "the op's default", which the caller resolves).
  absl::StatusOr<std::vector<int64_t>> IntList(std::string_view name, int expected_len = -1) const;
  // An int[]? argument; nullopt when None.
  absl::StatusOr<std::optional<std::vector<int64_t>>> OptionalIntList(std::string_view name,
                                                                      int expected_len = -1) const;
  // A float argument (an int value converts).
  absl::StatusOr<double> Double(std::string_view name) const;
  // A float? argument; nullopt when None.
  absl::StatusOr<std::optional<double>> OptionalDouble(std::string_view name) const;
  // A bool argument.
  absl::StatusOr<bool> Bool(std::string_view name) const;
  // A Scalar argument, or the number of a scalar-for-tensor: a Bool, Int or Double AttrValue.
  absl::StatusOr<ir::AttrValue> Scalar(std::string_view name) const;
  // A ScalarType? (or ScalarType) argument; nullopt when None.
  absl::StatusOr<std::optional<ir::DType>> OptionalDType(std::string_view name) const;
  // A str argument.
  absl::StatusOr<std::string> String(std::string_view name) const;
  // Any non-tensor argument's value as bound (the attribute or the default), untyped.
  absl::StatusOr<ir::AttrValue> Value(std::string_view name) const;

 private:
  absl::Status Error(std::string_view argument, std::string_view problem) const;
  absl::Status Expected(std::string_view argument, std::string_view expected,
                        const ir::AttrValue& got) const;

  const ir::Node* node_;
  const AtenSchema* schema_;
  std::vector<Bound> arguments_;
};

// Binds `node` to its schema as described at the top of this file. Errors name the node and
// its op: "node 'bn' (aten.batch_norm.default): 1 of the optional tensor arguments ...".
absl::StatusOr<AtenCall> BindAtenCall(const ir::Node& node);

}  // namespace torchir::dialect
