#include "memory_planner/program.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace torchir::memory_planner {
namespace {

using ::testing::HasSubstr;

TEST(ProgramTest, AcceptsAProgramWithoutViews) {
  Program program;
  program.buffer_count = 2;
  program.instructions = {{{0}, {1}}};
  program.graph_inputs = {0};
  program.graph_outputs = {1};
  EXPECT_FALSE(ValidateProgram(program));
  EXPECT_EQ(StorageRoots(program), (std::vector<BufferId>{0, 1}));
}

TEST(ProgramTest, StorageRootsFollowViewChains) {
  Program program;
  program.buffer_count = 5;
  program.view_of = {kNoBuffer, 0, 1, kNoBuffer, 2};
  EXPECT_FALSE(ValidateProgram(program));
  EXPECT_EQ(StorageRoots(program), (std::vector<BufferId>{0, 0, 0, 3, 0}));
}

TEST(ProgramTest, RejectsOutOfRangeIdsAndViewCycles) {
  Program program;
  program.buffer_count = 2;
  program.graph_inputs = {2};
  EXPECT_THAT(ValidateProgram(program)->message,
              HasSubstr("graph inputs: buffer 2 out of range [0, 2)"));
  program.graph_inputs = {};
  program.view_of = {1, 1};
  EXPECT_THAT(ValidateProgram(program)->message, HasSubstr("buffer 1: view cycle"));
  program.view_of = {kNoBuffer, 3};
  EXPECT_THAT(ValidateProgram(program)->message, HasSubstr("view of unknown buffer 3"));
  program.buffer_count = -1;
  program.view_of = {};
  EXPECT_THAT(ValidateProgram(program)->message, HasSubstr("negative buffer_count"));
}

}  // namespace
}  // namespace torchir::memory_planner
