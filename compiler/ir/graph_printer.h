// Human-readable renderings of a graph: a full listing and a summary.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include "compiler/ir/graph.h"

namespace torchir::ir {

// Writes every input, weight, constant, node and output, one per line:
//   %conv2d : float32[1, 64, 112, 112] = aten.conv2d.default(%x, $p_conv1_weight) stride=[2, 2]
// `%` marks activations, `$` weights and constants.
void PrintGraph(const Graph& graph, std::ostream& out);

// Node count per op, ordered by op name.
std::map<std::string, int> OpHistogram(const Graph& graph);

// Totals over weights and constants.
struct ParameterStats {
  int64_t tensors = 0;
  int64_t elements = 0;
  uint64_t bytes = 0;
  int64_t bound = 0;  // how many have data
};
ParameterStats ComputeParameterStats(const Graph& graph);

// Writes the summary: inputs, outputs, parameter totals and the op histogram.
void PrintSummary(const Graph& graph, std::ostream& out);

// "46.8 MiB", "512 B".
std::string FormatBytes(uint64_t bytes);

}  // namespace torchir::ir
