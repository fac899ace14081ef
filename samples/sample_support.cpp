// samples/sample_support.cpp: options, target choice, timing and element checks for the samples.
#include "sample_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <random>

#include <fmt/core.h>

#ifndef JITVEC_SAMPLES_DIR
#error "JITVEC_SAMPLES_DIR must name the samples/ folder (samples/CMakeLists.txt defines it)"
#endif

namespace samples {
namespace {

std::uint64_t random_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

/// "812.3 ms", "45.1 us", "1.204 s".
std::string format_seconds(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

}  // namespace

void add_common_options(CLI::App& app, SampleOptions& options, std::int64_t default_n,
                        const std::string& definitions_file_name) {
  options.definitions = std::filesystem::path(JITVEC_SAMPLES_DIR) / definitions_file_name;
  options.n = default_n;
  options.seed = random_seed();
  app.add_option("--definitions", options.definitions,
                 "TOML definition file the ufuncs are loaded from")
      ->capture_default_str();
  app.add_option("--target", options.target,
                 "where to run: cuda, cpu or parallel (default: cuda when a GPU is usable, "
                 "else cpu; JITVEC_TARGET overrides that default)")
      ->check(CLI::IsMember({"cuda", "cpu", "parallel"}));
  app.add_option("-n", options.n, "number of elements")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  app.add_option("--seed", options.seed,
                 "seed of the random data (default: a random seed, printed)");
  app.add_option("--repeats", options.repeats, "timed calls the median is taken over")
      ->capture_default_str()
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
}

std::optional<std::string> why_no_gpu() {
  try {
    jitvec::to_device(std::vector<float>{0.0f});
    return std::nullopt;
  } catch (const jitvec::CudaError& e) {
    return std::string(e.what());
  } catch (const jitvec::TargetError& e) {
    return std::string(e.what());
  }
}

TargetChoice choose_target(const SampleOptions& options, const jitvec::Ufunc& ufunc) {
  if (!options.target.empty()) {
    // add_common_options only lets the three target names through.
    return {*jitvec::parse_target(options.target), "chosen with --target"};
  }
  const jitvec::Target target = ufunc.default_target();
  const char* from_environment = std::getenv("JITVEC_TARGET");
  if (from_environment != nullptr && *from_environment != '\0') {
    return {target, fmt::format("the engine's default, set by JITVEC_TARGET={}", from_environment)};
  }
  if (target == jitvec::Target::cuda) return {target, "a GPU is usable"};
  if (const std::optional<std::string> reason = why_no_gpu()) {
    return {target, "no GPU found: " + *reason};
  }
  return {target, "the engine's default"};
}

std::string TargetChoice::describe() const {
  return fmt::format("{} ({})", jitvec::target_name(target), reason);
}

void print_setup(const SampleOptions& options, const std::string& target_line) {
  fmt::print("elements:    {}\n", options.n);
  fmt::print("seed:        {} (rerun with --seed {})\n", options.seed, options.seed);
  fmt::print("definitions: {}\n", options.definitions.string());
  fmt::print("target:      {}\n", target_line);
}

Timing time_calls(const std::function<void()>& call, int repeats) {
  using Clock = std::chrono::steady_clock;
  const auto timed_call = [&call] {
    const Clock::time_point start = Clock::now();
    call();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  Timing timing;
  timing.first_seconds = timed_call();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) seconds.push_back(timed_call());
  timing.median_seconds = median(std::move(seconds));
  timing.repeats = repeats;
  return timing;
}

void print_timing(std::string_view label, const Timing& timing, std::int64_t n) {
  fmt::print("time, {}: first call {} (includes compiling the loop or loading it from the "
             "cache, if not loaded yet), median of {} calls {} ({:.1f} million elements/s)\n",
             label, format_seconds(timing.first_seconds), timing.repeats,
             format_seconds(timing.median_seconds),
             static_cast<double>(n) / timing.median_seconds / 1e6);
}

void wait_until_computed(const jitvec::Array& device_result) {
  if (device_result.size() == 0) return;
  jitvec::Array first_element = device_result;
  for (int axis = 0; axis < first_element.ndim(); ++axis) {
    first_element = first_element.slice(axis, 0, 1);
  }
  first_element.to_host();
}

void print_engine_stats(const jitvec::Engine& engine) {
  const jitvec::EngineStats stats = engine.stats();
  fmt::print("engine:      {} calls; {} compiles ({}); {} loops loaded from the disk cache, "
             "{} disk-cache misses, {} found in memory\n",
             stats.calls, stats.compiles, format_seconds(stats.compile_seconds), stats.disk_hits,
             stats.disk_misses, stats.memory_hits);
}

std::string Tolerance::describe() const {
  if (rtol == 0.0 && atol == 0.0) return "exact";
  return fmt::format("rtol={:g}, atol={:g}", rtol, atol);
}

void record_element(CheckResult& result, std::int64_t index, double got, double want) {
  const double error = std::abs(got - want);
  // Written so that a NaN error (a NaN result, such as an unwritten poisoned element) fails.
  const bool close = error <= result.tolerance.atol + result.tolerance.rtol * std::abs(want);
  ++result.checked;
  if (!std::isnan(error)) {
    result.max_abs_error = std::max(result.max_abs_error, error);
    if (want != 0.0) result.max_rel_error = std::max(result.max_rel_error, error / std::abs(want));
  }
  if (close) return;
  if (result.mismatches == 0) {
    result.first_mismatch = index;
    result.first_got = got;
    result.first_want = want;
  }
  ++result.mismatches;
}

namespace {

/// "<n> mismatches, first at i=<i>: got <g>, want <r>".
std::string describe_mismatches(const CheckResult& result) {
  return fmt::format("{} mismatches, first at i={}: got {:.9g}, want {:.9g}", result.mismatches,
                     result.first_mismatch, result.first_got, result.first_want);
}

}  // namespace

void print_check(const CheckResult& result) {
  fmt::print("check, {}: {} elements, max |error| {:.3g}, max relative error {:.3g} "
             "(tolerance: {}): {}\n",
             result.label, result.checked, result.max_abs_error, result.max_rel_error,
             result.tolerance.describe(),
             result.passed() ? std::string("PASS") : "FAIL: " + describe_mismatches(result));
}

int print_verdict(const std::vector<CheckResult>& checks) {
  for (const CheckResult& check : checks) {
    if (!check.passed()) {
      fmt::print("FAIL: {} ({})\n", describe_mismatches(check), check.label);
      return 1;
    }
  }
  fmt::print("PASS\n");
  return 0;
}

int run_guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}

}  // namespace samples
