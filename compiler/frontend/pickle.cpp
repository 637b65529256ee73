#include "compiler/frontend/pickle.h"

#include <cstring>
#include <optional>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchir::frontend {

using Kind = PickleValue::Kind;

std::string_view PickleKindName(Kind kind) {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kBytes:
      return "bytes";
    case Kind::kTuple:
      return "tuple";
    case Kind::kList:
      return "list";
    case Kind::kSet:
      return "set";
    case Kind::kDict:
      return "dict";
    case Kind::kGlobal:
      return "global";
    case Kind::kStorage:
      return "storage";
    case Kind::kTensor:
      return "tensor";
    case Kind::kObject:
      return "object";
  }
  return "value";
}

namespace {

// Opcodes, named as in CPython's pickletools.
enum Opcode : uint8_t {
  kMark = '(',
  kStop = '.',
  kPop = '0',
  kPopMark = '1',
  kDup = '2',
  kBinInt = 'J',
  kBinInt1 = 'K',
  kBinInt2 = 'M',
  kNone = 'N',
  kBinPersId = 'Q',
  kReduce = 'R',
  kBinString = 'T',
  kShortBinString = 'U',
  kBinUnicode = 'X',
  kAppend = 'a',
  kBuild = 'b',
  kGlobal = 'c',
  kDict = 'd',
  kEmptyDict = '}',
  kAppends = 'e',
  kBinGet = 'h',
  kLongBinGet = 'j',
  kList = 'l',
  kEmptyList = ']',
  kBinPut = 'q',
  kLongBinPut = 'r',
  kSetItem = 's',
  kTuple = 't',
  kEmptyTuple = ')',
  kSetItems = 'u',
  kBinFloat = 'G',
  kProto = 0x80,
  kNewObj = 0x81,
  kTuple1 = 0x85,
  kTuple2 = 0x86,
  kTuple3 = 0x87,
  kNewTrue = 0x88,
  kNewFalse = 0x89,
  kLong1 = 0x8a,
  kLong4 = 0x8b,
  kBinBytes = 'B',
  kShortBinBytes = 'C',
  kShortBinUnicode = 0x8c,
  kBinUnicode8 = 0x8d,
  kBinBytes8 = 0x8e,
  kEmptySet = 0x8f,
  kAddItems = 0x90,
  kFrozenSet = 0x91,
  kNewObjEx = 0x92,
  kStackGlobal = 0x93,
  kMemoize = 0x94,
  kFrame = 0x95,
};

constexpr int kHighestProtocol = 5;
constexpr size_t kMaxGlobalLine = 4096;

// Debian's Abseil has its own string_view, which StrCat requires (docs/decisions.md).
absl::string_view KindText(Kind kind) {
  std::string_view name = PickleKindName(kind);
  return absl::string_view(name.data(), name.size());
}

}  // namespace

// Executes one pickle. Values live in the document's arena and the stack,
// marks and memo hold pointers into it.
class PickleMachine {
 public:
  PickleMachine(const uint8_t* bytes, size_t size, absl::string_view name,
                const PickleLimits& limits)
      : bytes_(bytes), size_(size), name_(name), limits_(limits) {}

  absl::StatusOr<PickleDocument> Run();

