// The registry half of aten_schema.h: the generated table, parsed once on first use.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/dialect/aten_schema.h"

namespace torchir::dialect {
namespace {

constexpr const char* kSchemaStrings[] = {
#include "compiler/dialect/aten_schemas.inc"
};

struct SchemaTable {
  std::vector<std::string_view> strings;
  std::vector<AtenSchema> schemas;
  std::vector<std::string> errors;
  // "conv2d.padding" / "conv2d" (the default overload) -> index into `schemas`.
  std::unordered_map<std::string, size_t> by_key;
};

std::string KeyOf(std::string_view name, std::string_view overload) {
  std::string key(name);
  if (!overload.empty()) {
    key += '.';
    key += overload;
  }
  return key;
}

const SchemaTable& Table() {
  // A function-local static: C++11 guarantees thread-safe one-time initialisation.
  static const SchemaTable* const table = [] {
    auto* built = new SchemaTable;
    for (const char* text : kSchemaStrings) {
      built->strings.push_back(text);
      absl::StatusOr<AtenSchema> schema = ParseAtenSchema(text);
      if (!schema.ok()) {
        built->errors.push_back(std::string(schema.status().message()));
        continue;
      }
      built->schemas.push_back(std::move(*schema));
    }
    for (size_t i = 0; i < built->schemas.size(); ++i) {
      const AtenSchema& schema = built->schemas[i];
      if (!built->by_key.emplace(KeyOf(schema.name, schema.overload), i).second) {
        built->errors.push_back("duplicate schema: " + schema.text);
      }
    }
    return built;
  }();
  return *table;
}

}  // namespace

const AtenSchema* FindAtenSchema(std::string_view op_type) {
  constexpr std::string_view kPrefix = "aten.";
  if (op_type.substr(0, kPrefix.size()) != kPrefix) return nullptr;
  op_type.remove_prefix(kPrefix.size());
  size_t dot = op_type.rfind('.');
  if (dot == std::string_view::npos) return nullptr;
  std::string_view name = op_type.substr(0, dot);
  std::string_view overload = op_type.substr(dot + 1);
  if (overload == "default") overload = {};
  const SchemaTable& table = Table();
  auto it = table.by_key.find(KeyOf(name, overload));
  return it == table.by_key.end() ? nullptr : &table.schemas[it->second];
}

const std::vector<AtenSchema>& AllAtenSchemas() { return Table().schemas; }

const std::vector<std::string>& AtenSchemaTableErrors() { return Table().errors; }

const std::vector<std::string_view>& AtenSchemaStrings() { return Table().strings; }

}  // namespace torchir::dialect
