// Reading attribute values as the schema types of ATen arguments.
//
// The pytorch-ir reader types attributes from JSON alone (docs/input-format.md), so a value
// reaches the compiler in whichever spelling the exporter chose: `stride=1` or `[1, 1]` for an
// `int[2]`, `eps=1` (an int) for a float, a dtype as torch.float32 or as PyTorch's enum number.
// These functions accept every spelling that means a value of the schema type and nothing else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/dialect/aten_schema.h"
#include "compiler/ir/attribute.h"
#include "compiler/ir/dtype.h"

namespace torchir::dialect {

// True when `value` is a legal value of `type`: None only for optional (or `t`/Any) types; a
// list type takes a list of its element kind (or a single element); for a fixed size N > 1
// (`int[2] stride`) its length is N, 1 (broadcast) or 0 (`stride=[]`: the op's own default),
// while `int[1] dim` takes any length (N only says a single int is allowed). A Tensor type
// takes only a number (a scalar-for-tensor) and a tensor list only an empty list.
bool ValueFitsType(const AtenType& type, const ir::AttrValue& value);

// An int: Int, or a Bool (PyTorch's bool is an int subtype). nullopt otherwise.
std::optional<int64_t> ValueAsInt(const ir::AttrValue& value);
// A float: Double or Int.
std::optional<double> ValueAsDouble(const ir::AttrValue& value);
// A bool: Bool, or Int 0/1.
std::optional<bool> ValueAsBool(const ir::AttrValue& value);
// A list of ints: IntList, List of Ints, or a single Int. With `length` > 0 a single element
// broadcasts to `length` and any other length is rejected.
std::optional<std::vector<int64_t>> ValueAsIntList(const ir::AttrValue& value, int length = 0);
// A list of floats: DoubleList, IntList, List of numbers, or a single number.
std::optional<std::vector<double>> ValueAsDoubleList(const ir::AttrValue& value, int length = 0);
// A list of bools: BoolList, an empty list, or a single Bool.
std::optional<std::vector<bool>> ValueAsBoolList(const ir::AttrValue& value, int length = 0);
// A dtype: DType, PyTorch's ScalarType number, or a name ("torch.float32", "float32").
std::optional<ir::DType> ValueAsDType(const ir::AttrValue& value);
// A layout, memory format or device, from its typed value, PyTorch's number or its name.
std::optional<ir::Layout> ValueAsLayout(const ir::AttrValue& value);
std::optional<ir::MemoryFormat> ValueAsMemoryFormat(const ir::AttrValue& value);
std::optional<ir::Device> ValueAsDevice(const ir::AttrValue& value);

}  // namespace torchir::dialect
