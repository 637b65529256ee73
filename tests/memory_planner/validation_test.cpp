#include "memory_planner/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "tests/memory_planner/problem_builder.h"

namespace torchir::memory_planner {
namespace {

using test_util::ProblemBuilder;
using ::testing::HasSubstr;

std::string ErrorOf(const Problem& problem) {
  std::optional<Error> error = ValidateProblem(problem);
  return error ? error->message : "";
}

TEST(ValidationTest, AcceptsAnEmptyProblem) { EXPECT_FALSE(ValidateProblem(Problem{})); }

TEST(ValidationTest, AcceptsBuffersViewsAndArenas) {
  Problem problem = ProblemBuilder()
                        .Arena("activations")
                        .Buffer(64, 0, 3)
                        .Aligned(16)
                        .Buffer(32, 1, 4)
                        .ViewOf(0, 16)
                        .Aligned(16)
                        .Arena("scratch")
                        .Buffer(8, 2, 2)
                        .Extra(16)
                        .Build();
  EXPECT_FALSE(ValidateProblem(problem));
}

TEST(ValidationTest, RejectsAlignmentThatIsNotAPowerOfTwo) {
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(8, 0, 0).Aligned(0).Build()),
              HasSubstr("alignment 0 is not a power of two"));
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(8, 0, 0).Aligned(24).Named("conv.out").Build()),
              HasSubstr("buffer 0 (conv.out): alignment 24 is not a power of two"));
}

TEST(ValidationTest, RejectsFirstUseAfterLastUse) {
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(8, 0, 0).Buffer(8, 5, 2).Build()),
              HasSubstr("buffer 1: first_use 5 > last_use 2"));
}

TEST(ValidationTest, RejectsUnknownArena) {
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(8, 0, 0).InArena(1).Build()),
              HasSubstr("unknown arena 1 (1 arenas)"));
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(8, 0, 0).InArena(-1).Build()),
              HasSubstr("unknown arena -1"));
}

TEST(ValidationTest, RejectsMissingBase) {
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(8, 0, 0).ViewOf(7).Build()),
              HasSubstr("base 7 does not exist"));
}

TEST(ValidationTest, RejectsViewOutsideItsBase) {
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(64, 0, 1).Buffer(32, 1, 2).ViewOf(0, 48).Build()),
              HasSubstr("view [48, +32) lies outside its base buffer 0 of 64 bytes"));
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(64, 0, 1).Buffer(1, 1, 2).ViewOf(0, 100).Build()),
              HasSubstr("lies outside its base"));
}

TEST(ValidationTest, AcceptsViewWhoseExtraBytesPassTheBaseEnd) {
  // The padding is the consumer's business; the planner grows the storage group to cover it.
  EXPECT_FALSE(ValidateProblem(
      ProblemBuilder().Buffer(64, 0, 1).Buffer(32, 1, 2).ViewOf(0, 32).Extra(16).Build()));
}

TEST(ValidationTest, RejectsViewInAnotherArena) {
  Problem problem =
      ProblemBuilder().Arena("a").Buffer(64, 0, 1).Arena("b").Buffer(8, 1, 1).ViewOf(0).Build();
  EXPECT_THAT(ErrorOf(problem), HasSubstr("in arena 1 but its base buffer 0 is in arena 0"));
}

TEST(ValidationTest, RejectsViewCycles) {
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(8, 0, 0).ViewOf(0).Build()), HasSubstr("view cycle"));
  EXPECT_THAT(ErrorOf(ProblemBuilder()
                          .Buffer(8, 0, 0)
                          .ViewOf(2)
                          .Buffer(8, 0, 0)
                          .ViewOf(0)
                          .Buffer(8, 0, 0)
                          .ViewOf(1)
                          .Build()),
              HasSubstr("view cycle"));
}

TEST(ValidationTest, RejectsViewMisalignedInsideItsRoot) {
  // 8 + 4 = 12 bytes into the root: no root offset can align the view to 8.
  Problem problem = ProblemBuilder()
                        .Buffer(64, 0, 2)
                        .Aligned(8)
                        .Buffer(32, 1, 2)
                        .ViewOf(0, 8)
                        .Buffer(8, 2, 2)
                        .ViewOf(1, 4)
                        .Aligned(8)
                        .Build();
  EXPECT_THAT(ErrorOf(problem),
              HasSubstr("buffer 2: offset 12 inside its storage root is not a multiple of its "
                        "alignment 8"));
}

TEST(ValidationTest, RejectsSizesThatOverflow) {
  const uint64_t huge = std::numeric_limits<uint64_t>::max() / 2 + 1;
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(huge, 0, 0).Extra(huge).Build()),
              HasSubstr("size + extra_bytes overflows"));
  EXPECT_THAT(ErrorOf(ProblemBuilder().Buffer(huge, 0, 0).Buffer(huge, 1, 1).Build()),
              HasSubstr("total size overflows"));
}

}  // namespace
}  // namespace torchir::memory_planner
