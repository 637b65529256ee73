#include "backends/common/shared_thread_pool.h"

#include <mutex>
#include <new>

namespace torchir::runtime {
namespace {

std::mutex g_mutex;
SharedThreadPool* g_current = nullptr;  // the registry's reference

// Drops the registry's reference at exit, so the worker threads are joined while the
// process still runs normally; later acquisitions make a new pool.
struct ReleaseAtExit {
  ~ReleaseAtExit() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_current != nullptr) g_current->Unref();
    g_current = nullptr;
  }
};

}  // namespace

void SharedThreadPool::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    pthreadpool_destroy(pool_);
    delete this;
  }
}

Error AcquireSharedThreadPool(uint32_t num_threads, SharedThreadPool** pool) {
  if (num_threads == 0) return Error::kInvalidArgument;
  *pool = nullptr;
  if (num_threads == 1) return Error::kOk;
  static ReleaseAtExit release_at_exit;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_current == nullptr || g_current->num_threads() != num_threads) {
    pthreadpool_t created = pthreadpool_create(num_threads);
    if (created == nullptr) return Error::kOutOfMemory;
    SharedThreadPool* shared = new (std::nothrow) SharedThreadPool(created);
    if (shared == nullptr) {
      pthreadpool_destroy(created);
      return Error::kOutOfMemory;
    }
    if (g_current != nullptr) g_current->Unref();
    g_current = shared;
  }
  g_current->Ref();
  *pool = g_current;
  return Error::kOk;
}

}  // namespace torchir::runtime
