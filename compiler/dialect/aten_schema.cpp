#include "compiler/dialect/aten_schema.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace torchir::dialect {
namespace {

using ir::AttrValue;

struct TypeName {
  std::string_view name;
  AtenTypeKind kind;
};

constexpr TypeName kTypeNames[] = {
    {"Tensor", AtenTypeKind::kTensor},
    {"int", AtenTypeKind::kInt},
    {"SymInt", AtenTypeKind::kInt},
    {"float", AtenTypeKind::kFloat},
    {"SymFloat", AtenTypeKind::kFloat},
    {"bool", AtenTypeKind::kBool},
    {"SymBool", AtenTypeKind::kBool},
    {"complex", AtenTypeKind::kComplex},
    {"Scalar", AtenTypeKind::kScalar},
    {"number", AtenTypeKind::kScalar},
    {"ScalarType", AtenTypeKind::kScalarType},
    {"Layout", AtenTypeKind::kLayout},
    {"Device", AtenTypeKind::kDevice},
    {"MemoryFormat", AtenTypeKind::kMemoryFormat},
    {"str", AtenTypeKind::kString},
    {"Dimname", AtenTypeKind::kString},
    {"Generator", AtenTypeKind::kGenerator},
    {"Any", AtenTypeKind::kAny},
};

std::string_view KindName(AtenTypeKind kind) {
  switch (kind) {
    case AtenTypeKind::kTensor:
      return "Tensor";
    case AtenTypeKind::kInt:
      return "int";
    case AtenTypeKind::kFloat:
      return "float";
    case AtenTypeKind::kBool:
      return "bool";
    case AtenTypeKind::kComplex:
      return "complex";
    case AtenTypeKind::kScalar:
      return "Scalar";
    case AtenTypeKind::kScalarType:
      return "ScalarType";
    case AtenTypeKind::kLayout:
      return "Layout";
    case AtenTypeKind::kDevice:
      return "Device";
    case AtenTypeKind::kMemoryFormat:
      return "MemoryFormat";
    case AtenTypeKind::kString:
      return "str";
    case AtenTypeKind::kGenerator:
      return "Generator";
    case AtenTypeKind::kAny:
      return "t";
  }
  return "?";
}

// Parses a default of `type` (defined below).
absl::StatusOr<AttrValue> ParseDefault(const AtenType& type, std::string_view text);

bool IsIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// A cursor over one schema string; every Parse* method reports errors with the column.
class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : text_(text) {}

