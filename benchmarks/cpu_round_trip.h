// How far apart the host put the two CPUs a 2-thread run uses. On a shared VM the hypervisor
// may place the vCPUs on cores that share an L3 or on ones that do not (another CCD or socket),
// and move them while a run goes on; 2-thread times of memory-bound networks differ by about
// 1.5x between the two (docs/benchmarks.md, "Traps found on the way"). A suite prints this at its
// start and end so its 2-thread rows can be read against it.
#pragma once

namespace torchir::benchmarks {

// Nanoseconds per round trip of one cache line between two threads pinned to CPUs 0 and 1
// (each waits for the other's store, then stores), the median of 5 batches of 20,000; 0 when the
// process may not run on both CPUs. The calling thread's affinity is left as it was.
double CpuRoundTripNanoseconds();

// The same, the fastest of 32 batches of 500 (1-6 ms): a thread that shares CPU 0 or 1 for a
// while (a BLAS worker spinning after its last call) slows some batches, not the fastest, so this
// still tells the two placements apart right after another multi-threaded run.
double FastestCpuRoundTripNanoseconds();

}  // namespace torchir::benchmarks
