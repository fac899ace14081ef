// bench/gpu_timing.hpp: timing GPU work with CUDA events, and the host cost of queuing it.
//
// EventTimer brackets each repetition with two timing events on the stream the work is queued
// on, waits for the second, and keeps the median of the elapsed times: one kernel (or copy)
// per pair of events, the same method bench/peers.py uses for Numba and CuPy, so small sizes
// compare like with like. host_us_per_call() measures the other side: how long the host spends
// queuing one call, over batches of calls issued back to back (the stream is synchronised
// between batches, outside the timing), median of the batches' averages. The caller must have
// the device's context current (cuda::ContextGuard); every driver call is checked and throws
// jitvec::CudaError naming it, so an asynchronous kernel fault surfaces at the next wait.
#pragma once

#include <cuda.h>

#include <utility>
#include <vector>

#include "cuda/driver.hpp"
#include "cuda/stream.hpp"
#include "timing.hpp"

namespace bench {

class EventTimer {
 public:
  EventTimer(int device, CUstream stream)
      : stream_(stream),
        start_(device, jitvec::cuda::EventTiming::enabled),
        stop_(device, jitvec::cuda::EventTiming::enabled) {}

  /// The median milliseconds between events recorded just before and just after work(), over
  /// `reps.timed` repetitions after `reps.warmup` untimed ones.
  template <class Work>
  double median_ms(Repetitions reps, Work&& work) {
    for (int i = 0; i < reps.warmup; ++i) work();
    synchronize();
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(reps.timed));
    for (int i = 0; i < reps.timed; ++i) {
      start_.record(stream_);
      work();
      stop_.record(stream_);
      stop_.synchronize();
      times.push_back(jitvec::cuda::Event::elapsed_ms(start_, stop_));
    }
    return median(times);
  }

  void synchronize() const {
    jitvec::cuda::check(jitvec::cuda::driver().streamSynchronize(stream_), "cuStreamSynchronize");
  }

 private:
  CUstream stream_;
  jitvec::cuda::Event start_;
  jitvec::cuda::Event stop_;
};

/// Microseconds of host time per call(), the median over `batches` batches of `calls` calls
/// each (after one untimed batch); the stream is synchronised after each batch, untimed.
template <class Call>
double host_us_per_call(CUstream stream, int batches, int calls, Call&& call) {
  auto wait = [&] {
    jitvec::cuda::check(jitvec::cuda::driver().streamSynchronize(stream), "cuStreamSynchronize");
  };
  for (int k = 0; k < calls; ++k) call();
  wait();
  std::vector<double> per_call;
  per_call.reserve(static_cast<std::size_t>(batches));
  for (int b = 0; b < batches; ++b) {
    const Clock::time_point start = Clock::now();
    for (int k = 0; k < calls; ++k) call();
    per_call.push_back(ms_since(start) * 1000.0 / calls);
    wait();
  }
  return median(per_call);
}

/// host_us_per_call() for two calls at once, their batches alternating (A, B, A, B, ...), so
/// that both see the same machine: a ratio of the two is not skewed by the host's speed
/// drifting between two separate measurements. Returns {A's median, B's median}.
template <class CallA, class CallB>
std::pair<double, double> host_us_per_call_interleaved(CUstream stream, int batches, int calls,
                                                       CallA&& a, CallB&& b) {
  auto wait = [&] {
    jitvec::cuda::check(jitvec::cuda::driver().streamSynchronize(stream), "cuStreamSynchronize");
  };
  auto batch = [&](auto& call) {
    const Clock::time_point start = Clock::now();
    for (int k = 0; k < calls; ++k) call();
    const double us = ms_since(start) * 1000.0 / calls;
    wait();
    return us;
  };
  batch(a);
  batch(b);
  std::vector<double> per_call_a, per_call_b;
  for (int i = 0; i < batches; ++i) {
    per_call_a.push_back(batch(a));
    per_call_b.push_back(batch(b));
  }
  return {median(per_call_a), median(per_call_b)};
}

}  // namespace bench
