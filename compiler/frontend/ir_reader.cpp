#include "compiler/frontend/ir_reader.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/frontend/quoted_text.h"
#include "compiler/frontend/untrusted_json.h"
#include "compiler/ir/scalar_encoding.h"
#include "rapidjson/document.h"

namespace torchir::frontend {
namespace {

using JsonValue = rapidjson::Value;
using ir::AttrValue;
using ir::DType;
using ir::TensorType;
using ir::Number;

// How many problems are collected before reading stops.
constexpr size_t kMaxErrors = 20;
// Nesting allowed in attribute lists and constant data.
constexpr int kMaxNesting = 32;

constexpr std::string_view kGetitemOpType = "<built-in function getitem>";

std::string Quote(std::string_view text) { return QuotedForMessage(text); }

const char* JsonTypeName(const JsonValue& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType: return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return "a boolean";
    case rapidjson::kObjectType: return "an object";
    case rapidjson::kArrayType: return "an array";
    case rapidjson::kStringType: return "a string";
    case rapidjson::kNumberType: return "a number";
  }
  return "?";
}

// A tensor meta as written in the file.
struct MetaRecord {
  std::string name;
  TensorType type;
  bool has_producer = false;
  std::string producer_node;
  int64_t producer_output_idx = 0;
};

class Reader {
 public:
  Reader(std::string_view source, ReadReport* report) : source_(source), report_(report) {}

  absl::StatusOr<std::unique_ptr<ir::Graph>> Read(std::string_view json);

 private:
  // Error collection. Fail() records and returns false so callers can `return Fail(...)`.
  bool Fail(std::string message) {
    if (errors_.size() < kMaxErrors) errors_.push_back(absl::StrCat(source_, ": ", message));
    return false;
  }
  bool TooManyErrors() const { return errors_.size() >= kMaxErrors; }
  void Warn(std::string message) {
    if (report_ != nullptr) report_->warnings.push_back(absl::StrCat(source_, ": ", message));
  }

  bool ReadMeta(const JsonValue& json, const std::string& where, bool allow_producer,
                MetaRecord* meta);
  bool ReadShape(const JsonValue& json, const std::string& where, std::vector<int64_t>* sizes);
  bool ReadDType(const JsonValue& json, const std::string& where, DType* dtype);

  bool ReadInputs(const JsonValue& root);
  bool ReadWeights(const JsonValue& root);
  bool ReadConstants(const JsonValue& root);
  bool ReadNodes(const JsonValue& root);
  bool ReadNode(const JsonValue& json, size_t position);
  bool ReadOutputs(const JsonValue& root);

  ir::Value* ResolveInput(const MetaRecord& meta, const std::string& where);
  bool CheckAgainst(const MetaRecord& meta, const ir::Value* value, const std::string& where);
  bool ReadAttrs(const JsonValue& json, const std::string& where, ir::Node* node);
  bool ConvertAttr(const JsonValue& json, std::string_view name, const std::string& where,
                   int depth, AttrValue* out);
  bool ReadTensorListInfo(const JsonValue& attrs, const std::string& where, ir::Node* node);
  bool FlattenNumbers(const JsonValue& json, int depth, const std::string& where,
                      std::vector<Number>* numbers, std::vector<int64_t>* shape, size_t level);

  std::string source_;
  ReadReport* report_;
  std::vector<std::string> errors_;
  std::unique_ptr<ir::Graph> graph_;

