// An independent check of a plan against its problem. It shares no code with the planner, so a
// planner bug cannot hide itself; tests run it on every plan they make.
#pragma once

#include <string>
#include <vector>

#include "memory_planner/buffer.h"

namespace torchir::memory_planner {

// Returns one line per problem found; empty means the plan is valid. Checks:
//   1. there is one placement per buffer and one ArenaPlan per arena;
//   2. every buffer sits in its own arena, at an offset that is a multiple of its alignment, with
//      its size and extra_bytes inside the arena;
//   3. every view sits exactly at its base's offset + offset_in_base, inside its base;
//   4. no two storage groups (a root and its views, live from the earliest first_use to the latest
//      last_use of any member) that are live at the same instruction in the same arena share a
//      byte of their extents (every member's size and extra_bytes included). This is a sweep over
//      time with the live groups ordered by offset, so it costs O(n log n) on a valid plan.
// Stops listing after 100 problems.
std::vector<std::string> CheckPlan(const Problem& problem, const Plan& plan);

}  // namespace torchir::memory_planner
