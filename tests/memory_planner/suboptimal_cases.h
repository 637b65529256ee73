// Hand-made block sets on which one greedy ordering is known to lose, shared by the algorithm
// and planner tests.
#pragma once

#include <vector>

#include "memory_planner/storage_groups.h"

namespace torchir::memory_planner::test_util {

// Greedy by size places the long-lived 8-byte block C after the 12-byte A, so C lands on top of A
// at [12, 20). At instruction 4 C then splits the free space, and D no longer fits in the 4-byte
// hole between B and C: 26 bytes. Placing C first, at 0, lets A, B and D stack above it: 22 bytes,
// the lower bound (B + C + D live at instruction 4).
//
//   instruction:  1  2  3  4  5
//   A (12 bytes)     *
//   B ( 8 bytes)           *
//   C ( 8 bytes)  *  *  *  *
//   D ( 6 bytes)           *  *
inline std::vector<Block> LongLivedSmallBlockCase() {
  return {
      {12, 1, 2, 2},  // A
      {8, 1, 4, 4},   // B
      {8, 1, 1, 4},   // C
      {6, 1, 4, 5},   // D
  };
}
inline constexpr uint64_t kLongLivedSmallBlockGreedyBySize = 26;
inline constexpr uint64_t kLongLivedSmallBlockOptimum = 22;

// A chain (block i lives over instructions i and i + 1) whose sizes cycle 10, 11, 12. Every
// greedy ordering puts the three 12s at 0 and the 11s above them at 12; then each 10 that
// follows an 11 and precedes a 12 is live with both and lands on top at 23: 33 bytes. Two slots
// of 12, alternating along the chain, need 24; the lower bound is 23 (11 + 12).
inline std::vector<Block> AlternatingChainCase() {
  std::vector<Block> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({static_cast<uint64_t>(10 + i % 3), 1, i, i + 1});
  return chain;
}
inline constexpr uint64_t kAlternatingChainGreedy = 33;
inline constexpr uint64_t kAlternatingChainSlots = 24;
inline constexpr uint64_t kAlternatingChainLowerBound = 23;

}  // namespace torchir::memory_planner::test_util
