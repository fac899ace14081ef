// src/cpu/thread_pool.hpp: the threads of the `parallel` target.
//
// A ThreadPool of size() threads is size() - 1 persistent worker threads plus the thread that
// calls parallel_for(). parallel_for() gives each of at most size() threads (the caller first)
// one contiguous share of [begin, end), cut into a few pieces (ChunkPlan: the same range,
// min_chunk, grain and size() always give the same pieces). Each thread runs the pieces of its
// own share in order, front to back, so that its memory traffic is one stream; a thread that
// has finished its share takes pieces from the back of the others', so a thread that started
// late, was preempted or shares a core costs the call one piece, not one share. It waits for
// every piece, and rethrows the first exception a piece threw (pieces not yet started when it
// was thrown are skipped).
//
// Waking: a worker spins for a few tens of microseconds after a call before it sleeps on a
// condition variable, so back-to-back calls do not pay a wake-up; the caller likewise spins
// briefly for the last pieces before it sleeps. Threads are not pinned to cores (see
// bench/NOTES.md, "Session 5: parallel CPU target", for why).
//
// Calls from several user threads are served one at a time; a parallel_for() called from inside
// a piece of the same pool runs its whole range inline on the calling thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace jitvec::cpu {

/// Where piece boundaries may fall: every boundary b other than the range's own ends satisfies
/// (b + phase) % multiple == 0. For a contiguous output of element size s at address a,
/// multiple = 4096 / s and phase = (a % 4096) / s put every boundary on a page, so no two
/// threads write one page or one cache line. Ignored when a piece would hold fewer than
/// 4 * multiple elements.
struct ChunkGrain {
  std::int64_t multiple = 1;
  std::int64_t phase = 0;
};

/// How parallel_for() cuts a range: `shares` contiguous shares (one per taking-part thread),
/// each of `pieces` pieces; piece i (0 <= i < shares * pieces) is [bound(i), bound(i + 1)).
struct ChunkPlan {
  std::int64_t begin = 0;
  std::int64_t count = 0;
  std::int64_t shares = 0;  ///< 0 for an empty range, 1 when it runs inline
  std::int64_t pieces = 1;  ///< pieces per share
  ChunkGrain grain;         ///< multiple 1 when the grain is ignored

  std::int64_t total_pieces() const { return shares * pieces; }
  /// The first index of piece i; bound(total_pieces()) is the range's end.
  std::int64_t bound(std::int64_t i) const;
};

/// The most pieces one share is cut into.
inline constexpr std::int64_t kMaxPiecesPerShare = 8;

/// The plan for [begin, end) on `threads` threads: shares = min(threads, n / min_chunk), at
/// least 1 (0 for n <= 0); pieces = min(kMaxPiecesPerShare, n / (shares * min_chunk)), at
/// least 1. Pieces differ in length by at most one element, or by less than grain.multiple
/// when the grain applies.
ChunkPlan plan_chunks(std::int64_t begin, std::int64_t end, std::int64_t min_chunk, int threads,
                      ChunkGrain grain = {});

/// How many threads take part for n elements on a pool of `threads`: plan_chunks(...).shares.
std::int64_t parallel_chunk_count(std::int64_t n, std::int64_t min_chunk, int threads);

class ThreadPool {
 public:
  using Body = std::function<void(std::int64_t, std::int64_t)>;

  /// A pool of `threads` threads in all, the caller included; 0 means one per hardware thread.
  /// Throws jitvec::ArgumentError for a negative count.
  explicit ThreadPool(int threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  /// Stops and joins the workers; no parallel_for() may be running.
  ~ThreadPool();

  /// Threads that run pieces, the calling thread included.
  int size() const { return static_cast<int>(workers_.size()) + 1; }
  /// How many of them a parallel_for() uses, from 1 to size() (default size()): Numba's
  /// set_num_threads. Throws jitvec::ArgumentError outside that range. Safe to call at any
  /// time; a parallel_for() already running keeps the count it started with.
  void set_limit(int threads);
  int limit() const { return limit_.load(std::memory_order_relaxed); }

  /// Calls body(piece_begin, piece_end) for the pieces of plan_chunks(begin, end, min_chunk,
  /// limit(), grain), which together cover [begin, end) exactly once. Runs inline, as one piece,
  /// when the range holds fewer than 2 * min_chunk elements or limit() is 1. An empty range
  /// calls nothing.
  void parallel_for(std::int64_t begin, std::int64_t end, std::int64_t min_chunk,
                    const Body& body) {
    parallel_for(begin, end, min_chunk, ChunkGrain{}, body);
  }
  void parallel_for(std::int64_t begin, std::int64_t end, std::int64_t min_chunk,
                    ChunkGrain grain, const Body& body);

 private:
  struct Job;
  std::atomic<int> limit_{1};
  struct alignas(64) Share {
    /// The share's unclaimed pieces [front, back), packed front << 32 | back, relative to its
    /// first piece: the owner takes the front, others take the back.
    std::atomic<std::uint64_t> range{0};
  };

  void worker_main(int worker_index);
  void run_job(Job& job, std::int64_t own_share);
  /// Waits (spinning first) until generation_ differs from `seen` or the pool stops.
  std::uint64_t wait_for_work(std::uint64_t seen);
  /// Waits (spinning first) until no worker is inside the finished job.
  void wait_for_helpers();

  std::vector<std::thread> workers_;
  std::unique_ptr<Share[]> shares_;  // one per thread; used by one job at a time
  std::mutex submit_mutex_;          // one parallel_for at a time
  std::atomic<Job*> job_{nullptr};   // the running job, null between jobs
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> active_{0};       // workers inside a job (they may be reading job_)
  std::atomic<bool> caller_waiting_{false};
  std::atomic<bool> stopping_{false};
  std::mutex state_mutex_;           // for the two condition variables
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  int sleepers_ = 0;                 // workers asleep on work_ready_; guarded by state_mutex_
};

/// The process-wide pool with `threads` threads (0: one per hardware thread), made on first
/// use and kept for the life of the process.
ThreadPool& default_thread_pool(int threads);

}  // namespace jitvec::cpu
