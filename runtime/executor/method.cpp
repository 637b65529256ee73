#include "runtime/executor/method.h"

#include <cstring>

#include "runtime/backend/backend.h"
#include "runtime/kernel/kernel_registry.h"
#include "runtime/platform/platform.h"
#include "schema/program_generated.h"

namespace torchir::runtime {
namespace {

constexpr size_t kArenaAlignment = 64;

const pte::Method& AsMethod(const void* method) { return *static_cast<const pte::Method*>(method); }

template <typename T>
Span<const T> AsSpan(const flatbuffers::Vector<T>* vector) {
  // Empty vectors may be misaligned (validation checks only non-empty ones).
  return vector != nullptr && vector->size() > 0 ? Span<const T>(vector->data(), vector->size())
                                                 : Span<const T>();
}

}  // namespace

Result<Method> Method::Load(const Program& program, const char* name, MemoryAllocator& allocator,
                            const MethodOptions& options) {
  const pte::Method* method = program.FindMethod(name);
  if (method == nullptr) {
    Log(LogLevel::kError, "program has no method '%s'", name);
    return Error::kNotFound;
  }
  Method result;
  Error error = result.Init(program, method, allocator, options);
  if (error != Error::kOk) return error;  // `result`'s destructor frees its delegates
  return Result<Method>(static_cast<Method&&>(result));
}

Error Method::Init(const Program& program, const void* method_ptr, MemoryAllocator& allocator,
                   const MethodOptions& options) {
  method_ = method_ptr;
  tracer_ = options.tracer;
  const pte::Method& method = AsMethod(method_ptr);
  const char* method_name = method.name()->c_str();

  // 1. Arenas: the app's, or allocated once here.
  Span<const uint64_t> arena_sizes = AsSpan(method.arena_sizes());
  uint8_t** arenas = allocator.AllocateArray<uint8_t*>(arena_sizes.size() + 1);
  TORCHIR_CHECK_OR_RETURN(arenas != nullptr, Error::kOutOfMemory, "out of memory for arenas");
  if (!options.arenas.empty()) {
    TORCHIR_CHECK_OR_RETURN(options.arenas.size() == arena_sizes.size(), Error::kInvalidArgument,
                            "method '%s' needs %zu arenas, %zu given", method_name,
                            arena_sizes.size(), options.arenas.size());
  }
  for (size_t i = 0; i < arena_sizes.size(); ++i) {
    if (!options.arenas.empty()) {
      const Span<uint8_t>& given = options.arenas[i];
      TORCHIR_CHECK_OR_RETURN(given.size() >= arena_sizes[i] &&
                                  reinterpret_cast<uintptr_t>(given.data()) % kArenaAlignment == 0,
                              Error::kInvalidArgument,
                              "arena %zu must be 64-byte aligned and hold %llu bytes", i,
                              static_cast<unsigned long long>(arena_sizes[i]));
      arenas[i] = given.data();
    } else {
      TORCHIR_CHECK_OR_RETURN(arena_sizes[i] <= SIZE_MAX, Error::kOutOfMemory, "arena too large");
      const size_t size = arena_sizes[i] > 0 ? static_cast<size_t>(arena_sizes[i]) : 1;
      arenas[i] = static_cast<uint8_t*>(allocator.Allocate(size, kArenaAlignment));
      TORCHIR_CHECK_OR_RETURN(arenas[i] != nullptr, Error::kOutOfMemory,
                              "cannot allocate arena %zu (%llu bytes)", i,
                              static_cast<unsigned long long>(arena_sizes[i]));
    }
  }

  // 2. Values. Tensors first (tensor lists point at them), then the rest.
  const auto& values = *method.values();
  num_values_ = values.size();
  values_ = allocator.AllocateArray<EValue>(num_values_);
  size_t num_tensors = 0;
  for (const pte::EValue* value : values) {
    if (value->value_type() == pte::Value::Tensor) ++num_tensors;
  }
  Tensor* tensors = allocator.AllocateArray<Tensor>(num_tensors);
  TORCHIR_CHECK_OR_RETURN(values_ != nullptr && (tensors != nullptr || num_tensors == 0),
                          Error::kOutOfMemory, "out of memory for %zu values", num_values_);
  size_t next_tensor = 0;
  for (size_t i = 0; i < num_values_; ++i) {
    const pte::EValue* value = values.Get(static_cast<flatbuffers::uoffset_t>(i));
    if (value->value_type() != pte::Value::Tensor) continue;
    const pte::Tensor& t = *value->value_as_Tensor();
    uint8_t* data = nullptr;
    if (t.constant() != nullptr) {
      Span<const uint8_t> segment = program.segment(t.constant()->segment_index());
      data = const_cast<uint8_t*>(segment.data()) + t.constant()->offset();
    } else {
      data = arenas[t.allocation()->arena_index()] + t.allocation()->offset();
    }
    Tensor* tensor = &tensors[next_tensor++];
    *tensor = Tensor(static_cast<ScalarType>(t.scalar_type()), AsSpan(t.sizes()),
                     AsSpan(t.dim_order()), data);
    tensor->set_constant(t.constant() != nullptr);
    values_[i] = EValue::FromTensor(tensor);
  }
  for (size_t i = 0; i < num_values_; ++i) {
    const pte::EValue* value = values.Get(static_cast<flatbuffers::uoffset_t>(i));
    switch (value->value_type()) {
      case pte::Value::Tensor:
      case pte::Value::Null:
      case pte::Value::NONE:
        break;
      case pte::Value::Int: values_[i] = EValue::FromInt(value->value_as_Int()->value()); break;
      case pte::Value::Double:
        values_[i] = EValue::FromDouble(value->value_as_Double()->value());
        break;
      case pte::Value::Bool: values_[i] = EValue::FromBool(value->value_as_Bool()->value()); break;
      case pte::Value::String: {
        const flatbuffers::String* s = value->value_as_String()->value();
        values_[i] = EValue::FromString(s->c_str(), s->size());
        break;
      }
      case pte::Value::IntList:
        values_[i] = EValue::FromIntList(AsSpan(value->value_as_IntList()->items()));
        break;
      case pte::Value::DoubleList:
        values_[i] = EValue::FromDoubleList(AsSpan(value->value_as_DoubleList()->items()));
        break;
      case pte::Value::BoolList:
        values_[i] = EValue::FromBoolList(AsSpan(value->value_as_BoolList()->items()));
        break;
      case pte::Value::ScalarTypeValue:
        values_[i] = EValue::FromScalarType(
            static_cast<ScalarType>(value->value_as_ScalarTypeValue()->value()));
        break;
      case pte::Value::TensorList: {
        Span<const int32_t> items = AsSpan(value->value_as_TensorList()->items());
        Tensor** list = allocator.AllocateArray<Tensor*>(items.size() + 1);
        TORCHIR_CHECK_OR_RETURN(list != nullptr, Error::kOutOfMemory, "out of memory");
        for (size_t k = 0; k < items.size(); ++k) list[k] = &values_[items[k]].to_tensor();
        values_[i] = EValue::FromTensorList(Span<Tensor* const>(list, items.size()));
        break;
      }
    }
  }

  // 3. Inputs and outputs.
  Span<const int32_t> inputs = AsSpan(method.inputs());
  Span<const int32_t> outputs = AsSpan(method.outputs());
  inputs_ = allocator.AllocateArray<Tensor*>(inputs.size() + 1);
  outputs_ = allocator.AllocateArray<Tensor*>(outputs.size() + 1);
  TORCHIR_CHECK_OR_RETURN(inputs_ != nullptr && outputs_ != nullptr, Error::kOutOfMemory,
                          "out of memory");
  for (size_t i = 0; i < inputs.size(); ++i) inputs_[i] = &values_[inputs[i]].to_tensor();
  for (size_t i = 0; i < outputs.size(); ++i) outputs_[i] = &values_[outputs[i]].to_tensor();
  num_inputs_ = inputs.size();
  num_outputs_ = outputs.size();

  // 4. Kernels, resolved once per operator.
  const size_t num_operators = method.operators() ? method.operators()->size() : 0;
  const Kernel** kernels = allocator.AllocateArray<const Kernel*>(num_operators + 1);
  TORCHIR_CHECK_OR_RETURN(kernels != nullptr, Error::kOutOfMemory, "out of memory");
  for (size_t i = 0; i < num_operators; ++i) {
    const flatbuffers::String* op =
        method.operators()->Get(static_cast<flatbuffers::uoffset_t>(i))->name();
    kernels[i] = FindKernel(op->c_str(), op->size());
    TORCHIR_CHECK_OR_RETURN(kernels[i] != nullptr, Error::kKernelNotFound,
                            "no kernel registered for operator '%s'", op->c_str());
  }

  // 5. Instructions: bind arguments, let kernels check them, init delegates.
  const auto* instructions = method.instructions();
  const size_t count = instructions ? instructions->size() : 0;
  instructions_ = allocator.AllocateArray<Instruction>(count + 1);
  TORCHIR_CHECK_OR_RETURN(instructions_ != nullptr, Error::kOutOfMemory, "out of memory");
  for (size_t i = 0; i < count; ++i) {
    const pte::Instruction* source = instructions->Get(static_cast<flatbuffers::uoffset_t>(i));
    Instruction& instruction = instructions_[i];
    instruction.name = source->name() != nullptr ? source->name()->c_str() : "";
    const flatbuffers::Vector<int32_t>* arg_indices =
        source->kind_type() == pte::InstructionKind::KernelCall
            ? source->kind_as_KernelCall()->args()
            : source->kind_as_DelegateCall()->args();
    Span<const int32_t> indices = AsSpan(arg_indices);
    instruction.args = allocator.AllocateArray<EValue*>(indices.size() + 1);
    TORCHIR_CHECK_OR_RETURN(instruction.args != nullptr, Error::kOutOfMemory, "out of memory");
    for (size_t k = 0; k < indices.size(); ++k) instruction.args[k] = &values_[indices[k]];
    instruction.num_args = indices.size();
    KernelArgs args(instruction.args, instruction.num_args);

    if (source->kind_type() == pte::InstructionKind::KernelCall) {
      const Kernel* kernel = kernels[source->kind_as_KernelCall()->operator_index()];
      // Outputs are the trailing arguments; none may be read-only program data.
      TORCHIR_CHECK_OR_RETURN(args.size() >= kernel->num_outputs, Error::kInvalidProgram,
                              "instruction %zu (%s): too few arguments", i, instruction.name);
      for (size_t k = args.size() - kernel->num_outputs; k < args.size(); ++k) {
        TORCHIR_CHECK_OR_RETURN(args[k]->is_tensor() && !args[k]->to_tensor().is_constant(),
                                Error::kInvalidProgram,
                                "instruction %zu (%s): output %zu is not a planned tensor", i,
                                instruction.name, k);
      }
      Error error = kernel->check(args);
      if (error != Error::kOk) {
        Log(LogLevel::kError, "instruction %zu (%s): kernel '%s' refused its arguments: %s", i,
            instruction.name, kernel->name, ErrorName(error));
        return error;
      }
      instruction.kernel = kernel;
    } else {
      const pte::BackendDelegate* delegate = method.delegates()->Get(
          source->kind_as_DelegateCall()->delegate_index());
      const flatbuffers::String* id = delegate->backend_id();
      Backend* backend = FindBackend(id->c_str(), id->size());
      TORCHIR_CHECK_OR_RETURN(backend != nullptr, Error::kBackendNotFound,
                              "instruction %zu (%s): no backend '%s' registered", i,
                              instruction.name, id->c_str());
      // Validation checked that the declared slack exists after every argument.
      TORCHIR_CHECK_OR_RETURN(
          delegate->read_overrun_bytes() >= backend->ReadOverrunBytes(), Error::kInvalidProgram,
          "instruction %zu (%s): the program leaves %u bytes after each tensor, backend '%s' may "
          "read %u past them (recompile the program)",
          i, instruction.name, delegate->read_overrun_bytes(), id->c_str(),
          backend->ReadOverrunBytes());
      const size_t num_specs = delegate->compile_specs() ? delegate->compile_specs()->size() : 0;
      CompileSpecView* specs = allocator.AllocateArray<CompileSpecView>(num_specs + 1);
      TORCHIR_CHECK_OR_RETURN(specs != nullptr, Error::kOutOfMemory, "out of memory");
      for (size_t k = 0; k < num_specs; ++k) {
        const pte::CompileSpec* spec =
            delegate->compile_specs()->Get(static_cast<flatbuffers::uoffset_t>(k));
        specs[k] = CompileSpecView{spec->key()->c_str(), AsSpan(spec->value())};
      }
      Result<void*> handle =
          backend->Init(program.segment(delegate->segment_index()),
                        Span<const CompileSpecView>(specs, num_specs), args, allocator);
      if (!handle.ok()) {
        Log(LogLevel::kError, "instruction %zu (%s): backend '%s' failed to initialise: %s", i,
            instruction.name, id->c_str(), ErrorName(handle.error()));
        return handle.error();
      }
      instruction.backend = backend;
      instruction.delegate_handle = handle.get();
    }
    num_instructions_ = i + 1;  // from here on the destructor tears this one down
  }
  num_instructions_ = count;

  // 6. Delegate scratch: the bytes the compiler planned for the call when they cover what the
  // backend asks now (the plan assumed a thread count; more threads ask for more), else one
  // buffer, of the largest size asked, shared by the rest: delegates run one at a time.
  size_t shared_bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const Instruction& instruction = instructions_[i];
    if (instruction.backend == nullptr) continue;
    const size_t bytes = instruction.backend->ScratchBytes(instruction.delegate_handle);
    if (bytes == 0) continue;
    const pte::DelegateCall* call =
        instructions->Get(static_cast<flatbuffers::uoffset_t>(i))->kind_as_DelegateCall();
    // Validation put the planned bytes inside their arena, 64-byte aligned.
    if (call->scratch() != nullptr && call->scratch_bytes() >= bytes) {
      instruction.backend->BindScratch(
          instruction.delegate_handle,
          arenas[call->scratch()->arena_index()] + call->scratch()->offset());
    } else if (bytes > shared_bytes) {
      shared_bytes = bytes;
    }
  }
  if (shared_bytes > 0) {
    void* scratch = allocator.Allocate(shared_bytes, 64);
    TORCHIR_CHECK_OR_RETURN(scratch != nullptr, Error::kOutOfMemory,
                            "out of memory for %zu bytes of delegate scratch", shared_bytes);
    for (size_t i = 0; i < count; ++i) {
      const Instruction& instruction = instructions_[i];
      if (instruction.backend == nullptr) continue;
      const size_t bytes = instruction.backend->ScratchBytes(instruction.delegate_handle);
      const pte::DelegateCall* call =
          instructions->Get(static_cast<flatbuffers::uoffset_t>(i))->kind_as_DelegateCall();
      if (bytes == 0 || (call->scratch() != nullptr && call->scratch_bytes() >= bytes)) continue;
      instruction.backend->BindScratch(instruction.delegate_handle, scratch);
    }
  }
  return Error::kOk;
}

