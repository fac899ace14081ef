// tests/test_ufuncs.hpp: the ufuncs the tests define, with independent float64 references.
//
// Each test ufunc is written once as CUDA C++ source (what jitvec compiles) and once as a
// plain C++ function on doubles (what the tests compare against). define_test_ufuncs()
// registers them in an engine, once.
#pragma once

#include <jitvec/jitvec.hpp>

#include <cmath>
#include <vector>

namespace jitvec_test {

/// Registers add, gauss, select, hyp (through helpers hyp2 -> sq), mix, zero_suppress.
void define_test_ufuncs(jitvec::Engine& engine);

inline double ref_add(const std::vector<double>& a) { return a[0] + a[1]; }
inline double ref_gauss(const std::vector<double>& a) {
  const double z = (a[0] - a[1]) / a[2];
  return std::exp(-0.5 * z * z) / (a[2] * 2.5066282746310002);
}
inline double ref_select(const std::vector<double>& a) { return a[0] != 0 ? a[1] : a[2]; }
inline double ref_hyp(const std::vector<double>& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1]); }
inline double ref_mix(const std::vector<double>& a) { return a[0] * a[1] + a[2]; }
inline double ref_zero_suppress(const std::vector<double>& a) {
  return std::fabs(a[0]) < a[1] ? 0.0 : a[0];
}

}  // namespace jitvec_test