 private:
  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrFormat("%s: pickle: %s (opcode 0x%02x at offset %u)",
                                                      name_, message, opcode_, opcode_offset_));
  }

  // Reads `count` bytes; nullptr (and an error in status_) when truncated.
  const uint8_t* Read(uint64_t count) {
    if (count > size_ - position_) return nullptr;
    const uint8_t* at = bytes_ + position_;
    position_ += static_cast<size_t>(count);
    return at;
  }
  std::optional<uint64_t> ReadUnsigned(int width) {
    const uint8_t* at = Read(width);
    if (at == nullptr) return std::nullopt;
    uint64_t value = 0;
    for (int i = width - 1; i >= 0; --i) value = (value << 8) | at[i];
    return value;
  }
  absl::StatusOr<std::string> ReadLine() {
    const size_t limit = std::min(size_ - position_, kMaxGlobalLine);
    const void* newline = std::memchr(bytes_ + position_, '\n', limit);
    if (newline == nullptr) return Error("GLOBAL name is not terminated by a newline");
    const size_t length = static_cast<const uint8_t*>(newline) - (bytes_ + position_);
    std::string line(reinterpret_cast<const char*>(bytes_ + position_), length);
    position_ += length + 1;
    return line;
  }

  absl::StatusOr<PickleValue*> New(Kind kind) {
    if (document_.values_->size() >= limits_.max_values) {
      return Error(absl::StrCat("more than ", limits_.max_values, " values"));
    }
    PickleValue& value = document_.values_->emplace_back();
    value.kind = kind;
    return &value;
  }
  absl::Status Push(PickleValue* value) {
    if (stack_.size() >= limits_.max_stack_depth) {
      return Error(absl::StrCat("stack deeper than ", limits_.max_stack_depth));
    }
    stack_.push_back(value);
    return absl::OkStatus();
  }
  absl::Status PushNew(Kind kind, PickleValue** out = nullptr) {
    absl::StatusOr<PickleValue*> value = New(kind);
    if (!value.ok()) return value.status();
    if (out != nullptr) *out = *value;
    return Push(*value);
  }
  absl::StatusOr<PickleValue*> Pop() {
    if (stack_.size() <= CurrentMarkFloor()) return Error("stack underflow");
    PickleValue* value = stack_.back();
    stack_.pop_back();
    return value;
  }
  absl::StatusOr<PickleValue*> Top() {
    if (stack_.size() <= CurrentMarkFloor()) return Error("stack underflow");
    return stack_.back();
  }
  // Values above the innermost MARK belong to it; ops other than the
  // mark-consuming ones may not reach below it.
  size_t CurrentMarkFloor() const { return marks_.empty() ? 0 : marks_.back(); }
  // Pops everything above the innermost MARK, and the MARK.
  absl::StatusOr<std::vector<const PickleValue*>> PopMark() {
    if (marks_.empty()) return Error("no MARK on the stack");
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<const PickleValue*> items(stack_.begin() + mark, stack_.end());
    stack_.resize(mark);
    return items;
  }

  absl::Status Memoize(uint64_t index) {
    if (stack_.size() <= CurrentMarkFloor()) return Error("memoizing an empty stack");
    auto it = memo_.find(index);
    if (it == memo_.end() && memo_.size() >= limits_.max_memo_entries) {
      return Error(absl::StrCat("more than ", limits_.max_memo_entries, " memo entries"));
    }
    memo_[index] = stack_.back();
    return absl::OkStatus();
  }
  absl::Status MemoGet(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) return Error(absl::StrCat("memo key ", index, " is not set"));
    return Push(it->second);
  }

  absl::Status PushText(Kind kind, std::optional<uint64_t> length) {
    if (!length) return Error("truncated length");
    const uint8_t* at = Read(*length);
    if (at == nullptr) {
      return Error(absl::StrCat("string of ", *length, " bytes runs past the end"));
    }
    PickleValue* value = nullptr;
    absl::Status status = PushNew(kind, &value);
    if (!status.ok()) return status;
    value->text.assign(reinterpret_cast<const char*>(at), static_cast<size_t>(*length));
    return absl::OkStatus();
  }
  absl::Status PushInt(int64_t integer) {
    PickleValue* value = nullptr;
    absl::Status status = PushNew(Kind::kInt, &value);
    if (status.ok()) value->integer = integer;
    return status;
  }
  absl::Status PushLong(std::optional<uint64_t> length);
  absl::Status PushSequence(Kind kind, std::vector<const PickleValue*> items) {
    PickleValue* value = nullptr;
    absl::Status status = PushNew(kind, &value);
    if (status.ok()) value->items = std::move(items);
    return status;
  }
  absl::Status PushGlobal(std::string module, std::string attribute) {
    PickleValue* value = nullptr;
    absl::Status status = PushNew(Kind::kGlobal, &value);
    if (!status.ok()) return status;
    value->text = std::move(module);
    value->name = std::move(attribute);
    return absl::OkStatus();
  }

  absl::Status SetItems(PickleValue* target, const std::vector<const PickleValue*>& pairs);
  absl::Status AppendItems(PickleValue* target, const std::vector<const PickleValue*>& items);
  absl::Status PersistentLoad(const PickleValue& pid);
  absl::Status Reduce(PickleValue* callable, PickleValue* args);
  absl::StatusOr<PickleTensorRef> RebuildTensor(const PickleValue& args, size_t arity,
                                                absl::string_view function);
  absl::Status Step(bool* stop);

  const uint8_t* bytes_;
  size_t size_;
  absl::string_view name_;
  const PickleLimits& limits_;
  size_t position_ = 0;
  uint8_t opcode_ = 0;
  size_t opcode_offset_ = 0;
  PickleDocument document_;
  std::vector<PickleValue*> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleValue*> memo_;
};