  // state_dict key -> declared meta (from "weights").
  std::unordered_map<std::string, TensorType> declared_weights_;
  // placeholder name -> state_dict key (from "weight_name_mapping").
  std::unordered_map<std::string, std::string> placeholder_keys_;
  // keys (or placeholder names) -> inline constant data.
  struct InlineConstant {
    DType dtype;
    std::vector<Number> numbers;
    std::vector<int64_t> nested_shape;
  };
  std::unordered_map<std::string, InlineConstant> inline_constants_;
  // Node names seen so far, and all node names in the file (to tell "missing"
  // from "defined later").
  std::unordered_set<std::string> later_node_names_;
  // Nodes rejected with an error: their users fail quietly instead of repeating it.
  std::unordered_set<std::string> rejected_nodes_;
};

// ---- Small readers ------------------------------------------------------------

bool Reader::ReadDType(const JsonValue& json, const std::string& where, DType* dtype) {
  if (!json.IsString()) {
    return Fail(absl::StrCat(where, ": dtype must be a string, got ", JsonTypeName(json)));
  }
  std::string_view text(json.GetString(), json.GetStringLength());
  std::optional<DType> parsed = ir::ParseDType(text);
  if (!parsed) return Fail(absl::StrCat(where, ": unknown dtype ", Quote(text)));
  *dtype = *parsed;
  return true;
}

bool Reader::ReadShape(const JsonValue& json, const std::string& where,
                       std::vector<int64_t>* sizes) {
  if (!json.IsArray()) {
    return Fail(absl::StrCat(where, ": shape must be an array of integers, got ",
                             JsonTypeName(json)));
  }
  sizes->clear();
  sizes->reserve(json.Size());
  for (rapidjson::SizeType i = 0; i < json.Size(); ++i) {
    const JsonValue& dim = json[i];
    if (!dim.IsInt64()) {
      return Fail(absl::StrCat(where, ": dimension ", i,
                               " of the shape is not an integer (symbolic shapes are not "
                               "supported)"));
    }
    if (dim.GetInt64() < 0) {
      return Fail(absl::StrCat(where, ": dimension ", i, " of the shape is negative (",
                               dim.GetInt64(), ")"));
    }
    sizes->push_back(dim.GetInt64());
  }
  TensorType check{DType::kFloat64, *sizes};
  if (check.nbytes() == std::numeric_limits<size_t>::max()) {
    return Fail(absl::StrCat(where, ": shape is too large (element count overflows)"));
  }
  return true;
}

bool Reader::ReadMeta(const JsonValue& json, const std::string& where, bool allow_producer,
                      MetaRecord* meta) {
  if (!json.IsObject()) {
    return Fail(absl::StrCat(where, ": expected a tensor object, got ", JsonTypeName(json)));
  }
  auto name = json.FindMember("name");
  if (name == json.MemberEnd() || !name->value.IsString() || name->value.GetStringLength() == 0) {
    return Fail(absl::StrCat(where, ": tensor has no \"name\" string"));
  }
  meta->name.assign(name->value.GetString(), name->value.GetStringLength());
  std::string here = absl::StrCat(where, " ", Quote(meta->name));
  auto shape = json.FindMember("shape");
  if (shape == json.MemberEnd()) return Fail(absl::StrCat(here, ": missing \"shape\""));
  if (!ReadShape(shape->value, here, &meta->type.sizes)) return false;
  auto dtype = json.FindMember("dtype");
  if (dtype == json.MemberEnd()) return Fail(absl::StrCat(here, ": missing \"dtype\""));
  if (!ReadDType(dtype->value, here, &meta->type.dtype)) return false;
  meta->has_producer = false;
  if (allow_producer) {
    auto producer = json.FindMember("producer_node");
    if (producer != json.MemberEnd() && !producer->value.IsNull()) {
      if (!producer->value.IsString()) {
        return Fail(absl::StrCat(here, ": producer_node must be a string"));
      }
      meta->has_producer = true;
      meta->producer_node.assign(producer->value.GetString(), producer->value.GetStringLength());
      meta->producer_output_idx = 0;
      auto index = json.FindMember("producer_output_idx");
      if (index != json.MemberEnd() && !index->value.IsNull()) {
        if (!index->value.IsInt64()) {
          return Fail(absl::StrCat(here, ": producer_output_idx must be an integer"));
        }
        meta->producer_output_idx = index->value.GetInt64();
      }
    }
  }
  return true;
}

// ---- Sections ------------------------------------------------------------------

bool Reader::ReadInputs(const JsonValue& root) {
  auto inputs = root.FindMember("graph_inputs");
  if (inputs == root.MemberEnd()) return Fail("missing \"graph_inputs\"");
  if (!inputs->value.IsArray()) return Fail("\"graph_inputs\" must be an array");
  for (rapidjson::SizeType i = 0; i < inputs->value.Size(); ++i) {
    MetaRecord meta;
    if (!ReadMeta(inputs->value[i], absl::StrCat("graph input ", i), false, &meta)) continue;
    if (graph_->FindValue(meta.name) != nullptr) {
      Fail(absl::StrCat("graph input ", i, ": duplicate tensor name ", Quote(meta.name)));
      continue;
    }
    graph_->AddInput(meta.name, meta.type);
  }
  return errors_.empty();
}

bool Reader::ReadWeights(const JsonValue& root) {
  auto weights = root.FindMember("weights");
  if (weights != root.MemberEnd() && !weights->value.IsNull()) {
    if (!weights->value.IsArray()) return Fail("\"weights\" must be an array");
    for (rapidjson::SizeType i = 0; i < weights->value.Size(); ++i) {
      MetaRecord meta;
      if (!ReadMeta(weights->value[i], absl::StrCat("weight ", i), false, &meta)) continue;
      if (!declared_weights_.emplace(meta.name, meta.type).second) {
        Fail(absl::StrCat("weight ", i, ": duplicate weight name ", Quote(meta.name)));
      }
    }
  }
  auto mapping = root.FindMember("weight_name_mapping");
  if (mapping != root.MemberEnd() && !mapping->value.IsNull()) {
    if (!mapping->value.IsObject()) return Fail("\"weight_name_mapping\" must be an object");
    for (auto it = mapping->value.MemberBegin(); it != mapping->value.MemberEnd(); ++it) {
      std::string placeholder(it->name.GetString(), it->name.GetStringLength());
      if (!it->value.IsString()) {
        Fail(absl::StrCat("weight_name_mapping[", Quote(placeholder), "] must be a string"));
        continue;
      }
      // Keys are unique: the JSON parser rejects duplicate object keys.
      placeholder_keys_.emplace(std::move(placeholder),
                                std::string(it->value.GetString(), it->value.GetStringLength()));
    }
  }
  return errors_.empty();
}

bool Reader::FlattenNumbers(const JsonValue& json, int depth, const std::string& where,
                            std::vector<Number>* numbers, std::vector<int64_t>* shape,
                            size_t level) {
  if (depth > kMaxNesting) return Fail(absl::StrCat(where, ": data nested too deeply"));
  if (json.IsArray()) {
    if (shape->size() == level) {
      shape->push_back(json.Size());
    } else if (shape->size() < level || (*shape)[level] != json.Size()) {
      return Fail(absl::StrCat(where, ": data is a ragged nested list"));
    }
    for (rapidjson::SizeType i = 0; i < json.Size(); ++i) {
      if (!FlattenNumbers(json[i], depth + 1, where, numbers, shape, level + 1)) return false;
    }
    return true;
  }
  if (shape->size() > level) return Fail(absl::StrCat(where, ": data is a ragged nested list"));
  Number number;
  if (json.IsBool()) {
    number.is_integer = true;
    number.integer = json.GetBool() ? 1 : 0;
  } else if (json.IsInt64()) {
    number.is_integer = true;
    number.integer = json.GetInt64();
  } else if (json.IsNumber()) {
    number.real = json.GetDouble();
  } else {
    return Fail(absl::StrCat(where, ": data holds ", JsonTypeName(json), ", expected numbers"));
  }
  numbers->push_back(number);
  return true;
}

bool Reader::ReadConstants(const JsonValue& root) {
  auto constants = root.FindMember("constants");
  if (constants == root.MemberEnd() || constants->value.IsNull()) return true;
  if (!constants->value.IsObject()) return Fail("\"constants\" must be an object");
  for (auto it = constants->value.MemberBegin(); it != constants->value.MemberEnd(); ++it) {
    std::string name(it->name.GetString(), it->name.GetStringLength());
    std::string where = absl::StrCat("constant ", Quote(name));
    const JsonValue& entry = it->value;
    if (!entry.IsObject()) {
      Fail(absl::StrCat(where, ": expected an object with \"data\" and \"dtype\""));
      continue;
    }
    InlineConstant constant;
    auto dtype = entry.FindMember("dtype");
    if (dtype == entry.MemberEnd()) {
      Fail(absl::StrCat(where, ": missing \"dtype\""));
      continue;
    }
    if (!ReadDType(dtype->value, where, &constant.dtype)) continue;
    auto data = entry.FindMember("data");
    if (data == entry.MemberEnd()) {
      Fail(absl::StrCat(where, ": missing \"data\""));
      continue;
    }
    if (!FlattenNumbers(data->value, 0, where, &constant.numbers, &constant.nested_shape, 0)) {
      continue;
    }
    inline_constants_.emplace(std::move(name), std::move(constant));
  }
  return errors_.empty();
}

// ---- Nodes -----------------------------------------------------------------------

bool Reader::CheckAgainst(const MetaRecord& meta, const ir::Value* value,
                          const std::string& where) {
  if (meta.type != value->type()) {
    return Fail(absl::StrCat(where, ": recorded as ", meta.type.ToString(), " but ",
                             Quote(value->name()), " is ", value->type().ToString()));
  }
  return true;
}

ir::Value* Reader::ResolveInput(const MetaRecord& meta, const std::string& where) {
  if (meta.has_producer) {
    if (ir::Node* producer = graph_->FindNode(meta.producer_node)) {
      if (meta.producer_output_idx < 0 ||
          static_cast<size_t>(meta.producer_output_idx) >= producer->num_outputs()) {
        Fail(absl::StrCat(where, ": producer_output_idx ", meta.producer_output_idx,
                          " is out of range: node ", Quote(producer->name()), " has ",
                          producer->num_outputs(), " output(s)"));
        return nullptr;
      }
      ir::Value* value = producer->output(static_cast<size_t>(meta.producer_output_idx));
      if (value->name() != meta.name) {
        Warn(absl::StrCat(where, ": named ", Quote(meta.name), " but output ",
                          meta.producer_output_idx, " of ", Quote(producer->name()), " is ",
                          Quote(value->name())));
      }
      return CheckAgainst(meta, value, where) ? value : nullptr;
    }
    ir::Value* leaf = graph_->FindValue(meta.producer_node);
    if (leaf != nullptr && leaf->kind() == ir::ValueKind::kGraphInput) {
      if (meta.producer_output_idx != 0) {
        Fail(absl::StrCat(where, ": producer_output_idx ", meta.producer_output_idx,
                          " is out of range for graph input ", Quote(leaf->name())));
        return nullptr;
      }
      return CheckAgainst(meta, leaf, where) ? leaf : nullptr;
    }
    if (rejected_nodes_.count(meta.producer_node)) return nullptr;
    if (later_node_names_.count(meta.producer_node)) {
      Fail(absl::StrCat(where, ": producer ", Quote(meta.producer_node),
                        " comes later in the file (nodes must be in topological order; is "
                        "there a cycle?)"));
    } else {
      Fail(absl::StrCat(where, ": producer ", Quote(meta.producer_node), " does not exist"));
    }
    return nullptr;
  }
  // No producer: a weight/constant placeholder, or (leniently) a graph input by name.
  if (ir::Value* existing = graph_->FindValue(meta.name)) {
    if (existing->kind() == ir::ValueKind::kNodeOutput) {
      Fail(absl::StrCat(where, ": names node output ", Quote(meta.name),
                        " but carries no producer_node"));
      return nullptr;
    }
    return CheckAgainst(meta, existing, where) ? existing : nullptr;
  }
  auto mapped = placeholder_keys_.find(meta.name);
  std::string key = mapped != placeholder_keys_.end() ? mapped->second : meta.name;
  auto declared = declared_weights_.find(key);
  auto inline_constant = inline_constants_.find(key);
  if (inline_constant == inline_constants_.end()) inline_constant = inline_constants_.find(meta.name);
  bool is_constant = inline_constant != inline_constants_.end() ||
                     meta.name.compare(0, 2, "c_") == 0;
  if (mapped == placeholder_keys_.end() && declared == declared_weights_.end() &&
      inline_constant == inline_constants_.end()) {
    Fail(absl::StrCat(where, ": has no producer_node and is neither a graph input nor a weight "
                             "placeholder listed in weight_name_mapping"));
    return nullptr;
  }
  if (declared != declared_weights_.end() && declared->second != meta.type) {
    Fail(absl::StrCat(where, ": recorded as ", meta.type.ToString(), " but weight ", Quote(key),
                      " is declared as ", declared->second.ToString()));
    return nullptr;
  }
  if (!is_constant) return graph_->AddWeight(meta.name, key, meta.type);

  ir::Value* value = graph_->AddConstant(meta.name, meta.type);
  value->set_state_dict_key(key);
  if (inline_constant != inline_constants_.end()) {
    const InlineConstant& constant = inline_constant->second;
    std::string here = absl::StrCat("constant ", Quote(inline_constant->first));
    if (constant.dtype != meta.type.dtype) {
      Fail(absl::StrCat(here, ": dtype ", std::string(ir::DTypeName(constant.dtype)), " differs from ",
                        Quote(meta.name), " used as ", meta.type.ToString()));
      return nullptr;
    }
    if (static_cast<int64_t>(constant.numbers.size()) != meta.type.numel()) {
      Fail(absl::StrCat(here, ": holds ", constant.numbers.size(), " value(s) but ",
                        Quote(meta.name), " is ", meta.type.ToString()));
      return nullptr;
    }
    std::vector<uint8_t> bytes;
    bytes.reserve(meta.type.nbytes());
    for (const Number& number : constant.numbers) {
      if (!ir::IsFloatingPoint(constant.dtype) && constant.dtype != DType::kBool &&
          !ir::IsIntegral(constant.dtype)) {
        Fail(absl::StrCat(here, ": constants of dtype ", std::string(ir::DTypeName(constant.dtype)),
                          " are not supported"));
        return nullptr;
      }
      if (!AppendScalar(constant.dtype, number, &bytes)) {
        Fail(absl::StrCat(here, ": value ", number.AsDouble(), " does not fit dtype ",
                          std::string(ir::DTypeName(constant.dtype))));
        return nullptr;
      }
    }
    value->set_data(ir::TensorData::Copy(bytes.data(), bytes.size()));
  }
  return value;
}

bool Reader::ConvertAttr(const JsonValue& json, std::string_view name, const std::string& where,
                         int depth, AttrValue* out) {
  if (depth > kMaxNesting) return Fail(absl::StrCat(where, ": attribute nested too deeply"));
  // Schema argument names PyTorch uses for these types, whose integer spelling is
  // PyTorch's enum numbering.
  const bool is_dtype_arg = name == "dtype";
  const bool is_device_arg = name == "device";
  const bool is_layout_arg = name == "layout";
  const bool is_memory_format_arg = name == "memory_format";
  switch (json.GetType()) {
    case rapidjson::kNullType: *out = AttrValue::None(); return true;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: *out = AttrValue::Bool(json.GetBool()); return true;
    case rapidjson::kNumberType: {
      if (json.IsInt64()) {
        int64_t v = json.GetInt64();
        if (is_dtype_arg) {
          if (auto dtype = ir::DTypeFromTorchScalarType(v)) {
            *out = AttrValue::OfDType(*dtype);
            return true;
          }
          return Fail(absl::StrCat(where, ": unknown dtype code ", v));
        }
        if (is_layout_arg && v >= 0 && v <= 3) {
          *out = AttrValue::OfLayout(static_cast<ir::Layout>(v));
          return true;
        }
        if (is_memory_format_arg && v >= 0 && v <= 3) {
          *out = AttrValue::OfMemoryFormat(static_cast<ir::MemoryFormat>(v));
          return true;
        }
        *out = AttrValue::Int(v);
        return true;
      }
      *out = AttrValue::Double(json.GetDouble());
      return true;
    }
    case rapidjson::kStringType: {
      std::string_view text(json.GetString(), json.GetStringLength());
      if (is_device_arg) {
        if (auto device = ir::ParseDevice(text)) {
          *out = AttrValue::OfDevice(*device);
          return true;
        }
        return Fail(absl::StrCat(where, ": malformed device ", Quote(text)));
      }
      if (is_dtype_arg || text.substr(0, 6) == "torch.") {
        if (auto dtype = ir::ParseDType(text)) {
          *out = AttrValue::OfDType(*dtype);
          return true;
        }
        if (is_dtype_arg) return Fail(absl::StrCat(where, ": unknown dtype ", Quote(text)));
      }
      if (auto format = ir::ParseMemoryFormat(text); format && (is_memory_format_arg || text.substr(0, 6) == "torch.")) {
        *out = AttrValue::OfMemoryFormat(*format);
        return true;
      }
      if (auto layout = ir::ParseLayout(text); layout && (is_layout_arg || text.substr(0, 6) == "torch.")) {
        *out = AttrValue::OfLayout(*layout);
        return true;
      }
      *out = AttrValue::String(std::string(text));
      return true;
    }
    case rapidjson::kArrayType: {
      bool all_int = true, all_number = true, all_bool = true;
      for (const JsonValue& item : json.GetArray()) {
        all_int = all_int && item.IsInt64();
        all_number = all_number && item.IsNumber();
        all_bool = all_bool && item.IsBool();
      }
      if (json.Size() == 0 || all_int) {
        std::vector<int64_t> values;
        values.reserve(json.Size());
        for (const JsonValue& item : json.GetArray()) values.push_back(item.GetInt64());
        *out = AttrValue::IntList(std::move(values));
        return true;
      }
      if (all_number) {
        std::vector<double> values;
        values.reserve(json.Size());
        for (const JsonValue& item : json.GetArray()) values.push_back(item.GetDouble());
        *out = AttrValue::DoubleList(std::move(values));
        return true;
      }
      if (all_bool) {
        std::vector<bool> values;
        values.reserve(json.Size());
        for (const JsonValue& item : json.GetArray()) values.push_back(item.GetBool());
        *out = AttrValue::BoolList(std::move(values));
        return true;
      }
      ir::AttrList items(json.Size());
      for (rapidjson::SizeType i = 0; i < json.Size(); ++i) {
        if (!ConvertAttr(json[i], name, where, depth + 1, &items[i])) return false;
      }
      *out = AttrValue::List(std::move(items));
      return true;
    }
    case rapidjson::kObjectType:
      return Fail(absl::StrCat(where, ": is a JSON object; attributes must be scalars or lists"));
  }
  return false;
}

bool Reader::ReadTensorListInfo(const JsonValue& attrs, const std::string& where,
                                ir::Node* node) {
  auto sizes = attrs.FindMember("_tensor_list_sizes");
  if (sizes != attrs.MemberEnd()) {
    std::string here = absl::StrCat(where, ": _tensor_list_sizes");
    if (!sizes->value.IsArray()) return Fail(absl::StrCat(here, " must be a list of integers"));
    std::vector<int64_t> values;
    int64_t total = 0;
    for (const JsonValue& item : sizes->value.GetArray()) {
      if (!item.IsInt64() || item.GetInt64() < 0) {
        return Fail(absl::StrCat(here, " must hold non-negative integers"));
      }
      values.push_back(item.GetInt64());
      total += item.GetInt64();
      if (total > static_cast<int64_t>(node->num_inputs())) {
        return Fail(absl::StrCat(here, " add up to more tensors than the node's ",
                                 node->num_inputs(), " input(s)"));
      }
    }
    node->set_tensor_list_sizes(std::move(values));
  }
  auto masks = attrs.FindMember("_tensor_list_none_masks");
  if (masks != attrs.MemberEnd()) {
    std::string here = absl::StrCat(where, ": _tensor_list_none_masks");
    if (!masks->value.IsArray()) return Fail(absl::StrCat(here, " must be a list of bool lists"));
    std::vector<std::vector<bool>> values;
    for (const JsonValue& mask : masks->value.GetArray()) {
      if (!mask.IsArray()) return Fail(absl::StrCat(here, " must be a list of bool lists"));
      std::vector<bool> bits;
      for (const JsonValue& bit : mask.GetArray()) {
        if (!bit.IsBool()) return Fail(absl::StrCat(here, " must be a list of bool lists"));
        bits.push_back(bit.GetBool());
      }
      values.push_back(std::move(bits));
    }
    // Each mask belongs to one list argument: its non-None count must be one of
    // the recorded list sizes.
    for (const auto& bits : values) {
      int64_t present = 0;
      for (bool is_none : bits) present += is_none ? 0 : 1;
      bool matches = false;
      for (int64_t size : node->tensor_list_sizes()) matches = matches || size == present;
      if (!matches) {
        return Fail(absl::StrCat(here, ": a mask with ", present,
                                 " tensor(s) matches no entry of _tensor_list_sizes"));
      }
    }
    node->set_tensor_list_none_masks(std::move(values));
  }
  return true;
}

bool Reader::ReadAttrs(const JsonValue& json, const std::string& where, ir::Node* node) {
  if (json.IsNull()) return true;
  if (!json.IsObject()) return Fail(absl::StrCat(where, ": \"attrs\" must be an object"));
  bool ok = true;
  for (auto it = json.MemberBegin(); it != json.MemberEnd(); ++it) {
    std::string name(it->name.GetString(), it->name.GetStringLength());
    if (name == "_tensor_list_sizes" || name == "_tensor_list_none_masks") continue;
    AttrValue value;
    if (!ConvertAttr(it->value, name, absl::StrCat(where, ": attribute ", Quote(name)), 0,
                     &value)) {
      ok = false;
      continue;
    }
    node->SetAttr(std::move(name), std::move(value));
  }
  return ReadTensorListInfo(json, where, node) && ok;
}

bool Reader::ReadNode(const JsonValue& json, size_t position) {
  std::string where = absl::StrCat("node ", position);
  if (!json.IsObject()) return Fail(absl::StrCat(where, ": expected an object"));
  auto name_member = json.FindMember("name");
  if (name_member == json.MemberEnd() || !name_member->value.IsString() ||
      name_member->value.GetStringLength() == 0) {
    return Fail(absl::StrCat(where, ": missing \"name\""));
  }
  std::string name(name_member->value.GetString(), name_member->value.GetStringLength());
  auto op_member = json.FindMember("op_type");
  if (op_member == json.MemberEnd() || !op_member->value.IsString() ||
      op_member->value.GetStringLength() == 0) {
    return Fail(absl::StrCat("node ", Quote(name), ": missing \"op_type\""));
  }
  std::string op(op_member->value.GetString(), op_member->value.GetStringLength());
  const bool is_getitem = op == kGetitemOpType || op == "getitem" || op == "operator.getitem";
  if (is_getitem) op = "getitem";
  where = absl::StrCat("node ", Quote(name), " (", op, ")");
  if (graph_->FindNode(name) != nullptr) return Fail(absl::StrCat(where, ": duplicate node name"));

  // Inputs.
  std::vector<ir::Value*> inputs;
  auto inputs_member = json.FindMember("inputs");
  if (inputs_member != json.MemberEnd() && !inputs_member->value.IsNull()) {
    if (!inputs_member->value.IsArray()) {
      return Fail(absl::StrCat(where, ": \"inputs\" must be an array"));
    }
    bool ok = true;
    for (rapidjson::SizeType i = 0; i < inputs_member->value.Size(); ++i) {
      MetaRecord meta;
      std::string input_where = absl::StrCat(where, ": input ", i);
      if (!ReadMeta(inputs_member->value[i], input_where, true, &meta)) {
        ok = false;
        continue;
      }
      ir::Value* value = ResolveInput(meta, absl::StrCat(input_where, " ", Quote(meta.name)));
      if (value == nullptr) {
        ok = false;
        continue;
      }
      inputs.push_back(value);
    }
    if (!ok) return false;
  }

  // Outputs.
  std::vector<std::string> output_names;
  std::vector<TensorType> output_types;
  auto outputs_member = json.FindMember("outputs");
  if (outputs_member != json.MemberEnd() && !outputs_member->value.IsNull()) {
    if (!outputs_member->value.IsArray()) {
      return Fail(absl::StrCat(where, ": \"outputs\" must be an array"));
    }
    std::unordered_set<std::string> local;
    for (rapidjson::SizeType i = 0; i < outputs_member->value.Size(); ++i) {
      MetaRecord meta;
      std::string output_where = absl::StrCat(where, ": output ", i);
      if (!ReadMeta(outputs_member->value[i], output_where, false, &meta)) return false;
      if (graph_->FindValue(meta.name) != nullptr || !local.insert(meta.name).second) {
        return Fail(absl::StrCat(output_where, ": duplicate tensor name ", Quote(meta.name)));
      }
      output_names.push_back(meta.name);
      output_types.push_back(meta.type);
    }
  }

  ir::Node* node = graph_->AppendNode(name, op, inputs, output_names, output_types);
  later_node_names_.erase(name);
  auto attrs_member = json.FindMember("attrs");
  if (attrs_member != json.MemberEnd() && !ReadAttrs(attrs_member->value, where, node)) {
    return false;
  }

  if (is_getitem) {
    const AttrValue* index = node->FindAttr("index");
    if (index == nullptr || index->kind() != AttrValue::Kind::kInt) {
      return Fail(absl::StrCat(where, ": getitem needs an integer attribute \"index\""));
    }
    if (node->num_outputs() != 1) {
      return Fail(absl::StrCat(where, ": getitem must have exactly one output"));
    }
    if (node->num_inputs() == 0) return Fail(absl::StrCat(where, ": getitem has no inputs"));
    ir::Node* producer = node->input(0)->producer();
    for (ir::Value* input : node->inputs()) {
      if (input->producer() != producer) {
        return Fail(absl::StrCat(where, ": getitem inputs come from different producers"));
      }
    }
    int64_t i = index->as_int();
    if (i < 0 || (producer != nullptr && static_cast<size_t>(i) >= producer->num_outputs() &&
                  static_cast<size_t>(i) >= node->num_inputs())) {
      return Fail(absl::StrCat(where, ": getitem index ", i, " is out of range"));
    }
  }
  return true;
}

bool Reader::ReadNodes(const JsonValue& root) {
  auto nodes = root.FindMember("nodes");
  if (nodes == root.MemberEnd()) return Fail("missing \"nodes\"");
  if (!nodes->value.IsArray()) return Fail("\"nodes\" must be an array");
  for (const JsonValue& node : nodes->value.GetArray()) {
    auto name = node.IsObject() ? node.FindMember("name") : node.MemberEnd();
    if (node.IsObject() && name != node.MemberEnd() && name->value.IsString()) {
      later_node_names_.emplace(name->value.GetString(), name->value.GetStringLength());
    }
  }
  for (rapidjson::SizeType i = 0; i < nodes->value.Size() && !TooManyErrors(); ++i) {
    const JsonValue& node = nodes->value[i];
    if (!ReadNode(node, i) && node.IsObject()) {
      auto name = node.FindMember("name");
      if (name != node.MemberEnd() && name->value.IsString()) {
        std::string rejected(name->value.GetString(), name->value.GetStringLength());
        later_node_names_.erase(rejected);
        if (graph_->FindNode(rejected) == nullptr) rejected_nodes_.insert(std::move(rejected));
      }
    }
  }
  return errors_.empty();
}

bool Reader::ReadOutputs(const JsonValue& root) {
  auto outputs = root.FindMember("graph_outputs");
  if (outputs == root.MemberEnd()) return Fail("missing \"graph_outputs\"");
  if (!outputs->value.IsArray()) return Fail("\"graph_outputs\" must be an array");
  for (rapidjson::SizeType i = 0; i < outputs->value.Size(); ++i) {
    MetaRecord meta;
    std::string where = absl::StrCat("graph output ", i);
    if (!ReadMeta(outputs->value[i], where, true, &meta)) continue;
    where = absl::StrCat(where, " ", Quote(meta.name));
    ir::Value* value = nullptr;
    if (meta.has_producer) {
      value = ResolveInput(meta, where);
      if (value == nullptr) continue;
    } else {
      value = graph_->FindValue(meta.name);
      if (value == nullptr) {
        Fail(absl::StrCat(where, ": no node output or graph input has this name"));
        continue;
      }
      if (!CheckAgainst(meta, value, where)) continue;
    }
    graph_->AddOutput(value);
  }
  return errors_.empty();
}

absl::StatusOr<std::unique_ptr<ir::Graph>> Reader::Read(std::string_view json) {
  rapidjson::Document document;
  absl::Status parsed = ParseUntrustedJson(json, JsonSource{source_, "", 0}, &document);
  if (!parsed.ok()) return parsed;
  if (!document.IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_, ": the top level must be a JSON object, got ",
                     JsonTypeName(document)));
  }
  graph_ = std::make_unique<ir::Graph>();
  if (auto name = document.FindMember("model_name");
      name != document.MemberEnd() && name->value.IsString()) {
    graph_->model_name = name->value.GetString();
  }
  if (auto version = document.FindMember("pytorch_version");
      version != document.MemberEnd() && version->value.IsString()) {
    graph_->pytorch_version = version->value.GetString();
  }
  if (ReadInputs(document) && ReadWeights(document) && ReadConstants(document) &&
      ReadNodes(document)) {
    ReadOutputs(document);
  }
  if (!errors_.empty()) {
    if (TooManyErrors()) errors_.push_back(absl::StrCat(source_, ": too many errors, stopping"));
    return absl::InvalidArgumentError(absl::StrJoin(errors_, "\n"));
  }
  return std::move(graph_);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ir::Graph>> ParsePytorchIr(std::string_view json,
                                                          std::string_view source_name,
                                                          ReadReport* report) {
  Reader reader(source_name, report);
  return reader.Read(json);
}

absl::StatusOr<std::unique_ptr<ir::Graph>> ReadPytorchIrFile(const std::string& path,
                                                             ReadReport* report) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::string text;
  file.seekg(0, std::ios::end);
  std::streamoff size = file.tellg();
  if (size < 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read (not a regular file?)"));
  }
  // Checked before reading, so a huge file is not loaded only to be refused.
  if (static_cast<uint64_t>(size) > kMaxJsonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": file of ", size, " bytes exceeds the JSON limit of ", kMaxJsonBytes, " bytes"));
  }
  text.resize(static_cast<size_t>(size));
  file.seekg(0, std::ios::beg);
  if (!file.read(text.data(), size)) {
    return absl::DataLossError(absl::StrCat(path, ": read failed: ", std::strerror(errno)));
  }
  return ParsePytorchIr(text, path, report);
}

}  // namespace torchir::frontend
