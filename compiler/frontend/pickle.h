// A small, safe reader for the pickles inside torch.save archives (data.pkl).
//
// It is a pickle virtual machine that never executes anything: GLOBAL and
// STACK_GLOBAL yield symbolic "global" values, and REDUCE builds a value only
// for the few callables whose meaning it knows:
//   collections.OrderedDict()                    -> a dict
//   torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
//       requires_grad, backward_hooks[, metadata]) -> a tensor reference
//   torch._utils._rebuild_tensor_v3(..., dtype[, metadata]) and
//   torch._utils._rebuild_tensor(storage, storage_offset, size, stride)
//                                                 -> a tensor reference
//   torch._utils._rebuild_parameter(tensor, requires_grad, hooks) and
//   torch._utils._rebuild_parameter_with_state(...) -> that tensor
// Any other call, and NEWOBJ, becomes an opaque object recording what would
// have been called. BUILD attaches its state to the object without
// interpreting it, so an OrderedDict carrying state (how state_dict()._metadata
// is pickled) is accepted. Persistent ids must be torch storages
// ('storage', <torch.XStorage global>, key, location, numel).
//
// Supported opcodes: those of protocols 2 to 5 that Python emits for plain
// data (no text-mode protocol 0 opcodes, no out-of-band buffers, no
// extension registry). Malformed input yields an error naming the opcode and
// its offset, never a crash: reads, stack depth, memo size, value count and
// integer widths are all bounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace torchir::frontend {

// A torch storage named by a persistent id; its bytes live in the archive
// entry <archive>/data/<key>.
struct PickleStorageRef {
  std::string storage_type;  // the storage class, e.g. "FloatStorage", "UntypedStorage"
  std::string key;
  std::string location;  // "cpu", "cuda:0", ...
  int64_t numel = 0;     // in elements of storage_type
};

// A strided view of a storage, as torch._utils._rebuild_tensor_* describes it.
struct PickleTensorRef {
  PickleStorageRef storage;
  int64_t storage_offset = 0;  // in elements of the tensor's dtype
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // in elements, same rank as sizes
  // The dtype argument of _rebuild_tensor_v3 ("float16", "uint16", ...);
  // empty when the dtype follows from storage.storage_type.
  std::string dtype;
};

// One value of an unpickled object graph. Values are owned by the
// PickleDocument that produced them and may form cycles.
struct PickleValue {
  enum class Kind : uint8_t {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,  // unicode text (kept as its UTF-8 bytes)
    kBytes,
    kTuple,
    kList,
    kSet,  // set or frozenset
    kDict,
    kGlobal,   // a module attribute named by GLOBAL or STACK_GLOBAL
    kStorage,  // a torch storage named by a persistent id
    kTensor,   // a tensor reference built by a known torch rebuild function
    kObject,   // the result of calling anything else; not interpreted
  };

  Kind kind = Kind::kNone;
  bool boolean = false;  // kBool
  int64_t integer = 0;   // kInt
  double real = 0;       // kFloat
  std::string text;      // kString, kBytes; kGlobal: the module
  std::string name;      // kGlobal: the attribute name
  // kTuple, kList, kSet; kObject: items appended to it.
  std::vector<const PickleValue*> items;
  // kDict in insertion order (later duplicate keys are kept too); kObject:
  // items set on it.
  std::vector<std::pair<const PickleValue*, const PickleValue*>> entries;
  const PickleValue* callable = nullptr;      // kObject: what was called
  const PickleValue* args = nullptr;          // kObject: the argument tuple
  const PickleValue* state = nullptr;         // the argument of BUILD, if any
  std::unique_ptr<PickleStorageRef> storage;  // kStorage
  std::unique_ptr<PickleTensorRef> tensor;    // kTensor
};

// "dict", "tuple", "tensor", ...
std::string_view PickleKindName(PickleValue::Kind kind);

// Bounds that keep hostile pickles from exhausting memory.
struct PickleLimits {
  size_t max_stack_depth = size_t{1} << 20;  // values on the stack at once
  size_t max_mark_depth = size_t{1} << 16;   // open MARKs
  size_t max_memo_entries = size_t{1} << 22;
  size_t max_values = size_t{1} << 24;  // values created in total
};

// The object graph of one pickle: owns every value.
class PickleDocument {
 public:
  const PickleValue& root() const { return *root_; }

 private:
  friend class PickleMachine;
  std::unique_ptr<std::deque<PickleValue>> values_ = std::make_unique<std::deque<PickleValue>>();
  const PickleValue* root_ = nullptr;
};

// Runs the pickle in `bytes` up to its STOP opcode. `name` (e.g.
// "model.pt: archive/data.pkl") prefixes every error message.
absl::StatusOr<PickleDocument> Unpickle(const uint8_t* bytes, size_t size, std::string_view name,
                                        const PickleLimits& limits = {});

}  // namespace torchir::frontend