absl::Status PickleMachine::PushLong(std::optional<uint64_t> length) {
  if (!length) return Error("truncated length");
  const uint8_t* at = Read(*length);
  if (at == nullptr) return Error(absl::StrCat("integer of ", *length, " bytes runs past the end"));
  const size_t n = static_cast<size_t>(*length);
  if (n == 0) return PushInt(0);
  // Two's complement, little-endian: bytes beyond the eighth must only extend the sign.
  const bool negative = (at[n - 1] & 0x80) != 0;
  for (size_t i = 8; i < n; ++i) {
    if (at[i] != (negative ? 0xff : 0x00)) return Error("integer does not fit in 64 bits");
  }
  if (n > 8 && ((at[7] & 0x80) != 0) != negative) return Error("integer does not fit in 64 bits");
  uint64_t bits = negative ? ~uint64_t{0} : 0;
  for (size_t i = 0; i < std::min<size_t>(n, 8); ++i) {
    bits &= ~(uint64_t{0xff} << (8 * i));
    bits |= uint64_t{at[i]} << (8 * i);
  }
  int64_t value;
  std::memcpy(&value, &bits, sizeof(value));
  return PushInt(value);
}

absl::Status PickleMachine::SetItems(PickleValue* target,
                                     const std::vector<const PickleValue*>& pairs) {
  if (pairs.size() % 2 != 0) return Error("odd number of items for a dict");
  if (target->kind != Kind::kDict && target->kind != Kind::kObject) {
    return Error(absl::StrCat("setting items on a ", KindText(target->kind)));
  }
  for (size_t i = 0; i < pairs.size(); i += 2) target->entries.emplace_back(pairs[i], pairs[i + 1]);
  return absl::OkStatus();
}

absl::Status PickleMachine::AppendItems(PickleValue* target,
                                        const std::vector<const PickleValue*>& items) {
  if (target->kind != Kind::kList && target->kind != Kind::kObject) {
    return Error(absl::StrCat("appending to a ", KindText(target->kind)));
  }
  target->items.insert(target->items.end(), items.begin(), items.end());
  return absl::OkStatus();
}

absl::Status PickleMachine::PersistentLoad(const PickleValue& pid) {
  // torch.save: ('storage', torch.<X>Storage, key, location, numel)
  const bool valid = pid.kind == Kind::kTuple && pid.items.size() == 5 &&
                     pid.items[0]->kind == Kind::kString && pid.items[0]->text == "storage" &&
                     pid.items[1]->kind == Kind::kGlobal && pid.items[2]->kind == Kind::kString &&
                     pid.items[3]->kind == Kind::kString && pid.items[4]->kind == Kind::kInt &&
                     pid.items[4]->integer >= 0;
  if (!valid) {
    return Error("persistent id is not a torch storage ('storage', type, key, location, numel)");
  }
  PickleValue* value = nullptr;
  absl::Status status = PushNew(Kind::kStorage, &value);
  if (!status.ok()) return status;
  value->storage = std::make_unique<PickleStorageRef>();
  value->storage->storage_type = pid.items[1]->name;
  value->storage->key = pid.items[2]->text;
  value->storage->location = pid.items[3]->text;
  value->storage->numel = pid.items[4]->integer;
  return absl::OkStatus();
}

absl::StatusOr<PickleTensorRef> PickleMachine::RebuildTensor(const PickleValue& args, size_t arity,
                                                             absl::string_view function) {
  auto error = [&](absl::string_view message) {
    return Error(absl::StrCat(function, ": ", message));
  };
  if (args.items.size() < arity) {
    return error(absl::StrCat("expected at least ", arity, " arguments, got ", args.items.size()));
  }
  const PickleValue& storage = *args.items[0];
  const PickleValue& offset = *args.items[1];
  const PickleValue& sizes = *args.items[2];
  const PickleValue& strides = *args.items[3];
  if (storage.kind != Kind::kStorage) {
    return error(absl::StrCat("argument 1 is a ", KindText(storage.kind), ", expected a storage"));
  }
  if (offset.kind != Kind::kInt || offset.integer < 0) {
    return error("storage_offset is not a non-negative int");
  }
  PickleTensorRef tensor;
  tensor.storage = *storage.storage;
  tensor.storage_offset = offset.integer;
  auto read_ints = [](const PickleValue& tuple, std::vector<int64_t>* out) {
    if (tuple.kind != Kind::kTuple && tuple.kind != Kind::kList) return false;
    for (const PickleValue* item : tuple.items) {
      if (item->kind != Kind::kInt || item->integer < 0) return false;
      out->push_back(item->integer);
    }
    return true;
  };
  if (!read_ints(sizes, &tensor.sizes)) return error("size is not a tuple of non-negative ints");
  if (!read_ints(strides, &tensor.strides)) {
    return error("stride is not a tuple of non-negative ints");
  }
  if (tensor.sizes.size() != tensor.strides.size()) {
    return error(absl::StrCat("size has ", tensor.sizes.size(), " dimensions but stride has ",
                              tensor.strides.size()));
  }
  return tensor;
}

