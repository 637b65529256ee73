// Shares the rows of a row-parallel kernel among a thread pool's threads (internal to
// backends/native/: the direct, depthwise and layer-norm kernels). The kernels' calls are plain
// structs with the rows they compute in [row_begin, row_end).
#pragma once

#include <pthreadpool.h>

#include <cstddef>

namespace torchir::native {

// Runs kRun on `whole` (row_begin 0), split into a few tasks of consecutive rows per thread of
// `threadpool` (so a thread slowed by other work does not hold up the rest), or on the calling
// thread alone without a pool, with one thread, or with a single row.
template <class Call, void (*kRun)(const Call&)>
void ShareRows(const Call& whole, pthreadpool_t threadpool) {
  const size_t rows = whole.row_end;
  const size_t threads = threadpool == nullptr ? 1 : pthreadpool_get_threads_count(threadpool);
  if (threads <= 1 || rows < 2) {
    kRun(whole);
    return;
  }
  struct Shares {
    const Call* whole;
    size_t rows_per_task;
  };
  const size_t tasks_wanted = threads * 4 < rows ? threads * 4 : rows;
  const Shares shares{&whole, (rows + tasks_wanted - 1) / tasks_wanted};
  const size_t tasks = (rows + shares.rows_per_task - 1) / shares.rows_per_task;
  pthreadpool_parallelize_1d(
      threadpool,
      [](void* context, size_t task) {
        const Shares& s = *static_cast<const Shares*>(context);
        Call call = *s.whole;
        call.row_begin = task * s.rows_per_task;
        const size_t end = call.row_begin + s.rows_per_task;
        call.row_end = end < s.whole->row_end ? end : s.whole->row_end;
        kRun(call);
      },
      const_cast<Shares*>(&shares), tasks, 0);
}

}  // namespace torchir::native
