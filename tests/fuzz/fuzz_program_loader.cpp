// libFuzzer target for the runtime's program loader: Program::Load, then
// Method::Load with the portable kernels, the XNNPACK delegate and the native
// delegate, then Execute. Any input must end in an Error or a successful run:
// no crash, no sanitizer report, no leak, no abort (XNNPACK's asserts are
// compiled in).
//
// The custom mutator (LLVMFuzzerCustomMutator) reaches into the delegates'
// data, which plain byte mutations of a whole program rarely change without
// breaking the program's FlatBuffer first. Half of the mutations pick one
// XNNPACK blob, native blob or native packed-weight header of the input and
// either
//   - mutate its bytes with libFuzzer's own mutator, size kept, or
//   - set one field in place, so the blob still verifies and the mutation
//     reaches the delegate's checks: in an XNNPACK blob a node's input or
//     output index, a value's dim, argument or is_output, a node's int or
//     float parameter, a blob constant, or the blob's version or argument
//     count; in a native blob a convolution's, pooling's or channel scale's
//     size, stride, padding, argument index, activation, clamp bound or kind,
//     or the version or argument count; in
//     a packed-weight header its magic, version, target, nr, kc, K, N or float
//     count; in the program FlatBuffer a delegate call's planned scratch (bytes, arena
//     index, offset) — each to a nearby or boundary value.
// The other half are libFuzzer's mutations of the whole program.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backends/native/packed_weights.h"
#include "backends/native/runtime/native_backend.h"
#include "backends/native/serialization/native_blob_generated.h"
#include "backends/xnnpack/runtime/xnnpack_backend.h"
#include "backends/xnnpack/serialization/xnnpack_blob_generated.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/platform/platform.h"
#include "tests/backends/delegate_ranges.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace fb = ::torchir::xnnpack;
namespace nfb = ::torchir::native::fb;
using torchir::native::PackedBHeader;
using torchir::testing::ByteRange;

// Init memory is capped so that a program asking for huge arenas fails with
// kOutOfMemory instead of exhausting the fuzzer's RSS limit; so is what XNNPACK
// may allocate per delegate (internal values, indirection buffers).
constexpr size_t kInitBudget = 64 << 20;

void Quiet(torchir::runtime::LogLevel, const char*) {}

// One scalar of the blob that the mutator may overwrite: where it is (offset in
// the blob) and how wide and of which kind it is.
struct Field {
  enum class Kind { kUnsigned, kSigned, kFloat, kDouble, kBool };
  size_t offset;
  size_t width;
  Kind kind;
};

// The table's scalar field `vtable_offset` when it is present in the buffer.
void AddTableField(const void* table, flatbuffers::voffset_t vtable_offset, size_t width,
                   Field::Kind kind, const uint8_t* blob, std::vector<Field>* fields) {
  const uint8_t* address =
      reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(vtable_offset);
  if (address != nullptr) fields->push_back({static_cast<size_t>(address - blob), width, kind});
}

template <typename T>
void AddVectorFields(const flatbuffers::Vector<T>* vector, Field::Kind kind, const uint8_t* blob,
                     std::vector<Field>* fields) {
  if (vector == nullptr) return;
  const uint8_t* data = reinterpret_cast<const uint8_t*>(vector->data());
  for (size_t i = 0; i < vector->size(); ++i) {
    fields->push_back({static_cast<size_t>(data + i * sizeof(T) - blob), sizeof(T), kind});
  }
}

// Every scalar of an XNNPACK blob that verifies; none when it does not.
std::vector<Field> XnnpackBlobFields(const uint8_t* blob, size_t size) {
  std::vector<Field> fields;
  flatbuffers::Verifier verifier(blob, size);
  if (!fb::VerifyGraphBuffer(verifier)) return fields;
  const fb::Graph* graph = fb::GetGraph(blob);
  AddTableField(graph, fb::Graph::VT_VERSION, 4, Field::Kind::kUnsigned, blob, &fields);
  AddTableField(graph, fb::Graph::VT_NUM_ARGUMENTS, 4, Field::Kind::kUnsigned, blob, &fields);
  if (graph->values() != nullptr) {
    for (const fb::Value* value : *graph->values()) {
      AddVectorFields(value->dims(), Field::Kind::kUnsigned, blob, &fields);
      AddTableField(value, fb::Value::VT_ARGUMENT, 4, Field::Kind::kSigned, blob, &fields);
      AddTableField(value, fb::Value::VT_IS_OUTPUT, 1, Field::Kind::kBool, blob, &fields);
      AddVectorFields(value->data(), Field::Kind::kFloat, blob, &fields);
    }
  }
  if (graph->nodes() != nullptr) {
    for (const fb::Node* node : *graph->nodes()) {
      AddVectorFields(node->inputs(), Field::Kind::kUnsigned, blob, &fields);
      AddVectorFields(node->outputs(), Field::Kind::kUnsigned, blob, &fields);
      AddVectorFields(node->ints(), Field::Kind::kSigned, blob, &fields);
      AddVectorFields(node->floats(), Field::Kind::kDouble, blob, &fields);
    }
  }
  return fields;
}

