// The interface every graph-to-graph pass implements, and the context a pass reports into.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "passes/op_properties.h"

namespace torchir::passes {

// What one run of a pass sees besides the graph, and what it reports back: whether it changed
// the graph and any counters worth showing in the statistics ("nodes_erased"). The PassManager
// makes a fresh context for every pass run; tests may make one themselves.
class PassContext {
 public:
  // `op_properties` must outlive the context.
  explicit PassContext(const OpProperties& op_properties = GetDefaultOpProperties())
      : op_properties_(&op_properties) {}

  // What the pipeline owner says about ops (purity, commutativity).
  const OpProperties& op_properties() const { return *op_properties_; }

  // Records that the pass modified the graph. A pass that changed nothing must not call it, so
  // fixed-point loops terminate.
  void MarkChanged() { changed_ = true; }
  bool changed() const { return changed_; }

  // Adds `delta` to the counter `name`, creating it at zero; counters keep first-use order.
  void AddToCounter(std::string_view name, int64_t delta);
  const std::vector<std::pair<std::string, int64_t>>& counters() const { return counters_; }

 private:
  const OpProperties* op_properties_;
  bool changed_ = false;
  std::vector<std::pair<std::string, int64_t>> counters_;
};

// A transformation of an ir::Graph. Passes hold no per-graph state between runs, so one
// instance can run many times (fixed-point groups do that).
class Pass {
 public:
  virtual ~Pass() = default;

  // A stable snake_case name ("dead_code_elimination"), the one --dump-graph-after accepts.
  virtual std::string_view name() const = 0;

  // Transforms `graph`, calling context.MarkChanged() when it modified it. An error means the
  // pass could not do its job; the graph must still satisfy its invariants then.
  virtual absl::Status Run(ir::Graph& graph, PassContext& context) = 0;
};

}  // namespace torchir::passes
