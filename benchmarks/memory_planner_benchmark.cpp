// Planning time for 100k buffers, each algorithm side by side with the naive planner as baseline.
//
// The problem mimics a long network: a chain of instructions whose outputs live one to three
// instructions, some skip connections living up to a few thousand instructions, a few buffers
// live from start to end (graph inputs, outputs), reshapes as views, and XNNPACK-style padding.
//
//   build-planner/bin/torchir_memory_planner_benchmark [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "memory_planner/checker.h"
#include "memory_planner/lifetimes.h"
#include "memory_planner/live_bytes.h"
#include "memory_planner/planner.h"
#include "memory_planner/storage_groups.h"

namespace torchir::memory_planner {
namespace {

constexpr int kBufferCount = 100000;

Problem RealisticProblem(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Problem problem;
  problem.arenas.push_back(Arena{"activations"});
  problem.buffers.reserve(count);
  const int64_t end = count;  // one instruction per buffer, plus a final one
  for (int id = 0; id < count; ++id) {
    Buffer buffer;
    buffer.first_use = id;
    const double kind = unit(rng);
    if (kind < 0.001) {
      buffer.first_use = kind < 0.0005 ? 0 : id;  // graph inputs, and outputs written early
      buffer.last_use = end;
    } else if (kind < 0.021) {
      buffer.last_use = id + 10 + static_cast<int64_t>(rng() % 2000);  // skip connections
    } else {
      buffer.last_use = id + 1 + static_cast<int64_t>(rng() % 3);
    }
    buffer.last_use = std::min(buffer.last_use, end);
    // Log-uniform from 256 B to 4 MiB.
    buffer.size = static_cast<uint64_t>(std::exp(std::log(256.0) + unit(rng) * std::log(16384.0)));
    buffer.alignment = 64;
    if (unit(rng) < 0.3) buffer.extra_bytes = 16;
    if (id > 0 && unit(rng) < 0.05) {
      // A reshape of the previous buffer: same bytes, no storage of its own.
      const Buffer& base = problem.buffers[id - 1];
      buffer.base = id - 1;
      buffer.size = base.size;
      buffer.offset_in_base = 0;
    }
    problem.buffers.push_back(buffer);
  }
  return problem;
}

const Problem& SharedProblem() {
  static const Problem* problem = new Problem(RealisticProblem(kBufferCount, 42));
  return *problem;
}

uint64_t LowerBound(const Problem& problem) {
  return PeakLiveBytes(GroupStorage(problem).blocks[0]);
}

void PlanWith(benchmark::State& state, const PlacementAlgorithm* algorithm) {
  const Problem& problem = SharedProblem();
  uint64_t size = 0;
  for (auto _ : state) {
    Expected<Plan> plan = PlanWithAlgorithm(problem, *algorithm);
    if (!plan.ok()) {
      state.SkipWithError(plan.error().message.c_str());
      return;
    }
    size = plan.value().TotalSize();
    benchmark::DoNotOptimize(size);
  }
  state.counters["arena_MiB"] = static_cast<double>(size) / (1 << 20);
  state.counters["vs_lower_bound"] =
      static_cast<double>(size) / static_cast<double>(LowerBound(problem));
  state.SetItemsProcessed(state.iterations() * problem.buffers.size());
}

void PlanWithSuite(benchmark::State& state) {
  const Problem& problem = SharedProblem();
  uint64_t size = 0;
  for (auto _ : state) {
    Expected<SuiteResult> result = PlanMemory(problem);
    if (!result.ok()) {
      state.SkipWithError(result.error().message.c_str());
      return;
    }
    size = result.value().plan.TotalSize();
    benchmark::DoNotOptimize(size);
  }
  state.counters["arena_MiB"] = static_cast<double>(size) / (1 << 20);
  state.counters["vs_lower_bound"] =
      static_cast<double>(size) / static_cast<double>(LowerBound(problem));
  state.SetItemsProcessed(state.iterations() * problem.buffers.size());
}

void CheckSuitePlan(benchmark::State& state) {
  const Problem& problem = SharedProblem();
  Expected<SuiteResult> result = PlanMemory(problem);
  if (!result.ok()) {
    state.SkipWithError(result.error().message.c_str());
    return;
  }
  size_t problems = 0;
  for (auto _ : state) {
    problems = CheckPlan(problem, result.value().plan).size();
    benchmark::DoNotOptimize(problems);
  }
  if (problems != 0) state.SkipWithError("the checker rejected the plan");
  state.SetItemsProcessed(state.iterations() * problem.buffers.size());
}

// The program behind the problem's shape: instruction i writes buffer i and reads i - 1.
void ComputeChainLifetimes(benchmark::State& state) {
  Program program;
  program.buffer_count = kBufferCount;
  program.graph_inputs = {0};
  program.graph_outputs = {kBufferCount - 1};
  for (int i = 1; i < kBufferCount; ++i) program.instructions.push_back({{i - 1}, {i}});
  for (auto _ : state) {
    Expected<std::vector<Lifetime>> lifetimes = ComputeLifetimes(program);
    benchmark::DoNotOptimize(lifetimes.ok());
  }
  state.SetItemsProcessed(state.iterations() * kBufferCount);
}

}  // namespace
}  // namespace torchir::memory_planner

int main(int argc, char** argv) {
  using namespace torchir::memory_planner;
  // Naive first: the baseline every other line is read against.
  static const auto algorithms = DefaultAlgorithms();
  const PlacementAlgorithm* naive = algorithms.back().get();
  benchmark::RegisterBenchmark("plan_100k/naive", PlanWith, naive)->Unit(benchmark::kMillisecond);
  for (const auto& algorithm : algorithms) {
    if (algorithm.get() == naive) continue;
    benchmark::RegisterBenchmark(("plan_100k/" + algorithm->Name()).c_str(), PlanWith,
                                 algorithm.get())
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("plan_100k/suite", PlanWithSuite)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("check_100k/suite_plan", CheckSuitePlan)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("lifetimes_100k/chain", ComputeChainLifetimes)
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