absl::Status PickleMachine::Reduce(PickleValue* callable, PickleValue* args) {
  if (args->kind != Kind::kTuple) {
    return Error(
        absl::StrCat("REDUCE arguments are a ", KindText(args->kind), ", expected a tuple"));
  }
  if (callable->kind == Kind::kGlobal) {
    const std::string& module = callable->text;
    const std::string& function = callable->name;
    if (module == "collections" && function == "OrderedDict") {
      PickleValue* dict = nullptr;
      absl::Status status = PushNew(Kind::kDict, &dict);
      if (!status.ok()) return status;
      if (args->items.empty()) return absl::OkStatus();
      const PickleValue& pairs = *args->items[0];
      if (args->items.size() != 1 || (pairs.kind != Kind::kList && pairs.kind != Kind::kTuple)) {
        return Error("OrderedDict takes no arguments or one sequence of pairs");
      }
      for (const PickleValue* pair : pairs.items) {
        if (pair->kind != Kind::kTuple || pair->items.size() != 2) {
          return Error("OrderedDict argument holds something other than pairs");
        }
        dict->entries.emplace_back(pair->items[0], pair->items[1]);
      }
      return absl::OkStatus();
    }
    if (module == "torch._utils") {
      std::optional<PickleTensorRef> tensor;
      if (function == "_rebuild_tensor_v2" || function == "_rebuild_tensor") {
        absl::StatusOr<PickleTensorRef> rebuilt =
            RebuildTensor(*args, function == "_rebuild_tensor" ? 4 : 6, function);
        if (!rebuilt.ok()) return rebuilt.status();
        tensor = *std::move(rebuilt);
      } else if (function == "_rebuild_tensor_v3") {
        absl::StatusOr<PickleTensorRef> rebuilt = RebuildTensor(*args, 7, function);
        if (!rebuilt.ok()) return rebuilt.status();
        const PickleValue& dtype = *args->items[6];
        if (dtype.kind != Kind::kGlobal || dtype.text != "torch") {
          return Error("_rebuild_tensor_v3: dtype is not a torch.<dtype> global");
        }
        rebuilt->dtype = dtype.name;
        tensor = *std::move(rebuilt);
      } else if (function == "_rebuild_parameter" || function == "_rebuild_parameter_with_state") {
        if (args->items.empty() || args->items[0]->kind != Kind::kTensor) {
          return Error(absl::StrCat(function, ": argument 1 is not a tensor"));
        }
        return Push(const_cast<PickleValue*>(args->items[0]));
      }
      if (tensor) {
        PickleValue* value = nullptr;
        absl::Status status = PushNew(Kind::kTensor, &value);
        if (!status.ok()) return status;
        value->tensor = std::make_unique<PickleTensorRef>(*std::move(tensor));
        return absl::OkStatus();
      }
    }
  }
  PickleValue* object = nullptr;
  absl::Status status = PushNew(Kind::kObject, &object);
  if (!status.ok()) return status;
  object->callable = callable;
  object->args = args;
  return absl::OkStatus();
}

