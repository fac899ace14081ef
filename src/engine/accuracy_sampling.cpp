#include "engine/accuracy_sampling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/float_ulps.hpp"
#include "jitvec/errors.hpp"
#include "jitvec/half.hpp"

namespace jitvec::engine {
namespace {

// SplitMix64: a small generator whose every step is written here (std's distributions differ
// between standard libraries).
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

// An input's range in its own type, with the magnitudes its log-spaced values span.
struct Span {
  DType type;
  double low, high;  // rounded to `type`
  double tiny;       // the smallest magnitude a log-spaced value takes: the smallest normal
  double clamp(double v) const { return std::min(high, std::max(low, detail::round_to(type, v))); }
  // The value at fraction u in [0, 1] of the span, evenly spaced.
  double linear(double u) const { return clamp(low + (high - low) * u); }
  // The value at fraction u of the log-spaced values: the negative side's magnitudes (large to
  // small), then the positive side's (small to large), each side in proportion to its decades.
  double logarithmic(double u) const {
    const double positive_top = std::max(high, 0.0), negative_top = std::max(-low, 0.0);
    auto decades = [&](double top, double bottom) {
      return top > bottom ? std::log10(top) - std::log10(bottom) : 0.0;
    };
    const double positive_bottom = low > 0 ? low : tiny;
    const double negative_bottom = high < 0 ? -high : tiny;
    const double dp = decades(positive_top, positive_bottom), dn = decades(negative_top, negative_bottom);
    if (dp + dn == 0) return linear(u);
    const double at = u * (dp + dn);
    if (at < dn) return clamp(-std::pow(10.0, std::log10(negative_top) - at));
    return clamp(std::pow(10.0, std::log10(positive_bottom) + (at - dn)));
  }
  double random(Random& random) const {
    const double u = random.unit();
    return random.next() & 1 ? linear(u) : logarithmic(u);
  }
};

std::vector<double> edge_values(DType t) {
  const detail::FloatLimits limits = detail::float_limits(t);
  const double inf = std::numeric_limits<double>::infinity();
  return {0.0, -0.0, limits.smallest_subnormal, -limits.smallest_subnormal, limits.smallest_normal,
          -limits.smallest_normal, limits.largest, -limits.largest, inf, -inf,
          std::numeric_limits<double>::quiet_NaN()};
}

// Edge points per input with the other inputs random.
constexpr int kEdgeRepeats = 4;

}  // namespace

SampledInputs sample_inputs(const std::vector<DType>& types, const std::vector<InputRange>& ranges,
                            std::size_t points, std::uint64_t seed) {
  const std::size_t nin = types.size();
  std::vector<Span> spans;
  for (std::size_t k = 0; k < nin; ++k) {
    const DType t = types[k];
    spans.push_back(Span{t, detail::round_to(t, ranges[k].low), detail::round_to(t, ranges[k].high),
                         detail::float_limits(t).smallest_normal});
  }
  Random random{seed};
  SampledInputs sampled;
  sampled.columns.assign(nin, {});
  auto add_point = [&](int swept, std::size_t at, double value) {
    for (std::size_t k = 0; k < nin; ++k) {
      sampled.columns[k].push_back(k == at ? value : spans[k].random(random));
    }
    sampled.swept.push_back(swept);
  };
  const std::size_t per_input = std::max<std::size_t>(points / std::max<std::size_t>(nin, 1), 8);
  for (std::size_t k = 0; k < nin; ++k) {
    const std::size_t linear = per_input / 2, logarithmic = per_input - linear;
    for (std::size_t j = 0; j < linear; ++j) {
      add_point(static_cast<int>(k), k, spans[k].linear(linear == 1 ? 0.5 : double(j) / double(linear - 1)));
    }
    for (std::size_t j = 0; j < logarithmic; ++j) {
      add_point(static_cast<int>(k), k,
                spans[k].logarithmic(logarithmic == 1 ? 0.5 : double(j) / double(logarithmic - 1)));
    }
  }
  for (std::size_t k = 0; k < nin; ++k) {
    for (double edge : edge_values(types[k])) {
      for (int repeat = 0; repeat < kEdgeRepeats; ++repeat) add_point(-1, k, edge);
    }
  }
  if (nin > 1) {
    for (std::size_t e = 0; e < edge_values(types[0]).size(); ++e) {
      for (std::size_t k = 0; k < nin; ++k) sampled.columns[k].push_back(edge_values(types[k])[e]);
      sampled.swept.push_back(-1);
    }
  }
  return sampled;
}

Array to_array(DType t, const std::vector<double>& values) {
  const auto n = static_cast<std::int64_t>(values.size());
  Array a = Array::empty(t, {n});
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    switch (t) {
      case DType::float16: static_cast<std::uint16_t*>(a.data())[i] = detail::double_to_half_bits(v); break;
      case DType::bfloat16:
        static_cast<std::uint16_t*>(a.data())[i] = detail::double_to_bfloat16_bits(v);
        break;
      case DType::float32: static_cast<float*>(a.data())[i] = static_cast<float>(v); break;
      case DType::float64: static_cast<double*>(a.data())[i] = v; break;
      default:
        throw ArgumentError(fmt::format("accuracy: cannot make an input array of {}", dtype_name(t)));
    }
  }
  return a;
}

std::vector<double> to_doubles(const Array& a) {
  std::vector<double> values(static_cast<std::size_t>(a.size()));
  const Array host = a.is_device() ? a.to_host() : a;
  for (std::size_t i = 0; i < values.size(); ++i) {
    switch (host.dtype()) {
      case DType::float16:
        values[i] = detail::half_bits_to_float(static_cast<const std::uint16_t*>(host.data())[i]);
        break;
      case DType::bfloat16:
        values[i] = detail::bfloat16_bits_to_float(static_cast<const std::uint16_t*>(host.data())[i]);
        break;
      case DType::float32: values[i] = static_cast<const float*>(host.data())[i]; break;
      case DType::float64: values[i] = static_cast<const double*>(host.data())[i]; break;
      case DType::bool_: values[i] = static_cast<const bool*>(host.data())[i] ? 1.0 : 0.0; break;
      default:
        throw ArgumentError(
            fmt::format("accuracy: cannot read a result array of {}", dtype_name(host.dtype())));
    }
  }
  return values;
}

}  // namespace jitvec::engine
