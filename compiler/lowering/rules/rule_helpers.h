// Small helpers shared by the lowering rule families.
#pragma once

#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/lowering/lowering_context.h"

// Evaluates `expr` (an absl::StatusOr<T>); returns its status on error, else
// moves its value into `lhs` (which may be a declaration: `auto x`).
#define TORCHIR_ASSIGN_OR_RETURN(lhs, expr) \
  TORCHIR_ASSIGN_OR_RETURN_IMPL(TORCHIR_CONCAT(status_or_, __LINE__), lhs, expr)
#define TORCHIR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
// Returns `expr` (an absl::Status) when it is an error.
#define TORCHIR_RETURN_IF_ERROR(expr)                   \
  do {                                                  \
    if (absl::Status status_ = (expr); !status_.ok()) { \
      return status_;                                   \
    }                                                   \
  } while (false)
#define TORCHIR_CONCAT(a, b) TORCHIR_CONCAT_IMPL(a, b)
#define TORCHIR_CONCAT_IMPL(a, b) a##b

namespace torchir::lowering {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

using Results = absl::StatusOr<std::vector<ir::Value*>>;

// A rule's result for a single-output node.
inline Results Single(absl::StatusOr<ir::Value*> value) {
  if (!value.ok()) return value.status();
  return std::vector<ir::Value*>{*value};
}

// An error about the node being lowered (the driver prefixes node and op).
inline absl::Status Unsupported(std::string message) {
  return absl::UnimplementedError(std::move(message));
}

// Fails unless a constant of `type` may be built at compile time (a factory op,
// a causal mask): sizes within ir::TensorSizeProblem's limits and at most
// ir::kDefaultMaxProgramBytes bytes, more than any program may hold by default.
absl::Status CheckMaterializable(const ir::TensorType& type);

// When `view_node` is an ATen view op an in-place op may write through (slice.Tensor,
// select.int), the Edge value of its input `base` after `updated` (the view's new value) was
// written into it: a slice_scatter / select_scatter. nullptr (no error) for any other op.
// The driver calls it up a mutated value's view chain, so that `base[:, 2:4] = v` and
// `base[0].copy_(v)` reach base's later readers (swin_t's attention mask).
absl::StatusOr<ir::Value*> WriteThroughView(EdgeBuilder& builder, const ir::Node& view_node,
                                            ir::Value* base, ir::Value* updated);

// PyTorch's type promotion for two tensor operands of the same category order:
// bool < integers < floating; within a category the wider type wins.
ir::DType PromoteTypes(ir::DType a, ir::DType b);

}  // namespace torchir::lowering