// Every scalar a native blob that verifies holds (FlatBuffers leaves fields at their default
// out of the buffer: those cannot be set in place); none when it does not verify.
std::vector<Field> NativeBlobFields(const uint8_t* blob, size_t size) {
  std::vector<Field> fields;
  flatbuffers::Verifier verifier(blob, size);
  if (!nfb::VerifyBlobBuffer(verifier)) return fields;
  const nfb::Blob* parsed = nfb::GetBlob(blob);
  AddTableField(parsed, nfb::Blob::VT_VERSION, 4, Field::Kind::kUnsigned, blob, &fields);
  AddTableField(parsed, nfb::Blob::VT_NUM_ARGUMENTS, 4, Field::Kind::kUnsigned, blob, &fields);
  if (parsed->poolings() != nullptr) {
    for (const nfb::Pooling* node : *parsed->poolings()) {
      AddTableField(node, nfb::Pooling::VT_KIND, 4, Field::Kind::kUnsigned, blob, &fields);
      // batch .. padding_left: uint64, 2 apart in the vtable.
      for (flatbuffers::voffset_t at = nfb::Pooling::VT_BATCH; at <= nfb::Pooling::VT_PADDING_LEFT;
           at += 2) {
        AddTableField(node, at, 8, Field::Kind::kUnsigned, blob, &fields);
      }
      AddTableField(node, nfb::Pooling::VT_INPUT, 4, Field::Kind::kSigned, blob, &fields);
      AddTableField(node, nfb::Pooling::VT_OUTPUT, 4, Field::Kind::kSigned, blob, &fields);
    }
  }
  if (parsed->channel_scales() != nullptr) {
    for (const nfb::ChannelScale* node : *parsed->channel_scales()) {
      for (flatbuffers::voffset_t at = nfb::ChannelScale::VT_BATCH;
           at <= nfb::ChannelScale::VT_CHANNELS; at += 2) {
        AddTableField(node, at, 8, Field::Kind::kUnsigned, blob, &fields);
      }
      AddTableField(node, nfb::ChannelScale::VT_SHARED_SCALE, 1, Field::Kind::kBool, blob, &fields);
      for (flatbuffers::voffset_t at = nfb::ChannelScale::VT_INPUT;
           at <= nfb::ChannelScale::VT_OUTPUT; at += 2) {
        AddTableField(node, at, 4, Field::Kind::kSigned, blob, &fields);
      }
    }
  }
  if (parsed->convolutions() == nullptr) return fields;
  for (const nfb::Convolution* node : *parsed->convolutions()) {
    // batch .. padding_right: uint64, 2 apart in the vtable.
    for (flatbuffers::voffset_t at = nfb::Convolution::VT_BATCH;
         at <= nfb::Convolution::VT_PADDING_RIGHT; at += 2) {
      AddTableField(node, at, 8, Field::Kind::kUnsigned, blob, &fields);
    }
    for (flatbuffers::voffset_t at = nfb::Convolution::VT_INPUT; at <= nfb::Convolution::VT_OUTPUT;
         at += 2) {
      AddTableField(node, at, 4, Field::Kind::kSigned, blob, &fields);
    }
    AddTableField(node, nfb::Convolution::VT_ACTIVATION, 4, Field::Kind::kUnsigned, blob, &fields);
    AddTableField(node, nfb::Convolution::VT_OUTPUT_MIN, 4, Field::Kind::kFloat, blob, &fields);
    AddTableField(node, nfb::Convolution::VT_OUTPUT_MAX, 4, Field::Kind::kFloat, blob, &fields);
  }
  return fields;
}

// The fields of a packed-weight header (backends/native/packed_weights.h).
std::vector<Field> PackedHeaderFields(size_t size) {
  const Field all[] = {
      {offsetof(PackedBHeader, magic), 4, Field::Kind::kUnsigned},
      {offsetof(PackedBHeader, version), 4, Field::Kind::kUnsigned},
      {offsetof(PackedBHeader, target), 4, Field::Kind::kUnsigned},
      {offsetof(PackedBHeader, nr), 4, Field::Kind::kUnsigned},
      {offsetof(PackedBHeader, kc), 4, Field::Kind::kUnsigned},
      {offsetof(PackedBHeader, k), 8, Field::Kind::kUnsigned},
      {offsetof(PackedBHeader, n), 8, Field::Kind::kUnsigned},
      {offsetof(PackedBHeader, data_floats), 8, Field::Kind::kUnsigned},
  };
  std::vector<Field> fields;
  for (const Field& field : all) {
    if (field.offset + field.width <= size) fields.push_back(field);
  }
  return fields;
}

