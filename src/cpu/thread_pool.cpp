#include "cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "jitvec/errors.hpp"

namespace jitvec::cpu {

namespace {

/// The pool whose chunk this thread is running (its workers always), so that a parallel_for
/// on the same pool from inside a chunk runs inline instead of waiting for itself.
thread_local const ThreadPool* t_running_pool = nullptr;

class RunningPoolScope {
 public:
  explicit RunningPoolScope(const ThreadPool* pool) : saved_(t_running_pool) {
    t_running_pool = pool;
  }
  RunningPoolScope(const RunningPoolScope&) = delete;
  RunningPoolScope& operator=(const RunningPoolScope&) = delete;
  ~RunningPoolScope() { t_running_pool = saved_; }

 private:
  const ThreadPool* saved_;
};

int hardware_threads() {
  const unsigned count = std::thread::hardware_concurrency();
  return count == 0 ? 1 : static_cast<int>(count);
}

}  // namespace

/// One parallel_for: the chunks, who takes part, and the first error.
struct ThreadPool::Job {
  const std::function<void(std::int64_t, std::int64_t)>* body = nullptr;
  std::int64_t begin = 0;
  std::int64_t count = 0;
  std::int64_t chunks = 0;
  std::atomic<std::int64_t> next_chunk{0};
  /// Workers with an index below this take part (the caller always does).
  int helpers = 0;
  /// Helpers that have not finished yet; guarded by state_mutex_.
  int helpers_running = 0;
  std::mutex error_mutex;
  std::exception_ptr first_error;
};

std::int64_t parallel_chunk_count(std::int64_t n, std::int64_t min_chunk, int threads) {
  if (n <= 0) return 0;
  const std::int64_t chunks = std::min<std::int64_t>(n / std::max<std::int64_t>(min_chunk, 1),
                                                     std::max(threads, 1));
  return std::max<std::int64_t>(chunks, 1);
}

ThreadPool::ThreadPool(int threads) {
  if (threads < 0) {
    throw ArgumentError(fmt::format(
        "thread pool size must be 0 (one thread per core) or positive, got {}", threads));
  }
  const int total = threads == 0 ? hardware_threads() : threads;
  try {
    workers_.reserve(static_cast<std::size_t>(total - 1));
    for (int index = 0; index < total - 1; ++index) {
      workers_.emplace_back([this, index] { worker_main(index); });
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::run_chunks(Job& job) {
  const std::int64_t base = job.count / job.chunks;
  const std::int64_t longer = job.count % job.chunks;  // the first `longer` chunks get one more
  for (;;) {
    const std::int64_t chunk = job.next_chunk.fetch_add(1);
    if (chunk >= job.chunks) return;
    const std::int64_t chunk_begin = job.begin + chunk * base + std::min(chunk, longer);
    const std::int64_t chunk_end = chunk_begin + base + (chunk < longer ? 1 : 0);
    try {
      (*job.body)(chunk_begin, chunk_end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mutex);
      if (!job.first_error) job.first_error = std::current_exception();
      job.next_chunk.store(job.chunks);  // skip the chunks nobody has started
    }
  }
}

void ThreadPool::worker_main(int worker_index) {
  t_running_pool = this;
  std::uint64_t seen_generation = 0;
  std::unique_lock<std::mutex> lock(state_mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen_generation; });
    if (stopping_) return;
    seen_generation = generation_;
    Job* job = job_;
    // A job this worker is not part of may already be over when it wakes.
    if (job == nullptr || worker_index >= job->helpers) continue;
    lock.unlock();
    run_chunks(*job);
    lock.lock();
    if (--job->helpers_running == 0) work_done_.notify_all();
  }
}

void ThreadPool::parallel_for(std::int64_t begin, std::int64_t end, std::int64_t min_chunk,
                              const std::function<void(std::int64_t, std::int64_t)>& body) {
  const std::int64_t count = end - begin;
  if (count <= 0) return;
  const std::int64_t chunks = parallel_chunk_count(count, min_chunk, size());
  if (chunks <= 1 || t_running_pool == this) {
    body(begin, end);
    return;
  }

  std::lock_guard<std::mutex> one_job_at_a_time(submit_mutex_);
  Job job;
  job.body = &body;
  job.begin = begin;
  job.count = count;
  job.chunks = chunks;
  job.helpers = static_cast<int>(std::min<std::int64_t>(chunks - 1, size() - 1));
  job.helpers_running = job.helpers;
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    job_ = &job;
    ++generation_;
  }
  work_ready_.notify_all();
  {
    RunningPoolScope running(this);
    run_chunks(job);
  }
  {
    std::unique_lock<std::mutex> lock(state_mutex_);
    work_done_.wait(lock, [&] { return job.helpers_running == 0; });
    job_ = nullptr;
  }
  if (job.first_error) std::rethrow_exception(job.first_error);
}

ThreadPool& default_thread_pool(int threads) {
  static std::mutex mutex;
  // Never destroyed: a pool may still be in use by other static objects while the process exits.
  static auto* pools = new std::map<int, std::unique_ptr<ThreadPool>>();
  const int total = threads == 0 ? hardware_threads() : threads;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<ThreadPool>& pool = (*pools)[total];
  if (!pool) pool = std::make_unique<ThreadPool>(total);
  return *pool;
}

}  // namespace jitvec::cpu
