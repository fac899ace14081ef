// bench/thread_team.hpp: the threads of the CPU benchmark's ceilings (threaded memcpy, threaded
// read sweep), independent of jitvec's pool.
//
// A ceiling should be the best plain threaded code, not a handicapped one: threads made once
// (not one std::thread per call, whose creation and join the old ceiling timed), each running
// one fixed contiguous slice [n*t/T, n*(t+1)/T) of every job (OpenMP's schedule(static)), the
// calling thread taking slice 0. Between jobs a thread spins for 50 us and then sleeps on a
// condition variable, as jitvec's pool does, so that in the interleaved measurements neither
// side keeps cores busy while the other runs, and both pay the same kind of wake-up.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace bench {

class ThreadTeam {
 public:
  explicit ThreadTeam(int threads) : threads_(threads < 1 ? 1 : threads) {
    for (int t = 1; t < threads_; ++t) members_.emplace_back([this, t] { member(t); });
  }
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;
  ~ThreadTeam() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (std::thread& m : members_) m.join();
  }

  int size() const { return threads_; }

  /// Calls slice(t, begin, end) on thread t for t = 0..size()-1, with [begin, end) the t-th of
  /// size() contiguous slices of [0, n); returns when every slice is done.
  void run(std::int64_t n, const std::function<void(int, std::int64_t, std::int64_t)>& slice) {
    n_ = n;
    slice_ = &slice;
    pending_.store(threads_ - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1);
    }
    wake_.notify_all();
    run_slice(0);
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (pending_.load() != 0) {
      if (std::chrono::steady_clock::now() > spin_until) std::this_thread::yield();
    }
  }

 private:
  void run_slice(int t) const {
    const std::int64_t begin = n_ * t / threads_, end = n_ * (t + 1) / threads_;
    (*slice_)(t, begin, end);
  }

  void member(int t) {
    std::uint64_t seen = 0;
    for (;;) {
      auto ready = [&] { return stopping_.load() || generation_.load() != seen; };
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      while (!ready() && std::chrono::steady_clock::now() < deadline) {
      }
      if (!ready()) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, ready);
      }
      if (stopping_.load()) return;
      seen = generation_.load();
      run_slice(t);
      pending_.fetch_sub(1);
    }
  }

  const int threads_;
  std::vector<std::thread> members_;
  std::int64_t n_ = 0;
  const std::function<void(int, std::int64_t, std::int64_t)>* slice_ = nullptr;
  std::atomic<int> pending_{0};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace bench
