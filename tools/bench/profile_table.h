// The per-instruction profile a runner prints with --profile: each
// instruction's mean time per run and share of the total, slowest first.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtime/executor/method.h"

namespace torchir::bench {

// `totals` (ns per instruction, summed over `iterations` runs) as a table on
// `out`: index, op (kernel or backend), node, mean, share. Under a delegate
// call whose backend timed two or more of its nodes (`node_totals`,
// InstructionRecorder's; null or empty: none), those nodes in the call's order
// with their mean and share of the call.
// Method::instruction_num_debug_nodes of every instruction: what
// InstructionRecorder::SizeNodeTotals takes.
std::vector<size_t> DebugNodeCounts(const runtime::Method& method);

void PrintProfile(std::FILE* out, const runtime::Method& method,
                  const std::vector<uint64_t>& totals, long long iterations,
                  const std::vector<std::vector<uint64_t>>* node_totals = nullptr);

}  // namespace torchir::bench
