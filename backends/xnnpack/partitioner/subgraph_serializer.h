// Builds the delegate blob (backends/xnnpack/serialization/xnnpack_blob.fbs) of one
// region: the XNNPACK values and nodes its Edge nodes become, and the argument list
// the delegate call passes (activation inputs, then constants, then outputs).
//
// The capability table's serialisers call it node by node in graph order:
//   - Operand / BroadcastOperand / Constant give the blob value of something a node reads
//     (a value an earlier node of the region wrote, or a new argument);
//   - Output gives the blob value a node writes for one of its graph outputs;
//   - Internal / StaticData make values only the blob knows (decomposition temporaries and
//     the tiny constants of decompositions, such as hardsigmoid's 3 and 1/6);
//   - AddNode<Op> appends an XNNPACK node laid out as Op (serialization/node_params.h, the
//     layout the delegate reads); FoldClamp folds a clamp into the node before it.
// Finish then decides the outputs (values read outside the region or returned by the graph)
// and numbers the arguments. Values and nodes are numbered in creation order and the
// FlatBuffer is built with defaults forced, so the same region gives the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/xnnpack/partitioner/region_tools.h"
#include "backends/xnnpack/serialization/node_params.h"
#include "compiler/ir/graph.h"

namespace torchir::xnnpack {

class SubgraphSerializer {
 public:
  // `members` are the region's nodes in graph order.
  SubgraphSerializer(Layout layout, const std::vector<const ir::Node*>& members);

  Layout layout() const { return layout_; }

  // The dims XNNPACK sees for `value` in the region's layout.
  std::vector<int64_t> Dims(const ir::Value* value) const;

  // The blob value holding `value` for a node that reads it elementwise: what a region node
  // wrote, else a new argument (an activation in the region's layout, or a constant
  // repacked into it).
  uint32_t Operand(ir::Value* value);

  // `value` as an operand of an elementwise op whose result has rank `rank`, stored so that
  // XNNPACK's NumPy broadcasting over physical dims pairs the elements PyTorch pairs: lower
  // rank constants are repacked to rank `rank`, lower-rank activations get a static_reshape
  // (the support check made sure their elements need not move).
  uint32_t BroadcastOperand(ir::Value* value, size_t rank);

  // The constant `value` repacked by `transform`, as a constant argument.
  uint32_t Constant(ir::Value* value, const ConstantTransform& transform);

  // A new blob value for `value`, an output of the node being serialised.
  uint32_t Output(ir::Value* value);

  // A value internal to the blob.
  uint32_t Internal(std::vector<int64_t> dims);

  // A tiny float constant stored in the blob itself (decomposition constants only).
  uint32_t StaticData(std::vector<int64_t> dims, std::vector<float> data);

  // Appends an XNNPACK node of layout Op (node_params.h) writing `output`. `ints` and
  // `floats` fill Op's slots in order (index them with Op's enums); a count or an int other
  // than the layout allows is recorded as an error that Finish returns. A node with an output
  // range (Op has node_params::OutputRangeFloats) may absorb a clamp that follows (FoldClamp).
  template <typename Op>
  void AddNode(std::vector<uint32_t> inputs, uint32_t output, std::vector<int64_t> ints = {},
               std::vector<double> floats = {}) {
    CheckLayout(Op::kOp, Op::kMinInputs, Op::kMaxInputs, inputs.size(),
                static_cast<int>(Op::kNumInts), SlotsOf<Op>(), ints,
                static_cast<int>(Op::kNumFloats), floats.size());
    constexpr bool kHasRange = std::is_base_of_v<node_params::OutputRangeFloats, Op>;
    AppendNode(Op::kOp, std::move(inputs), output, std::move(ints), std::move(floats),
               kHasRange ? node_params::OutputRangeFloats::kOutputMin : -1);
  }

  // Folds clamp(input) -> output into the node that wrote `input` when that node has an
  // output range, `input` has no other reader and is not a graph output, and the narrowed
  // range is not empty; `output` then names the same blob value. False: emit a clamp node.
  bool FoldClamp(const ir::Value* input, const ir::Value* output, double min, double max);

  // The blob and the argument list. `source_ops` (one per Edge node) and `macs` are stored
  // for tools. Errors when a value read outside the region has no blob value.
  absl::StatusOr<SerializedSubgraph> Finish(const std::vector<std::string>& source_ops,
                                            uint64_t macs);

 private:
  struct BlobValue {
    std::vector<int64_t> dims;
    int argument = -1;  // index into arguments_ (inputs only; outputs are found in Finish)
    bool is_output = false;
    std::vector<float> data;
  };
  struct BlobNode {
    std::string op;
    std::vector<uint32_t> inputs, outputs;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    int range_at = -1;
  };

  uint32_t NewValue(std::vector<int64_t> dims);
  template <typename Op>
  static const node_params::IntSlot* SlotsOf() {
    if constexpr (static_cast<int>(Op::kNumInts) > 0) return Op::kInts;
    return nullptr;
  }
  // Records an error when a node does not fit its layout (`slots`: one per int, or nullptr).
  void CheckLayout(const char* op, size_t min_inputs, size_t max_inputs, size_t num_inputs,
                   int num_ints, const node_params::IntSlot* slots,
                   const std::vector<int64_t>& ints, int num_floats, size_t floats);
  // `range_at`: the index in `floats` of the node's [output_min, output_max], or -1.
  void AppendNode(const char* op, std::vector<uint32_t> inputs, uint32_t output,
                  std::vector<int64_t> ints, std::vector<double> floats, int range_at);

  Layout layout_;
  std::vector<const ir::Node*> members_;
  std::unordered_set<const ir::Node*> member_set_;
  std::vector<BlobValue> values_;
  std::vector<BlobNode> nodes_;
  std::vector<int> producer_;  // blob value -> index of the node writing it, or -1
  std::map<const ir::Value*, uint32_t> value_ids_;  // graph values read or written as is
  // Constants by (value, repacking) and broadcast views by (value, rank), in first-use order.
  std::vector<std::pair<std::pair<ir::Value*, ConstantTransform>, uint32_t>> constants_;
  std::map<std::pair<const ir::Value*, size_t>, uint32_t> broadcasts_;
  std::vector<SubgraphArgument> inputs_;  // activations and constants, in first-use order
  absl::Status status_;                   // the first inconsistency a serialiser caused
};

}  // namespace torchir::xnnpack