Method::Method(Method&& other) noexcept
    : method_(other.method_),
      values_(other.values_),
      num_values_(other.num_values_),
      instructions_(other.instructions_),
      num_instructions_(other.num_instructions_),
      inputs_(other.inputs_),
      num_inputs_(other.num_inputs_),
      outputs_(other.outputs_),
      num_outputs_(other.num_outputs_),
      tracer_(other.tracer_) {
  other.instructions_ = nullptr;
  other.num_instructions_ = 0;
}

Method::~Method() {
  for (size_t i = 0; i < num_instructions_; ++i) {
    Instruction& instruction = instructions_[i];
    if (instruction.backend != nullptr) instruction.backend->Destroy(instruction.delegate_handle);
  }
}

const char* Method::input_name(size_t index) const {
  const auto* names = AsMethod(method_).input_names();
  return names != nullptr && index < names->size()
             ? names->Get(static_cast<flatbuffers::uoffset_t>(index))->c_str()
             : "";
}

const char* Method::output_name(size_t index) const {
  const auto* names = AsMethod(method_).output_names();
  return names != nullptr && index < names->size()
             ? names->Get(static_cast<flatbuffers::uoffset_t>(index))->c_str()
             : "";
}

const char* Method::instruction_name(size_t index) const {
  return index < num_instructions_ ? instructions_[index].name : "";
}

