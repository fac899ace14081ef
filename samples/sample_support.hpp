// samples/sample_support.hpp: what the three sample programs share, so each reads as a script.
//
// Every sample (gaussian_pdf, polar_distance, zero_suppress) takes the same options (the
// definition file, the target, the element count, the RNG seed, the number of timed calls),
// chooses and explains its target the same way, times its calls the same way (one first call,
// which includes compiling or loading the disk cache, then the median of several), checks every
// element of a result against a float64 reference that the sample computes itself, and ends
// with one verdict line. None of this is jitvec's API: it is the scaffolding around it.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <jitvec/jitvec.hpp>

namespace samples {

/// The options every sample takes.
struct SampleOptions {
  /// The TOML file the ufuncs come from (`--definitions`); defaults to the sample's own file in
  /// the source tree's samples/ folder, the file `jitvec compile` precompiles.
  std::filesystem::path definitions;
  /// "cuda", "cpu" or "parallel" (`--target`); empty: the engine's default.
  std::string target;
  /// Number of elements (`-n`).
  std::int64_t n = 0;
  /// The random generator's seed (`--seed`); a random one unless given.
  std::uint64_t seed = 0;
  /// How many calls the median time is taken over (`--repeats`).
  int repeats = 10;
};

/// Adds --definitions, --target, -n, --seed and --repeats to `app`; the parsed values land in
/// `options`. `definitions_file_name` is the sample's TOML file in the samples/ folder.
void add_common_options(CLI::App& app, SampleOptions& options, std::int64_t default_n,
                        const std::string& definitions_file_name);

/// Why the GPU cannot be used (the error a one-element copy to the device raised), or nullopt
/// when it can.
std::optional<std::string> why_no_gpu();

/// The target a sample runs on, and why that one.
struct TargetChoice {
  jitvec::Target target;
  std::string reason;
  /// "cpu (no GPU found: ...)".
  std::string describe() const;
};

/// `--target` if given, else `ufunc`'s default target (the engine's: JITVEC_TARGET, else cuda
/// when a GPU is usable, else cpu), with the reason in words.
TargetChoice choose_target(const SampleOptions& options, const jitvec::Ufunc& ufunc);

/// Prints the sample's setup: element count, seed (and how to rerun with it), definition file
/// and `target_line` (where it runs, and why).
void print_setup(const SampleOptions& options, const std::string& target_line);

/// Wall-clock times of a repeated call.
struct Timing {
  double first_seconds = 0.0;   ///< the first call: may include compiling or loading the loop
  double median_seconds = 0.0;  ///< median of the calls after it
  int repeats = 0;              ///< how many calls the median is over
};

/// Calls `call` once (timed alone), then `repeats` more times, and returns both times.
Timing time_calls(const std::function<void()>& call, int repeats);

/// One line: the label, the first call's time and the median time with its throughput.
void print_timing(std::string_view label, const Timing& timing, std::int64_t n);

/// Blocks until the GPU has finished the work that produced `device_result`: copies its first
/// element back to the host, a copy that waits for the default stream's earlier work. Device
/// calls may return before the kernel finishes, so timing them needs this.
void wait_until_computed(const jitvec::Array& device_result);

/// Prints the engine's counters: calls, compiles and their time, disk-cache hits and misses.
void print_engine_stats(const jitvec::Engine& engine);

/// NumPy's assert_allclose rule: |got - want| <= atol + rtol * |want|. {0, 0} means exact.
struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
  /// "rtol=1e-06, atol=1e-07", or "exact" for {0, 0}.
  std::string describe() const;
};

/// The outcome of comparing every element of one result with its expected values.
struct CheckResult {
  std::string label;
  Tolerance tolerance;
  std::int64_t checked = 0;
  std::int64_t mismatches = 0;
  std::int64_t first_mismatch = -1;  ///< index of the first mismatch, -1 if none
  double first_got = 0.0;
  double first_want = 0.0;
  double max_abs_error = 0.0;  ///< over elements whose error is a number (NaN counts only
  double max_rel_error = 0.0;  ///< as a mismatch); relative error where want != 0
  bool passed() const { return mismatches == 0; }
};

/// Records one element's comparison in `result` (the loop body of check_elements).
void record_element(CheckResult& result, std::int64_t index, double got, double want);

/// Compares got[i] with want[i] for every i under `tolerance`, in float64. Throws
/// std::runtime_error if the lengths differ.
template <class Got, class Want>
CheckResult check_elements(std::string label, const std::vector<Got>& got,
                           const std::vector<Want>& want, Tolerance tolerance) {
  if (got.size() != want.size()) {
    throw std::runtime_error(label + ": the result has " + std::to_string(got.size()) +
                             " elements, the reference " + std::to_string(want.size()));
  }
  CheckResult result;
  result.label = std::move(label);
  result.tolerance = tolerance;
  for (std::size_t i = 0; i < got.size(); ++i) {
    record_element(result, static_cast<std::int64_t>(i), static_cast<double>(got[i]),
                   static_cast<double>(want[i]));
  }
  return result;
}

/// One line per check: what was compared, the tolerance, the largest errors, PASS or FAIL.
void print_check(const CheckResult& result);

/// Prints the verdict line, "PASS" or "FAIL: <n> mismatches, first at i=<i>: got <g>, want <r>"
/// (from the first failing check), and returns the exit status: 0 for PASS, 1 for FAIL.
int print_verdict(const std::vector<CheckResult>& checks);

/// Runs a sample's body; an exception is printed (its what()) and turns into exit status 1.
int run_guarded(const std::function<int()>& body);

}  // namespace samples
