// A method's values: the EValues its instructions and signature refer to by
// index, written into a FlatBufferBuilder in first-use order. Tensors are
// interned by ir::Value, attributes by content (equal attributes share one
// value), and there is one shared Null for every omitted optional tensor.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/dialect/edge_ops.h"
#include "compiler/ir/attribute.h"
#include "compiler/ir/graph.h"
#include "flatbuffers/flatbuffers.h"
#include "schema/program_generated.h"

namespace torchir::emit {

class ValueTable {
 public:
  // Values are built in `builder`, which must outlive the table.
  explicit ValueTable(flatbuffers::FlatBufferBuilder& builder) : builder_(builder) {}
  ValueTable(const ValueTable&) = delete;
  ValueTable& operator=(const ValueTable&) = delete;

  // The index of `value`'s tensor, or -1 when it has not been added yet.
  int32_t FindTensor(const ir::Value* value) const;
  // Adds `value` as a tensor whose bytes are at `offset` in data segment `segment`.
  absl::StatusOr<int32_t> AddConstantTensor(const ir::Value* value, uint32_t segment,
                                            uint64_t offset);
  // Adds `value` as a tensor planned at `offset` in arena `arena`.
  absl::StatusOr<int32_t> AddPlannedTensor(const ir::Value* value, uint32_t arena, uint64_t offset);

  // The shared Null value (an omitted optional tensor).
  int32_t Null();
  // A TensorList of tensor value indices; equal lists share one value.
  int32_t TensorList(const std::vector<int32_t>& tensors);
  // The value of an attribute the op table declares as `kind`. Errors when
  // `attribute` holds another kind.
  absl::StatusOr<int32_t> Attribute(const ir::AttrValue& attribute, dialect::AttrKind kind);

  size_t size() const { return values_.size(); }
  // The values built so far, for Method.values.
  const std::vector<flatbuffers::Offset<pte::EValue>>& values() const { return values_; }

 private:
  absl::StatusOr<int32_t> AddTensor(const ir::Value* value,
                                    flatbuffers::Offset<pte::ConstantData> constant,
                                    flatbuffers::Offset<pte::Allocation> allocation);
  int32_t Append(pte::Value type, flatbuffers::Offset<void> value);
  // Returns the index interned under `key`, or builds one with `make` (called
  // only on a miss, so nothing unused lands in the buffer).
  template <typename Make>
  int32_t Intern(const std::string& key, Make make);

  flatbuffers::FlatBufferBuilder& builder_;
  std::vector<flatbuffers::Offset<pte::EValue>> values_;
  // Lookups only; the order of values_ is the order of first use.
  std::unordered_map<const ir::Value*, int32_t> tensors_;
  std::unordered_map<std::string, int32_t> interned_;
};

}  // namespace torchir::emit
