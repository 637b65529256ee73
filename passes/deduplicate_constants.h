// Merges weights and constants that hold identical bytes.
#pragma once

#include <string_view>

#include "passes/pass.h"

namespace torchir::passes {

// Two leaves are merged when they have the same kind (weight or constant), dtype and shape and
// identical bound bytes. Leaves without data are never merged (their bytes are unknown), nor
// are leaves read by an impure node (an in-place op may write one copy and not the other).
//   1. group the candidate leaves (weights, then constants, in graph order) by kind, dtype and
//      shape; groups of one are done;
//   2. inside a group, hash the bytes, and compare the bytes only when the hashes match;
//   3. point every use of a duplicate at the first equal leaf, then erase the duplicate.
// Counter: leaves_merged.
class DeduplicateConstants : public Pass {
 public:
  static constexpr std::string_view kName = "deduplicate_constants";
  std::string_view name() const override { return kName; }
  absl::Status Run(ir::Graph& graph, PassContext& context) override;
};

}  // namespace torchir::passes
