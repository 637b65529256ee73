// ATen op schemas: the parsed form of PyTorch's schema strings
// ("aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, ...) -> Tensor")
// and the table of every schema torchir knows (aten_schemas.inc, written by
// tools/gen_aten_schemas.py).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/attribute.h"

namespace torchir::dialect {

// The element kind of an argument or result type.
enum class AtenTypeKind : uint8_t {
  kTensor,
  kInt,           // int and SymInt
  kFloat,         // float (a double) and SymFloat
  kBool,          // bool and SymBool
  kComplex,       // complex
  kScalar,        // Scalar (bool, int or float)
  kScalarType,    // ScalarType: a dtype
  kLayout,        // Layout
  kDevice,        // Device
  kMemoryFormat,  // MemoryFormat
  kString,        // str (also Dimname)
  kGenerator,     // Generator
  kAny,           // the type variables t, t1, ... and Any
};

// The type of an argument or result: an element kind, possibly a list, possibly optional.
// `Tensor?[]` is a list of optional tensors; `int[]?` an optional list; `int[2]` a list of
// fixed length 2 (a single int given for it broadcasts).
struct AtenType {
  AtenTypeKind kind = AtenTypeKind::kTensor;
  bool is_list = false;
  int fixed_size = 0;             // N of `T[N]`; 0 when the length is free
  bool element_optional = false;  // `T?[]`
  bool optional = false;          // `T?` or `T[]?`

  bool is_tensor() const { return kind == AtenTypeKind::kTensor && !is_list; }
  bool is_tensor_list() const { return kind == AtenTypeKind::kTensor && is_list; }
  // The type as a schema spells it: "int[2]", "Tensor?[]", "ScalarType?".
  std::string ToString() const;
};

// An alias annotation: `(a)` (a view of set a), `(a!)` (writes set a), `(a -> *)`,
// `(b|a)`. Absent when `sets` is empty.
struct AtenAlias {
  std::vector<std::string> sets;        // before "->": {"a"}, {"b", "a"}
  std::vector<std::string> after_sets;  // after "->": {"*"}
  bool is_write = false;

  bool present() const { return !sets.empty(); }
};

// One formal argument.
struct AtenArgument {
  std::string name;
  AtenType type;
  // The default, typed for the argument: None, Bool, Int, Double, String, IntList (a single
  // int given for `int[N]` is broadcast to N), DoubleList, BoolList, DType, Layout,
  // MemoryFormat, Device. nullopt when the argument has no default.
  std::optional<ir::AttrValue> default_value;
  bool kwarg_only = false;  // after the `*` marker
  AtenAlias alias;          // on the list itself for `t[](a!)`, on its elements for `Tensor(a)[]`
};

// One result.
struct AtenReturn {
  std::string name;  // usually empty; "output" in `-> (Tensor output, Tensor logsumexp)`
  AtenType type;
  AtenAlias alias;
};

// A parsed schema.
struct AtenSchema {
  std::string name;      // without the namespace: "conv2d", "add_"
  std::string overload;  // "Tensor", or "" for the default overload
  std::vector<AtenArgument> arguments;
  std::vector<AtenReturn> returns;
  bool is_vararg = false;  // arguments end in `...`
  bool is_varret = false;  // returns end in `...`
  std::string text;        // the schema string it was parsed from

  // The argument named `name`, nullptr if none.
  const AtenArgument* FindArgument(std::string_view name) const;
  // Its index in `arguments`, -1 if none.
  int ArgumentIndex(std::string_view name) const;
  // True when some argument is written (in-place and out= ops).
  bool IsMutating() const;
  // The pytorch-ir op type: "aten.conv2d.default", "aten.add.Tensor".
  std::string OpType() const;
};

// Parses one schema string. Accepts "aten::name.overload(args) -> returns" with the grammar of
// c10's schema parser for the types listed in AtenTypeKind. Errors name the offending text.
absl::StatusOr<AtenSchema> ParseAtenSchema(std::string_view text);

// The schema of a pytorch-ir op type ("aten.conv2d.default", "aten.add.Tensor"); nullptr when
// the table has none (also for non-aten ops and "getitem"). The table is parsed once, on first
// use, thread-safely.
const AtenSchema* FindAtenSchema(std::string_view op_type);

// Every schema of the table that parsed, sorted by name and overload.
const std::vector<AtenSchema>& AllAtenSchemas();

// The schema strings of the table that failed to parse, each with its error. Empty in a
// correct build; a test checks it.
const std::vector<std::string>& AtenSchemaTableErrors();

// The raw schema strings of the table (aten_schemas.inc), in order.
const std::vector<std::string_view>& AtenSchemaStrings();

}  // namespace torchir::dialect
