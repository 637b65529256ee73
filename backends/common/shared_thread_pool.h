// The thread pool every delegate backend runs on (XNNPACK's, the native kernels'): one
// pthreadpool per process for a given thread count, so that two backends in one program
// share their worker threads instead of each keeping a set spinning.
#pragma once

#include <pthreadpool.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace torchir::runtime {

// A pthreadpool with a reference count: each delegate using it holds one, and so does the
// process-wide registry while the pool is current. The last reference destroys it (joining
// its threads).
class SharedThreadPool {
 public:
  pthreadpool_t get() const { return pool_; }
  size_t num_threads() const { return pthreadpool_get_threads_count(pool_); }
  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref();

 private:
  friend Error AcquireSharedThreadPool(uint32_t num_threads, SharedThreadPool** pool);
  explicit SharedThreadPool(pthreadpool_t pool) : pool_(pool) {}

  pthreadpool_t pool_;
  std::atomic<size_t> refs_{1};
};

// The process's pool of `num_threads` threads with one reference for the caller, created on
// first use: every call with the same count gets the same pool while it is current (a call
// with another count makes a new one current; delegates holding the old one keep it until
// they release it). `*pool` is nullptr for 1 thread: run on the calling thread. kOutOfMemory
// when the pool cannot be created, kInvalidArgument for 0 threads. Thread-safe.
Error AcquireSharedThreadPool(uint32_t num_threads, SharedThreadPool** pool);

}  // namespace torchir::runtime
