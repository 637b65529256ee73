// Assertions every planner test makes about a plan.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memory_planner/checker.h"

namespace torchir::memory_planner::test_util {

// Passes when the independent checker finds nothing wrong with `plan`.
inline ::testing::AssertionResult PlanIsValid(const Problem& problem, const Plan& plan) {
  const std::vector<std::string> problems = CheckPlan(problem, plan);
  if (problems.empty()) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  for (const std::string& line : problems) failure << "\n  " << line;
  return failure;
}

}  // namespace torchir::memory_planner::test_util
