// The emitter: turns a planned Edge graph into the bytes of a .pte program
// (schema/program.fbs, laid out as schema/file_header.h describes).
//
// What EmitProgram writes, for one method:
//   1. values, in first-use order: the graph inputs, then each instruction's
//      arguments as the instructions are written, then the graph outputs. Each
//      ir::Value becomes one Tensor value: constants (weights and lifted
//      constants) point into the one constant segment, where each tensor's
//      bytes start 64-byte aligned and identical bytes are stored once; all
//      others get their planned Allocation. Attributes become Int / Double /
//      Bool / String / IntList / ScalarTypeValue values shared by content;
//      every omitted optional tensor is one shared Null;
//   2. one instruction per node of `order`: a KernelCall for an Edge op (its
//      arguments per dialect::KernelArgumentSlots, its operator the table's
//      kernel name, each distinct name listed once in first-use order), a
//      DelegateCall for a torchir.delegate_call node (dialect/delegate_call.h);
//      each with its debug handle (the node names it came from: the node's own,
//      or the delegate's DelegatePayload::node_names);
//   3. the delegates, each blob its own data segment after the constant one.
// The output depends only on the graph, the order and the payloads: no
// pointer-keyed iteration decides anything, so the same input gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/emit/atomic_file.h"  // WriteFileAtomically, for writing the result
#include "compiler/ir/graph.h"

namespace torchir::emit {

// Where a planned (non-constant) tensor lives.
struct TensorPlacement {
  uint32_t arena = 0;
  uint64_t offset = 0;  // bytes from the start of the arena
};

// What a backend compiled ahead of time for one delegate-call node.
struct DelegatePayload {
  std::string backend_id;  // the name the runtime backend registers under
  std::vector<std::pair<std::string, std::vector<uint8_t>>> compile_specs;
  std::vector<uint8_t> blob;
  // Bytes the backend may read past the end of any tensor the call passes; the
  // memory planner left that slack (the delegate node's read_overrun_bytes) and
  // the program records it for the runtime to verify.
  uint32_t read_overrun_bytes = 0;
  // The Edge nodes the delegate took, in graph order (backend::DelegateSummary::nodes):
  // the delegate call's debug handle in the program. Empty: the call's own node name.
  std::vector<std::string> node_names;
};

// Working memory planned for one delegate call, live during that call only.
struct ScratchPlacement {
  uint32_t arena = 0;
  uint64_t offset = 0;  // bytes from the start of the arena, a multiple of 64
  uint64_t bytes = 0;
};

struct EmitInput {
  // An Edge graph that passed dialect::VerifyEdgeGraph, except that it may also
  // hold delegate-call nodes. Its constants' bytes must be bound.
  const ir::Graph* graph = nullptr;
  // Every node once, in execution order (a topological order).
  std::vector<const ir::Node*> order;
  // Bytes of each arena; TensorPlacement::arena indexes it.
  std::vector<uint64_t> arena_sizes;
  // Every non-constant tensor used: graph inputs and node outputs.
  std::unordered_map<const ir::Value*, TensorPlacement> placements;
  // Indexed by the delegate-call nodes' delegate_index attribute.
  std::vector<DelegatePayload> delegates;
  // The scratch planned for delegate-call nodes (DelegateCall.scratch); a call
  // without an entry has none planned.
  std::unordered_map<const ir::Node*, ScratchPlacement> delegate_scratch;
  std::string method_name = "forward";
  // The signature's names, parallel to the graph's inputs and outputs; empty:
  // the values' own names. Passes rename outputs (relu fused into its linear
  // leaves the linear's value as the output), so a pipeline passes the names
  // the model was exported with, which callers and expected outputs use.
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

// Sizes and counts of an emitted program, for tool output and tests.
struct EmitStats {
  size_t flatbuffer_bytes = 0;
  size_t segment_count = 0;
  size_t constant_bytes = 0;  // the constant segment (deduplicated, with alignment padding)
  size_t delegate_bytes = 0;  // all delegate blobs
  size_t file_bytes = 0;
  size_t value_count = 0;
  size_t instruction_count = 0;
  size_t operator_count = 0;
};

// The whole .pte file for `input`. Errors name the node and tensor at fault: a
// node missing from or repeated in `order`, an input read before it is
// produced, a tensor without a placement or beyond its arena, an unbound
// constant, an attribute of the wrong kind, a bad delegate index, signature
// names that do not match the signature. `stats` (optional) receives the totals.
absl::StatusOr<std::vector<uint8_t>> EmitProgram(const EmitInput& input,
                                                 EmitStats* stats = nullptr);

}  // namespace torchir::emit