  absl::StatusOr<AtenSchema> Parse() {
    AtenSchema schema;
    schema.text = std::string(text_);
    std::string_view name = Identifier(/*allow_dots=*/true);
    if (name.empty()) return Error("expected the op name");
    // Identifier stops at ':'; skip a namespace given as `ns::`.
    if (Peek("::")) {
      pos_ += 2;
      name = Identifier(/*allow_dots=*/true);
      if (name.empty()) return Error("expected the op name after '::'");
    }
    size_t dot = name.find('.');
    schema.name = std::string(name.substr(0, dot));
    if (dot != std::string_view::npos) schema.overload = std::string(name.substr(dot + 1));
    if (schema.name.empty()) return Error("empty op name");

    if (!Consume('(')) return Error("expected '('");
    bool kwarg_only = false;
    SkipSpaces();
    if (!Consume(')')) {
      while (true) {
        SkipSpaces();
        if (Consume('*')) {
          if (kwarg_only) return Error("a second '*'");
          kwarg_only = true;
        } else if (Peek("...")) {
          pos_ += 3;
          schema.is_vararg = true;
        } else {
          if (schema.is_vararg) return Error("an argument after '...'");
          AtenArgument argument;
          absl::Status status = ParseArgument(&argument);
          if (!status.ok()) return status;
          argument.kwarg_only = kwarg_only;
          schema.arguments.push_back(std::move(argument));
        }
        SkipSpaces();
        if (Consume(')')) break;
        if (!Consume(',')) return Error("expected ',' or ')' after an argument");
      }
    }
    SkipSpaces();
    if (!Peek("->")) return Error("expected '->'");
    pos_ += 2;
    SkipSpaces();
    absl::Status status = ParseReturns(&schema);
    if (!status.ok()) return status;
    SkipSpaces();
    if (pos_ != text_.size()) return Error("unexpected text after the returns");
    for (size_t i = 0; i < schema.arguments.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (schema.arguments[i].name == schema.arguments[j].name) {
          return Error(absl::StrCat("argument name '", schema.arguments[i].name, "' repeated"));
        }
      }
    }
    return schema;
  }

 private:
  absl::Status Error(std::string_view problem) const {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse schema '", std::string(text_),
                                                   "': column ", pos_ + 1, ": ",
                                                   std::string(problem)));
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool Peek(std::string_view token) const { return text_.substr(pos_, token.size()) == token; }
  bool Consume(char c) {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::string_view Identifier(bool allow_dots = false) {
    SkipSpaces();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (IsIdentifierChar(text_[pos_]) || (allow_dots && text_[pos_] == '.' && pos_ > start))) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  // `(a)`, `(a!)`, `(a -> *)`, `(b|a)`, `(*)`; the cursor is on '('.
  absl::Status ParseAlias(AtenAlias* alias) {
    ++pos_;
    std::vector<std::string>* sets = &alias->sets;
    while (true) {
      SkipSpaces();
      if (Consume('*')) {
        sets->push_back("*");
      } else {
        std::string_view set = Identifier();
        if (set.empty()) return Error("expected an alias set name");
        sets->push_back(std::string(set));
      }
      SkipSpaces();
      if (Consume('|')) continue;
      if (Consume('!')) alias->is_write = true;
      SkipSpaces();
      if (Peek("->")) {
        if (sets == &alias->after_sets) return Error("a second '->' in an alias annotation");
        pos_ += 2;
        sets = &alias->after_sets;
        continue;
      }
      if (Consume(')')) return absl::OkStatus();
      return Error("expected ')' closing an alias annotation");
    }
  }

  // A type with its alias annotation: `Tensor(a!)`, `Tensor?[]`, `int[2]`, `t[](a!)`, `int[]?`.
  absl::Status ParseType(AtenType* type, AtenAlias* alias) {
    std::string_view base = Identifier();
    if (base.empty()) return Error("expected a type");
    bool known = false;
    for (const TypeName& entry : kTypeNames) {
      if (entry.name == base) {
        type->kind = entry.kind;
        known = true;
      }
    }
    // Type variables: t, t1, t2, tVal, ...
    if (!known && base[0] == 't' &&
        (base.size() == 1 || std::isdigit(static_cast<unsigned char>(base[1])) ||
         std::isupper(static_cast<unsigned char>(base[1])))) {
      type->kind = AtenTypeKind::kAny;
      known = true;
    }
    if (!known) return Error(absl::StrCat("unknown type '", std::string(base), "'"));
    bool optional_before_list = false;
    bool optional_after_list = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '(') {
        if (alias->present()) return Error("a second alias annotation");
        absl::Status status = ParseAlias(alias);
        if (!status.ok()) return status;
      } else if (c == '[') {
        if (type->is_list) return Error("nested lists are not supported");
        ++pos_;
        type->is_list = true;
        size_t start = pos_;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        if (pos_ > start) {
          type->fixed_size = std::atoi(std::string(text_.substr(start, pos_ - start)).c_str());
        }
        if (!Consume(']')) return Error("expected ']'");
      } else if (c == '?') {
        ++pos_;
        (type->is_list ? optional_after_list : optional_before_list) = true;
      } else {
        break;
      }
    }
    if (type->is_list) {
      type->element_optional = optional_before_list;
      type->optional = optional_after_list;
    } else {
      type->optional = optional_before_list;
    }
    return absl::OkStatus();
  }

  absl::Status ParseArgument(AtenArgument* argument) {
    absl::Status status = ParseType(&argument->type, &argument->alias);
    if (!status.ok()) return status;
    std::string_view name = Identifier();
    if (name.empty()) return Error("expected an argument name");
    argument->name = std::string(name);
    SkipSpaces();
    if (!Consume('=')) return absl::OkStatus();
    SkipSpaces();
    size_t start = pos_;
    // The default runs to the next ',' or ')' outside brackets and quotes.
    int depth = 0;
    char quote = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (quote != 0) {
        if (c == '\\') {
          ++pos_;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[') {
        ++depth;
      } else if (c == ']') {
        --depth;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
      ++pos_;
    }
    std::string_view text = text_.substr(start, pos_ - start);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    absl::StatusOr<AttrValue> value = ParseDefault(argument->type, text);
    if (!value.ok()) {
      pos_ = start;
      return Error(absl::StrCat("default of '", argument->name, "': ", value.status().message()));
    }
    argument->default_value = std::move(*value);
    return absl::OkStatus();
  }

  absl::Status ParseReturns(AtenSchema* schema) {
    auto parse_one = [&]() -> absl::Status {
      SkipSpaces();
      if (Peek("...")) {
        pos_ += 3;
        schema->is_varret = true;
        return absl::OkStatus();
      }
      AtenReturn result;
      absl::Status status = ParseType(&result.type, &result.alias);
      if (!status.ok()) return status;
      result.name = std::string(Identifier());
      schema->returns.push_back(std::move(result));
      return absl::OkStatus();
    };
    if (!Consume('(')) return parse_one();
    SkipSpaces();
    if (Consume(')')) return absl::OkStatus();
    while (true) {
      absl::Status status = parse_one();
      if (!status.ok()) return status;
      if (Consume(')')) return absl::OkStatus();
      if (!Consume(',')) return Error("expected ',' or ')' in the returns");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Parses a number literal: ints, floats, inf, -inf, nan. `is_integer` says which it was.
std::optional<double> ParseNumber(std::string_view text, bool* is_integer, int64_t* integer) {
  std::string copy(text);
  if (copy == "inf" || copy == "-inf" || copy == "nan") {
    *is_integer = false;
    if (copy == "nan") return std::numeric_limits<double>::quiet_NaN();
    return copy[0] == '-' ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
  }
  if (copy.empty()) return std::nullopt;
  char* end = nullptr;
  *is_integer = copy.find_first_of(".eE") == std::string::npos;
  if (*is_integer) {
    errno = 0;
    long long v = std::strtoll(copy.c_str(), &end, 10);
    if (errno != 0 || end != copy.c_str() + copy.size()) return std::nullopt;
    *integer = v;
    return static_cast<double>(v);
  }
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

absl::StatusOr<std::string> ParseStringLiteral(std::string_view text) {
  if (text.size() < 2 || (text.front() != '"' && text.front() != '\'') ||
      text.back() != text.front()) {
    return absl::InvalidArgumentError(absl::StrCat("expected a string, got ", std::string(text)));
  }
  std::string value;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      value += c;
      continue;
    }
    if (++i + 1 >= text.size()) return absl::InvalidArgumentError("a dangling '\\'");
    switch (text[i]) {
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case 'f':
        value += '\f';
        break;
      case 'v':
        value += '\v';
        break;
      case 'r':
        value += '\r';
        break;
      default:
        value += text[i];
        break;
    }
  }
  return value;
}

// One scalar default of element kind `kind`.
absl::StatusOr<AttrValue> ParseElement(AtenTypeKind kind, std::string_view text) {
  auto bad = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(text), "' is not a ", std::string(KindName(kind))));
  };
  if (text == "True" || text == "False") {
    if (kind != AtenTypeKind::kBool && kind != AtenTypeKind::kScalar &&
        kind != AtenTypeKind::kAny) {
      return bad();
    }
    return AttrValue::Bool(text == "True");
  }
  if (!text.empty() && (text.front() == '"' || text.front() == '\'')) {
    absl::StatusOr<std::string> value = ParseStringLiteral(text);
    if (!value.ok()) return value.status();
    if (kind == AtenTypeKind::kDevice) {
      std::optional<ir::Device> device = ir::ParseDevice(*value);
      if (!device) return bad();
      return AttrValue::OfDevice(*device);
    }
    if (kind != AtenTypeKind::kString && kind != AtenTypeKind::kAny) return bad();
    return AttrValue::String(std::move(*value));
  }
  bool is_integer = false;
  int64_t integer = 0;
  std::optional<double> number = ParseNumber(text, &is_integer, &integer);
  switch (kind) {
    case AtenTypeKind::kInt:
      if (!number || !is_integer) return bad();
      return AttrValue::Int(integer);
    case AtenTypeKind::kFloat:
    case AtenTypeKind::kComplex:
      if (!number) return bad();
      return AttrValue::Double(*number);
    case AtenTypeKind::kScalar:
    case AtenTypeKind::kAny:
      if (!number) return bad();
      return is_integer ? AttrValue::Int(integer) : AttrValue::Double(*number);
    case AtenTypeKind::kScalarType: {
      std::optional<ir::DType> dtype =
          number && is_integer ? ir::DTypeFromTorchScalarType(integer) : ir::ParseDType(text);
      if (!dtype) return bad();
      return AttrValue::OfDType(*dtype);
    }
    case AtenTypeKind::kMemoryFormat: {
      if (number && is_integer && integer >= 0 && integer <= 3) {
        return AttrValue::OfMemoryFormat(static_cast<ir::MemoryFormat>(integer));
      }
      std::optional<ir::MemoryFormat> format = ir::ParseMemoryFormat(text);
      if (!format) return bad();
      return AttrValue::OfMemoryFormat(*format);
    }
    case AtenTypeKind::kLayout: {
      if (number && is_integer && integer >= 0 && integer <= 3) {
        return AttrValue::OfLayout(static_cast<ir::Layout>(integer));
      }
      std::optional<ir::Layout> layout = ir::ParseLayout(text);
      if (!layout) return bad();
      return AttrValue::OfLayout(*layout);
    }
    default:
      return bad();
  }
}

