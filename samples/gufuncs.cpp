// samples/gufuncs.cpp: generalized ufuncs (issue 11), from samples/gufuncs.toml.
//
// NumPy's gufuncs (Numba's @guvectorize) apply a function to sub-arrays: a layout such as
// "(m,n),(n)->(m)" names each operand's core dimensions, and every leading dimension is a loop
// dimension. This sample runs the three of the issue on random data and checks every element
// against a float64 reference computed here:
//   batched_dot     (n),(n)->()      n/4 rows of 16 float32
//   moving_average  (n),()->(n)      n/256 series of 256 float32, one window for all (a scalar)
//                                    and one window per series (a (series,) array: the loop
//                                    dimensions of x (series,) and of the windows agree)
//   matvec          (m,n),(n)->(m)   n 3x3 float32 systems (2^22 by default)
//
//     gufuncs [--target cuda|cpu|parallel] [-n N] [--seed S] [--repeats R]
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <jitvec/jitvec.hpp>

#include "sample_support.hpp"

namespace {

constexpr std::int64_t kDotLength = 16;
constexpr std::int64_t kSeriesLength = 256;
constexpr std::int32_t kWindow = 9;

// float32 sums of at most 16 products of numbers in [-1, 1) (dot, matvec: 3) and running sums
// of 256 (moving average) against float64: a few float32 roundings of numbers below 16.
const samples::Tolerance kFloat32Sums{1e-5, 1e-5};

std::vector<float> uniform(std::int64_t n, std::mt19937_64& generator) {
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  std::vector<float> values(static_cast<std::size_t>(n));
  for (float& v : values) v = static_cast<float>(draw(generator));
  return values;
}

// The call's target option: --target, else the engine's default (a GPU when one is usable).
std::vector<jitvec::Arg> target_option(const samples::SampleOptions& options) {
  std::vector<jitvec::Arg> args;
  if (!options.target.empty()) args.emplace_back(jitvec::target(*jitvec::parse_target(options.target)));
  return args;
}

std::string target_line(const samples::SampleOptions& options) {
  if (!options.target.empty()) return options.target + " (chosen with --target)";
  if (const std::optional<std::string> reason = samples::why_no_gpu()) {
    return "the engine's default: cpu unless JITVEC_TARGET says otherwise (no GPU found: " + *reason + ")";
  }
  return "the engine's default: cuda (a GPU is usable) unless JITVEC_TARGET says otherwise";
}

// Calls `gufunc` with `args` plus the target option, timed, and returns its result.
jitvec::Array timed_call(const std::string& label, const jitvec::Gufunc& gufunc,
                         std::vector<jitvec::Arg> args, const samples::SampleOptions& options,
                         std::int64_t elements) {
  for (jitvec::Arg& a : target_option(options)) args.push_back(std::move(a));
  jitvec::Array result;
  const samples::Timing timing = samples::time_calls(
      [&] { result = gufunc.call_single(args.data(), args.size()); }, options.repeats);
  samples::print_timing(label, timing, elements);
  return result.to_host();
}

samples::CheckResult batched_dot(const jitvec::Gufunc& dot, const samples::SampleOptions& options,
                                 std::mt19937_64& generator) {
  const std::int64_t rows = std::max<std::int64_t>(1, options.n / 4);
  const std::vector<float> a = uniform(rows * kDotLength, generator);
  const std::vector<float> b = uniform(rows * kDotLength, generator);
  const jitvec::Array result = timed_call(
      fmt::format("batched_dot ({}, {})", rows, kDotLength), dot,
      {jitvec::from_vector(a).reshape({rows, kDotLength}), jitvec::from_vector(b).reshape({rows, kDotLength})},
      options, rows);
  std::vector<double> want(static_cast<std::size_t>(rows), 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t i = 0; i < kDotLength; ++i) {
      const auto e = static_cast<std::size_t>(r * kDotLength + i);
      want[static_cast<std::size_t>(r)] += double{a[e]} * double{b[e]};
    }
  }
  return samples::check_elements("batched_dot vs float64", result.to_vector<float>(), want, kFloat32Sums);
}

