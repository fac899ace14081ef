#include "engine/accuracy_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/float_ulps.hpp"

namespace jitvec::engine {
namespace {

AccuracyPoint point_at(const SampledInputs& inputs, std::size_t i, double result, double reference) {
  AccuracyPoint point{{}, result, reference};
  for (const std::vector<double>& column : inputs.columns) point.inputs.push_back(column[i]);
  return point;
}

std::vector<UlpBucket> empty_histogram() {
  const double inf = std::numeric_limits<double>::infinity();
  return {{0, 1, 0}, {1, 2, 0}, {2, 4, 0}, {4, 16, 0}, {16, 256, 0}, {256, 65536, 0}, {65536, inf, 0}};
}

// The value below which the fraction `q` of the sorted values lie (nearest rank).
double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

}  // namespace

void compare_results(const SampledInputs& inputs, DType result_type, const std::vector<double>& results,
                     const std::vector<double>& references, const AccuracyOptions& options,
                     AccuracyReport& report) {
  report.points = results.size();
  report.histogram = empty_histogram();
  report.curves.clear();
  for (const InputRange& range : report.ranges) {
    report.curves.push_back(AccuracyCurve{range.input, range.low, range.high,
                                          std::vector<double>(std::max<std::size_t>(options.bins, 1), -1.0)});
  }
  // Relative errors only where the result type has its full precision.
  const double smallest_normal = detail::float_limits(result_type).smallest_normal;
  std::vector<double> all_ulps;
  all_ulps.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const double got = results[i], reference = references[i];
    const double rounded = detail::round_to(result_type, reference);
    const bool unexpected = (std::isnan(got) && !std::isnan(rounded)) ||
                            (std::isinf(got) && !std::isnan(rounded) && !std::isinf(rounded));
    const bool missing = (!std::isnan(got) && std::isnan(rounded)) ||
                         (!std::isnan(got) && !std::isinf(got) && std::isinf(rounded));
    if (unexpected || missing) {
      std::size_t& count = unexpected ? report.unexpected_nonfinite : report.missing_nonfinite;
      std::vector<AccuracyPoint>& examples = unexpected ? report.unexpected_examples : report.missing_examples;
      ++count;
      if (examples.size() < options.examples) examples.push_back(point_at(inputs, i, got, reference));
      continue;
    }
    if (std::isnan(got)) continue;  // NaN in both: they agree
    const double ulps = detail::ulp_distance(result_type, got, rounded);
    ++report.compared;
    all_ulps.push_back(ulps);
    for (UlpBucket& bucket : report.histogram) {
      if (ulps >= bucket.low_ulps && ulps < bucket.high_ulps) ++bucket.count;
    }
    if (ulps > report.max_ulps || report.max_ulps_at.inputs.empty()) {
      report.max_ulps = ulps;
      report.max_ulps_at = point_at(inputs, i, got, reference);
    }
    if (std::isfinite(rounded) && std::isfinite(got) && std::fabs(reference) >= smallest_normal) {
      const double relative = std::fabs(got - reference) / std::fabs(reference);
      if (relative > report.max_relative || report.max_relative_at.inputs.empty()) {
        report.max_relative = relative;
        report.max_relative_at = point_at(inputs, i, got, reference);
      }
    }
    const int swept = inputs.swept[i];
    if (swept >= 0) {
      AccuracyCurve& curve = report.curves[static_cast<std::size_t>(swept)];
      const double x = inputs.columns[static_cast<std::size_t>(swept)][i];
      const double width = curve.high - curve.low;
      const std::size_t bins = curve.max_ulps.size();
      const auto bin = width > 0 ? static_cast<std::size_t>(std::clamp((x - curve.low) / width * double(bins), 0.0,
                                                                        double(bins - 1)))
                                 : 0;
      curve.max_ulps[bin] = std::max(curve.max_ulps[bin], ulps);
    }
  }
  std::sort(all_ulps.begin(), all_ulps.end());
  report.median_ulps = percentile(all_ulps, 0.5);
  report.p99_ulps = percentile(all_ulps, 0.99);
  report.p999_ulps = percentile(all_ulps, 0.999);
}

}  // namespace jitvec::engine
