// An ordered pipeline of passes with timing, graph dumps and verification between passes.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "passes/op_properties.h"
#include "passes/pass.h"
#include "passes/pass_statistics.h"

namespace torchir::passes {

// Checks a graph between passes (e.g. the Edge dialect verifier); OK when the graph is valid.
using GraphVerifier = std::function<absl::Status(const ir::Graph&)>;

// True in debug builds (NDEBUG undefined): verification between passes is on by default there.
#ifndef NDEBUG
inline constexpr bool kVerifyPassesByDefault = true;
#else
inline constexpr bool kVerifyPassesByDefault = false;
#endif

// How a PassManager runs its pipeline.
struct PassManagerOptions {
  // What the passes may assume about ops; must outlive the PassManager. nullptr: the defaults.
  const OpProperties* op_properties = nullptr;

  // Verify the graph before the first pass and after every pass run: always
  // ir::Graph::CheckInvariants(), then `verifier` when set. The first failure stops the
  // pipeline with an error naming the pass that broke the graph.
  bool verify_after_each_pass = kVerifyPassesByDefault;
  GraphVerifier verifier;

  // Passes (by Pass::name) whose output graph is printed with ir::PrintGraph after each of
  // their runs (torchir-compile --dump-graph-after). A name no pass in the pipeline has is an
  // error listing the valid names. Dumps go to `dump_stream`, std::cerr when null.
  std::vector<std::string> dump_graph_after;
  std::ostream* dump_stream = nullptr;
};

// How a fixed-point group repeats.
struct FixedPointOptions {
  // The group stops after this many iterations even if the last one changed the graph.
  int max_iterations = 10;
  // When the cap is reached while the last iteration still changed the graph: an error if true,
  // otherwise the pipeline carries on (the graph is valid, just not fully simplified).
  bool fail_if_not_converged = false;
};

// Runs passes over a graph in the order they were added:
//   1. check the options (every --dump-graph-after name names a pass of the pipeline);
//   2. verify the input graph, if verification is on, so a broken input is not blamed on a pass;
//   3. for each entry: a single pass runs once; a fixed-point group runs all its passes in order,
//      again and again, until an iteration in which no pass changed the graph or the cap;
//   4. after each pass run: record its statistics, dump the graph if asked, verify if on.
// The first error stops the pipeline and is returned, prefixed with the pass's name.
class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {});
  PassManager(const PassManager&) = delete;
  PassManager& operator=(const PassManager&) = delete;

  // Appends a pass run once.
  PassManager& Add(std::unique_ptr<Pass> pass);
  // Appends passes (non-empty) repeated as a group until the graph stops changing.
  PassManager& AddFixedPointGroup(std::vector<std::unique_ptr<Pass>> passes,
                                  FixedPointOptions options = {});

  // The names of the passes in pipeline order, each once.
  std::vector<std::string> PassNames() const;

  // Checks the options against the pipeline (step 1 above) without running anything.
  absl::Status ValidateOptions() const;

  // Runs the pipeline over `graph`. Statistics of an earlier Run are discarded.
  absl::Status Run(ir::Graph& graph);

  // One row per pass run of the last Run, in run order (also the runs before an error).
  const std::vector<PassStatistics>& statistics() const { return statistics_; }

 private:
  struct Entry {
    std::vector<std::unique_ptr<Pass>> passes;
    bool fixed_point = false;
    FixedPointOptions fixed_point_options;
  };

  // Runs one pass and does step 4; sets *changed.
  absl::Status RunPass(Pass& pass, int iteration, ir::Graph& graph, bool* changed);
  absl::Status RunFixedPoint(const Entry& entry, ir::Graph& graph);
  // OK when verification is off or the graph passes it; `after` says what ran last.
  absl::Status Verify(const ir::Graph& graph, const std::string& after) const;

  PassManagerOptions options_;
  std::vector<Entry> entries_;
  std::vector<PassStatistics> statistics_;
};

// Collects passes into the vector AddFixedPointGroup takes:
//   manager.AddFixedPointGroup(MakePassList(std::make_unique<A>(), std::make_unique<B>()));
template <typename... Passes>
std::vector<std::unique_ptr<Pass>> MakePassList(std::unique_ptr<Passes>... passes) {
  std::vector<std::unique_ptr<Pass>> list;
  list.reserve(sizeof...(passes));
  (list.push_back(std::move(passes)), ...);
  return list;
}

}  // namespace torchir::passes
