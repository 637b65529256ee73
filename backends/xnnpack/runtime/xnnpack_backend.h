// The XNNPACK delegate: runs the subgraphs the compiler's XNNPACK partitioner
// wrote as blobs (backends/xnnpack/serialization/xnnpack_blob.fbs).
//
// Init, for one delegate call:
//   1. verifies the blob (FlatBuffers verifier, identifier "TXN1", version 1),
//      which is as untrusted as the program it comes from;
//   2. binds every blob value to its argument of the call: shapes must equal
//      the argument tensors' sizes exactly (the compiler writes the physical
//      NHWC shapes into the program), constants become static XNNPACK values
//      read in place, the rest external inputs and outputs;
//   3. checks every node through its row in node_definitions.h (parameters
//      and shapes) and the dataflow (no writes to inputs or constants, every
//      value produced before it is read, every output produced);
//   4. builds the XNNPACK runtime and binds the external values to the
//      argument tensors once: their memory never moves (planned arenas).
// Execute is then xnn_invoke_runtime alone: no allocation, no copies.
//
// What it relies on from the Method (runtime/backend/backend.h): the blob and
// the constant tensors stay where they are until Destroy (they are the
// program's segments), argument tensors never move, and XNNPACK may read up
// to XNN_EXTRA_BYTES (16) past any tensor it is given (the memory planner's
// extra_bytes and the segments' tail padding provide them). Compile specs are
// not read. Init takes one small Delegate record from the Method's
// allocator; XNNPACK allocates its runtime itself and Destroy frees it.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"

namespace torchir::runtime::xnnpack {

// The id the compiler writes into BackendDelegate.backend_id.
inline constexpr char kXnnpackBackendId[] = "XnnpackBackend";

struct XnnpackOptions {
  // Threads each delegate runs on (1: the calling thread only, no pool).
  uint32_t num_threads = 1;
  // Bytes XNNPACK may allocate for one delegate's internal values and
  // indirection buffers, which the blob's shapes and window parameters decide
  // (a small hostile program can otherwise make XNNPACK allocate far more
  // than the program holds). Init refuses a blob needing more with
  // kOutOfMemory before XNNPACK allocates. Weights XNNPACK packs are bounded
  // by the program's constants and not counted.
  uint64_t max_memory_bytes = uint64_t{1} << 40;
};

// Initialises XNNPACK and registers the backend under kXnnpackBackendId.
// Idempotent: a later call only changes the thread count and memory budget
// for delegates initialised after it (ones already initialised keep their pool until they
// are destroyed). kInvalidArgument for 0 threads or a 0 budget, kNotSupported when XNNPACK
// does not run on this CPU.
Error RegisterXnnpackBackend(const XnnpackOptions& options = {});

}  // namespace torchir::runtime::xnnpack
