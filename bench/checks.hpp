// bench/checks.hpp: checking a benchmark's output against a float64 reference.
//
// A timing is only reported next to a verdict on the output it timed. The reference is
// computed in float64 on the CPU, element by element, from the same inputs; an element passes
// when |got - want| <= atol + rtol * |want| (NumPy's assert_allclose rule; NaN never passes).
// Outputs up to 2^24 elements are checked whole; larger ones on a sample: the first and last
// 4096 elements and a strided sample of at least 2^20 between them whose offset within the
// stride moves from one sample to the next (so every vector lane and thread position is hit).
// The reference formulas of the three sample ufuncs live here too, so the GPU and CPU
// benchmarks check against the same definitions.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

inline constexpr std::int64_t kFullCheckLimit = std::int64_t{1} << 24;

struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
};

struct Check {
  std::int64_t checked = 0;
  std::int64_t mismatches = 0;
  std::int64_t first_mismatch = -1;
  double first_got = 0.0;
  double first_want = 0.0;
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  bool sampled = false;

  bool passed() const { return checked > 0 && mismatches == 0; }
  /// "2^20 of 2^28 elements (sampled) within rtol=1e-06 atol=1e-07; max rel error 3.1e-07", or
  /// the first mismatch.
  std::string describe() const;
};

/// The indices check_output() looks at for an output of n elements, in increasing order.
std::vector<std::int64_t> check_indices(std::int64_t n);

/// Compares got[i] with want(i) (a float64) at check_indices(got.size()).
template <class T, class Want>
Check check_output(const std::vector<T>& got, Want&& want, Tolerance tolerance) {
  Check result;
  const std::int64_t n = static_cast<std::int64_t>(got.size());
  result.sampled = n > kFullCheckLimit;
  for (const std::int64_t i : check_indices(n)) {
    const double g = static_cast<double>(got[static_cast<std::size_t>(i)]);
    const double w = want(i);
    const double error = std::fabs(g - w);
    ++result.checked;
    if (std::isfinite(error)) {
      result.max_abs_error = std::fmax(result.max_abs_error, error);
      if (w != 0.0) result.max_rel_error = std::fmax(result.max_rel_error, error / std::fabs(w));
    }
    if (!(error <= tolerance.atol + tolerance.rtol * std::fabs(w))) {
      if (result.mismatches++ == 0) {
        result.first_mismatch = i;
        result.first_got = g;
        result.first_want = w;
      }
    }
  }
  return result;
}

// ---- the sample ufuncs, in float64 ----

inline double gaussian_pdf_reference(double x, double mean, double sigma) {
  const double z = (x - mean) / sigma;
  return std::exp(-0.5 * z * z) / (sigma * std::sqrt(2.0 * 3.14159265358979323846));
}

inline double polar_distance_reference(double rho1, double theta1, double rho2, double theta2) {
  const double dx = rho1 * std::cos(theta1) - rho2 * std::cos(theta2);
  const double dy = rho1 * std::sin(theta1) - rho2 * std::sin(theta2);
  return std::sqrt(dx * dx + dy * dy);
}

inline double zero_suppress_reference(double value, double threshold) {
  return (value > -threshold && value < threshold) ? 0.0 : value;
}

// Tolerances for float32 results against the float64 reference. gaussian_pdf: the float32
// argument's rounding (|z*z| <= 9 here) and expf's 2 ulp give a few 1e-7 relative. polar_distance:
// cosf/sinf of |theta| <= pi are within 2 ulp, but the difference of two near-equal points
// loses relative precision, so the absolute part carries it (points are within 3 of the origin).
inline constexpr Tolerance kGaussianFloat32{4e-6, 1e-7};
inline constexpr Tolerance kGaussianFloat64{1e-13, 1e-300};
inline constexpr Tolerance kPolarFloat32{1e-5, 2e-6};
inline constexpr Tolerance kExact{0.0, 0.0};
/// a + b in float32 is the float64 sum rounded once: within half an ulp.
inline constexpr Tolerance kAddFloat32{1.2e-7, 0.0};

}  // namespace bench
