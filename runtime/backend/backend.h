// The delegate interface: a backend runs a subgraph compiled ahead of time
// (a blob in the program's segments). Backends register under the id the
// compiler writes into BackendDelegate.backend_id ("XnnpackBackend").
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/memory_allocator.h"
#include "runtime/kernel/kernel.h"

namespace torchir::runtime {

struct CompileSpecView {
  const char* key;
  Span<const uint8_t> value;
};

class EventTracer;

// Where a delegate call that times the nodes inside it reports them: node k of the call's debug
// handle (Method::instruction_debug_node(instruction, k)) through
// tracer->DelegateNodeEvent(instruction, k, begin_ns, end_ns), from the calling thread.
struct DelegateTrace {
  EventTracer* tracer;
  size_t instruction;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Parses and checks the blob (untrusted: it comes from the program file),
  // checks `args` against it (the delegate call's inputs then outputs, tensors
  // already bound to their final memory, which stays put), and prepares to
  // run. May allocate (through `allocator` or the backend's own library); the
  // returned handle is passed to Execute and Destroy.
  virtual Result<void*> Init(Span<const uint8_t> blob, Span<const CompileSpecView> specs,
                             KernelArgs args, MemoryAllocator& allocator) = 0;
  // Runs the subgraph. Must not allocate.
  virtual Error Execute(void* handle, KernelArgs args) = 0;
  // Execute while an EventTracer is installed (torchir-run --profile, torchir-bench): a backend
  // that can time the nodes it runs reports them to `trace`; the others just run.
  virtual Error ExecuteTraced(void* handle, KernelArgs args, const DelegateTrace& trace) {
    (void)trace;
    return Execute(handle, args);
  }
  // Releases everything Init acquired.
  virtual void Destroy(void* handle) = 0;
  // Bytes of working memory Execute needs for `handle` (0: none). The Method binds
  // the bytes the compiler planned for the call (DelegateCall.scratch) when they are
  // at least this many, else one buffer shared with its other delegates (they run
  // one at a time).
  virtual size_t ScratchBytes(void* /*handle*/) const { return 0; }
  // Hands `handle` its scratch: ScratchBytes(handle) bytes or more, 64-byte
  // aligned, valid until Destroy. Its contents last only during one Execute:
  // between calls other instructions' tensors or other delegates use the bytes.
  // Called once, after every delegate of the Method is initialised and before
  // the first Execute; not called when ScratchBytes is 0.
  virtual void BindScratch(void* /*handle*/, void* /*scratch*/) {}
  // Bytes the backend's kernels may read past the end of any tensor passed to
  // it. Method::Load refuses a delegate whose program declares less slack
  // (BackendDelegate.read_overrun_bytes); load has verified the declared slack.
  virtual uint32_t ReadOverrunBytes() const { return 0; }
};

inline constexpr size_t kMaxRegisteredBackends = 16;

// Registers `backend` (not owned; must outlive its use) under `id`.
// kInvalidArgument for a duplicate id, kOutOfMemory when the table is full.
Error RegisterBackend(const char* id, Backend* backend);

// The backend registered under `id`, or nullptr.
Backend* FindBackend(const char* id, size_t id_length);

}  // namespace torchir::runtime
