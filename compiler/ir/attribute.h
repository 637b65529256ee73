// Typed values of the non-tensor arguments of an op (stride, dim, dtype, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/ir/dtype.h"

namespace torchir::ir {

// c10::MemoryFormat, numbered as PyTorch numbers it.
enum class MemoryFormat : uint8_t { kContiguous = 0, kPreserve = 1, kChannelsLast = 2, kChannelsLast3d = 3 };

// c10::Layout, numbered as PyTorch numbers it.
enum class Layout : uint8_t { kStrided = 0, kSparse = 1, kSparseCsr = 2, kMkldnn = 3 };

// A device. The frontend maps "meta" (the device pytorch-ir exports on) to cpu.
struct Device {
  std::string type = "cpu";
  int index = -1;  // -1: unspecified
  bool operator==(const Device& other) const {
    return type == other.type && index == other.index;
  }
};

class AttrValue;
using AttrList = std::vector<AttrValue>;

// One attribute value. Lists of a single scalar kind are stored flat
// (IntList, DoubleList, BoolList); anything else (nested or mixed lists, lists
// holding None) is a List of AttrValues.
class AttrValue {
 public:
  // The order matches the variant's alternatives.
  enum class Kind : uint8_t {
    kNone,
    kBool,
    kInt,
    kDouble,
    kString,
    kIntList,
    kDoubleList,
    kBoolList,
    kDType,
    kDevice,
    kMemoryFormat,
    kLayout,
    kList,
  };

  AttrValue() = default;  // None
  static AttrValue None() { return AttrValue(); }
  static AttrValue Bool(bool v) { return AttrValue(Storage(std::in_place_index<1>, v)); }
  static AttrValue Int(int64_t v) { return AttrValue(Storage(std::in_place_index<2>, v)); }
  static AttrValue Double(double v) { return AttrValue(Storage(std::in_place_index<3>, v)); }
  static AttrValue String(std::string v) {
    return AttrValue(Storage(std::in_place_index<4>, std::move(v)));
  }
  static AttrValue IntList(std::vector<int64_t> v) {
    return AttrValue(Storage(std::in_place_index<5>, std::move(v)));
  }
  static AttrValue DoubleList(std::vector<double> v) {
    return AttrValue(Storage(std::in_place_index<6>, std::move(v)));
  }
  static AttrValue BoolList(std::vector<bool> v) {
    return AttrValue(Storage(std::in_place_index<7>, std::move(v)));
  }
  static AttrValue OfDType(DType v) { return AttrValue(Storage(std::in_place_index<8>, v)); }
  static AttrValue OfDevice(Device v) {
    return AttrValue(Storage(std::in_place_index<9>, std::move(v)));
  }
  static AttrValue OfMemoryFormat(MemoryFormat v) {
    return AttrValue(Storage(std::in_place_index<10>, v));
  }
  static AttrValue OfLayout(Layout v) { return AttrValue(Storage(std::in_place_index<11>, v)); }
  static AttrValue List(AttrList v) {
    return AttrValue(Storage(std::in_place_index<12>, std::move(v)));
  }

  Kind kind() const { return static_cast<Kind>(storage_.index()); }
  bool is_none() const { return kind() == Kind::kNone; }
  // True for Bool, Int and Double: values usable as a PyTorch Scalar.
  bool is_scalar() const {
    return kind() == Kind::kBool || kind() == Kind::kInt || kind() == Kind::kDouble;
  }
  bool is_list() const {
    return kind() == Kind::kIntList || kind() == Kind::kDoubleList ||
           kind() == Kind::kBoolList || kind() == Kind::kList;
  }

  // Accessors; each requires the matching kind.
  bool as_bool() const { return std::get<1>(storage_); }
  int64_t as_int() const { return std::get<2>(storage_); }
  double as_double() const { return std::get<3>(storage_); }
  const std::string& as_string() const { return std::get<4>(storage_); }
  const std::vector<int64_t>& as_int_list() const { return std::get<5>(storage_); }
  const std::vector<double>& as_double_list() const { return std::get<6>(storage_); }
  const std::vector<bool>& as_bool_list() const { return std::get<7>(storage_); }
  DType as_dtype() const { return std::get<8>(storage_); }
  const Device& as_device() const { return std::get<9>(storage_); }
  MemoryFormat as_memory_format() const { return std::get<10>(storage_); }
  Layout as_layout() const { return std::get<11>(storage_); }
  const AttrList& as_list() const { return std::get<12>(storage_); }

  // Lenient conversions for consumers that know the schema type.
  // A Bool/Int/Double as double; nullopt otherwise.
  std::optional<double> ToDouble() const;
  // A Bool/Int (or an integral Double) as int64; nullopt otherwise.
  std::optional<int64_t> ToInt() const;
  // An IntList, a single Int (PyTorch broadcasts `int[2] stride=1`), or a List
  // of Ints as int64s; nullopt otherwise.
  std::optional<std::vector<int64_t>> ToIntList() const;
  // Number of list elements; 0 for non-lists.
  size_t list_size() const;

  // Python-like rendering: None, True, 3, 0.5, 'str', [1, 2], torch.float32.
  std::string ToString() const;

  bool operator==(const AttrValue& other) const { return storage_ == other.storage_; }
  bool operator!=(const AttrValue& other) const { return !(*this == other); }

 private:
  using Storage = std::variant<std::monostate, bool, int64_t, double, std::string,
                               std::vector<int64_t>, std::vector<double>, std::vector<bool>,
                               DType, Device, MemoryFormat, Layout, AttrList>;
  explicit AttrValue(Storage storage) : storage_(std::move(storage)) {}
  Storage storage_;
};

std::string_view MemoryFormatName(MemoryFormat format);  // "torch.channels_last", ...
std::string_view LayoutName(Layout layout);              // "torch.strided", ...
std::optional<MemoryFormat> ParseMemoryFormat(std::string_view name);
std::optional<Layout> ParseLayout(std::string_view name);
// Parses "cpu", "cuda:1", "meta" (mapped to cpu). nullopt when malformed.
std::optional<Device> ParseDevice(std::string_view text);

}  // namespace torchir::ir
