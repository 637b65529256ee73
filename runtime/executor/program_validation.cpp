#include "runtime/executor/program_validation.h"

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "schema/program_generated.h"

namespace torchir::runtime {
namespace {

static_assert(static_cast<int>(pte::ScalarType::MAX) + 1 == kNumScalarTypes,
              "runtime ScalarType and the schema's must list the same types");
static_assert(static_cast<int>(pte::ScalarType::Float8E5M2) ==
                  static_cast<int>(ScalarType::kFloat8E5M2),
              "runtime ScalarType numbering must equal the schema's");

// The most read-overrun slack a delegate may declare: far above any kernel
// library's (XNNPACK: 16), small enough that no sum below overflows.
constexpr uint32_t kMaxReadOverrunBytes = 4096;

// a + b <= limit, without overflow.
bool FitsIn(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// The FlatBuffers verifier aligns vector lengths (4 bytes) but not elements:
// a hostile file can place an int64 or double vector at a 4-byte boundary.
// The runtime hands those elements out as int64_t*/double* spans, so each such
// vector must be naturally aligned.
template <typename T>
bool ElementsAligned(const flatbuffers::Vector<T>* vector) {
  // An empty vector's data pointer is never read (the builder does not align it).
  return vector == nullptr || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->data()) % alignof(T) == 0;
}

// Byte size of a tensor, or an error when a size is negative, the rank too
// large or the product overflows.
Error TensorBytes(const pte::Tensor& tensor, uint64_t* bytes) {
  TORCHIR_CHECK_OR_RETURN(IsValidScalarType(static_cast<int>(tensor.scalar_type())),
                          Error::kInvalidProgram, "tensor has unknown scalar type %d",
                          static_cast<int>(tensor.scalar_type()));
  const auto* sizes = tensor.sizes();
  TORCHIR_CHECK_OR_RETURN(ElementsAligned(sizes), Error::kInvalidProgram,
                          "tensor sizes are misaligned");
  const size_t rank = sizes != nullptr ? sizes->size() : 0;
  TORCHIR_CHECK_OR_RETURN(rank <= kMaxTensorRank, Error::kInvalidProgram,
                          "tensor rank %zu exceeds %zu", rank, kMaxTensorRank);
  uint64_t total = ElementSize(static_cast<ScalarType>(tensor.scalar_type()));
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = sizes->Get(static_cast<flatbuffers::uoffset_t>(d));
    TORCHIR_CHECK_OR_RETURN(size >= 0, Error::kInvalidProgram, "tensor has negative size %lld",
                            static_cast<long long>(size));
    TORCHIR_CHECK_OR_RETURN(!__builtin_mul_overflow(total, static_cast<uint64_t>(size), &total),
                            Error::kInvalidProgram, "tensor byte size overflows");
  }
  // Element counts must also fit int64 (Tensor::numel).
  TORCHIR_CHECK_OR_RETURN(total <= (uint64_t{1} << 62), Error::kInvalidProgram,
                          "tensor of %llu bytes is too large",
                          static_cast<unsigned long long>(total));
  const auto* order = tensor.dim_order();
  if (order != nullptr && order->size() > 0) {
    TORCHIR_CHECK_OR_RETURN(order->size() == rank, Error::kInvalidProgram,
                            "dim order has %u entries for rank %zu", order->size(), rank);
    bool seen[kMaxTensorRank] = {};
    for (uint8_t d : *order) {
      TORCHIR_CHECK_OR_RETURN(d < rank && !seen[d], Error::kInvalidProgram,
                              "dim order is not a permutation");
      seen[d] = true;
    }
  }
  *bytes = total;
  return Error::kOk;
}

Error ValidateTensor(const pte::Tensor& tensor, const pte::Program& program,
                     const pte::FileHeader& header,
                     const flatbuffers::Vector<uint64_t>* arena_sizes) {
  uint64_t bytes = 0;
  TORCHIR_RETURN_IF_ERROR(TensorBytes(tensor, &bytes));
  const uint64_t alignment = ElementSize(static_cast<ScalarType>(tensor.scalar_type()));
  const bool has_constant = tensor.constant() != nullptr;
  const bool has_allocation = tensor.allocation() != nullptr;
  TORCHIR_CHECK_OR_RETURN(has_constant != has_allocation, Error::kInvalidProgram,
                          "a tensor needs exactly one of constant data and an allocation");
  if (has_constant) {
    const pte::ConstantData& constant = *tensor.constant();
    const auto* segments = program.segments();
    TORCHIR_CHECK_OR_RETURN(segments != nullptr && constant.segment_index() < segments->size(),
                            Error::kProgramOutOfBounds, "constant names segment %u of %u",
                            constant.segment_index(), segments ? segments->size() : 0);
    const pte::Segment* segment = segments->Get(constant.segment_index());
    TORCHIR_CHECK_OR_RETURN(FitsIn(constant.offset(), bytes, segment->size()),
                            Error::kProgramOutOfBounds,
                            "constant of %llu bytes at offset %llu overruns its segment",
                            static_cast<unsigned long long>(bytes),
                            static_cast<unsigned long long>(constant.offset()));
    // Segment base and segments are 64-byte aligned, so this aligns the address.
    TORCHIR_CHECK_OR_RETURN(
        (header.segment_base_offset + segment->offset() + constant.offset()) % alignment == 0,
        Error::kInvalidProgram, "constant is misaligned for its element type");
  } else {
    const pte::Allocation& allocation = *tensor.allocation();
    TORCHIR_CHECK_OR_RETURN(
        arena_sizes != nullptr && allocation.arena_index() < arena_sizes->size(),
        Error::kProgramOutOfBounds, "allocation names arena %u of %u", allocation.arena_index(),
        arena_sizes ? arena_sizes->size() : 0);
    TORCHIR_CHECK_OR_RETURN(
        FitsIn(allocation.offset(), bytes, arena_sizes->Get(allocation.arena_index())),
        Error::kProgramOutOfBounds, "tensor of %llu bytes at offset %llu overruns arena %u",
        static_cast<unsigned long long>(bytes),
        static_cast<unsigned long long>(allocation.offset()), allocation.arena_index());
    TORCHIR_CHECK_OR_RETURN(allocation.offset() % alignment == 0, Error::kInvalidProgram,
                            "allocation is misaligned for its element type");
  }
  return Error::kOk;
}

// The tensor (validated by ValidateTensor) is followed by `slack` readable
// bytes: inside its arena for a planned tensor, inside the file for a constant
// (the bytes after it in its segment, later segments or the tail padding).
Error CheckReadSlack(const pte::Tensor& tensor, uint64_t slack, const pte::Program& program,
                     const pte::FileHeader& header,
                     const flatbuffers::Vector<uint64_t>* arena_sizes) {
  uint64_t bytes = 0;
  TORCHIR_RETURN_IF_ERROR(TensorBytes(tensor, &bytes));
  uint64_t start = 0, limit = 0;
  if (tensor.constant() != nullptr) {
    const pte::Segment* segment = program.segments()->Get(tensor.constant()->segment_index());
    // Each term is inside the file (checked before), so the sum cannot overflow.
    start = header.segment_base_offset + segment->offset() + tensor.constant()->offset();
    limit = header.file_size;
  } else {
    start = tensor.allocation()->offset();
    limit = arena_sizes->Get(tensor.allocation()->arena_index());
  }
  TORCHIR_CHECK_OR_RETURN(
      FitsIn(start, bytes, limit) && slack <= limit - start - bytes, Error::kProgramOutOfBounds,
      "%s tensor of %llu bytes at %llu leaves %llu of the %llu bytes a backend may read past it",
      tensor.constant() != nullptr ? "constant" : "planned", static_cast<unsigned long long>(bytes),
      static_cast<unsigned long long>(start),
      static_cast<unsigned long long>(FitsIn(start, bytes, limit) ? limit - start - bytes : 0),
      static_cast<unsigned long long>(slack));
  return Error::kOk;
}

bool IsTensorValue(const flatbuffers::Vector<flatbuffers::Offset<pte::EValue>>& values,
                   int32_t index) {
  return index >= 0 && static_cast<uint32_t>(index) < values.size() &&
         values.Get(static_cast<flatbuffers::uoffset_t>(index))->value_type() ==
             pte::Value::Tensor;
}

Error ValidateIndices(const flatbuffers::Vector<int32_t>* indices, uint32_t num_values,
                      const char* what) {
  if (indices == nullptr) return Error::kOk;
  for (int32_t index : *indices) {
    TORCHIR_CHECK_OR_RETURN(index >= 0 && static_cast<uint32_t>(index) < num_values,
                            Error::kProgramOutOfBounds, "%s names value %d of %u", what, index,
                            num_values);
  }
  return Error::kOk;
}

Error ValidateMethod(const pte::Method& method, const pte::Program& program,
                     const pte::FileHeader& header) {
  TORCHIR_CHECK_OR_RETURN(method.name() != nullptr, Error::kInvalidProgram, "method has no name");
  const auto* values = method.values();
  TORCHIR_CHECK_OR_RETURN(values != nullptr, Error::kInvalidProgram, "method '%s' has no values",
                          method.name()->c_str());
  const uint32_t num_values = values->size();
  TORCHIR_CHECK_OR_RETURN(num_values < (1u << 31), Error::kInvalidProgram, "too many values");

  const auto* arena_sizes = method.arena_sizes();
  TORCHIR_CHECK_OR_RETURN(ElementsAligned(arena_sizes), Error::kInvalidProgram,
                          "arena sizes are misaligned");
  if (arena_sizes != nullptr) {
    uint64_t total = 0;
    for (uint64_t size : *arena_sizes) {
      TORCHIR_CHECK_OR_RETURN(!__builtin_add_overflow(total, size, &total) &&
                                  total <= (uint64_t{1} << 62),
                              Error::kInvalidProgram, "arena sizes overflow");
    }
  }

  for (uint32_t i = 0; i < num_values; ++i) {
    const pte::EValue* value = values->Get(i);
    // The verifier accepts a union whose type is set but whose table is absent.
    TORCHIR_CHECK_OR_RETURN(value->value() != nullptr, Error::kInvalidProgram,
                            "value %u has a kind but no content", i);
    switch (value->value_type()) {
      case pte::Value::NONE:
        TORCHIR_CHECK_OR_RETURN(false, Error::kInvalidProgram, "value %u has no kind", i);
      case pte::Value::Tensor:
        if (Error e = ValidateTensor(*value->value_as_Tensor(), program, header, arena_sizes);
            e != Error::kOk) {
          Log(LogLevel::kError, "in value %u of method '%s'", i, method.name()->c_str());
          return e;
        }
        break;
      case pte::Value::TensorList: {
        const auto* items = value->value_as_TensorList()->items();
        if (items != nullptr) {
          for (int32_t item : *items) {
            TORCHIR_CHECK_OR_RETURN(IsTensorValue(*values, item), Error::kInvalidProgram,
                                    "tensor list %u names value %d, not a tensor", i, item);
          }
        }
        break;
      }
      case pte::Value::String:
        TORCHIR_CHECK_OR_RETURN(value->value_as_String()->value() != nullptr,
                                Error::kInvalidProgram, "string value %u is empty", i);
        break;
      case pte::Value::IntList:
        TORCHIR_CHECK_OR_RETURN(ElementsAligned(value->value_as_IntList()->items()),
                                Error::kInvalidProgram, "int list %u is misaligned", i);
        break;
      case pte::Value::DoubleList:
        TORCHIR_CHECK_OR_RETURN(ElementsAligned(value->value_as_DoubleList()->items()),
                                Error::kInvalidProgram, "double list %u is misaligned", i);
        break;
      case pte::Value::ScalarTypeValue:
        TORCHIR_CHECK_OR_RETURN(
            IsValidScalarType(static_cast<int>(value->value_as_ScalarTypeValue()->value())),
            Error::kInvalidProgram, "value %u has an unknown scalar type", i);
        break;
      default:
        // Null, Int, Double, Bool and the scalar lists need nothing beyond the
        // verifier; a null list reads as empty.
        if (static_cast<uint8_t>(value->value_type()) > static_cast<uint8_t>(pte::Value::MAX)) {
          TORCHIR_CHECK_OR_RETURN(false, Error::kInvalidProgram, "value %u has unknown kind", i);
        }
        break;
    }
  }

  for (const auto* list : {method.inputs(), method.outputs()}) {
    if (list == nullptr) continue;
    for (int32_t index : *list) {
      TORCHIR_CHECK_OR_RETURN(IsTensorValue(*values, index), Error::kInvalidProgram,
                              "method input/output names value %d, not a tensor", index);
    }
  }
  if (method.inputs() != nullptr) {
    for (int32_t index : *method.inputs()) {
      TORCHIR_CHECK_OR_RETURN(
          values->Get(static_cast<uint32_t>(index))->value_as_Tensor()->allocation() != nullptr,
          Error::kInvalidProgram, "method input %d is not a planned tensor", index);
    }
  }
  const uint32_t num_inputs = method.inputs() ? method.inputs()->size() : 0;
  const uint32_t num_outputs = method.outputs() ? method.outputs()->size() : 0;
  TORCHIR_CHECK_OR_RETURN(
      method.input_names() == nullptr || method.input_names()->size() == num_inputs,
      Error::kInvalidProgram, "input names do not match inputs");
  TORCHIR_CHECK_OR_RETURN(
      method.output_names() == nullptr || method.output_names()->size() == num_outputs,
      Error::kInvalidProgram, "output names do not match outputs");

  const uint32_t num_operators = method.operators() ? method.operators()->size() : 0;
  for (uint32_t i = 0; i < num_operators; ++i) {
    TORCHIR_CHECK_OR_RETURN(method.operators()->Get(i)->name() != nullptr,
                            Error::kInvalidProgram, "operator %u has no name", i);
  }
  const auto* segments = program.segments();
  const uint32_t num_segments = segments ? segments->size() : 0;
  const uint32_t num_delegates = method.delegates() ? method.delegates()->size() : 0;
  for (uint32_t i = 0; i < num_delegates; ++i) {
    const pte::BackendDelegate* delegate = method.delegates()->Get(i);
    TORCHIR_CHECK_OR_RETURN(delegate->backend_id() != nullptr, Error::kInvalidProgram,
                            "delegate %u names no backend", i);
    TORCHIR_CHECK_OR_RETURN(delegate->segment_index() < num_segments, Error::kProgramOutOfBounds,
                            "delegate %u names segment %u of %u", i, delegate->segment_index(),
                            num_segments);
    TORCHIR_CHECK_OR_RETURN(delegate->read_overrun_bytes() <= kMaxReadOverrunBytes,
                            Error::kInvalidProgram,
                            "delegate %u declares %u bytes of read overrun, at most %u", i,
                            delegate->read_overrun_bytes(), kMaxReadOverrunBytes);
    if (delegate->compile_specs() != nullptr) {
      for (const pte::CompileSpec* spec : *delegate->compile_specs()) {
        TORCHIR_CHECK_OR_RETURN(spec->key() != nullptr, Error::kInvalidProgram,
                                "delegate %u has a compile spec without a key", i);
      }
    }
  }

  const uint32_t num_instructions = method.instructions() ? method.instructions()->size() : 0;
  for (uint32_t i = 0; i < num_instructions; ++i) {
    const pte::Instruction* instruction = method.instructions()->Get(i);
    TORCHIR_CHECK_OR_RETURN(instruction->kind() != nullptr, Error::kInvalidProgram,
                            "instruction %u has no content", i);
    // name and debug_nodes are strings the verifier checked (in bounds, terminated);
    // nothing indexes through them, so they need no further check.
    switch (instruction->kind_type()) {
      case pte::InstructionKind::KernelCall: {
        const pte::KernelCall* call = instruction->kind_as_KernelCall();
        TORCHIR_CHECK_OR_RETURN(call->operator_index() < num_operators,
                                Error::kProgramOutOfBounds,
                                "instruction %u names operator %u of %u", i,
                                call->operator_index(), num_operators);
        TORCHIR_RETURN_IF_ERROR(ValidateIndices(call->args(), num_values, "kernel call"));
        break;
      }
      case pte::InstructionKind::DelegateCall: {
        const pte::DelegateCall* call = instruction->kind_as_DelegateCall();
        TORCHIR_CHECK_OR_RETURN(call->delegate_index() < num_delegates,
                                Error::kProgramOutOfBounds,
                                "instruction %u names delegate %u of %u", i,
                                call->delegate_index(), num_delegates);
        TORCHIR_RETURN_IF_ERROR(ValidateIndices(call->args(), num_values, "delegate call"));
        // Planned scratch: inside its arena and 64-byte aligned, as backends expect it.
        if (call->scratch_bytes() > 0) {
          const pte::Allocation* scratch = call->scratch();
          TORCHIR_CHECK_OR_RETURN(scratch != nullptr, Error::kInvalidProgram,
                                  "instruction %u plans %llu bytes of scratch but no place", i,
                                  static_cast<unsigned long long>(call->scratch_bytes()));
          TORCHIR_CHECK_OR_RETURN(
              arena_sizes != nullptr && scratch->arena_index() < arena_sizes->size() &&
                  FitsIn(scratch->offset(), call->scratch_bytes(),
                         arena_sizes->Get(scratch->arena_index())),
              Error::kProgramOutOfBounds,
              "instruction %u: %llu bytes of scratch at offset %llu overrun arena %u of %u", i,
              static_cast<unsigned long long>(call->scratch_bytes()),
              static_cast<unsigned long long>(scratch->offset()), scratch->arena_index(),
              arena_sizes != nullptr ? arena_sizes->size() : 0);
          TORCHIR_CHECK_OR_RETURN(scratch->offset() % 64 == 0, Error::kInvalidProgram,
                                  "instruction %u: scratch offset %llu is not 64-byte aligned", i,
                                  static_cast<unsigned long long>(scratch->offset()));
        }
        const uint32_t slack = method.delegates()->Get(call->delegate_index())->read_overrun_bytes();
        if (slack > 0 && call->args() != nullptr) {
          for (int32_t index : *call->args()) {
            const pte::EValue* arg = values->Get(static_cast<flatbuffers::uoffset_t>(index));
            if (arg->value_type() != pte::Value::Tensor) continue;
            if (Error e = CheckReadSlack(*arg->value_as_Tensor(), slack, program, header,
                                         arena_sizes);
                e != Error::kOk) {
              Log(LogLevel::kError, "in value %d, argument of instruction %u (a delegate call)",
                  index, i);
              return e;
            }
          }
        }
        break;
      }
      default:
        TORCHIR_CHECK_OR_RETURN(false, Error::kInvalidProgram, "instruction %u has no kind", i);
    }
  }
  return Error::kOk;
}

}  // namespace