std::vector<double> moving_average_reference(const std::vector<float>& x, std::int64_t series,
                                             const std::vector<std::int32_t>& windows) {
  std::vector<double> out(x.size());
  for (std::int64_t s = 0; s < series; ++s) {
    const std::int64_t w = windows[static_cast<std::size_t>(windows.size() == 1 ? 0 : s)];
    for (std::int64_t i = 0; i < kSeriesLength; ++i) {
      const std::int64_t first = std::max<std::int64_t>(0, i - w + 1);
      double sum = 0.0;
      for (std::int64_t j = first; j <= i; ++j) sum += x[static_cast<std::size_t>(s * kSeriesLength + j)];
      out[static_cast<std::size_t>(s * kSeriesLength + i)] = sum / static_cast<double>(i - first + 1);
    }
  }
  return out;
}

std::vector<samples::CheckResult> moving_average(const jitvec::Gufunc& average,
                                                 const samples::SampleOptions& options,
                                                 std::mt19937_64& generator) {
  const std::int64_t series = std::max<std::int64_t>(1, options.n / kSeriesLength);
  const std::vector<float> x = uniform(series * kSeriesLength, generator);
  const jitvec::Array xs = jitvec::from_vector(x).reshape({series, kSeriesLength});
  const std::int64_t elements = series * kSeriesLength;
  std::vector<samples::CheckResult> checks;
  const jitvec::Array one_window =
      timed_call(fmt::format("moving_average ({}, {}), window {}", series, kSeriesLength, kWindow),
                 average, {xs, kWindow}, options, elements);
  checks.push_back(samples::check_elements("moving_average, one window vs float64",
                                           one_window.to_vector<float>(),
                                           moving_average_reference(x, series, {kWindow}), kFloat32Sums));
  std::vector<std::int32_t> windows(static_cast<std::size_t>(series));
  std::uniform_int_distribution<std::int32_t> draw(1, 64);
  for (std::int32_t& w : windows) w = draw(generator);
  const jitvec::Array per_series = timed_call(
      fmt::format("moving_average ({}, {}), windows ({},)", series, kSeriesLength, series), average,
      {xs, jitvec::from_vector(windows)}, options, elements);
  checks.push_back(samples::check_elements("moving_average, a window per series vs float64",
                                           per_series.to_vector<float>(),
                                           moving_average_reference(x, series, windows), kFloat32Sums));
  return checks;
}

samples::CheckResult matvec(const jitvec::Gufunc& matvec, const samples::SampleOptions& options,
                            std::mt19937_64& generator) {
  const std::int64_t systems = options.n;
  const std::vector<float> a = uniform(systems * 9, generator);
  const std::vector<float> x = uniform(systems * 3, generator);
  const jitvec::Array y = timed_call(
      fmt::format("matvec of {} 3x3 systems", systems), matvec,
      {jitvec::from_vector(a).reshape({systems, 3, 3}), jitvec::from_vector(x).reshape({systems, 3})},
      options, systems);
  std::vector<double> want(static_cast<std::size_t>(systems * 3), 0.0);
  for (std::int64_t s = 0; s < systems; ++s) {
    for (std::int64_t i = 0; i < 3; ++i) {
      for (std::int64_t j = 0; j < 3; ++j) {
        want[static_cast<std::size_t>(s * 3 + i)] +=
            double{a[static_cast<std::size_t>(s * 9 + i * 3 + j)]} * double{x[static_cast<std::size_t>(s * 3 + j)]};
      }
    }
  }
  return samples::check_elements("matvec vs float64", y.to_vector<float>(), want, kFloat32Sums);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the generalized ufuncs of samples/gufuncs.toml (a batched dot product, a "
               "moving average, 3x3 matrix-vector products) and checks them against float64."};
  samples::SampleOptions options;
  samples::add_common_options(app, options, std::int64_t{1} << 22, "gufuncs.toml");
  CLI11_PARSE(app, argc, argv);

  return samples::run_guarded([&] {
    jitvec::Engine engine;
    engine.load_definitions(options.definitions);
    samples::print_setup(options, target_line(options));
    std::mt19937_64 generator(options.seed);
    std::vector<samples::CheckResult> checks;
    checks.push_back(batched_dot(engine.gufunc("batched_dot"), options, generator));
    for (samples::CheckResult& c : moving_average(engine.gufunc("moving_average"), options, generator)) {
      checks.push_back(std::move(c));
    }
    checks.push_back(matvec(engine.gufunc("matvec"), options, generator));
    samples::print_engine_stats(engine);
    for (const samples::CheckResult& check : checks) samples::print_check(check);
    return samples::print_verdict(checks);
  });
}
