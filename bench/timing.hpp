// bench/timing.hpp: repeated timings and their medians, on the host clock.
//
// Every benchmark time is the median of several repetitions taken after warm-up calls (which
// compile or load the code, fault in the pages and fill the memory pools). Host wall time
// (steady_clock) serves the CPU benchmarks, calls that end synchronised (host arrays in and
// out), and the host cost of a call; GPU kernels are timed with CUDA events (gpu_timing.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

/// Milliseconds from `start` to now.
inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The median (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

struct Repetitions {
  int warmup = 2;
  int timed = 10;
};

/// The median host time of `timed` calls of `work`, after `warmup` untimed ones.
template <class Work>
double median_host_ms(Repetitions reps, Work&& work) {
  for (int i = 0; i < reps.warmup; ++i) work();
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(reps.timed));
  for (int i = 0; i < reps.timed; ++i) {
    const Clock::time_point start = Clock::now();
    work();
    times.push_back(ms_since(start));
  }
  return median(times);
}

/// Host times of several pieces of work taken in alternation, so that all see the same machine
/// state (clock frequency, other tenants' memory traffic): `warmup` untimed rounds, then
/// `timed` rounds, each running every piece once, the order rotated by one each round.
/// Returns times[piece][round].
std::vector<std::vector<double>> interleaved_host_ms(Repetitions reps,
                                                     const std::vector<std::function<void()>>& work);

}  // namespace bench
