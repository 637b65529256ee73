// The Edge op set: the small, canonical, dtype-specialised ops the compiler
// lowers ATen into, and that the runtime's portable kernels and the backends
// implement. One table (edge_ops.cpp) holds every per-op fact: operands,
// attributes, dtype constraints, shape rule, runtime kernel name, and what the
// passes, the planner and the reports ask (commutativity, MAC count, whether
// the output may share its input's storage, when a node does nothing, how to
// fold it on constants). Nothing else keeps a list of Edge op names.
//
// Conventions every Edge graph follows (checked by VerifyEdgeGraph):
//   - node op strings are the table's names ("edge.convolution");
//   - tensor operands are the node's inputs in table order; optional tensor
//     operands may only be omitted from the end; a variadic last operand
//     (edge.concatenate) takes one or more inputs;
//   - every attribute is present on the node with its table kind (lowering
//     fills defaults), and no others;
//   - no implicit dtype promotion: operands bound to the same type variable
//     have the same dtype; scalars are 0-d constant tensors of that dtype;
//   - output types equal what the op's shape rule computes;
//   - every input and output has non-negative sizes and at most
//     ir::kMaxTensorBytes bytes (compiler/ir/tensor_limits.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace torchir::dialect {

// A set of dtypes, as a bit mask over ir::DType.
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  DTypeSet(std::initializer_list<ir::DType> dtypes);
  static DTypeSet All();
  bool Contains(ir::DType dtype) const { return (bits_ >> static_cast<int>(dtype)) & 1u; }
  bool empty() const { return bits_ == 0; }
  std::string ToString() const;  // "{float32, int64}"

 private:
  uint32_t bits_ = 0;
};

// A tensor operand (input or output): its name and the type variable it binds
// ("T"), or a fixed dtype set when `type_var` is empty.
struct TensorOperand {
  std::string name;
  std::string type_var;  // operands with the same variable share one dtype
  DTypeSet fixed;        // used when type_var is empty
  bool optional = false;  // may be omitted (only trailing operands)
  bool variadic = false;  // the last input only: one or more tensors
};

// The kinds of attribute values Edge ops take.
enum class AttrKind { kInt, kIntList, kDouble, kBool, kDType, kString };
std::string_view AttrKindName(AttrKind kind);

struct AttrSpec {
  std::string name;
  AttrKind kind;
};

// A type variable and the dtypes it may take.
struct TypeVariable {
  std::string name;
  DTypeSet allowed;
};

// Computes the output types from the input types and the node's attributes
// (already checked to be present and of the right kind). Errors describe the
// problem without naming the node; the verifier adds that.
using ShapeRule = absl::StatusOr<std::vector<ir::TensorType>> (*)(
    const std::vector<const ir::TensorType*>& inputs, const ir::Node& node);

// Where a node's output lives relative to its inputs, for the memory planner.
enum class OutputStorage {
  kOwn,           // a buffer of its own
  kViewOfInput0,  // may share input 0's bytes (same elements in the same order: the
                  // kernel copies nothing when the two alias); Edge has no in-place ops
};

// The multiply-accumulates one execution of a node performs (node_macs.h has the rules).
// Saturating; 0 for a malformed node rather than an error.
using MacRule = uint64_t (*)(const ir::Node& node);

// True when the node's output equals its input 0 (same type, same elements), so readers
// may read input 0 instead (noop_rules.h). Called on verified nodes with one output.
using NoopRule = bool (*)(const ir::Node& node);

// Rewrites `node`, whose input 0 is produced by `inner` of the same op, to read
// `inner`'s input instead (one node for the chain; noop_rules.h).
using ChainRule = void (*)(ir::Node& node, const ir::Node& inner);

// The output's bytes when every input is a constant with data (fold_rules.h). Called on
// verified nodes with one non-empty output; empty when the rule declines.
using FoldRule = std::vector<uint8_t> (*)(const ir::Node& node);

// One row of the Edge op table.
struct EdgeOpDef {
  std::string name;                    // "edge.convolution"
  std::vector<TensorOperand> inputs;   // in node input order
  std::vector<AttrSpec> attrs;
  std::vector<TensorOperand> outputs;  // in node output order
  std::vector<TypeVariable> type_vars;
  ShapeRule shape_rule;
  std::string kernel;  // the name the runtime registers its portable kernel under
  std::string summary;  // one line for docs/edge-dialect.md and --help texts

  // Facts the passes, the planner and the reports read (edge_ops.cpp sets them per row).
  bool commutative = false;  // swapping inputs 0 and 1 leaves the outputs unchanged (CSE)
  OutputStorage output_storage = OutputStorage::kOwn;
  MacRule macs = nullptr;              // nullptr: no multiply-accumulates worth counting
  NoopRule is_noop = nullptr;          // nullptr: never a no-op (remove_noop_ops)
  ChainRule collapse_chain = nullptr;  // nullptr: chains stay (remove_noop_ops)
  FoldRule fold = nullptr;             // nullptr: not evaluated at compile time (fold_constants)
};

// The whole table, in a stable order.
const std::vector<EdgeOpDef>& EdgeOps();

// The row for `name` ("edge.add"), or nullptr.
const EdgeOpDef* FindEdgeOp(std::string_view name);

// True for op strings of the Edge dialect ("edge." prefix).
bool IsEdgeOpName(std::string_view op);

// The table as markdown (op, operands, attributes, dtypes, kernel, facts, summary), the
// form docs/edge-dialect.md embeds and `torchir-compile --list-edge-ops` prints.
std::string RenderEdgeOpTableMarkdown();

// Checks one node against its row: operand count, attributes, dtypes, tensor
// sizes within the limits, and that the recorded output types equal the shape
// rule's. Errors name the node and op.
absl::Status VerifyEdgeNode(const ir::Node& node);

// Checks a whole graph: every node is an Edge op (VerifyEdgeNode) and the graph
// invariants hold. Reports every problem found, one per line.
absl::Status VerifyEdgeGraph(const ir::Graph& graph);

}  // namespace torchir::dialect
