// The XNNPACK delegate's node table: one row per op a blob may name
// (backends/xnnpack/serialization/xnnpack_blob.fbs, Node.op), mapping it to
// the XNNPACK define call it becomes. Each row takes its op name, input count
// and `ints` / `floats` layout from backends/xnnpack/serialization/node_params.h
// (the compiler writes nodes through the same header), and its definition
// checks everything XNNPACK would otherwise trust: parameter ranges and that
// every shape is what the op implies, because XNNPACK sizes its reads and
// writes from the parameters while the blob is untrusted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/serialization/node_params.h"
#include "runtime/core/error.h"
#include "runtime/core/span.h"

// The XNNPACK subgraph under construction (xnn_subgraph_t), without pulling
// xnnpack.h into every includer.
struct xnn_subgraph;

namespace torchir::runtime::xnnpack {

// The largest rank XNNPACK's subgraph API accepts (XNN_MAX_TENSOR_DIMS in the
// Debian 2022-02-16 snapshot; a static_assert in the .cpp keeps them equal).
inline constexpr size_t kMaxValueRank = 6;

// What a node definition knows about one blob value once the backend has
// validated and defined it.
struct ValueInfo {
  uint32_t id = 0;  // the XNNPACK value id
  size_t rank = 0;
  size_t dims[kMaxValueRank] = {};
  size_t numel = 1;
  // Data known at init (weights from the program's constants, or a blob
  // constant): what XNNPACK packs filters and biases from.
  bool is_static = false;
};

inline constexpr size_t kMaxNodeInputs = 3;

// One node of the blob, its values resolved and its indices already in range.
struct NodeCall {
  xnn_subgraph* subgraph = nullptr;
  size_t index = 0;  // the node's index in the blob, for messages
  const char* op = "";
  const ValueInfo* inputs[kMaxNodeInputs] = {};
  size_t num_inputs = 0;
  const ValueInfo* output = nullptr;
  Span<const int64_t> ints;
  Span<const double> floats;
  // What XNNPACK will allocate for this delegate so far (internal values,
  // indirection buffers of the nodes defined before), and the limit: a node
  // adds its own indirection buffer and is refused with kOutOfMemory beyond it.
  uint64_t* memory_used = nullptr;
  uint64_t memory_budget = 0;
};

// Checks the call's parameters and shapes, then defines the XNNPACK node.
// kInvalidProgram (logged) for a call the op does not accept; kDelegateFailed
// (with XNNPACK's status logged) when XNNPACK refuses it.
using DefineNodeFn = Error (*)(const NodeCall& call);

// A count that the row's definition checks itself (it depends on a rank).
inline constexpr int kVariableCount = ::torchir::xnnpack::node_params::kVariableCount;

// One row of the table: the op's name, how many inputs it takes, its
// parameter counts and its definition.
struct NodeDefinition {
  const char* op;
  uint8_t min_inputs;
  uint8_t max_inputs;  // > min_inputs for an optional trailing bias
  int ints;            // exact count or kVariableCount
  int floats;          // exact count
  DefineNodeFn define;
};

// Every op the delegate runs. Every node has exactly one output.
Span<const NodeDefinition> NodeDefinitions();

// The row for `op` (not NUL-terminated), or nullptr.
const NodeDefinition* FindNodeDefinition(const char* op, size_t length);

// XNNPACK's xnn_status as text ("invalid_parameter"), for logs.
const char* XnnStatusName(int status);

}  // namespace torchir::runtime::xnnpack
