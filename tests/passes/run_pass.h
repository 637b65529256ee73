// Runs one pass outside a PassManager, as the pass tests do.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "passes/op_properties.h"
#include "passes/pass.h"

namespace torchir::testing {

// Runs `pass` over `graph` with `properties`, expects it to succeed and to leave the graph's
// invariants intact, and returns the context it reported into.
inline passes::PassContext RunPass(
    passes::Pass& pass, ir::Graph& graph,
    const passes::OpProperties& properties = passes::GetDefaultOpProperties()) {
  passes::PassContext context(properties);
  absl::Status status = pass.Run(graph, context);
  EXPECT_TRUE(status.ok()) << status;
  std::vector<std::string> problems = graph.CheckInvariants();
  EXPECT_TRUE(problems.empty()) << problems.front();
  return context;
}

// The value of counter `name` in `context`; -1 when the pass never set it.
inline int64_t Counter(const passes::PassContext& context, const std::string& name) {
  for (const auto& [counter, value] : context.counters()) {
    if (counter == name) return value;
  }
  return -1;
}

// Node names in graph order.
inline std::vector<std::string> NodeNames(const ir::Graph& graph) {
  std::vector<std::string> names;
  for (const ir::Node* node : graph.nodes()) names.push_back(node->name());
  return names;
}

}  // namespace torchir::testing