bool Method::instruction_is_delegate(size_t index) const {
  return index < num_instructions_ && instructions_[index].backend != nullptr;
}

namespace {

// The debug_nodes of instruction `index` of a method whose instructions were bound.
const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* DebugNodes(const void* method,
                                                                                size_t index) {
  return AsMethod(method)
      .instructions()
      ->Get(static_cast<flatbuffers::uoffset_t>(index))
      ->debug_nodes();
}

}  // namespace

const char* Method::instruction_op(size_t index) const {
  if (index >= num_instructions_) return "";
  const pte::Method& method = AsMethod(method_);
  const pte::Instruction* instruction =
      method.instructions()->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (instruction->kind_type() == pte::InstructionKind::KernelCall) {
    return method.operators()
        ->Get(instruction->kind_as_KernelCall()->operator_index())
        ->name()
        ->c_str();
  }
  return method.delegates()
      ->Get(instruction->kind_as_DelegateCall()->delegate_index())
      ->backend_id()
      ->c_str();
}

size_t Method::instruction_num_debug_nodes(size_t index) const {
  if (index >= num_instructions_) return 0;
  const auto* nodes = DebugNodes(method_, index);
  return nodes != nullptr && nodes->size() > 0 ? nodes->size() : 1;
}

const char* Method::instruction_debug_node(size_t index, size_t node) const {
  if (index >= num_instructions_) return "";
  const auto* nodes = DebugNodes(method_, index);
  if (nodes == nullptr || nodes->size() == 0) return node == 0 ? instructions_[index].name : "";
  return node < nodes->size() ? nodes->Get(static_cast<flatbuffers::uoffset_t>(node))->c_str() : "";
}