// A default of `type`: None, a scalar, or a list (`[]`, `[0, 1]`, or a single value that
// a fixed-size list broadcasts).
absl::StatusOr<AttrValue> ParseDefault(const AtenType& type, std::string_view text) {
  if (text == "None") {
    if (!type.optional && type.kind != AtenTypeKind::kAny) {
      return absl::InvalidArgumentError("None for a type that is not optional");
    }
    return AttrValue::None();
  }
  if (!type.is_list) return ParseElement(type.kind, text);

  std::vector<AttrValue> elements;
  if (!text.empty() && text.front() == '[') {
    if (text.back() != ']') return absl::InvalidArgumentError("unterminated list");
    std::string_view body = text.substr(1, text.size() - 2);
    while (!body.empty()) {
      size_t comma = body.find(',');
      std::string_view item = body.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      absl::StatusOr<AttrValue> element = ParseElement(type.kind, item);
      if (!element.ok()) return element.status();
      elements.push_back(std::move(*element));
      if (comma == std::string_view::npos) break;
      body.remove_prefix(comma + 1);
    }
  } else {
    absl::StatusOr<AttrValue> element = ParseElement(type.kind, text);
    if (!element.ok()) return element.status();
    elements.assign(type.fixed_size > 0 ? type.fixed_size : 1, *element);
  }
  switch (type.kind) {
    case AtenTypeKind::kInt: {
      std::vector<int64_t> values;
      for (const AttrValue& element : elements) values.push_back(element.as_int());
      return AttrValue::IntList(std::move(values));
    }
    case AtenTypeKind::kFloat: {
      std::vector<double> values;
      for (const AttrValue& element : elements) values.push_back(element.as_double());
      return AttrValue::DoubleList(std::move(values));
    }
    case AtenTypeKind::kBool: {
      std::vector<bool> values;
      for (const AttrValue& element : elements) values.push_back(element.as_bool());
      return AttrValue::BoolList(std::move(values));
    }
    default:
      if (elements.empty()) return AttrValue::IntList({});  // how the reader types `[]`
      return AttrValue::List(std::move(elements));
  }
}

}  // namespace

std::string AtenType::ToString() const {
  std::string text(KindName(kind));
  if (is_list) {
    if (element_optional) text += '?';
    text += fixed_size > 0 ? absl::StrCat("[", fixed_size, "]") : "[]";
  }
  if (optional) text += '?';
  return text;
}

const AtenArgument* AtenSchema::FindArgument(std::string_view argument_name) const {
  int index = ArgumentIndex(argument_name);
  return index < 0 ? nullptr : &arguments[index];
}

int AtenSchema::ArgumentIndex(std::string_view argument_name) const {
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].name == argument_name) return static_cast<int>(i);
  }
  return -1;
}

bool AtenSchema::IsMutating() const {
  for (const AtenArgument& argument : arguments) {
    if (argument.alias.is_write) return true;
  }
  return false;
}

std::string AtenSchema::OpType() const {
  return absl::StrCat("aten.", name, ".", overload.empty() ? "default" : overload);
}

absl::StatusOr<AtenSchema> ParseAtenSchema(std::string_view text) {
  return SchemaParser(text).Parse();
}

}  // namespace torchir::dialect