// A new value for an integer field: a step from the old one, a boundary, or random.
uint64_t NewInteger(uint64_t old, size_t width, std::minstd_rand& rng) {
  const int64_t boundaries[] = {0,         1,         2,
                                3,         -1,        127,
                                255,       1 << 16,   (1 << 24) - 1,
                                1 << 24,   INT32_MAX, static_cast<int64_t>(UINT32_MAX),
                                INT64_MAX, INT64_MIN};
  switch (rng() % 4) {
    case 0:
      return old + 1;
    case 1:
      return old - 1;
    case 2:
      return static_cast<uint64_t>(
          boundaries[rng() % (sizeof(boundaries) / sizeof(boundaries[0]))]);
    default: {
      const uint64_t random = (uint64_t{rng()} << 32) ^ rng();
      const unsigned bits = 1 + rng() % (8 * width);
      return bits >= 64 ? random : random & ((uint64_t{1} << bits) - 1);
    }
  }
}

double NewReal(double old, std::minstd_rand& rng) {
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             6.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             3.4e38,
                             1e300,
                             -1e300,
                             std::numeric_limits<double>::denorm_min()};
  switch (rng() % 3) {
    case 0:
      return specials[rng() % (sizeof(specials) / sizeof(specials[0]))];
    case 1:
      return -old;
    default:
      return old * (1.0 + static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 100.0);
  }
}

// Overwrites one of `fields` of `blob` in place. False when there is none.
bool MutateField(uint8_t* blob, const std::vector<Field>& fields, std::minstd_rand& rng) {
  if (fields.empty()) return false;
  const Field& field = fields[rng() % fields.size()];
  uint8_t* at = blob + field.offset;
  switch (field.kind) {
    case Field::Kind::kBool:
      *at = *at == 0 ? 1 : static_cast<uint8_t>(rng() % 2 ? 0 : rng());
      return true;
    case Field::Kind::kFloat: {
      float v;
      std::memcpy(&v, at, 4);
      v = static_cast<float>(NewReal(v, rng));
      std::memcpy(at, &v, 4);
      return true;
    }
    case Field::Kind::kDouble: {
      double v;
      std::memcpy(&v, at, 8);
      v = NewReal(v, rng);
      std::memcpy(at, &v, 8);
      return true;
    }
    default: {
      uint64_t old = 0;
      std::memcpy(&old, at, field.width);  // little-endian
      const uint64_t v = NewInteger(old, field.width, rng);
      std::memcpy(at, &v, field.width);
      return true;
    }
  }
}

// The planned scratch of every delegate call of a program FlatBuffer that verifies (its byte
// count, and its Allocation's arena index and offset): load must keep a hostile value inside
// the arena. None when the FlatBuffer does not verify or plans no scratch.
std::vector<Field> DelegateScratchFields(const uint8_t* flatbuffer, size_t size) {
  namespace pte = ::torchir::pte;
  std::vector<Field> fields;
  flatbuffers::Verifier verifier(flatbuffer, size, /*max_depth=*/64, /*max_tables=*/10000000);
  if (!pte::VerifyProgramBuffer(verifier)) return fields;
  const pte::Program* program = pte::GetProgram(flatbuffer);
  if (program->methods() == nullptr) return fields;
  for (const pte::Method* method : *program->methods()) {
    if (method->instructions() == nullptr) continue;
    for (const pte::Instruction* instruction : *method->instructions()) {
      const pte::DelegateCall* call = instruction->kind_as_DelegateCall();
      if (call == nullptr) continue;
      AddTableField(call, pte::DelegateCall::VT_SCRATCH_BYTES, 8, Field::Kind::kUnsigned,
                    flatbuffer, &fields);
      if (call->scratch() == nullptr) continue;
      AddTableField(call->scratch(), pte::Allocation::VT_ARENA_INDEX, 4, Field::Kind::kUnsigned,
                    flatbuffer, &fields);
      AddTableField(call->scratch(), pte::Allocation::VT_OFFSET, 8, Field::Kind::kUnsigned,
                    flatbuffer, &fields);
    }
  }
  return fields;
}

// What the mutator may corrupt in place: a delegate's data and how to find its fields.
struct Target {
  ByteRange range;
  std::vector<Field> (*fields)(const uint8_t* bytes, size_t size);
};

std::vector<Field> HeaderFields(const uint8_t*, size_t size) { return PackedHeaderFields(size); }

