#include "cpu/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>

#include <fmt/format.h>

#include "jitvec/errors.hpp"

namespace jitvec::cpu {

namespace {

/// The pool whose piece this thread is running (its workers always), so that a parallel_for
/// on the same pool from inside a piece runs inline instead of waiting for itself.
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

// How long an idle worker spins for the next call before it sleeps, and how long the caller
// spins for the last pieces. Back-to-back calls on host arrays are a few microseconds apart.
constexpr std::chrono::microseconds kWorkerSpin{50};
constexpr std::chrono::microseconds kCallerSpin{20};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Spins until done() or `limit` has passed; returns done()'s last answer.
template <class Done>
bool spin_until(Done&& done, std::chrono::microseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

constexpr std::uint64_t pack(std::uint64_t front, std::uint64_t back) { return front << 32 | back; }
constexpr std::uint64_t front_of(std::uint64_t range) { return range >> 32; }
constexpr std::uint64_t back_of(std::uint64_t range) { return range & 0xffffffffu; }

/// Takes one piece of a share: its front piece for the owner, else its back piece; -1 when
/// the share has none left.
std::int64_t claim(std::atomic<std::uint64_t>& range, bool owner) {
  std::uint64_t seen = range.load(std::memory_order_acquire);
  for (;;) {
    const std::uint64_t front = front_of(seen), back = back_of(seen);
    if (front >= back) return -1;
    const std::uint64_t next = owner ? pack(front + 1, back) : pack(front, back - 1);
    if (range.compare_exchange_weak(seen, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
      return static_cast<std::int64_t>(owner ? front : back - 1);
    }
  }
}

}  // namespace

std::int64_t ChunkPlan::bound(std::int64_t i) const {
  const std::int64_t total = total_pieces();
  if (i <= 0) return begin;
  if (i >= total) return begin + count;
  const std::int64_t q = count / total, r = count % total;
  const std::int64_t raw = begin + i * q + std::min(i, r);
  if (grain.multiple <= 1) return raw;
  const std::int64_t m = grain.multiple;
  return raw - (((raw + grain.phase) % m) + m) % m;
}

ChunkPlan plan_chunks(std::int64_t begin, std::int64_t end, std::int64_t min_chunk, int threads,
                      ChunkGrain grain) {
  ChunkPlan plan;
  plan.begin = begin;
  plan.count = std::max<std::int64_t>(end - begin, 0);
  if (plan.count == 0) {
    plan.shares = 0;
    return plan;
  }
  const std::int64_t least = std::max<std::int64_t>(min_chunk, 1);
  plan.shares = std::max<std::int64_t>(1, std::min<std::int64_t>(plan.count / least, std::max(threads, 1)));
  if (plan.shares > 1) {
    plan.pieces = std::clamp<std::int64_t>(plan.count / (plan.shares * least), 1, kMaxPiecesPerShare);
  }
  const std::int64_t shortest = plan.count / plan.total_pieces();
  if (grain.multiple > 1 && plan.total_pieces() > 1 && shortest >= 4 * grain.multiple) {
    plan.grain.multiple = grain.multiple;
    plan.grain.phase = ((grain.phase % grain.multiple) + grain.multiple) % grain.multiple;
  }
  return plan;
}

std::int64_t parallel_chunk_count(std::int64_t n, std::int64_t min_chunk, int threads) {
  return plan_chunks(0, n, min_chunk, threads).shares;
}

/// One parallel_for: the plan, the body and the first error. Lives on the caller's stack; the
/// caller returns only once no worker is inside it (active_ is 0 after job_ was cleared).
struct ThreadPool::Job {
  const Body* body = nullptr;
  ChunkPlan plan;
  std::uint64_t generation = 0;
  std::atomic<bool> cancelled{false};
  std::mutex error_mutex;
  std::exception_ptr first_error;
};

ThreadPool::ThreadPool(int threads) {
  if (threads < 0) {
    throw ArgumentError(fmt::format(
        "thread pool size must be 0 (one thread per core) or positive, got {}", threads));
  }
  const int total = threads == 0 ? hardware_threads() : threads;
  limit_.store(total, std::memory_order_relaxed);
  shares_ = std::make_unique<Share[]>(static_cast<std::size_t>(total));
  try {
    workers_.reserve(static_cast<std::size_t>(total - 1));
    for (int index = 0; index < total - 1; ++index) {
      workers_.emplace_back([this, index] { worker_main(index); });
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      stopping_.store(true);
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    stopping_.store(true);
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::run_job(Job& job, std::int64_t own_share) {
  const std::int64_t shares = job.plan.shares;
  const std::int64_t pieces = job.plan.pieces;
  auto run_piece = [&](std::int64_t piece) {
    try {
      (*job.body)(job.plan.bound(piece), job.plan.bound(piece + 1));
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mutex);
      if (!job.first_error) job.first_error = std::current_exception();
      job.cancelled.store(true);  // skip the pieces nobody has started
    }
  };
  // Its own share from the front, then the others' from the back, the next share first.
  for (std::int64_t step = 0; step < shares; ++step) {
    const std::int64_t share = (own_share + step) % shares;
    std::atomic<std::uint64_t>& range = shares_[static_cast<std::size_t>(share)].range;
    for (;;) {
      if (job.cancelled.load(std::memory_order_relaxed)) return;
      const std::int64_t piece = claim(range, step == 0);
      if (piece < 0) break;
      run_piece(share * pieces + piece);
    }
  }
}

std::uint64_t ThreadPool::wait_for_work(std::uint64_t seen) {
  auto ready = [&] {
    return stopping_.load(std::memory_order_acquire) ||
           generation_.load(std::memory_order_acquire) != seen;
  };
  if (!spin_until(ready, kWorkerSpin)) {
    std::unique_lock<std::mutex> lock(state_mutex_);
    ++sleepers_;
    work_ready_.wait(lock, ready);
    --sleepers_;
  }
  return generation_.load(std::memory_order_acquire);
}

void ThreadPool::worker_main(int worker_index) {
  t_running_pool = this;
  std::uint64_t seen = 0;
  for (;;) {
    seen = wait_for_work(seen);
    if (stopping_.load(std::memory_order_acquire)) return;
    // Announce first, then look: the caller clears job_ before it waits for active_ to be 0,
    // so either it waits for this worker or this worker sees no job (both seq_cst).
    active_.fetch_add(1);
    Job* job = job_.load();
    // A job this worker is not part of, or one already over when it woke, is skipped.
    if (job != nullptr) {
      seen = job->generation;
      if (worker_index + 1 < job->plan.shares) run_job(*job, worker_index + 1);
    }
    if (active_.fetch_sub(1) == 1 && caller_waiting_.load()) {
      std::lock_guard<std::mutex> lock(state_mutex_);
      work_done_.notify_all();
    }
  }
}

void ThreadPool::wait_for_helpers() {
  auto done = [&] { return active_.load() == 0; };
  if (spin_until(done, kCallerSpin)) return;
  caller_waiting_.store(true);
  {
    std::unique_lock<std::mutex> lock(state_mutex_);
    work_done_.wait(lock, done);
  }
  caller_waiting_.store(false);
}

void ThreadPool::set_limit(int threads) {
  if (threads < 1 || threads > size()) {
    throw ArgumentError(fmt::format("number of threads must be between 1 and {} (the pool's threads), got {}",
                                    size(), threads));
  }
  limit_.store(threads, std::memory_order_relaxed);
}

void ThreadPool::parallel_for(std::int64_t begin, std::int64_t end, std::int64_t min_chunk,
                              ChunkGrain grain, const Body& body) {
  if (end <= begin) return;
  const int threads = limit();
  if (threads == 1 || t_running_pool == this) {
    body(begin, end);
    return;
  }
  Job job;
  job.plan = plan_chunks(begin, end, min_chunk, threads, grain);
  if (job.plan.shares <= 1) {
    body(begin, end);
    return;
  }

  std::lock_guard<std::mutex> one_job_at_a_time(submit_mutex_);
  job.body = &body;
  for (std::int64_t s = 0; s < job.plan.shares; ++s) {
    shares_[static_cast<std::size_t>(s)].range.store(pack(0, static_cast<std::uint64_t>(job.plan.pieces)),
                                                     std::memory_order_relaxed);
  }
  job.generation = generation_.load() + 1;
  job_.store(&job);
  int sleepers;
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    generation_.store(job.generation);
    sleepers = sleepers_;
  }
  if (sleepers > 0) work_ready_.notify_all();
  {
    RunningPoolScope running(this);
    run_job(job, 0);
  }
  // Every piece is taken (or the job was cancelled); wait for those still running.
  job_.store(nullptr);
  wait_for_helpers();
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