Error Method::SetInput(size_t index, const void* data, size_t nbytes) {
  TORCHIR_CHECK_OR_RETURN(index < num_inputs_, Error::kIndexOutOfRange,
                          "input %zu of %zu", index, num_inputs_);
  Tensor& tensor = *inputs_[index];
  TORCHIR_CHECK_OR_RETURN(nbytes == tensor.nbytes(), Error::kShapeMismatch,
                          "input %zu takes %zu bytes, %zu given", index, tensor.nbytes(), nbytes);
  if (nbytes > 0) std::memmove(tensor.mutable_data(), data, nbytes);
  return Error::kOk;
}

Error Method::Execute() {
  KernelContext context;
  for (size_t i = 0; i < num_instructions_; ++i) {
    const Instruction& instruction = instructions_[i];
    const bool is_delegate = instruction.backend != nullptr;
    if (tracer_ != nullptr) tracer_->BeginInstruction(i, instruction.name, is_delegate);
    KernelArgs args(instruction.args, instruction.num_args);
    Error error;
    if (is_delegate) {
      error = tracer_ == nullptr
                  ? instruction.backend->Execute(instruction.delegate_handle, args)
                  : instruction.backend->ExecuteTraced(instruction.delegate_handle, args,
                                                       DelegateTrace{tracer_, i});
    } else {
      context.instruction_name = instruction.name;
      error = instruction.kernel->run(context, args);
    }
    if (tracer_ != nullptr) tracer_->EndInstruction(i, error);
    if (error != Error::kOk) {
      Log(LogLevel::kError, "instruction %zu (%s) failed: %s", i, instruction.name,
          ErrorName(error));
      return error;
    }
  }
  return Error::kOk;
}

}  // namespace torchir::runtime
