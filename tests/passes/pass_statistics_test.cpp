#include "passes/pass_statistics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace torchir::passes {
namespace {

using ::testing::HasSubstr;

TEST(PrintPassStatistics, WritesAHeaderOneRowPerRunAndATotal) {
  std::vector<PassStatistics> statistics(2);
  statistics[0].pass_name = "common_subexpression_elimination";
  statistics[0].changed = true;
  statistics[0].wall_time = std::chrono::microseconds(1500);
  statistics[0].counters = {{"nodes_merged", 3}};
  statistics[1].pass_name = "dead_code_elimination";
  statistics[1].iteration = 2;
  statistics[1].wall_time = std::chrono::microseconds(500);
  std::ostringstream out;

  PrintPassStatistics(statistics, out);

  EXPECT_EQ(out.str(),
            "pass                              iter  changed   time (ms)  counters\n"
            "common_subexpression_elimination     -  yes           1.500  nodes_merged=3\n"
            "dead_code_elimination                2  no            0.500\n"
            "total                                                 2.000\n");
}

TEST(PrintPassStatistics, PrintsATotalForAnEmptyPipeline) {
  std::ostringstream out;
  PrintPassStatistics({}, out);
  EXPECT_THAT(out.str(), HasSubstr("total"));
}

}  // namespace
}  // namespace torchir::passes
