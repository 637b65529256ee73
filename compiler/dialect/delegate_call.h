// The delegate-call node: what a partitioner leaves in an Edge graph in place of
// a subgraph it handed to a backend. It is not an Edge op (it has no table row
// and no portable kernel); the emitter turns it into a DelegateCall instruction.
//
//   %y... = torchir.delegate_call(%x...) delegate_index=<i>
//
// Its inputs are the subgraph's inputs, its outputs the subgraph's outputs, both
// in the order the backend's compiled blob expects them; `delegate_index` picks
// the compiled payload among the program's delegates.
#pragma once

namespace torchir::dialect {

inline constexpr char kDelegateCallOp[] = "torchir.delegate_call";
// An Int attribute: the index of the node's payload in the program's delegates.
inline constexpr char kDelegateIndexAttr[] = "delegate_index";
// An optional Int attribute: the multiply-accumulates of the nodes the delegate
// took (what tools report as the delegated share of a model's work).
inline constexpr char kDelegateMacsAttr[] = "macs";
// An optional Int attribute: bytes of working memory one call needs (what its
// backend declared for the thread count the program is compiled for). The memory
// planner places them like a tensor live during this call only.
inline constexpr char kDelegateScratchAttr[] = "scratch_bytes";
// An optional Int attribute: the index of an input whose storage the call's single
// output may take over when nothing reads that input after the call (an add of a
// residual written over the residual). The backend promises to read each element of
// that input only to compute the same element of the output, before writing it. The
// memory planner decides; the backend's kernels must run either way.
inline constexpr char kDelegateInPlaceInputAttr[] = "in_place_input";

}  // namespace torchir::dialect
