// The per-instruction profile a runner prints with --profile: each
// instruction's mean time per run and share of the total, slowest first.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtime/executor/method.h"

namespace torchir::bench {

// `totals` (ns per instruction, summed over `iterations` runs) as a table on
// `out`: index, op (kernel or backend), node, mean, share.
void PrintProfile(std::FILE* out, const runtime::Method& method,
                  const std::vector<uint64_t>& totals, long long iterations);

}  // namespace torchir::bench
