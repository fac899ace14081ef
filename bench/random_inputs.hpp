// bench/random_inputs.hpp: the random inputs every benchmark case runs on.
//
// Benchmarks must never run on zeros (a GPU's memory compression and a CPU's zero pages make
// them unrealistically fast), and the largest inputs (2^28 elements) must be made in well
// under a second, so the values come from SplitMix64 streams, one per chunk of the array,
// filled by all hardware threads. The result depends only on the seed and the length (not on
// the thread count), so a run can be repeated exactly.
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

/// n values uniform in [low, high), rounded to float32.
std::vector<float> uniform_floats(std::int64_t n, double low, double high, std::uint64_t seed);
/// n values uniform in [low, high).
std::vector<double> uniform_doubles(std::int64_t n, double low, double high, std::uint64_t seed);
/// n values uniform in [low, high] (inclusive).
std::vector<std::int16_t> uniform_int16(std::int64_t n, int low, int high, std::uint64_t seed);

}  // namespace bench
