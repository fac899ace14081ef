// src/cpu/thread_pool.hpp: the threads of the `parallel` target.
//
// A ThreadPool of size() threads is size() - 1 persistent worker threads plus the thread that
// calls parallel_for(). parallel_for() cuts [begin, end) into at most size() contiguous chunks
// of at least min_chunk elements (the same range, min_chunk and size() always give the same
// chunks), runs them on the workers and the caller, waits for all of them, and rethrows the
// first exception a chunk threw (chunks not yet started when it was thrown are skipped).
// Calls from several user threads are served one at a time; a parallel_for() called from inside
// a chunk of the same pool runs its whole range inline on the calling thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace jitvec::cpu {

class ThreadPool {
 public:
  /// A pool of `threads` threads in all, the caller included; 0 means one per hardware thread.
  /// Throws jitvec::ArgumentError for a negative count.
  explicit ThreadPool(int threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  /// Stops and joins the workers; no parallel_for() may be running.
  ~ThreadPool();

  /// Threads that run chunks, the calling thread included.
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Calls body(chunk_begin, chunk_end) for contiguous chunks that together cover [begin, end)
  /// exactly once. Runs inline, as one chunk, when the range holds fewer than 2 * min_chunk
  /// elements or size() is 1. An empty range calls nothing.
  void parallel_for(std::int64_t begin, std::int64_t end, std::int64_t min_chunk,
                    const std::function<void(std::int64_t, std::int64_t)>& body);

 private:
  struct Job;

  void worker_main(int worker_index);
  static void run_chunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex submit_mutex_;  // one parallel_for at a time
  std::mutex state_mutex_;   // guards the fields below
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
};

/// How many chunks parallel_for() cuts n elements into on a pool of `threads` threads:
/// min(threads, n / min_chunk), at least 1 (and 0 for n <= 0). Chunk i of k covers
/// [begin + i*q + min(i, r), ...) with q = n / k, r = n % k: the first r chunks are one longer.
std::int64_t parallel_chunk_count(std::int64_t n, std::int64_t min_chunk, int threads);

/// The process-wide pool with `threads` threads (0: one per hardware thread), made on first
/// use and kept for the life of the process.
ThreadPool& default_thread_pool(int threads);

}  // namespace jitvec::cpu
