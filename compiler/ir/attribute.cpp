#include "compiler/ir/attribute.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>

namespace torchir::ir {
namespace {

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  // Prefer the shortest text that round-trips.
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof(shorter), "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) {
      std::snprintf(buffer, sizeof(buffer), "%s", shorter);
      break;
    }
  }
  std::string text = buffer;
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

template <typename T, typename F>
std::string JoinList(const std::vector<T>& values, F format) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += format(values[i]);
  }
  return text + "]";
}

constexpr std::string_view kMemoryFormatNames[] = {
    "torch.contiguous_format", "torch.preserve_format", "torch.channels_last",
    "torch.channels_last_3d"};
constexpr std::string_view kLayoutNames[] = {"torch.strided", "torch.sparse_coo",
                                             "torch.sparse_csr", "torch._mkldnn"};

}  // namespace

std::optional<double> AttrValue::ToDouble() const {
  switch (kind()) {
    case Kind::kBool: return as_bool() ? 1.0 : 0.0;
    case Kind::kInt: return static_cast<double>(as_int());
    case Kind::kDouble: return as_double();
    default: return std::nullopt;
  }
}

std::optional<int64_t> AttrValue::ToInt() const {
  switch (kind()) {
    case Kind::kBool: return as_bool() ? 1 : 0;
    case Kind::kInt: return as_int();
    case Kind::kDouble: {
      double v = as_double();
      if (std::isfinite(v) && std::trunc(v) == v && std::fabs(v) < 9.2e18) {
        return static_cast<int64_t>(v);
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::optional<std::vector<int64_t>> AttrValue::ToIntList() const {
  switch (kind()) {
    case Kind::kIntList: return as_int_list();
    case Kind::kInt: return std::vector<int64_t>{as_int()};
    case Kind::kList: {
      std::vector<int64_t> values;
      for (const AttrValue& item : as_list()) {
        if (item.kind() != Kind::kInt) return std::nullopt;
        values.push_back(item.as_int());
      }
      return values;
    }
    default: return std::nullopt;
  }
}

size_t AttrValue::list_size() const {
  switch (kind()) {
    case Kind::kIntList: return as_int_list().size();
    case Kind::kDoubleList: return as_double_list().size();
    case Kind::kBoolList: return as_bool_list().size();
    case Kind::kList: return as_list().size();
    default: return 0;
  }
}

std::string AttrValue::ToString() const {
  switch (kind()) {
    case Kind::kNone: return "None";
    case Kind::kBool: return as_bool() ? "True" : "False";
    case Kind::kInt: return std::to_string(as_int());
    case Kind::kDouble: return FormatDouble(as_double());
    case Kind::kString: return "'" + as_string() + "'";
    case Kind::kIntList:
      return JoinList(as_int_list(), [](int64_t v) { return std::to_string(v); });
    case Kind::kDoubleList: return JoinList(as_double_list(), FormatDouble);
    case Kind::kBoolList:
      return JoinList(as_bool_list(), [](bool v) { return std::string(v ? "True" : "False"); });
    case Kind::kDType: return "torch." + std::string(DTypeName(as_dtype()));
    case Kind::kDevice: {
      std::string text = as_device().type;
      if (as_device().index >= 0) text += ":" + std::to_string(as_device().index);
      return "device(" + text + ")";
    }
    case Kind::kMemoryFormat: return std::string(MemoryFormatName(as_memory_format()));
    case Kind::kLayout: return std::string(LayoutName(as_layout()));
    case Kind::kList:
      return JoinList(as_list(), [](const AttrValue& v) { return v.ToString(); });
  }
  return "?";
}

std::string_view MemoryFormatName(MemoryFormat format) {
  return kMemoryFormatNames[static_cast<size_t>(format)];
}

std::string_view LayoutName(Layout layout) { return kLayoutNames[static_cast<size_t>(layout)]; }

std::optional<MemoryFormat> ParseMemoryFormat(std::string_view name) {
  for (size_t i = 0; i < std::size(kMemoryFormatNames); ++i) {
    std::string_view full = kMemoryFormatNames[i];
    if (name == full || name == full.substr(6)) return static_cast<MemoryFormat>(i);
  }
  return std::nullopt;
}

std::optional<Layout> ParseLayout(std::string_view name) {
  for (size_t i = 0; i < std::size(kLayoutNames); ++i) {
    std::string_view full = kLayoutNames[i];
    if (name == full || name == full.substr(6)) return static_cast<Layout>(i);
  }
  return std::nullopt;
}

std::optional<Device> ParseDevice(std::string_view text) {
  if (text.empty()) return std::nullopt;
  Device device;
  size_t colon = text.find(':');
  std::string_view type = text.substr(0, colon);
  if (type.empty()) return std::nullopt;
  for (char c : type) {
    if (!(std::islower(static_cast<unsigned char>(c)) || c == '_')) return std::nullopt;
  }
  device.type = type == "meta" ? "cpu" : std::string(type);
  if (colon != std::string_view::npos) {
    std::string_view index = text.substr(colon + 1);
    if (index.empty() || index.size() > 6) return std::nullopt;
    int value = 0;
    for (char c : index) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    device.index = value;
  }
  return device;
}

}  // namespace torchir::ir