Error ValidateProgram(Span<const uint8_t> file, pte::FileHeader* header,
                      const pte::Program** program_out) {
  TORCHIR_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(file.data()) % 16 == 0,
                          Error::kInvalidArgument, "program buffer is not 16-byte aligned");
  TORCHIR_CHECK_OR_RETURN(file.size() >= pte::kFileHeaderSize, Error::kInvalidProgram,
                          "file of %zu bytes is too short for a program", file.size());
  TORCHIR_CHECK_OR_RETURN(pte::DecodeFileHeader(file.data(), header), Error::kInvalidProgram,
                          "not a torchir program (bad magic)");
  TORCHIR_CHECK_OR_RETURN(header->version == pte::kFileHeaderVersion, Error::kUnsupportedVersion,
                          "file header version %u, this runtime reads %u", header->version,
                          pte::kFileHeaderVersion);
  TORCHIR_CHECK_OR_RETURN(header->file_size <= file.size(), Error::kProgramOutOfBounds,
                          "file is truncated: %zu bytes of %llu", file.size(),
                          static_cast<unsigned long long>(header->file_size));
  TORCHIR_CHECK_OR_RETURN(header->flatbuffer_offset >= pte::kFileHeaderSize &&
                              header->flatbuffer_offset % 16 == 0 &&
                              FitsIn(header->flatbuffer_offset, header->flatbuffer_size,
                                     header->segment_base_offset),
                          Error::kProgramOutOfBounds, "FlatBuffer range is outside the file");
  TORCHIR_CHECK_OR_RETURN(
      header->segment_base_offset % 64 == 0 &&
          FitsIn(header->segment_base_offset, header->segment_data_size, header->file_size),
      Error::kProgramOutOfBounds, "segment range is outside the file");
  TORCHIR_CHECK_OR_RETURN(header->flatbuffer_size < (uint64_t{1} << 31), Error::kInvalidProgram,
                          "FlatBuffer larger than 2 GiB");

  const uint8_t* fb = file.data() + header->flatbuffer_offset;
  flatbuffers::Verifier verifier(fb, static_cast<size_t>(header->flatbuffer_size),
                                 /*max_depth=*/64, /*max_tables=*/10000000);
  TORCHIR_CHECK_OR_RETURN(pte::VerifyProgramBuffer(verifier), Error::kInvalidProgram,
                          "the program FlatBuffer failed verification");
  const pte::Program* program = pte::GetProgram(fb);
  TORCHIR_CHECK_OR_RETURN(program->version() >= pte::kMinSupportedProgramVersion &&
                              program->version() <= pte::kMaxSupportedProgramVersion,
                          Error::kUnsupportedVersion,
                          "program version %u, this runtime reads %u to %u", program->version(),
                          pte::kMinSupportedProgramVersion, pte::kMaxSupportedProgramVersion);
  if (program->segments() != nullptr) {
    for (const pte::Segment* segment : *program->segments()) {
      TORCHIR_CHECK_OR_RETURN(
          segment->offset() % pte::kSegmentAlignment == 0 &&
              FitsIn(segment->offset(), segment->size(), header->segment_data_size),
          Error::kProgramOutOfBounds, "segment at %llu (+%llu bytes) is outside the segment data",
          static_cast<unsigned long long>(segment->offset()),
          static_cast<unsigned long long>(segment->size()));
    }
  }
  TORCHIR_CHECK_OR_RETURN(program->methods() != nullptr && program->methods()->size() > 0,
                          Error::kInvalidProgram, "program has no methods");
  for (const pte::Method* method : *program->methods()) {
    TORCHIR_RETURN_IF_ERROR(ValidateMethod(*method, *program, *header));
  }
  *program_out = program;
  return Error::kOk;
}

}  // namespace torchir::runtime
