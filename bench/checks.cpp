#include "checks.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bench {
namespace {

constexpr std::int64_t kEdge = 4096;
constexpr std::int64_t kMinSample = std::int64_t{1} << 20;

}  // namespace

std::vector<std::int64_t> check_indices(std::int64_t n) {
  std::vector<std::int64_t> indices;
  if (n <= kFullCheckLimit) {
    indices.resize(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    for (std::int64_t i = 0; i < n; ++i) indices[static_cast<std::size_t>(i)] = i;
    return indices;
  }
  const std::int64_t stride = n / kMinSample;  // >= 16 here, and n / stride >= kMinSample
  indices.reserve(static_cast<std::size_t>(n / stride + 2 * kEdge));
  for (std::int64_t i = 0; i < kEdge; ++i) indices.push_back(i);
  for (std::int64_t k = 0; k * stride < n; ++k) {
    const std::int64_t i = k * stride + (k * 7) % stride;
    if (i >= kEdge && i < n - kEdge) indices.push_back(i);
  }
  for (std::int64_t i = n - kEdge; i < n; ++i) indices.push_back(i);
  return indices;
}

std::string Check::describe() const {
  const std::string what = fmt::format("{} elements{}", checked, sampled ? " (sampled)" : "");
  if (checked == 0) return "nothing was checked";
  if (mismatches == 0) {
    return fmt::format("{} match the float64 reference; max abs error {:.3g}, max rel error {:.3g}",
                       what, max_abs_error, max_rel_error);
  }
  return fmt::format(
      "{} of {} differ from the float64 reference; first at index {}: got {}, "
      "want {}",
      mismatches, what, first_mismatch, first_got, first_want);
}

}  // namespace bench
