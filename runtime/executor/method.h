// Method: one executable function of a Program ("forward"), ready to run.
//
// Load (init) does all the work that can fail or allocate: binds every value
// to its memory (planned arenas, constant segments), resolves each operator
// to a registered kernel and lets the kernel check its arguments,
// initialises delegates through the backend registry and binds their scratch
// (the bytes the compiler planned for each call in an arena when they cover
// what the backend asks, else one buffer shared by the delegates that need
// more). Execute() then runs the instruction list and allocates nothing.
//
//   FileDataLoader file = FileDataLoader::Open("model.pte").get();  // check ok() first
//   Program program = Program::Load(file).get();
//   MallocAllocator allocator;
//   Method method = Method::Load(program, "forward", allocator).get();
//   method.SetInput(0, pixels, sizeof(pixels));
//   method.Execute();
//   const Tensor& logits = method.output(0);
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/program.h"

namespace torchir::runtime {

class Backend;
struct Kernel;

struct MethodOptions {
  // The planned arenas, one per entry of the method's arena sizes, each at
  // least that large and 64-byte aligned. Empty: Load allocates them from the
  // allocator.
  Span<const Span<uint8_t>> arenas;
  // Called around every instruction by Execute; may be null.
  EventTracer* tracer = nullptr;
};

class Method {
 public:
  // `program`, its loader and `allocator` must outlive the Method. kNotFound
  // for an unknown method, kKernelNotFound / kBackendNotFound when a kernel or
  // backend is not registered, kOutOfMemory when the allocator fails, and the
  // kernel's or backend's error when it refuses its arguments.
  static Result<Method> Load(const Program& program, const char* name,
                             MemoryAllocator& allocator, const MethodOptions& options = {});

  Method(Method&& other) noexcept;
  Method& operator=(Method&&) = delete;
  Method(const Method&) = delete;
  ~Method();

  size_t num_inputs() const { return num_inputs_; }
  size_t num_outputs() const { return num_outputs_; }
  // The graph's names for inputs and outputs ("" when the program has none).
  const char* input_name(size_t index) const;
  const char* output_name(size_t index) const;

  // Input tensors live in planned memory: write them in place through
  // mutable_input(i).mutable_data(), or copy with SetInput. Set them before
  // every Execute(): the plan may reuse an input's bytes once it is consumed.
  const Tensor& input(size_t index) const { return *inputs_[index]; }
  Tensor& mutable_input(size_t index) { return *inputs_[index]; }
  // Copies `nbytes` (which must equal the input's byte size) into input `index`.
  Error SetInput(size_t index, const void* data, size_t nbytes);

  // Runs every instruction in order. Stops at the first failing instruction
  // and returns its error (logged with the instruction's name).
  Error Execute();

  // Valid after Execute(); the data lives in the arenas (or the program for a
  // constant output) until the next Execute().
  const Tensor& output(size_t index) const { return *outputs_[index]; }

  size_t num_instructions() const { return num_instructions_; }
  const char* instruction_name(size_t index) const;
  bool instruction_is_delegate(size_t index) const;
  // The instruction's debug handle: the graph nodes it came from (a kernel call:
  // its node; a delegate call: the nodes the delegate took, in graph order). Read
  // from the program on each call, for tools; a program written without debug
  // handles reports the instruction's name as its one node. "" out of range.
  size_t instruction_num_debug_nodes(size_t index) const;
  const char* instruction_debug_node(size_t index, size_t node) const;
  // What the instruction runs: its kernel's operator name ("convolution") or its
  // delegate's backend id ("XnnpackBackend"); "" out of range.
  const char* instruction_op(size_t index) const;

  void set_event_tracer(EventTracer* tracer) { tracer_ = tracer; }

 private:
  struct Instruction {
    const Kernel* kernel = nullptr;
    Backend* backend = nullptr;
    void* delegate_handle = nullptr;
    EValue** args = nullptr;
    size_t num_args = 0;
    const char* name = "";
  };

  Method() = default;
  Error Init(const Program& program, const void* method, MemoryAllocator& allocator,
             const MethodOptions& options);

  const void* method_ = nullptr;  // the pte::Method
  EValue* values_ = nullptr;
  size_t num_values_ = 0;
  Instruction* instructions_ = nullptr;
  size_t num_instructions_ = 0;
  Tensor** inputs_ = nullptr;
  size_t num_inputs_ = 0;
  Tensor** outputs_ = nullptr;
  size_t num_outputs_ = 0;
  EventTracer* tracer_ = nullptr;
};

}  // namespace torchir::runtime
