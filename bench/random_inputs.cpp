#include "random_inputs.hpp"

#include <algorithm>
#include <thread>

namespace bench {
namespace {

// Elements per independent SplitMix64 stream: fixed, so the values do not depend on how many
// threads fill the array.
constexpr std::int64_t kStreamLength = 1 << 20;

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// [0, 1) with 53 random bits.
double unit_double(std::uint64_t& state) {
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
}

// Calls make(state) for every element of `values`, stream by stream, on all hardware threads.
template <class T, class Make>
void fill(std::vector<T>& values, std::uint64_t seed, Make make) {
  const std::int64_t n = static_cast<std::int64_t>(values.size());
  const std::int64_t streams = (n + kStreamLength - 1) / kStreamLength;
  const int threads = static_cast<int>(std::clamp<std::int64_t>(
      std::thread::hardware_concurrency(), 1, std::max<std::int64_t>(streams, 1)));
  auto work = [&](int worker) {
    for (std::int64_t s = worker; s < streams; s += threads) {
      std::uint64_t state = seed ^ (0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(s + 1));
      const std::int64_t end = std::min(n, (s + 1) * kStreamLength);
      for (std::int64_t i = s * kStreamLength; i < end; ++i) values[i] = make(state);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& thread : pool) thread.join();
}

}  // namespace

std::vector<float> uniform_floats(std::int64_t n, double low, double high, std::uint64_t seed) {
  std::vector<float> values(static_cast<std::size_t>(n));
  fill(values, seed, [&](std::uint64_t& state) {
    return static_cast<float>(low + (high - low) * unit_double(state));
  });
  return values;
}

std::vector<double> uniform_doubles(std::int64_t n, double low, double high, std::uint64_t seed) {
  std::vector<double> values(static_cast<std::size_t>(n));
  fill(values, seed, [&](std::uint64_t& state) { return low + (high - low) * unit_double(state); });
  return values;
}

std::vector<std::int16_t> uniform_int16(std::int64_t n, int low, int high, std::uint64_t seed) {
  std::vector<std::int16_t> values(static_cast<std::size_t>(n));
  const std::uint64_t span = static_cast<std::uint64_t>(high - low + 1);
  fill(values, seed, [&](std::uint64_t& state) {
    return static_cast<std::int16_t>(low + static_cast<int>(splitmix64(state) % span));
  });
  return values;
}

}  // namespace bench