std::vector<Target> MutationTargets(const uint8_t* program, size_t size) {
  std::vector<Target> targets;
  for (const ByteRange& range :
       torchir::testing::DelegateBlobRanges(program, size, "XnnpackBackend")) {
    targets.push_back({range, &XnnpackBlobFields});
  }
  for (const ByteRange& range :
       torchir::testing::DelegateBlobRanges(program, size, "NativeBackend")) {
    targets.push_back({range, &NativeBlobFields});
  }
  for (const ByteRange& range : torchir::testing::DelegateConstantRanges(
           program, size, "NativeBackend", torchir::pte::ScalarType::UInt8,
           torchir::native::kPackedBHeaderBytes)) {
    targets.push_back({range, &HeaderFields});
  }
  // The program FlatBuffer itself, for the delegate calls' planned scratch. Only where it starts
  // 8-byte aligned (as torchir-compile writes it; `program` is): the verifier checks alignment
  // relative to the buffer's start, so on a mutated, misaligned offset it would read misaligned
  // scalars itself.
  torchir::pte::FileHeader header;
  if (size >= torchir::pte::kFileHeaderSize && torchir::pte::DecodeFileHeader(program, &header) &&
      header.flatbuffer_offset % alignof(uint64_t) == 0 && header.flatbuffer_offset <= size &&
      header.flatbuffer_size <= size - header.flatbuffer_offset &&
      !DelegateScratchFields(program + header.flatbuffer_offset,
                             static_cast<size_t>(header.flatbuffer_size))
           .empty()) {
    targets.push_back({ByteRange{static_cast<size_t>(header.flatbuffer_offset),
                                 static_cast<size_t>(header.flatbuffer_size)},
                       &DelegateScratchFields});
  }
  return targets;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 2 == 0) {
    // Align a copy: the FlatBuffers verifier checks the alignment of scalars.
    std::vector<uint64_t> storage(size / 8 + 1);
    std::memcpy(storage.data(), data, size);
    const std::vector<Target> targets =
        MutationTargets(reinterpret_cast<uint8_t*>(storage.data()), size);
    if (!targets.empty()) {
      const Target& target = targets[rng() % targets.size()];
      const ByteRange& range = target.range;
      // The range on its own, 8-byte aligned as the delegates require (a mutated program's
      // segment may start anywhere).
      std::vector<uint64_t> range_storage(range.size / 8 + 1);
      uint8_t* bytes = reinterpret_cast<uint8_t*>(range_storage.data());
      std::memcpy(bytes, data + range.offset, range.size);
      bool mutated = false;
      if (rng() % 2 == 0) mutated = MutateField(bytes, target.fields(bytes, range.size), rng);
      if (!mutated && range.size > 0) {
        // libFuzzer's mutators on the range alone; a shorter result keeps the old tail.
        std::vector<uint8_t> copy(bytes, bytes + range.size);
        const size_t new_size = LLVMFuzzerMutate(copy.data(), copy.size(), copy.size());
        std::memcpy(bytes, copy.data(), new_size < copy.size() ? new_size : copy.size());
      }
      std::memcpy(data + range.offset, bytes, range.size);
      return size;
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace torchir::runtime;
  static bool initialised = [] {
    SetLogHook(Quiet);
    return portable::RegisterPortableKernels() == Error::kOk &&
           xnnpack::RegisterXnnpackBackend({/*num_threads=*/1, kInitBudget}) == Error::kOk &&
           native::RegisterNativeBackend({/*num_threads=*/1}) == Error::kOk;
  }();
  if (!initialised) __builtin_trap();

  // The runtime needs a 16-byte aligned program, as a mapped file is.
  std::vector<uint64_t> storage(size / 8 + 1);
  if (size > 0) std::memcpy(storage.data(), data, size);
  BufferDataLoader loader(storage.data(), size);
  Result<Program> program = Program::Load(loader);
  if (!program.ok()) return 0;
  static std::vector<uint8_t>* init_memory = new std::vector<uint8_t>(kInitBudget + 64);
  uintptr_t base = reinterpret_cast<uintptr_t>(init_memory->data());
  uint8_t* aligned = reinterpret_cast<uint8_t*>((base + 63) & ~uintptr_t{63});
  BufferAllocator allocator(Span<uint8_t>(aligned, kInitBudget));
  for (size_t m = 0; m < program->num_methods(); ++m) {
    Result<Method> method = Method::Load(*program, program->method_name(m), allocator);
    if (!method.ok()) continue;
    // What a tracing tool reads after load: every instruction's op and debug handle.
    // Each name lives inside the input (ASan reports a read past it).
    for (size_t i = 0; i < method->num_instructions(); ++i) {
      if (std::strlen(method->instruction_op(i)) >= size) __builtin_trap();
      for (size_t k = 0; k < method->instruction_num_debug_nodes(i); ++k) {
        if (std::strlen(method->instruction_debug_node(i, k)) >= size) __builtin_trap();
      }
    }
    // Inputs keep whatever the arena holds; any values are valid inputs.
    (void)method->Execute();
  }
  return 0;
}
