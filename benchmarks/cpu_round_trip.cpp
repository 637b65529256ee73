#include "benchmarks/cpu_round_trip.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace torchir::benchmarks {
namespace {

bool Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// The line both threads write: alone in its cache line.
struct alignas(64) Line {
  std::atomic<int> value{0};
};

// Nanoseconds per round trip of each of `batch_count` batches of `trips`, sorted; empty when
// the process may not run on both CPUs.
std::vector<double> RoundTripBatches(int batch_count, int trips) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || !CPU_ISSET(0, &allowed) ||
      !CPU_ISSET(1, &allowed)) {
    return {};
  }
  Line line;
  std::atomic<bool> pinned_ok{true};
  std::vector<double> batches;
  // Both ends on threads of their own, so no thread of the benchmark stays pinned.
  std::thread echo([&] {
    if (!Pin(1)) pinned_ok = false;
    for (int trip = 0; trip < batch_count * trips; ++trip) {
      while (line.value.load(std::memory_order_acquire) != 2 * trip + 1) {
        if (!pinned_ok.load(std::memory_order_relaxed)) return;
      }
      line.value.store(2 * trip + 2, std::memory_order_release);
    }
  });
  std::thread ping([&] {
    if (!Pin(0)) pinned_ok = false;
    for (int batch = 0; batch < batch_count && pinned_ok; ++batch) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < trips; ++i) {
        const int trip = batch * trips + i;
        line.value.store(2 * trip + 1, std::memory_order_release);
        while (line.value.load(std::memory_order_acquire) != 2 * trip + 2) {
          if (!pinned_ok.load(std::memory_order_relaxed)) return;
        }
      }
      const std::chrono::duration<double, std::nano> took =
          std::chrono::steady_clock::now() - start;
      batches.push_back(took.count() / trips);
    }
  });
  ping.join();
  echo.join();
  if (!pinned_ok || batches.size() != static_cast<size_t>(batch_count)) return {};
  std::sort(batches.begin(), batches.end());
  return batches;
}

}  // namespace

double CpuRoundTripNanoseconds() {
  const std::vector<double> batches = RoundTripBatches(5, 20'000);
  return batches.empty() ? 0 : batches[batches.size() / 2];
}

double FastestCpuRoundTripNanoseconds() {
  const std::vector<double> batches = RoundTripBatches(32, 500);
  return batches.empty() ? 0 : batches.front();
}

}  // namespace torchir::benchmarks
