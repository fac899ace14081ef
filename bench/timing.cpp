#include "timing.hpp"

#include <algorithm>

namespace bench {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return 0.5 * (lower + upper);
}

std::vector<std::vector<double>> interleaved_host_ms(Repetitions reps,
                                                     const std::vector<std::function<void()>>& work) {
  const std::size_t pieces = work.size();
  for (int i = 0; i < reps.warmup; ++i) {
    for (const auto& w : work) w();
  }
  std::vector<std::vector<double>> times(pieces);
  for (int round = 0; round < reps.timed; ++round) {
    for (std::size_t k = 0; k < pieces; ++k) {
      const std::size_t piece = (k + static_cast<std::size_t>(round)) % pieces;
      const Clock::time_point start = Clock::now();
      work[piece]();
      times[piece].push_back(ms_since(start));
    }
  }
  return times;
}

}  // namespace bench