absl::Status PickleMachine::Step(bool* stop) {
  opcode_offset_ = position_;
  const uint8_t* op = Read(1);
  if (op == nullptr) return Error("truncated: the pickle ends without STOP");
  opcode_ = *op;
  switch (opcode_) {
    case kProto: {
      std::optional<uint64_t> version = ReadUnsigned(1);
      if (!version) return Error("truncated PROTO");
      if (*version > kHighestProtocol) {
        return Error(absl::StrCat("unsupported pickle protocol ", *version));
      }
      return absl::OkStatus();
    }
    case kFrame: {
      std::optional<uint64_t> length = ReadUnsigned(8);
      if (!length) return Error("truncated FRAME");
      if (*length > size_ - position_) return Error("FRAME runs past the end");
      return absl::OkStatus();
    }
    case kStop: {
      absl::StatusOr<PickleValue*> result = Pop();
      if (!result.ok()) return result.status();
      document_.root_ = *result;
      *stop = true;
      return absl::OkStatus();
    }
    case kMark:
      if (marks_.size() >= limits_.max_mark_depth) {
        return Error(absl::StrCat("more than ", limits_.max_mark_depth, " nested MARKs"));
      }
      marks_.push_back(stack_.size());
      return absl::OkStatus();
    case kPop:
      return Pop().status();
    case kPopMark:
      return PopMark().status();
    case kDup: {
      absl::StatusOr<PickleValue*> top = Top();
      if (!top.ok()) return top.status();
      return Push(*top);
    }
    case kNone:
      return PushNew(Kind::kNone);
    case kNewTrue:
    case kNewFalse: {
      PickleValue* value = nullptr;
      absl::Status status = PushNew(Kind::kBool, &value);
      if (status.ok()) value->boolean = opcode_ == kNewTrue;
      return status;
    }
    case kBinInt: {
      std::optional<uint64_t> bits = ReadUnsigned(4);
      if (!bits) return Error("truncated BININT");
      return PushInt(static_cast<int32_t>(static_cast<uint32_t>(*bits)));
    }
    case kBinInt1:
    case kBinInt2: {
      std::optional<uint64_t> value = ReadUnsigned(opcode_ == kBinInt1 ? 1 : 2);
      if (!value) return Error("truncated integer");
      return PushInt(static_cast<int64_t>(*value));
    }
    case kLong1:
      return PushLong(ReadUnsigned(1));
    case kLong4: {
      std::optional<uint64_t> length = ReadUnsigned(4);
      if (length && *length > 0x7fffffff) return Error("negative LONG4 length");
      return PushLong(length);
    }
    case kBinFloat: {
      const uint8_t* at = Read(8);
      if (at == nullptr) return Error("truncated BINFLOAT");
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | at[i];  // big-endian
      PickleValue* value = nullptr;
      absl::Status status = PushNew(Kind::kFloat, &value);
      if (status.ok()) std::memcpy(&value->real, &bits, sizeof(bits));
      return status;
    }
    case kShortBinUnicode:
      return PushText(Kind::kString, ReadUnsigned(1));
    case kBinUnicode:
      return PushText(Kind::kString, ReadUnsigned(4));
    case kBinUnicode8:
      return PushText(Kind::kString, ReadUnsigned(8));
    case kShortBinString:
      return PushText(Kind::kString, ReadUnsigned(1));
    case kBinString: {
      std::optional<uint64_t> length = ReadUnsigned(4);
      if (length && *length > 0x7fffffff) return Error("negative BINSTRING length");
      return PushText(Kind::kString, length);
    }
    case kShortBinBytes:
      return PushText(Kind::kBytes, ReadUnsigned(1));
    case kBinBytes:
      return PushText(Kind::kBytes, ReadUnsigned(4));
    case kBinBytes8:
      return PushText(Kind::kBytes, ReadUnsigned(8));
    case kEmptyTuple:
      return PushSequence(Kind::kTuple, {});
    case kEmptyList:
      return PushSequence(Kind::kList, {});
    case kEmptySet:
      return PushSequence(Kind::kSet, {});
    case kEmptyDict:
      return PushNew(Kind::kDict);
    case kTuple1:
    case kTuple2:
    case kTuple3: {
      const size_t count = opcode_ - kTuple1 + 1;
      if (stack_.size() < CurrentMarkFloor() + count) return Error("stack underflow");
      std::vector<const PickleValue*> items(stack_.end() - count, stack_.end());
      stack_.resize(stack_.size() - count);
      return PushSequence(Kind::kTuple, std::move(items));
    }
    case kTuple:
    case kList:
    case kFrozenSet: {
      absl::StatusOr<std::vector<const PickleValue*>> items = PopMark();
      if (!items.ok()) return items.status();
      const Kind kind =
          opcode_ == kTuple ? Kind::kTuple : (opcode_ == kList ? Kind::kList : Kind::kSet);
      return PushSequence(kind, *std::move(items));
    }
    case kDict: {
      absl::StatusOr<std::vector<const PickleValue*>> items = PopMark();
      if (!items.ok()) return items.status();
      PickleValue* dict = nullptr;
      absl::Status status = PushNew(Kind::kDict, &dict);
      if (!status.ok()) return status;
      return SetItems(dict, *items);
    }
    case kSetItem: {
      if (stack_.size() < CurrentMarkFloor() + 3) return Error("stack underflow");
      std::vector<const PickleValue*> pair(stack_.end() - 2, stack_.end());
      stack_.resize(stack_.size() - 2);
      return SetItems(stack_.back(), pair);
    }
    case kSetItems:
    case kAppends:
    case kAddItems: {
      absl::StatusOr<std::vector<const PickleValue*>> items = PopMark();
      if (!items.ok()) return items.status();
      absl::StatusOr<PickleValue*> target = Top();
      if (!target.ok()) return target.status();
      if (opcode_ == kSetItems) return SetItems(*target, *items);
      if (opcode_ == kAddItems) {
        if ((*target)->kind != Kind::kSet) return Error("ADDITEMS on something not a set");
        (*target)->items.insert((*target)->items.end(), items->begin(), items->end());
        return absl::OkStatus();
      }
      return AppendItems(*target, *items);
    }
    case kAppend: {
      absl::StatusOr<PickleValue*> item = Pop();
      if (!item.ok()) return item.status();
      absl::StatusOr<PickleValue*> target = Top();
      if (!target.ok()) return target.status();
      return AppendItems(*target, {*item});
    }
    case kGlobal: {
      absl::StatusOr<std::string> module = ReadLine();
      if (!module.ok()) return module.status();
      absl::StatusOr<std::string> attribute = ReadLine();
      if (!attribute.ok()) return attribute.status();
      return PushGlobal(*std::move(module), *std::move(attribute));
    }
    case kStackGlobal: {
      absl::StatusOr<PickleValue*> attribute = Pop();
      if (!attribute.ok()) return attribute.status();
      absl::StatusOr<PickleValue*> module = Pop();
      if (!module.ok()) return module.status();
      if ((*module)->kind != Kind::kString || (*attribute)->kind != Kind::kString) {
        return Error("STACK_GLOBAL needs two strings");
      }
      return PushGlobal((*module)->text, (*attribute)->text);
    }
    case kBinPut:
    case kLongBinPut: {
      std::optional<uint64_t> index = ReadUnsigned(opcode_ == kBinPut ? 1 : 4);
      if (!index) return Error("truncated memo index");
      return Memoize(*index);
    }
    case kMemoize:
      return Memoize(memo_.size());
    case kBinGet:
    case kLongBinGet: {
      std::optional<uint64_t> index = ReadUnsigned(opcode_ == kBinGet ? 1 : 4);
      if (!index) return Error("truncated memo index");
      return MemoGet(*index);
    }
    case kBinPersId: {
      absl::StatusOr<PickleValue*> pid = Pop();
      if (!pid.ok()) return pid.status();
      return PersistentLoad(**pid);
    }
    case kReduce: {
      absl::StatusOr<PickleValue*> args = Pop();
      if (!args.ok()) return args.status();
      absl::StatusOr<PickleValue*> callable = Pop();
      if (!callable.ok()) return callable.status();
      return Reduce(*callable, *args);
    }
    case kNewObj:
    case kNewObjEx: {
      if (opcode_ == kNewObjEx) {
        absl::StatusOr<PickleValue*> kwargs = Pop();
        if (!kwargs.ok()) return kwargs.status();
      }
      absl::StatusOr<PickleValue*> args = Pop();
      if (!args.ok()) return args.status();
      absl::StatusOr<PickleValue*> cls = Pop();
      if (!cls.ok()) return cls.status();
      PickleValue* object = nullptr;
      absl::Status status = PushNew(Kind::kObject, &object);
      if (!status.ok()) return status;
      object->callable = *cls;
      object->args = *args;
      return absl::OkStatus();
    }
    case kBuild: {
      absl::StatusOr<PickleValue*> state = Pop();
      if (!state.ok()) return state.status();
      absl::StatusOr<PickleValue*> target = Top();
      if (!target.ok()) return target.status();
      (*target)->state = *state;
      return absl::OkStatus();
    }
    default:
      return Error("unsupported opcode");
  }
}

absl::StatusOr<PickleDocument> PickleMachine::Run() {
  bool stop = false;
  while (!stop) {
    absl::Status status = Step(&stop);
    if (!status.ok()) return status;
  }
  return std::move(document_);
}

absl::StatusOr<PickleDocument> Unpickle(const uint8_t* bytes, size_t size, std::string_view name,
                                        const PickleLimits& limits) {
  PickleMachine machine(bytes, size, absl::string_view(name.data(), name.size()), limits);
  return machine.Run();
}

}  // namespace torchir::frontend
